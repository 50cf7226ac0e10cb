#!/bin/bash
# ci/bench-campaign.sh [--runs N] [--seconds S] [--long SECONDS] [--no-long]
# Figures for campaigns that keep going (`lossfuzz fuzz`, harness/tools/campaign):
#  1. time to each distinct finding: N runs (default 3) of one campaign of
#     each buggy example - ce_three_bugs.py (three planted bugs), ce_buggy.so
#     (two), and ce_triton.py:upstream_first when .venv has triton - from an
#     empty corpus, each with its own --seed, S seconds (default 60): every
#     signature the campaign reports and when it first met it;
#  2. cases/s of the Triton example (ce_triton.py:cross_entropy, Triton's
#     interpreter) at --jobs 1 and 2: the cases its kernel ran a second (the
#     rest lie outside its claims), S seconds each;
#  3. a LONG-second (default 300) campaign of each correct example -
#     F.cross_entropy itself (ce_python.py:wrapper), the Triton kernel, the
#     kernel that claims its in-place gradient - which must find nothing.
# Exit 1 when a run misses a planted bug or a correct example has a finding.
# Run nothing else meanwhile: the figures assume the CPU is otherwise idle.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=bench-campaign
# shellcheck source=ci/bench-lib.sh
. ci/bench-lib.sh

runs=3 seconds=60 long=300
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage 0 ;;
    --runs) runs=${2:?--runs needs a value}; shift ;;
    --seconds) seconds=${2:?--seconds needs a value}; shift ;;
    --long) long=${2:?--long needs a value}; shift ;;
    --no-long) long=0 ;;
    *) die "unknown option $1" ;;
    esac
    shift
done
[ -x build/lossfuzz ] || die "build/lossfuzz is missing: run ci/build.sh"
triton=0
.venv/bin/python3 -c "import triton" 2>/dev/null && triton=1
[ $triton = 1 ] && export LOSSFUZZ_PYTHON=$PWD/.venv/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/empty"
status=0

# KERNEL MIN-SIGNATURES: the campaigns' finding lines, one table row per signature and run.
buggy=("py:examples/kernels/ce_three_bugs.py:cross_entropy 3 value-mismatch/kernel shape-mismatch/kernel grad-mismatch/kernel"
       "build/examples/kernels/ce_buggy.so 2 kernel-silent/label_out_of_range oob-read/kernel")
[ $triton = 1 ] && buggy+=("py:examples/kernels/ce_triton.py:upstream_first 1 grad-mismatch/kernel")
echo "== time to each distinct finding: $runs runs of ${seconds} s from an empty corpus (seconds from the campaign's start) =="
for entry in "${buggy[@]}"; do
    read -r kernel _ bugs <<<"$entry"
    echo "-- $kernel"
    for r in $(seq 1 "$runs"); do
        out=$(build/lossfuzz fuzz --corpus "$work/empty" --seed "$r" --seconds "$seconds" --kernel "$kernel" \
            --out "$work/run" 2>/dev/null || true)
        echo "$out" | awk -v r="$r" '/^finding / { t = $0; sub(/.*\(after /, "", t); sub(/ s\).*/, "", t)
                                                   printf "   run %d  %7s s  %s\n", r, t, $2 }'
        echo "$out" | tail -1 | sed "s/^/   run $r  /; s/ (seeds: .*//"
        for bug in $bugs; do
            echo "$out" | grep -q "^finding $bug" || { echo "   run $r MISSED $bug"; status=1; }
        done
    done
done

if [ $triton = 1 ]; then
    echo "== the Triton example's cases a second (interpreted, ${seconds} s) =="
    for jobs in 1 2; do
        out=$(build/lossfuzz fuzz --seconds "$seconds" --jobs "$jobs" \
            --kernel py:examples/kernels/ce_triton.py:cross_entropy --out "$work/rate" 2>/dev/null | tail -1)
        echo "   --jobs $jobs: $(echo "$out" | sed 's/.*cases in/cases in/; s/, findings.*//')"
    done
else
    echo "== no triton in .venv (ci/setup.sh): the Triton figures are left out =="
fi

if [ "$long" != 0 ]; then
    correct=("py:examples/kernels/ce_python.py:wrapper" "py:examples/kernels/ce_in_place_claimed.py:cross_entropy")
    [ $triton = 1 ] && correct+=("py:examples/kernels/ce_triton.py:cross_entropy")
    echo "== ${long} s campaigns of the correct examples (no finding allowed) =="
    for kernel in "${correct[@]}"; do
        out=$(build/lossfuzz fuzz --seconds "$long" --kernel "$kernel" --out "$work/long" 2>/dev/null) && rc=0 || rc=$?
        echo "   $kernel: $(echo "$out" | tail -1 | sed 's/ (seeds: .*//')"
        [ $rc = 0 ] || { echo "   FINDING: $(grep '^### ' "$work/long/report.md" | head -3)"; status=1; }
    done
fi
exit $status
