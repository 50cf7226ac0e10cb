#!/bin/bash
# ci/bench-mutants.sh [--runs N] [--cap SECONDS] [--engines "libfuzzer afl"]
#                     [--corpus seeds|drop|empty|all] [--keep DIR] [MUTANT...]
# Time to first finding for each planted bug (fuzzers/mutants/mutants.txt; its
# third column names the bug's fuzz target): for each mutant, engine, corpus
# and run, fuzzes the mutant build from a fresh work corpus until the first
# finding or SECONDS (default 60), with a different engine seed per run
# (libFuzzer -seed=R, AFL++ -s R). libFuzzer: ASan + UBSan build, the flags of
# fuzzers/TARGET.options as ci/fuzz.sh. AFL++: plain build + the lossfuzz
# custom mutator. A run counts as "found" only when its first finding is the
# planted one (its DEDUP_TOKEN; an ASan or UBSan report for sanitizer/...
# rows). Builds are done first and not timed. Which seeds already trigger each bug is always measured (the replay
# driver over corpus/TARGET): those find it by seed replay, at start-up.
#   --runs N            runs per mutant, engine and corpus (default 3)
#   --cap SECONDS       stop a run after this long (default 60)
#   --engines LIST      libfuzzer, afl or both (default "libfuzzer afl")
#   --corpus MODE       what the engine starts from (default seeds):
#                         seeds  corpus/TARGET
#                         drop   corpus/TARGET without the seeds that already
#                                trigger the bug: found by mutation or not at all
#                         empty  nothing: libFuzzer gets no seed directory;
#                                AFL++, which needs an input, one seed of 16 zero
#                                bytes (the simplest case the decoder makes)
#                         all    each of the three
#   --drop-seed-hits    the same as --corpus drop
#   --keep DIR          keep every run's work directory and log under DIR
# Ends with a table, one row per mutant and engine: the seeds that trigger it,
# the median time to find it and found k/R runs for each corpus, the median
# execs/s, and how it is found (seed replay, mutation).
# Run nothing else meanwhile: the figures assume the CPU is otherwise idle.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=bench-mutants
# shellcheck source=ci/bench-lib.sh
. ci/bench-lib.sh

runs=3 cap=60 engines="libfuzzer afl" corpus=seeds keep="" mutants=()
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage 0 ;;
    --runs) runs=${2:?--runs needs a value}; shift ;;
    --cap) cap=${2:?--cap needs a value}; shift ;;
    --engines) engines=${2:?--engines needs a value}; shift ;;
    --corpus) corpus=${2:?--corpus needs a value}; shift ;;
    --drop-seed-hits) corpus=drop ;;
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
case $corpus in seeds|drop|empty) modes=$corpus ;; all) modes="seeds drop empty" ;;
*) die "--corpus must be seeds, drop, empty or all" ;; esac

read_mutants
if [ ${#mutants[@]} -eq 0 ]; then mutants=("${mutant_names[@]}"); fi
for m in "${mutants[@]}"; do [ -n "${expected[$m]:-}" ] || die "unknown mutant $m (see fuzzers/mutants/mutants.txt)"; done

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
results=$tmp/results.tsv # mutant engine corpus run found seconds execs_per_s first_finding [copy]
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
# AFL++ needs one input to start from: 16 zero bytes decode to the simplest
# case. libFuzzer with no corpus starts from the empty input.
mkdir -p "$tmp/empty-afl"
head -c 16 /dev/zero >"$tmp/empty-afl/zeros"
: >"$tmp/empty-input"
declare -A lf_dir afl_dir hits_of nhits start_hits
for m in "${mutants[@]}"; do
    t=$(target_of "$m")
    [[ " $engines " != *" libfuzzer "* ]] || lf_dir[$m]=$(build libfuzzer --sanitize --mutant "$m")
    [[ " $engines " != *" afl "* ]] || afl_dir[$m]=$(build afl --mutant "$m")
    # Seeds that already trigger the bug (replay driver, ASan + UBSan build).
    rdir=$(build replay --sanitize --mutant "$m")
    "$rdir/fuzzers/replay_$t" --timeout 30 "corpus/$t" >"$tmp/seeds-$m.log" 2>&1 || true
    sed -n 's/^FAIL \([^:]*\): .*/\1/p' "$tmp/seeds-$m.log" >"$tmp/seedhits-$m.txt"
    nhits[$m]=$(wc -l <"$tmp/seedhits-$m.txt")
    hits_of[$m]="${nhits[$m]}/$(ls "corpus/$t" | wc -l)"
    if [[ " $modes " == *" drop "* ]]; then
        mkdir -p "$tmp/seeds-$m"
        cp "corpus/$t"/* "$tmp/seeds-$m/"
        while read -r f; do rm -f "$tmp/seeds-$m/$(basename "$f")"; done <"$tmp/seedhits-$m.txt"
    fi
    # Whether an empty corpus's start input triggers it already: then that is no mutation either.
    "$rdir/fuzzers/replay_$t" --timeout 30 "$tmp/empty-input" "$tmp/empty-afl/zeros" >"$tmp/start-$m.log" 2>&1 || true
    start_hits[$m,libfuzzer]=$(grep -cF "FAIL $tmp/empty-input:" "$tmp/start-$m.log" || true)
    start_hits[$m,afl]=$(grep -cF "FAIL $tmp/empty-afl/zeros:" "$tmp/start-$m.log" || true)
    echo "   $m ($t): ${hits_of[$m]} seeds already trigger it$([ "${start_hits[$m,libfuzzer]}${start_hits[$m,afl]}" = 00 ] ||
        echo ", and so does an empty corpus's start input")"
done
seeds_for() { # MUTANT CORPUS ENGINE: the seed directory, or "" for none
    case $2 in
    seeds) echo "$root/corpus/$(target_of "$1")" ;;
    drop) echo "$tmp/seeds-$1" ;;
    empty) [ "$3" = afl ] && echo "$tmp/empty-afl" || echo "" ;;
    esac
}

# Each run sets: found (1 when the first finding is the planted one), secs
# (time to it, or to the end of the run), eps (execs/s), first (the first
# finding's token or "none") and crash (its input file, or "").
run_libfuzzer() { # MUTANT RUN WORKDIR SEEDS ("" for none)
    local m=$1 r=$2 w=$3 seeds=$4 t bin start end execs flags
    t=$(target_of "$m")
    libfuzzer_flags "$t"
    bin=$root/${lf_dir[$m]}/fuzzers/$t
    mkdir -p "$w/corpus" "$w/findings"
    start=$(now)
    (cd "$w" && LOSSFUZZ_FINDINGS=$w/findings LOSSFUZZ_BACKEND=sim timeout -s INT $((cap + 60)) "$bin" \
        -seed="$r" -max_total_time="$cap" "${flags[@]}" \
        -print_final_stats=1 -artifact_prefix="$w/" corpus ${seeds:+"$seeds"}) >"$w/log" 2>&1 || true
    end=$(now)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    execs=$(awk '/^stat::number_of_executed_units/ { n = $2 } END { print n + 0 }' "$w/log")
    eps=$(awk -v n="$execs" -v s="$secs" 'BEGIN { printf "%.0f", n / (s > 0 ? s : 1) }')
    found=0
    ! grep -qE "$(needle_of "$m")" "$w/log" || found=1
    first=$(first_finding "$w/log")
    crash=$(ls "$w"/crash-* "$w"/timeout-* "$w"/oom-* "$w"/leak-* 2>/dev/null | head -1 || true)
}

run_afl() { # MUTANT RUN WORKDIR SEEDS
    local m=$1 r=$2 w=$3 seeds=$4 t bin start f
    t=$(target_of "$m")
    bin=$root/${afl_dir[$m]}/fuzzers/$t
    mkdir -p "$w"
    start=$(now)
    AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_TRY_AFFINITY=1 \
        AFL_FAST_CAL=1 AFL_STATSD=0 AFL_BENCH_UNTIL_CRASH=1 AFL_CUSTOM_MUTATOR_LIBRARY="$mutator/lf_afl_mutator_$t.so" \
        LOSSFUZZ_FINDINGS="" LOSSFUZZ_BACKEND=sim timeout -s INT $((cap + 60)) \
        afl-fuzz -i "$seeds" -o "$w/afl" -V "$cap" -x "fuzzers/$t.dict" -t 10000 -s "$r" -- "$bin" \
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

total=$((${#mutants[@]} * runs * $(wc -w <<<"$engines") * $(wc -w <<<"$modes"))) i=0
echo "== $total runs, cap $cap s each, corpus: $modes"
for m in "${mutants[@]}"; do
    for e in $engines; do
        for mode in $modes; do
            seeds=$(seeds_for "$m" "$mode" "$e")
            for r in $(seq 1 "$runs"); do
                i=$((i + 1))
                w=$tmp/$m-$e-$mode-$r
                if [ "$mode" = drop ] && [ "${nhits[$m]}" = 0 ] && [[ " $modes " == *" seeds "* ]]; then
                    # No seed triggers it: the seeds runs were this already.
                    awk -F'\t' -v OFS='\t' -v m="$m" -v e="$e" -v r="$r" \
                        '$1 == m && $2 == e && $3 == "seeds" && $4 == r { $3 = "drop"; print $0, "copy" }' "$results" >>"$results.drop"
                    cat "$results.drop" >>"$results" && rm -f "$results.drop"
                    printf '   [%d/%d] %-20s %-9s %-5s run %d: as seeds (no seed triggers it)\n' "$i" "$total" "$m" "$e" "$mode" "$r"
                    continue
                fi
                if [ "$mode" = drop ] && [ -z "$(ls -A "$seeds")" ]; then
                    printf '%s\t%s\t%s\t%s\tn\t0\t0\tnone\n' "$m" "$e" "$mode" "$r" >>"$results"
                    printf '   [%d/%d] %-20s %-9s %-5s run %d: no run, every seed triggers it\n' "$i" "$total" "$m" "$e" "$mode" "$r"
                    continue
                fi
                "run_$e" "$m" "$r" "$w" "$seeds"
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$e" "$mode" "$r" "$found" "$secs" "$eps" "$first" >>"$results"
                printf '   [%d/%d] %-20s %-9s %-5s run %d: %s after %s s, %s execs/s (first finding: %s)\n' \
                    "$i" "$total" "$m" "$e" "$mode" "$r" \
                    "$(case $found in 1) echo found ;; x) echo 'no run' ;; *) echo 'not found' ;; esac)" "$secs" "$eps" "$first"
                if [ "$found" != 1 ] && [ "$first" != none ]; then
                    if [ -n "$crash" ]; then # kept for a look, whatever --keep says
                        mkdir -p "$saved"; cp "$crash" "$saved/$m-$e-$mode-$r.input"; crash=$saved/$m-$e-$mode-$r.input
                    fi
                    case $first in
                    afl-fuzz\ failed*) notes+=("$m $e $mode run $r: $first") ;;
                    *) notes+=("$m $e $mode run $r: first finding $first, not the planted ${expected[$m]}; $(on_correct_build "$e" "$m" "$crash")") ;;
                    esac
                fi
                [ -n "$keep" ] || rm -rf "$w"
            done
        done
    done
done

# Per corpus: the median time over all runs, a run without the planted
# finding counting as "more than the cap", and found k/R; median execs/s over
# every run of the row.
echo
echo "Planted bugs: time to first finding (cap $cap s, $runs runs, $(nproc) cores, $(git rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')$([ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || echo ', working tree modified'))"
fmt='%-20s | %-9s | %-10s | %-17s | %-17s | %-17s | %-8s | %s\n'
printf "$fmt" mutant engine "seeds that" "from seeds" "hits dropped" "empty corpus" "median" "found by"
printf "$fmt" "" "" "trigger it" "median s (k/R)" "median s (k/R)" "median s (k/R)" "execs/s" ""
printf '%s\n' "---------------------+-----------+------------+-------------------+-------------------+-------------------+----------+---------------------"
for m in "${mutants[@]}"; do
    for e in $engines; do
        awk -F'\t' -v m="$m" -v e="$e" -v cap="$cap" -v hits="${hits_of[$m]}" -v start="${start_hits[$m,$e]}" -v fmt="$fmt" '
            function median(a, n,   i, j, t) { # sorts a[1..n] (insertion), returns the middle
                for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
                return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            }
            function cell(c,   k, t, i) { # "median (k/R)" for corpus c
                if (!n[c]) return "-"
                if (skipped[c] == n[c]) return "every seed hits"
                if (failed[c] == n[c]) return "afl did not start"
                for (i = 1; i <= n[c]; i++) t[i] = secs[c, i]
                k = median(t, n[c])
                return (k >= 1e17 ? "> " cap : sprintf("%.2f", k)) " (" f[c] "/" n[c] (other[c] ? ", " other[c] " other" : "") ")"
            }
            $1 == m && $2 == e {
                c = $3; n[c]++; f[c] += $5 == 1; failed[c] += $5 == "x"; skipped[c] += $5 == "n"
                other[c] += $5 == 0 && $8 != "none"; secs[c, n[c]] = $5 == 1 ? $6 : 1e18
                if ($5 != "n" && $9 != "copy") x[++nx] = $7 # a copied row is counted once
            }
            END {
                split(hits, h, "/")
                by = h[1] > 0 ? "seed replay" : ""
                if (start && f["empty"]) by = by (by ? ", " : "") "empty start input"
                if (f["drop"] || (!start && f["empty"]) || (h[1] == 0 && f["seeds"])) by = by (by ? ", " : "") "mutation"
                if (nx == 0 || failed["seeds"] + failed["drop"] + failed["empty"] == nx) by = "no run"
                printf fmt, m, e, hits, cell("seeds"), cell("drop"), cell("empty"), nx ? sprintf("%.0f", median(x, nx)) : "-", by ? by : "not found"
            }' "$results"
    done
done
echo "seeds that trigger it: found by seed replay, at start-up. (k/R): runs whose first finding was the planted"
echo "one, of R; k other: runs that stopped at another finding first (see Notes). Time: median over all runs, a"
echo "run without the planted finding counting as more than the cap. Hits dropped: the seeds that trigger it left"
echo "out, so found by mutation. Empty corpus: libFuzzer with no seed directory (it starts from the empty input),"
echo "AFL++ from one seed of 16 zero bytes; \"empty start input\" when that input triggers the bug itself. A run"
echo "that ends on a seed (well under 1 s) mostly measures start-up, so its execs/s is low."
[ ${#notes[@]} -eq 0 ] || { echo; echo "Notes:"; printf '  %s\n' "${notes[@]}"; }
echo "(raw results: one line per run in $results$([ -n "$keep" ] || echo ', removed on exit; use --keep DIR to keep them'))"
