#!/bin/bash
# ci/bench-throughput.sh [--seconds N] [--targets "fuzz_class fuzz_prob fuzz_json"] [--keep DIR]
# Executions per second of each fuzz target under three set-ups, one run at a
# time: libFuzzer without sanitizers (ci/build-fuzz.sh libfuzzer), libFuzzer
# with ASan + UBSan (--sanitize), and AFL++ persistent mode (afl; with the
# lossfuzz custom mutator for fuzz_class and fuzz_prob, as ci/fuzz.sh). Each
# run fuzzes for N seconds (default 30) from a copy of corpus/TARGET with
# fuzzers/TARGET.dict, engine seed 1; libFuzzer with the flags of
# fuzzers/TARGET.options, as ci/fuzz.sh. Builds are done first and not timed.
# libFuzzer stops at a finding: it is started again until the time is used up
# (the rate then includes the restarts; such cells are marked with *).
#   --seconds N     length of each run (default 30)
#   --targets LIST  fuzz targets to measure (default "fuzz_class fuzz_prob fuzz_json")
#   --keep DIR      keep each run's work directory and log under DIR
# libFuzzer runs twice, with the cases' backward and without it
# (LOSSFUZZ_NO_BACKWARD=1), so the cost of backward shows.
# Ends with a table: target | libFuzzer | without backward | libFuzzer+ASan+UBSan | AFL++ (execs/s).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=bench-throughput
# shellcheck source=ci/bench-lib.sh
. ci/bench-lib.sh

seconds=30 targets="fuzz_class fuzz_prob fuzz_json" keep=""
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage 0 ;;
    --seconds) seconds=${2:?--seconds needs a value}; shift ;;
    --targets) targets=${2:?--targets needs a value}; shift ;;
    --keep) keep=${2:?--keep needs a directory}; shift ;;
    *) echo "bench-throughput: unknown argument $1" >&2; usage ;;
    esac
    shift
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || die "--seconds must be a positive integer"
[ -n "${targets// /}" ] || die "--targets is empty"
for t in $targets; do [ -d "corpus/$t" ] && [ -n "$(ls -A "corpus/$t")" ] || die "no seeds in corpus/$t (unknown target $t?)"; done
command -v afl-fuzz >/dev/null || die "afl-fuzz not found (ci/setup.sh installs it)"
root=$PWD
if [ -n "$keep" ]; then mkdir -p "$keep"; tmp=$(cd "$keep" && pwd); else
    tmp=$(mktemp -d /tmp/bench-throughput.XXXXXX); trap 'rm -rf "$tmp"' EXIT; fi
now() { date +%s.%N; }

echo "== building (not timed)"
plain=$(build libfuzzer)
asan=$(build libfuzzer --sanitize)
afl=$(build afl)
mutators=$root/$(build replay)/fuzzers
for t in $targets; do for d in "$plain" "$asan" "$afl"; do
    [ -x "$d/fuzzers/$t" ] || die "$d/fuzzers/$t was not built"
done; done

declare -A rate note
dict_of() { if [ -f "$root/fuzzers/$1.dict" ]; then echo "$root/fuzzers/$1.dict"; fi; }

run_libfuzzer() { # TARGET BUILD_DIR KEY [ENV=VALUE]: sets rate[KEY] and note[KEY]
    # libFuzzer stops at a finding (no $LOSSFUZZ_CAMPAIGN here): start it again
    # from the grown corpus until the time is used up, and count every execution.
    local t=$1 bin=$root/$2/fuzzers/$1 key=$3 w=$tmp/$3 start left n stops=0 execs=0 secs flags about input saved
    local extra=${4:-LOSSFUZZ_NO_BACKWARD=}
    mkdir -p "$w/findings"
    cp -r "corpus/$t" "$w/corpus"
    libfuzzer_flags "$t"
    about=$(printf '%s ' "${flags[@]}" | sed 's|-dict=[^ ]*/|-dict=|g; s/ $//')
    start=$(now)
    while left=$(awk -v a="$start" -v b="$(now)" -v s="$seconds" 'BEGIN { printf "%d", s - (b - a) }') && [ "$left" -gt 0 ]; do
        (cd "$w" && env "$extra" LOSSFUZZ_FINDINGS=$w/findings LOSSFUZZ_BACKEND=sim timeout -s INT $((left + 60)) "$bin" \
            -seed=$((1 + stops)) -max_total_time="$left" "${flags[@]}" -print_final_stats=1 \
            -artifact_prefix="$w/" corpus) >"$w/log" 2>&1 || true
        n=$(awk '/^stat::number_of_executed_units/ { n = $2 } END { print n + 0 }' "$w/log")
        execs=$((execs + n))
        input=$(ls "$w"/crash-* "$w"/timeout-* "$w"/oom-* 2>/dev/null | head -1 || true)
        [ -n "$input" ] || break # the time is up
        stops=$((stops + 1))
        if [ $stops = 1 ]; then # keep the first finding for a look
            saved=${TMPDIR:-/tmp}/bench-throughput-findings
            mkdir -p "$saved"
            cp "$input" "$saved/$key-$(basename "$input")"
            about+="; first finding after $(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s: $(grep -m1 -oE 'DEDUP_TOKEN: [^ ]+|lf_decode: .*|ERROR: AddressSanitizer: [a-z-]+|runtime error: .*|ERROR: libFuzzer: [a-z -]+' "$w/log" || echo '?'), input $saved/$key-$(basename "$input")"
        fi
        rm -f "$w"/crash-* "$w"/timeout-* "$w"/oom-*
    done
    secs=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
    rate[$key]=$(awk -v n="$execs" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
    [ $stops = 0 ] || rate[$key]+=" (*)"
    note[$key]="$execs execs in $secs s, $about$([ $stops = 0 ] || echo "; stopped on a finding $stops times, restarted each time")"
}

run_afl() { # TARGET BUILD_DIR KEY
    local t=$1 bin=$root/$2/fuzzers/$1 key=$3 w=$tmp/$3 mut="" dict stats
    mkdir -p "$w"
    cp -r "corpus/$t" "$w/seeds"
    dict=$(dict_of "$t")
    case $t in fuzz_class|fuzz_prob) mut=$mutators/lf_afl_mutator_$t.so ;; esac
    env AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_TRY_AFFINITY=1 \
        AFL_FAST_CAL=1 AFL_STATSD=0 ${mut:+AFL_CUSTOM_MUTATOR_LIBRARY=$mut} \
        LOSSFUZZ_FINDINGS="" LOSSFUZZ_BACKEND=sim timeout -s INT $((seconds + 60)) \
        afl-fuzz -i "$w/seeds" -o "$w/afl" -V "$seconds" ${dict:+-x "$dict"} -t 10000 -s 1 -- "$bin" \
        >"$w/log" 2>&1 || true
    stats=$w/afl/default/fuzzer_stats
    if [ ! -f "$stats" ]; then
        rate[$key]="failed"
        note[$key]="afl-fuzz did not run: $(sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' "$w/log" | grep -A2 'PROGRAM ABORT' | tr -s ' \n' ' ' || true)"
        return
    fi
    stat_of() { awk -F: -v k="$1" '$1 ~ "^" k " *$" { gsub(/ /, "", $2); print $2 }' "$stats"; }
    rate[$key]=$(printf '%.0f' "$(stat_of execs_per_sec)")
    [ "$(stat_of saved_crashes)" = 0 ] || rate[$key]+=" ($(stat_of saved_crashes) crashes)"
    note[$key]="$(stat_of execs_done) execs in $(stat_of run_time) s, crashes $(stat_of saved_crashes), hangs $(stat_of saved_hangs)${mut:+, custom mutator}"
}

for t in $targets; do
    for cfg in plain nobwd asan afl; do
        case $cfg in
        plain) echo "== $t: libFuzzer, $seconds s"; run_libfuzzer "$t" "$plain" "$t-plain" ;;
        nobwd) echo "== $t: libFuzzer, no backward, $seconds s"; run_libfuzzer "$t" "$plain" "$t-nobwd" LOSSFUZZ_NO_BACKWARD=1 ;;
        asan) echo "== $t: libFuzzer + ASan + UBSan, $seconds s"; run_libfuzzer "$t" "$asan" "$t-asan" ;;
        afl) echo "== $t: AFL++ persistent, $seconds s"; run_afl "$t" "$afl" "$t-afl" ;;
        esac
        echo "   execs/s: ${rate[$t-$cfg]} (${note[$t-$cfg]})"
        [ -n "$keep" ] || rm -rf "${tmp:?}/$t-$cfg"
    done
done

echo
echo "Fuzzing throughput, execs/s ($seconds s per run, one run at a time, $(nproc) cores, sim backend, $(git rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'))"
printf '%-16s | %-10s | %-21s | %-21s | %s\n' target libFuzzer "libFuzzer, no backward" "libFuzzer+ASan+UBSan" "AFL++"
printf '%s\n' "-----------------+------------+------------------------+-----------------------+-----------"
for t in $targets; do
    printf '%-16s | %-10s | %-22s | %-21s | %s\n' "$t" "${rate[$t-plain]}" "${rate[$t-nobwd]}" "${rate[$t-asan]}" "${rate[$t-afl]}"
done
[[ "${rate[*]}" != *"(*)"* ]] || echo "(*) libFuzzer stopped on findings and was restarted (see Details): the rate includes the restarts."
echo
echo "Details:"
for t in $targets; do for cfg in plain nobwd asan afl; do
    printf '  %-16s %-6s %s\n' "$t" "$cfg" "${note[$t-$cfg]}"
done; done
