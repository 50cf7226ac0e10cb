#!/bin/bash
# ci/bench-mutants.sh [--runs N] [--cap SECONDS] [--engines "libfuzzer afl"]
#                     [--drop-seed-hits] [--keep DIR] [MUTANT...]
# Time to first finding for each planted bug (fuzzers/mutants/mutants.txt):
# for each mutant, engine and run, fuzzes the mutant build from a fresh, empty
# work corpus seeded from corpus/TARGET until the first finding or SECONDS
# (default 60), with a different engine seed per run (libFuzzer -seed=R,
# AFL++ -s R). libFuzzer: ASan + UBSan build, flags as ci/fuzz.sh. AFL++:
# plain build + the lossfuzz custom mutator. A run counts as "found" only when
# its first finding is the planted one (its DEDUP_TOKEN; an ASan or UBSan
# report for sanitizer/... rows). Builds are done first and not timed.
#   --runs N            runs per mutant and engine (default 3)
#   --cap SECONDS       stop a run after this long (default 60)
#   --engines LIST      libfuzzer, afl or both (default "libfuzzer afl")
#   --drop-seed-hits    leave out the seeds that already trigger the bug, so
#                       the engine has to find it by mutation
#   --keep DIR          keep every run's work directory and log under DIR
# Ends with a table: mutant | engine | median time to first finding | found
# in N/R runs | median execs/s | seeds that already trigger the bug.
# Run nothing else meanwhile: the figures assume the CPU is otherwise idle.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=bench-mutants
# shellcheck source=ci/bench-lib.sh
. ci/bench-lib.sh

runs=3 cap=60 engines="libfuzzer afl" drop=0 keep="" mutants=()
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage 0 ;;
    --runs) runs=${2:?--runs needs a value}; shift ;;
    --cap) cap=${2:?--cap needs a value}; shift ;;
    --engines) engines=${2:?--engines needs a value}; shift ;;
    --drop-seed-hits) drop=1 ;;
    --keep) keep=${2:?--keep needs a directory}; shift ;;
    -*) echo "bench-mutants: unknown option $1" >&2; usage ;;
    *) mutants+=("$1") ;;
    esac
    shift
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[[ $cap =~ ^[1-9][0-9]*$ ]] || die "--cap must be a positive integer (seconds)"
for e in $engines; do case $e in libfuzzer|afl) ;; *) die "unknown engine $e (libfuzzer, afl)" ;; esac; done
[ -n "${engines// /}" ] || die "--engines is empty"
! [[ " $engines " == *" afl "* ]] || command -v afl-fuzz >/dev/null || die "afl-fuzz not found (ci/setup.sh installs it)"

# The planted bugs and the finding each must give.
declare -A expected
all=()
while read -r name exp _; do
    case $name in ''|'#'*) continue ;; esac
    expected[$name]=$exp
    all+=("$name")
done <fuzzers/mutants/mutants.txt
if [ ${#mutants[@]} -eq 0 ]; then mutants=("${all[@]}"); fi
for m in "${mutants[@]}"; do [ -n "${expected[$m]:-}" ] || die "unknown mutant $m (see fuzzers/mutants/mutants.txt)"; done

target_of() { case $1 in prob_mean_by_batch) echo fuzz_prob ;; *) echo fuzz_class ;; esac; }
needle_of() { # MUTANT: a grep -E pattern for the planted finding in a log
    case ${expected[$1]} in
    asan/*) echo "AddressSanitizer: ${expected[$1]#asan/}" ;;
    sanitizer/*) echo "AddressSanitizer: |runtime error: " ;; # a stray access: ASan or UBSan reports it
    *) echo "DEDUP_TOKEN: ${expected[$1]}\$" ;;
    esac
}
first_finding() { # LOG: the first finding in a log, in a few words ("none" if there is none)
    local l
    l=$(grep -m1 -E 'DEDUP_TOKEN: |AddressSanitizer: [a-z-]+|runtime error: |lf_decode: |ERROR: libFuzzer: ' "$1") || { echo none; return; }
    case $l in
    *DEDUP_TOKEN:*) echo "DEDUP_TOKEN: ${l#*DEDUP_TOKEN: }" ;;
    *AddressSanitizer:*) grep -m1 -oE 'AddressSanitizer: [a-z-]+' <<<"$l" ;;
    *"runtime error: "*) echo "UBSan: $(sed 's/.*runtime error: //; s/0x[0-9a-f]*/<addr>/g' <<<"$l") at $(basename "${l%%: runtime error*}")" ;;
    *) sed 's/^.*\(lf_decode: \|ERROR: libFuzzer: \)/\1/' <<<"$l" ;;
    esac
}
quietly() { # LOG COMMAND...: runs COMMAND with its output in LOG, and without bash's
    local log=$1    # "Aborted" line when it dies of a signal (that line goes to /dev/null)
    shift
    ("$@" >"$log" 2>&1; exit $?) 2>/dev/null
}
now() { date +%s.%N; }

if [ -n "$keep" ]; then mkdir -p "$keep"; tmp=$(cd "$keep" && pwd); else
    tmp=$(mktemp -d /tmp/bench-mutants.XXXXXX); trap 'rm -rf "$tmp"' EXIT; fi
saved=${TMPDIR:-/tmp}/bench-mutants-findings-$(date +%Y%m%d-%H%M%S) # inputs of findings other than the planted one
results=$tmp/results.tsv # mutant engine run found seconds execs_per_s first_finding
: >"$results"
notes=()

echo "== building (not timed)"
root=$PWD
declare -A good_dir
for e in $engines; do # the correct builds, to tell a planted finding from a real one
    case $e in libfuzzer) good_dir[$e]=$(build libfuzzer --sanitize) ;; afl) good_dir[$e]=$(build afl) ;; esac
done
mutator=""
[[ " $engines " != *" afl "* ]] || mutator=$PWD/$(build replay)/fuzzers
declare -A lf_dir afl_dir seeds_of hits_of
for m in "${mutants[@]}"; do
    t=$(target_of "$m")
    [[ " $engines " != *" libfuzzer "* ]] || lf_dir[$m]=$(build libfuzzer --sanitize --mutant "$m")
    [[ " $engines " != *" afl "* ]] || afl_dir[$m]=$(build afl --mutant "$m")
    # Seeds that already trigger the bug (replay driver, ASan + UBSan build).
    rdir=$(build replay --sanitize --mutant "$m")
    "$rdir/fuzzers/replay_$t" --timeout 30 "corpus/$t" >"$tmp/seeds-$m.log" 2>&1 || true
    sed -n 's/^FAIL \([^:]*\): .*/\1/p' "$tmp/seeds-$m.log" >"$tmp/seedhits-$m.txt"
    hits_of[$m]="$(wc -l <"$tmp/seedhits-$m.txt")/$(ls "corpus/$t" | wc -l)"
    seeds_of[$m]=$PWD/corpus/$t
    if [ $drop = 1 ]; then
        mkdir -p "$tmp/seeds-$m"
        cp "corpus/$t"/* "$tmp/seeds-$m/"
        while read -r f; do rm -f "$tmp/seeds-$m/$(basename "$f")"; done <"$tmp/seedhits-$m.txt"
        [ -n "$(ls -A "$tmp/seeds-$m")" ] || die "$m: every seed triggers the bug; nothing left with --drop-seed-hits"
        seeds_of[$m]=$tmp/seeds-$m
    fi
    echo "   $m ($t): ${hits_of[$m]} seeds already trigger it"
done

# Each run sets: found (1 when the first finding is the planted one), secs
# (time to it, or to the end of the run), eps (execs/s), first (the first
# finding's token or "none") and crash (its input file, or "").
run_libfuzzer() { # MUTANT RUN WORKDIR
    local m=$1 r=$2 w=$3 t bin start end execs
    t=$(target_of "$m")
    bin=$root/${lf_dir[$m]}/fuzzers/$t
    mkdir -p "$w/corpus" "$w/findings"
    start=$(now)
    (cd "$w" && LOSSFUZZ_FINDINGS=$w/findings LOSSFUZZ_BACKEND=sim timeout -s INT $((cap + 60)) "$bin" \
        -seed="$r" -max_total_time="$cap" -dict="$root/fuzzers/$t.dict" -max_len=4096 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$w/" corpus "${seeds_of[$m]}") >"$w/log" 2>&1 || true
    end=$(now)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    execs=$(awk '/^stat::number_of_executed_units/ { n = $2 } END { print n + 0 }' "$w/log")
    eps=$(awk -v n="$execs" -v s="$secs" 'BEGIN { printf "%.0f", n / (s > 0 ? s : 1) }')
    found=0
    ! grep -qE "$(needle_of "$m")" "$w/log" || found=1
    first=$(first_finding "$w/log")
    crash=$(ls "$w"/crash-* "$w"/timeout-* "$w"/oom-* "$w"/leak-* 2>/dev/null | head -1 || true)
}

run_afl() { # MUTANT RUN WORKDIR
    local m=$1 r=$2 w=$3 t bin start f
    t=$(target_of "$m")
    bin=$root/${afl_dir[$m]}/fuzzers/$t
    mkdir -p "$w"
    start=$(now)
    AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
        AFL_FAST_CAL=1 AFL_STATSD=0 AFL_BENCH_UNTIL_CRASH=1 AFL_CUSTOM_MUTATOR_LIBRARY="$mutator/lf_afl_mutator_$t.so" \
        LOSSFUZZ_FINDINGS="" LOSSFUZZ_BACKEND=sim timeout -s INT $((cap + 60)) \
        afl-fuzz -i "${seeds_of[$m]}" -o "$w/afl" -V "$cap" -x "fuzzers/$t.dict" -t 10000 -s "$r" -- "$bin" \
        >"$w/log" 2>&1 || true
    found=0 first=none crash="" eps=0
    if [ ! -f "$w/afl/default/fuzzer_stats" ]; then
        first="afl-fuzz failed: $(sed 's/\x1b[[(][0-9;?]*[a-zA-Z]//g' "$w/log" | sed -n 's/.*PROGRAM ABORT : *//p' | head -1)"
        echo "bench-mutants: $first ($w/log)" >&2
        found=x
        secs=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
        return
    fi
    crash=""
    for f in "$w"/afl/default/crashes/id:*; do [ -e "$f" ] && crash=$f && break; done # the glob sorts: id:000000 first
    if [ -n "$crash" ]; then
        # The time the first crash file was written; its class from a replay.
        secs=$(awk -v a="$start" -v b="$(stat -c %.3Y "$crash")" 'BEGIN { printf "%.2f", b - a }')
        quietly "$w/replay.log" timeout 60 "$bin" "$crash" || true
        first=$(first_finding "$w/replay.log")
        [ "$first" != none ] || first="crash without a token"
        ! grep -qE "$(needle_of "$m")" "$w/replay.log" || found=1
    else
        secs=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
    fi
    eps=$(awk -F: '/^execs_per_sec/ { gsub(/ /, "", $2); printf "%.0f", $2 }' "$w/afl/default/fuzzer_stats")
}

# A finding other than the planted one: does the correct build fail on it too?
on_correct_build() { # ENGINE MUTANT CRASH
    local t
    t=$(target_of "$2")
    [ -n "$3" ] || { echo "no input saved"; return; }
    LOSSFUZZ_FINDINGS="" quietly "$3.correct.log" timeout 60 "$root/${good_dir[$1]}/fuzzers/$t" "$3" &&
        echo "the correct build passes on it" ||
        echo "the correct build fails on it too ($(first_finding "$3.correct.log")): a bug outside the mutant, input $3"
}

total=$(( ${#mutants[@]} * runs * $(wc -w <<<"$engines") )) i=0
echo "== $total runs, cap $cap s each$([ $drop = 1 ] && echo ', seeds that trigger the bug left out' || true)"
for m in "${mutants[@]}"; do
    for e in $engines; do
        for r in $(seq 1 "$runs"); do
            i=$((i + 1))
            w=$tmp/$m-$e-$r
            "run_$e" "$m" "$r" "$w"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$e" "$r" "$found" "$secs" "$eps" "$first" >>"$results"
            printf '   [%d/%d] %-20s %-9s run %d: %s after %s s, %s execs/s (first finding: %s)\n' \
                "$i" "$total" "$m" "$e" "$r" "$(case $found in 1) echo found ;; x) echo 'no run' ;; *) echo 'not found' ;; esac)" "$secs" "$eps" "$first"
            if [ "$found" != 1 ] && [ "$first" != none ]; then
                if [ -n "$crash" ]; then # kept for a look, whatever --keep says
                    mkdir -p "$saved"; cp "$crash" "$saved/$m-$e-$r.input"; crash=$saved/$m-$e-$r.input
                fi
                case $first in
                afl-fuzz\ failed*) notes+=("$m $e run $r: $first") ;;
                *) notes+=("$m $e run $r: first finding $first, not the planted ${expected[$m]}; $(on_correct_build "$e" "$m" "$crash")") ;;
                esac
            fi
            [ -n "$keep" ] || rm -rf "$w"
        done
    done
done

# Median time over all runs, a run without the planted finding counting as
# "more than the cap"; median execs/s over all runs.
echo
echo "Planted bugs: time to first finding (cap $cap s, $runs runs, $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')$([ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || echo ', working tree modified'))"
[ $drop = 0 ] || echo "Seeds that already trigger a bug were left out (--drop-seed-hits)."
printf '%-20s | %-9s | %-23s | %-13s | %-14s | %s\n' mutant engine "median time to find (s)" found "median execs/s" "seeds that trigger it"
printf '%s\n' "---------------------+-----------+-------------------------+---------------+----------------+----------------------"
for m in "${mutants[@]}"; do
    for e in $engines; do
        awk -F'\t' -v m="$m" -v e="$e" -v cap="$cap" -v hits="${hits_of[$m]}" '
            function median(a, n,   k, i, j, t) { # sorts a[1..n] (insertion), returns the middle
                for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            }
            $1 == m && $2 == e { n++; f += $4 == 1; failed += $4 == "x"; other += $4 == 0 && $7 != "none"; t[n] = $4 == 1 ? $5 : 1e18; x[n] = $6 }
            END {
                mt = median(t, n); mx = median(x, n)
                printf "%-20s | %-9s | %-23s | %-13s | %-14.0f | %s\n", m, e,
                    (failed == n ? "afl-fuzz did not start" : mt >= 1e17 ? "> " cap " (not found)" : sprintf("%.2f", mt)),
                    f "/" n (other ? " (" other " other)" : ""), mx, hits
            }' "$results"
    done
done
echo "found: runs whose first finding was the planted one; (k other): runs that stopped at another finding"
echo "first (see Notes). Time: median over all runs, a run without the planted finding counting as more than"
echo "the cap. A run that ends on a seed (well under 1 s) mostly measures start-up, so its execs/s is low."
[ ${#notes[@]} -eq 0 ] || { echo; echo "Notes:"; printf '  %s\n' "${notes[@]}"; }
echo "(raw results: one line per run in $results$([ -n "$keep" ] || echo ', removed on exit; use --keep DIR to keep them'))"
