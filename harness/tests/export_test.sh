#!/bin/sh
# export_test.sh LOSSFUZZ PYTHON - `lossfuzz export` end to end: a short
# campaign on the buggy example kernel (ce_python.py rows_buggy), its entries
# exported; each script exits 1 on the kernel, 0 with PyTorch's own function
# in its place, 2 where its kernel cannot be loaded, and runs from another
# folder (the kernel's file copied beside it); the pytest file fails while the
# bugs are there; one repro with --kernel; a C library's script replays through
# lossfuzz; bad input exits 2. Skips (77) without a python3 with torch.
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
for issue in "$tmp"/c/repros/*.md; do  # an entry's issue text and script (beside them: the kernel's file, the mends)
    n=$((n + 1)) script=${issue%.md}.py
    [ -f "$script" ] && ok || fail "$issue: no script beside it"
    expect 1 "BUG: " sh -c "cd / && '$py' '$script'"
    expect 0 "fixed: " "$py" "$script" torch.nn.functional:cross_entropy
done
[ "$n" -gt 0 ] && ok || fail "the campaign's entries gave no script"
[ -f "$tmp/c/repros/ce_python.py" ] && ok || fail "the kernel's file of this tree is not copied beside its scripts"
expect 2 "CANNOT RUN" "$py" "$script" no_such_module_here:cross_entropy
if "$py" -c "import pytest" 2>/dev/null; then
    expect 1 "failed" sh -c "cd '$tmp' && '$py' -m pytest -q -p no:cacheprovider test_entries.py"
else
    echo "skipped: the pytest file's run: $py has no pytest"
fi
# one repro, its kernel named
set -- "$tmp"/c/repros/*.json
expect 0 ".py" env LOSSFUZZ_PYTHON="$py" "$lossfuzz" export --kernel "$kernel" --out "$tmp/one" "$1"
# a C library's entry: its script replays the repro through lossfuzz, and says so
lib=$(dirname "$lossfuzz")/examples/kernels/ce_buggy.so
if [ -f "$lib" ]; then
    "$lossfuzz" fuzz --seconds 2 --seed 1 --kernel "$lib" --out "$tmp/so" >/dev/null 2>&1
    expect 0 ".py" env LOSSFUZZ_PYTHON="$py" "$lossfuzz" export "$tmp/so" --out "$tmp/so-scripts"
    set -- "$tmp"/so-scripts/*.md
    set -- "${1%.md}.py"
    expect 0 "through lossfuzz" cat "$1"
    expect 1 "FINDING" sh -c "cd / && '$py' '$1'"
fi
set -- "$tmp"/c/repros/*.json
expect 2 "no such" env LOSSFUZZ_PYTHON="$py" "$lossfuzz" export "$tmp/none"
expect 2 "needs --kernel" env LOSSFUZZ_PYTHON="$py" "$lossfuzz" export "$1"
finish
