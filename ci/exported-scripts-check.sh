#!/bin/bash
# Runs the standalone scripts `lossfuzz export` writes as a kernel's maintainers would: copied out of the tree,
# in a Python environment holding torch and the kernel's package only (no lossfuzz), each once as written
# (exit 1: the bug shows) and once with a faithful control in the kernel's place (exit 0). A row per script,
# then the counts; exits 1 unless every script shows its bug and passes with its control.
#
#   ci/exported-scripts-check.sh [--pytest] PYTHON FOLDER...
#
# FOLDER: a campaign's (its report.json), or kept findings (examples/kernels/released/findings/NAME/: repro
# cases and `kernel`, the kernel they are findings of). --pytest (CI): each folder's entries as one pytest
# file, one torch import, every test failing by its assertion (the bug shows); no controls.
#
# PYTHON: a fresh environment's interpreter (python3 -m venv E && E/bin/pip install torch==2.15.0 numpy;
# numpy for Triton's interpreter). The kernel's package comes from .released/ (install_released.sh's pinned
# copy) on PYTHONPATH, by the adapter's name; a kernel that is no released adapter gets none. Controls:
# F.cross_entropy or F.linear_cross_entropy, and for the LLM family's options lossfuzz's own composition
# (examples/kernels/llm/composition.py). Exit 2 is a script that says why it has no standalone form
# (counted) or one that could not call its kernel (CANNOT RUN: neither shown nor fixed).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
pytest=0
case ${1:-} in --pytest) pytest=1; shift ;; esac
PY=$1; shift
case $PY in */*) PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY") ;; esac  # the scripts run from elsewhere
package_of() {  # the adapter's file (copied beside the scripts in OUT) -> its package's folder in .released/, as
    # released_package.py's calls in it name it; none for another kernel (Liger: pip install --no-deps)
    [ -f "$2/$1" ] || return 0
    grep -ohE 'released_package\.(pinned_first\("|package_folder\("[^"]*", ")[^"]+' "$2/$1" | head -1 | sed 's/.*"//'
}
export_to() {  # FOLDER OUT [export options]: its entries' scripts into OUT
    local dir=$1 out=$2; shift 2
    if [ -f "$dir/report.json" ]; then
        "$ROOT/build/lossfuzz" export "$dir" --out "$out" "$@" > /dev/null
    else
        "$ROOT/build/lossfuzz" export --kernel "$(cat "$dir/kernel")" "$dir"/*.json --out "$out" "$@" > /dev/null
    fi
}
shows=0 fixed=0 total=0 why_not=0 bad=0
for dir in "$@"; do
    out=$(mktemp -d)
    if [ $pytest = 1 ]; then
        export_to "$dir" "$out" --pytest "$out/test_entries.py" || { echo "$dir: export failed"; bad=1; continue; }
        n=$(grep -c '^def test_' "$out/test_entries.py")
        if [ ! -f "$dir/report.json" ] && [ "$n" != "$(ls "$dir"/*.json | wc -l)" ]; then
            echo "$dir: $n of its $(ls "$dir"/*.json | wc -l) kept findings still show on its kernel"; bad=1
        fi
        pkg=$(package_of "$(sed -n "s/^    KERNEL = 'py:\([^:']*\).*/\1/p" "$out/test_entries.py" | head -1)" "$out")
        (cd "$out" && COLUMNS=1000 PYTHONPATH=${pkg:+$ROOT/.released/$pkg} "$PY" -m pytest -q -rf -p no:cacheprovider \
            test_entries.py > pytest.txt 2>&1)
        shown=$(grep -c '^FAILED .* - AssertionError' "$out/pytest.txt")
        echo "$(basename "$dir"): $n entries as pytest tests, $shown failing as their bug shows ($out/pytest.txt)"
        [ "$shown" = "$n" ] || { grep '^FAILED\|^ERROR\|passed' "$out/pytest.txt" | grep -v AssertionError; bad=1; }
        total=$((total + n)) shows=$((shows + shown))
        continue
    fi
    export_to "$dir" "$out" || { echo "$dir: export failed"; bad=1; continue; }
    for s in "$out"/*.py; do
        grep -q '^KERNEL = \|^"""No standalone script' "$s" || continue  # not the kernel's files or the mends
        kernel=$(sed -n "s/^KERNEL = 'py:\([^:']*\).*/\1/p" "$s")
        pkg=$(package_of "$kernel" "$out")
        control=torch.nn.functional:cross_entropy
        grep -q '^PYTORCH = F.linear_cross_entropy' "$s" && control=torch.nn.functional:linear_cross_entropy
        grep -q '^KEYWORDS = ' "$s" && control=$ROOT/examples/kernels/llm/composition.py:cross_entropy
        (cd "$out" && PYTHONPATH=${pkg:+$ROOT/.released/$pkg} timeout 300 "$PY" "$s" > "$s.kernel.txt" 2>&1); rk=$?
        (cd "$out" && PYTHONPATH=${pkg:+$ROOT/.released/$pkg} timeout 300 "$PY" "$s" "$control" > "$s.control.txt" 2>&1)
        rc=$?
        total=$((total + 1))
        if [ $rk = 2 ] && grep -q '^lossfuzz export' "$s.kernel.txt"; then
            why_not=$((why_not + 1))
        else
            [ $rk = 1 ] && shows=$((shows + 1))
            [ $rc = 0 ] && fixed=$((fixed + 1))
            [ $rk = 1 ] && [ $rc = 0 ] || bad=1
        fi
        printf '%s\t%s\tkernel %s\tcontrol %s\t%s\n' "$(basename "$dir")" "$(basename "$s" .py)" $rk $rc \
            "$(grep -m1 '^BUG\|^fixed\|^CANNOT RUN\|^lossfuzz export\|verdict' "$s.kernel.txt" | cut -c1-110)"
    done
    echo "scripts of $dir: $out"
done
if [ $pytest = 1 ]; then
    echo "entries: $total; failing as their bug shows: $shows"
else
    echo "scripts: $total; the bug shows (exit 1): $shows; exit 0 with the control: $fixed; why-not (exit 2): $why_not"
fi
exit $bad
