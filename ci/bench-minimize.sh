#!/bin/bash
# ci/bench-minimize.sh [--find SECONDS] [--lf-runs N] [--keep-seed-hits] [--keep DIR] [MUTANT...]
# Compares three minimizers on the same crash inputs: libFuzzer
# -minimize_crash=1 -runs=N, afl-tmin and `lossfuzz minimize`. For each planted
# bug (default: six of fuzzers/mutants/mutants.txt) it builds the mutant,
# lets libFuzzer (ASan + UBSan build) find a crash file within SECONDS
# (default 60; -artifact_prefix), then minimizes that file three ways:
#   libFuzzer  same binary, -minimize_crash=1 -runs=N -seed=1 -exact_artifact_path
#   afl-tmin   the plain AFL++ build of the mutant (no ASan: an ASan-only bug
#              is no crash there, and the table says so)
#   lossfuzz   the mutant build's `lossfuzz minimize --target T`, which prints
#              "A -> B elements" and writes a JSON regression
# The byte minimizers are reported in bytes (the decoded case is not printed),
# lossfuzz in tensor elements before -> after and JSON bytes; all with wall
# time. Each result is replayed: a minimized input that gives another finding
# than the original is marked "(other)" and explained below the table.
#   --find SECONDS     time for libFuzzer to find the crash (default 60)
#   --lf-runs N        libFuzzer -runs for -minimize_crash (default 50000)
#   --keep-seed-hits   fuzz from all of corpus/TARGET; by default the seeds that
#                      already trigger the bug are left out, so the crash is a
#                      fuzzer-made input (a seed hit is used only if libFuzzer
#                      finds nothing in time)
#   --keep DIR         keep the inputs, outputs and logs under DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bench=bench-minimize
# shellcheck source=ci/bench-lib.sh
. ci/bench-lib.sh

find_s=60 lf_runs=50000 drop=1 keep="" mutants=()
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage 0 ;;
    --find) find_s=${2:?--find needs a value}; shift ;;
    --lf-runs) lf_runs=${2:?--lf-runs needs a value}; shift ;;
    --keep-seed-hits) drop=0 ;;
    --keep) keep=${2:?--keep needs a directory}; shift ;;
    -*) echo "bench-minimize: unknown option $1" >&2; usage ;;
    *) mutants+=("$1") ;;
    esac
    shift
done
[[ $find_s =~ ^[1-9][0-9]*$ ]] || die "--find must be a positive integer (seconds)"
[[ $lf_runs =~ ^[1-9][0-9]*$ ]] || die "--lf-runs must be a positive integer"
command -v afl-tmin >/dev/null || die "afl-tmin not found (ci/setup.sh installs it)"
[ ${#mutants[@]} -gt 0 ] || mutants=(off_by_one range_before_ignore all_ignored_zero neg_inf_prefix_nan read_before_ignore prob_mean_by_batch)
read_mutants
for m in "${mutants[@]}"; do [ -n "${expected[$m]:-}" ] || die "unknown mutant $m (see fuzzers/mutants/mutants.txt)"; done

root=$PWD
if [ -n "$keep" ]; then mkdir -p "$keep"; tmp=$(cd "$keep" && pwd); else
    tmp=$(mktemp -d /tmp/bench-minimize.XXXXXX); trap 'rm -rf "$tmp"' EXIT; fi
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
token_in() { # LOG: the first finding in a log, in a few words
    local l
    l=$(grep -m1 -E 'DEDUP_TOKEN: |AddressSanitizer: [a-z-]+|runtime error: |lf_decode: |ERROR: libFuzzer: ' "$1") || { echo "no finding"; return; }
    case $l in
    *DEDUP_TOKEN:*) echo "DEDUP_TOKEN: ${l#*DEDUP_TOKEN: }" ;;
    *AddressSanitizer:*) grep -m1 -oE 'AddressSanitizer: [a-z-]+' <<<"$l" ;;
    *"runtime error: "*) echo "UBSan: $(sed 's/.*runtime error: //; s/0x[0-9a-f]*/<addr>/g' <<<"$l") at $(basename "${l%%: runtime error*}")" ;;
    *) sed 's/^.*\(lf_decode: \|ERROR: libFuzzer: \)/\1/' <<<"$l" ;;
    esac
}
same_or_other() { # BIN FILE MUTANT: "" when FILE gives the planted finding, else " (other)"; logs to FILE.replay
    LOSSFUZZ_FINDINGS="" timeout 60 "$1" "$2" >"$2.replay" 2>&1 || true
    grep -qE "$(needle_of "$3")" "$2.replay" && return
    echo " (other)"
    note "$3: $(basename "$2") gives $(token_in "$2.replay"), not the planted ${expected[$3]}"
}

rows=()
: >"$tmp/notes"
note() { echo "$*" >>"$tmp/notes"; } # works from a $(...) subshell too
for m in "${mutants[@]}"; do
    t=$(target_of "$m") w=$tmp/$m
    mkdir -p "$w/corpus" "$w/lfz"
    echo "== $m ($t): building (not timed)"
    lfdir=$root/$(build libfuzzer --sanitize --mutant "$m")
    afldir=$root/$(build afl --mutant "$m")
    rdir=$root/$(build replay --sanitize --mutant "$m")
    lfbin=$lfdir/fuzzers/$t aflbin=$afldir/fuzzers/$t

    # 1. A crash input: libFuzzer from the seeds (less the ones that already
    # trigger the bug, by default).
    "$rdir/fuzzers/replay_$t" --timeout 30 "corpus/$t" >"$w/seeds.log" 2>&1 || true
    mapfile -t hits < <(sed -n 's/^FAIL \([^:]*\): .*/\1/p' "$w/seeds.log")
    cp -r "corpus/$t" "$w/seeds"
    [ $drop = 0 ] || for f in "${hits[@]}"; do rm -f "$w/seeds/$(basename "$f")"; done
    echo "   libFuzzer looks for a crash for up to $find_s s (${#hits[@]} seeds trigger it$([ $drop = 1 ] && echo ', left out' || true))"
    libfuzzer_flags "$t"
    start=$(now)
    (cd "$w" && LOSSFUZZ_FINDINGS="" timeout -s INT $((find_s + 60)) "$lfbin" -seed=1 -max_total_time="$find_s" \
        "${flags[@]}" -artifact_prefix="$w/" corpus seeds) >"$w/find.log" 2>&1 || true
    crash=$(ls "$w"/crash-* 2>/dev/null | head -1 || true)
    source="libFuzzer $(since "$start") s"
    if [ -z "$crash" ] && [ ${#hits[@]} -gt 0 ]; then
        crash=$w/seed-hit
        cp "$(ls -S "${hits[@]}" | tail -1)" "$crash" # the smallest seed that triggers it
        source="seed (none in $find_s s)"
    fi
    if [ -z "$crash" ]; then
        rows+=("$(printf '%-19s | %-28s | %s' "$m" "no crash in $find_s s" "-")")
        continue
    fi
    cp "$crash" "$w/input"
    crash=$w/input
    in_bytes=$(stat -c %s "$crash")
    mark=$(same_or_other "$lfbin" "$crash" "$m")
    echo "   crash input: $in_bytes bytes ($source), $(token_in "$crash.replay")"

    # 2. libFuzzer -minimize_crash.
    start=$(now)
    LOSSFUZZ_FINDINGS="" "$lfbin" -minimize_crash=1 -runs="$lf_runs" -seed=1 -exact_artifact_path="$w/libfuzzer.min" \
        "$crash" >"$w/libfuzzer-min.log" 2>&1 || true
    secs=$(since "$start")
    if [ -s "$w/libfuzzer.min" ]; then
        lf_cell="$(stat -c %s "$w/libfuzzer.min") B, $secs s$(same_or_other "$lfbin" "$w/libfuzzer.min" "$m")"
    else
        lf_cell="failed, $secs s"
        note "$m: libFuzzer -minimize_crash wrote nothing: $(grep -m1 -E 'CRASH_MIN|ERROR' "$w/libfuzzer-min.log" || tail -1 "$w/libfuzzer-min.log")"
    fi
    echo "   libFuzzer -minimize_crash: $lf_cell"

    # 3. afl-tmin on the plain AFL++ build.
    start=$(now)
    LOSSFUZZ_FINDINGS="" AFL_SKIP_BIN_CHECK=1 afl-tmin -i "$crash" -o "$w/afl-tmin.min" -- "$aflbin" 2>&1 |
        sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' >"$w/afl-tmin.log" || true
    secs=$(since "$start")
    if grep -q 'minimizing in crash mode' "$w/afl-tmin.log"; then
        tmin_cell="$(stat -c %s "$w/afl-tmin.min") B, $secs s$(same_or_other "$aflbin" "$w/afl-tmin.min" "$m")"
    elif grep -q 'terminates normally' "$w/afl-tmin.log"; then
        tmin_cell="no crash without ASan"
        note "$m: the input does not crash the AFL++ build (no ASan), so afl-tmin cannot minimize it as a crash"
    else
        tmin_cell="failed, $secs s"
        note "$m: afl-tmin: $(grep -m1 -A1 'PROGRAM ABORT' "$w/afl-tmin.log" | tr -s ' \n' ' ' || tail -1 "$w/afl-tmin.log")"
    fi
    echo "   afl-tmin: $tmin_cell"

    # 4. lossfuzz minimize (structure-aware, writes a JSON regression).
    start=$(now)
    line=$("$lfdir/lossfuzz" minimize --target "$t" --out "$w/lfz" "$crash" 2>"$w/lossfuzz.err" | tail -1) || true
    secs=$(since "$start")
    read -r sig before after ms json < <(sed -n 's/^[^:]*: \([^:]*\): \([0-9]*\) -> \([0-9]*\) elements.*, \([0-9]*\) ms -> \([^ ]*\).*/\1 \2 \3 \4 \5/p' <<<"$line") || true
    if [ -n "${json:-}" ] && [ -f "$json" ]; then
        # The regression must still give the planted finding: replay it as a case.
        cp "$json" "$w/lossfuzz.json"
        lz_cell="$before -> $after elements, $(stat -c %s "$json") B JSON, $secs s$(same_or_other "$rdir/fuzzers/replay_fuzz_json" "$w/lossfuzz.json" "$m")"
        is_planted "$m" "$sig" || note "$m: lossfuzz minimize kept signature $sig (planted: ${expected[$m]})"
        awk -v ms="$ms" -v s="$secs" 'BEGIN { exit !(s > 0.1 && s * 1000 > 3 * ms) }' &&
            note "$m: lossfuzz minimize prints ${ms} ms (the CPU clock of its own process) for ${secs} s of wall time"
    else
        lz_cell="failed, $secs s"
        note "$m: lossfuzz minimize: ${line:-$(tail -2 "$w/lossfuzz.err" | tr '\n' ' ')}"
    fi
    echo "   lossfuzz minimize: $lz_cell"
    unset sig before after ms json
    rows+=("$(printf '%-19s | %-28s | %-28s | %-24s | %s' "$m" "$in_bytes B$mark ($source)" "$lf_cell" "$tmin_cell" "$lz_cell")")
done

echo
echo "Minimizers on the same crash input ($(git rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'); libFuzzer -runs=$lf_runs)"
printf '%-19s | %-28s | %-28s | %-24s | %s\n' mutant "input" "libFuzzer -minimize_crash" "afl-tmin" "lossfuzz minimize"
printf '%s\n' "--------------------+------------------------------+------------------------------+--------------------------+----------------------------------------"
printf '%s\n' "${rows[@]}"
[ ! -s "$tmp/notes" ] || { echo; echo "Notes:"; sed 's/^/  /' "$tmp/notes"; }
