#!/bin/bash
# ci/bench-kernels.sh [--runs N] [--cap SECONDS] [--corpus seeds|empty] [--check]
#                     [--no-rates] [--target T] [KERNEL...]
# Figures for kernels under test (include/lossfuzz/kernel.h, py:MODULE:FUNCTION):
#  1. time to first finding: for each KERNEL (default: the buggy examples,
#     build/examples/kernels/ce_buggy.so, ce_buggy_grad.so and ce_inplace.so,
#     ce_python.py's rows_buggy, fused_buggy and rows_lowp_sum, ce_linear.py's buggy ones
#     (fuzz_linear), and ce_triton.py's buggy ones when .venv has triton), N
#     libFuzzer runs of its fuzz target (ASan + UBSan build, as
#     ci/fuzz.sh) from a fresh work corpus, each with its own -seed, until
#     the first finding or SECONDS (default 60); its class and execs/s;
#  2. cases/s: `lossfuzz check` over regressions/ with lossfuzz's own paths
#     (in process, and through the executor's worker) and with each correct
#     example kernel, counting the cases judged (a case outside a kernel's
#     claims is skipped, not counted): the marginal rate, from one pass and
#     eleven, and what starting the workers costs.
#   --runs N        runs per kernel (default 3)
#   --cap SECONDS   stop a run after this long (default 60)
#   --corpus MODE   seeds: corpus/fuzz_class (default); empty: nothing
#   --check         exit 1 unless every run of every kernel finds something (CI)
#   --no-rates      only the times to first finding
#   --target T      the fuzz target for the KERNELs given (default fuzz_class;
#                   fuzz_linear for fused linear + cross-entropy kernels)
# Run nothing else meanwhile: the figures assume the CPU is otherwise idle.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=bench-kernels
# shellcheck source=ci/bench-lib.sh
. ci/bench-lib.sh

runs=3 cap=60 corpus=seeds check=0 rates=1 kernels=() runs_of=() target=fuzz_class
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage 0 ;;
    --runs) runs=${2:?--runs needs a value}; shift ;;
    --cap) cap=${2:?--cap needs a value}; shift ;;
    --corpus) corpus=${2:?--corpus needs a value}; shift ;;
    --check) check=1 ;;
    --no-rates) rates=0 ;;
    --target) target=${2:?--target needs a value}; shift ;;
    -*) echo "bench-kernels: unknown option $1" >&2; usage ;;
    *) kernels+=("$1") ;;
    esac
    shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[[ $cap =~ ^[1-9][0-9]*$ ]] || die "--cap must be a positive integer (seconds)"
case $corpus in seeds|empty) ;; *) die "--corpus must be seeds or empty" ;; esac
py=examples/kernels/ce_python.py
# Each kernel with its fuzz target, as "TARGET KERNEL".
for k in "${kernels[@]}"; do runs_of+=("$target $k"); done
if [ ${#kernels[@]} -eq 0 ]; then
    kernels=(build/examples/kernels/ce_buggy.so build/examples/kernels/ce_buggy_grad.so
             build/examples/kernels/ce_inplace.so "py:$py:rows_buggy" "py:$py:fused_buggy" "py:$py:rows_lowp_sum")
    for k in "${kernels[@]}"; do runs_of+=("fuzz_class $k"); done
    for b in chunked_frozen_crash chunked_mean_of_chunks; do runs_of+=("fuzz_linear py:examples/kernels/ce_linear.py:$b"); done
    runs_of+=("fuzz_linear build/examples/kernels/ce_linear_buggy.so")
    if .venv/bin/python3 -c "import triton" 2>/dev/null; then # ci/setup.sh puts it there
        for b in upstream_first scalar_none inplace frozen_crash all_ignored_zero; do
            runs_of+=("fuzz_class py:examples/kernels/ce_triton.py:$b")
        done
    else
        echo "bench-kernels: no triton in .venv (ci/setup.sh): the Triton examples are left out" >&2
    fi
fi
missed=0

echo "== building (not timed)"
ci/build.sh >/dev/null
dir=$(build libfuzzer --sanitize)
root=$PWD
tmp=$(mktemp -d /tmp/bench-kernels.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
absolute() { # a library or a py:FILE.py:FUNCTION by its absolute path: the runs happen elsewhere
    case $1 in
    py:*.py:*) local f=${1#py:}; echo "py:$(realpath "${f%:*}"):${1##*:}" ;;
    py:*) echo "$1" ;;
    *) realpath "$1" ;;
    esac
}

echo "== time to first finding: libFuzzer, cap $cap s, $runs runs, corpus $corpus"
printf '%-44s %-8s %-10s %-9s %s\n' kernel run seconds execs/s "first finding"
for tk in "${runs_of[@]}"; do
    t=${tk%% *} k=${tk#* }
    abs=$(absolute "$k")
    libfuzzer_flags "$t"
    found=0 times=()
    for r in $(seq 1 "$runs"); do
        w=$tmp/run-$r
        rm -rf "$w" && mkdir -p "$w/corpus" "$w/findings"
        seeds=()
        [ "$corpus" = empty ] || seeds=("$root/corpus/$t")
        start=$(date +%s.%N)
        (cd "$w" && LOSSFUZZ_FINDINGS=$w/findings LOSSFUZZ_BACKEND=sim LOSSFUZZ_KERNEL=$abs \
            LOSSFUZZ_WORKER=$root/$dir/lossfuzz timeout -s INT $((cap + 60)) "$root/$dir/fuzzers/$t" \
            -seed="$r" -max_total_time="$cap" "${flags[@]}" -print_final_stats=1 -artifact_prefix="$w/" \
            corpus "${seeds[@]}") >"$w/log" 2>&1 || true
        end=$(date +%s.%N)
        secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
        execs=$(awk '/^stat::number_of_executed_units/ { n = $2 } END { print n + 0 }' "$w/log")
        eps=$(awk -v n="$execs" -v s="$secs" 'BEGIN { printf "%.0f", n / (s > 0 ? s : 1) }')
        first=$(grep -m1 -oE 'DEDUP_TOKEN: [^ ]+' "$w/log" | cut -d' ' -f2 || true)
        if [ -n "$first" ]; then found=$((found + 1)); times+=("$secs"); else first=none; fi
        printf '%-44s %-8s %-10s %-9s %s\n' "$(basename "${k#py:}")" "$r" "$secs" "$eps" "$first"
    done
    median=$(printf '%s\n' "${times[@]:-}" | sort -g | awk 'NF { a[n++] = $1 } END { print n ? a[int((n - 1) / 2)] : "-" }')
    echo "   found $found/$runs, median $median s"
    [ "$found" -eq "$runs" ] || missed=$((missed + 1))
done
if [ "$rates" -eq 0 ]; then
    [ "$check" -eq 0 ] || [ "$missed" -eq 0 ] || { echo "bench-kernels: $missed kernels not found in every run"; exit 1; }
    exit 0
fi

echo "== cases/s: lossfuzz check over regressions/ once and eleven times (best of 3 each): the"
echo "   marginal rate per case judged, and the start-up (workers, a Python's import of torch)"
printf '%-40s %-7s %-9s %s\n' paths judged cases/s start-up
timed() { # CHECK-ARGS...: the best of 3 wall times, in seconds; the last line of output in $out
    local best="" s
    for _ in 1 2 3; do
        s=$(date +%s.%N)
        out=$(build/lossfuzz check "$@" 2>&1 | tail -1) || true
        s=$(awk -v a="$s" -v b="$(date +%s.%N)" 'BEGIN { printf "%.4f", b - a }')
        if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$s; fi
    done
    echo "$best"
}
cases_per_s() { # LABEL CHECK-ARGS...
    local label=$1 t1 t3 judged skipped
    shift
    t1=$(timed "$@" regressions/)
    t3=$(timed "$@" $(printf 'regressions/ %.0s' $(seq 11)))
    out=$(build/lossfuzz check "$@" regressions/ 2>&1 | tail -1) || true
    judged=$(awk '{ print $1 + $3 }' <<<"$out")
    skipped=$(grep -oE '[0-9]+ skipped' <<<"$out" | cut -d' ' -f1 || true)
    awk -v l="$label" -v n="$judged" -v a="$t1" -v b="$t3" -v k="${skipped:-0}" 'BEGIN {
        rate = (b > a) ? 10 * n / (b - a) : 0
        printf "%-40s %-7s %-9.0f %.2f s%s\n", l, n, rate, a - (rate ? n / rate : 0), k ? " (" k " skipped)" : "" }'
}
cases_per_s "built-in (spec, reference, guard)"
cases_per_s "built-in through the executor" --executor
cases_per_s "ce_plain.so (C, fenced buffers)" --kernel build/examples/kernels/ce_plain.so
cases_per_s "py rows (forward and backward)" --kernel "py:$py:rows"
cases_per_s "py wrapper (F.cross_entropy)" --kernel "py:$py:wrapper"
[ "$check" -eq 0 ] || [ "$missed" -eq 0 ] || { echo "bench-kernels: $missed kernels not found in every run"; exit 1; }
