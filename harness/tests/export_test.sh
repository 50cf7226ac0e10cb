#!/bin/sh
# export_test.sh LOSSFUZZ PYTHON - `lossfuzz export` end to end: a short
# campaign on the buggy example kernel (ce_python.py rows_buggy), its entries
# exported; each script exits 1 on the kernel, 0 with PyTorch's own function
# in its place, and runs from another folder; the pytest file fails while the
# bugs are there; one repro with --kernel; bad input exits 2. Skips (77)
# without a python3 with torch.
. "$(dirname "$0")/lf_expect.sh"
lossfuzz=$1 py=$2
cd "$(dirname "$0")/../.." || exit 2
"$py" -c "import torch" 2>/dev/null || { echo "SKIP: $py has no torch"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernel=py:examples/kernels/ce_python.py:rows_buggy
LOSSFUZZ_PYTHON=$py "$lossfuzz" fuzz --seconds 6 --seed 1 --kernel "$kernel" --out "$tmp/c" >/dev/null 2>&1
expect 0 ".py" env LOSSFUZZ_PYTHON="$py" "$lossfuzz" export "$tmp/c" --pytest "$tmp/test_entries.py"
n=0
for script in "$tmp"/c/repros/*.py; do
    n=$((n + 1))
    [ -f "${script%.py}.md" ] && ok || fail "$script: no issue text beside it"
    expect 1 "BUG: " sh -c "cd / && '$py' '$script'"
    expect 0 "fixed: " "$py" "$script" torch.nn.functional:cross_entropy
done
[ "$n" -gt 0 ] && ok || fail "the campaign's entries gave no script"
expect 1 "failed" sh -c "cd '$tmp' && '$py' -m pytest -q -p no:cacheprovider test_entries.py"
# one repro, its kernel named
set -- "$tmp"/c/repros/*.json
expect 0 ".py" env LOSSFUZZ_PYTHON="$py" "$lossfuzz" export --kernel "$kernel" --out "$tmp/one" "$1"
expect 2 "no such" env LOSSFUZZ_PYTHON="$py" "$lossfuzz" export "$tmp/none"
expect 2 "needs --kernel" env LOSSFUZZ_PYTHON="$py" "$lossfuzz" export "$1"
finish
