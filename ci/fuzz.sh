#!/bin/bash
# ci/fuzz.sh TARGET SECONDS [--engine libfuzzer|afl] [--backend sim|cuda] [--asserts soft|hard]
#            [--fast] [--mutant NAME] [--kernel LIB.so|py:MODULE:FUNCTION] [--out DIR] [--first]
#            [--json FILE]
# A fuzzing campaign: builds what it needs, fuzzes TARGET (one of ci/targets.sh:
# fuzz_class, fuzz_prob, fuzz_linear, ...) for SECONDS from corpus/TARGET with live progress,
# keeping going past its findings: each distinct finding signature is minimized
# once (its later hits counted) into the campaign's folder, DIR/campaign, whose
# report.md and report.json list them by harm (lossfuzz report); --first stops
# at the first finding instead. It ends with a summary line:
#   fuzz_class: libfuzzer/sim 60 s, execs/s: 5123, findings: 0
# Findings (raw input + JSON case, written atomically) go to
# fuzz-out/TARGET/findings (fuzz-out/TARGET-MUTANT/ for a --mutant build;
# $LF_FUZZ_OUT names another folder than fuzz-out, $LF_FUZZ_BUILD another
# than build-fuzz, both relative to the checkout: ci/build-fuzz.sh) and
# are never deleted; minimized repros go to regressions/ (to .../repros for a
# --mutant build, whose findings are planted). Every path the summary names
# exists when it is printed. Sanitizers (ASan + UBSan)
# are on unless --fast. A crash the engine sees (an ASan report from inside a
# kernel) restarts libFuzzer with the time left. --asserts hard runs the reference
# kernels with real device asserts in executor workers that die with each and
# are replaced (harness/runtime/workers); --backend cuda always runs the kernels in
# workers (a CUDA build of lossfuzz, build-fuzz/replay-cuda), the fuzzing
# process links no CUDA. --kernel fuzzes your kernel (include/lossfuzz/kernel.h)
# against the spec instead of lossfuzz's own: its findings and repros go to
# fuzz-out/TARGET-kernel-NAME/. --json FILE also writes the summary as JSON
# (target, engine, backend, asserts, sanitizers, mutant, kernel, seconds, execs,
# execs_per_s, findings: [{class, repro}], findings_dir), for CI systems.
# Exit: 0 no finding, 1 findings, 2 usage or build error.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
target=$1 seconds=$2
shift 2
engine=libfuzzer backend=sim asserts=soft sanitize=--sanitize mutant="" out="" first=0 kernel="" json=""
while [ $# -gt 0 ]; do
    case $1 in
    --engine) engine=$2; shift ;;
    --backend) backend=$2; shift ;;
    --asserts) asserts=$2; shift ;;
    --fast) sanitize="" ;;
    --mutant) mutant=$2; shift ;;
    --kernel) kernel=$2; shift ;;
    --out) out=$2; shift ;;
    --first) first=1 ;;
    --keep-going) ;; # the default now
    --json) json=$2; shift ;;
    *) echo "fuzz.sh: unknown option $1" >&2; usage ;;
    esac
    shift
done
ci/targets.sh | grep -qx -- "$target" ||
    { echo "fuzz.sh: unknown target $target ($(ci/targets.sh | tr '\n' ' '| sed 's/ $//'))" >&2; exit 2; }
case $engine in libfuzzer|afl) ;; *) echo "fuzz.sh: --engine must be libfuzzer or afl" >&2; exit 2 ;; esac
case $backend in sim|cuda) ;; *) echo "fuzz.sh: --backend must be sim or cuda" >&2; exit 2 ;; esac
case $asserts in soft|hard) ;; *) echo "fuzz.sh: --asserts must be soft or hard" >&2; exit 2 ;; esac
[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "fuzz.sh: SECONDS must be a positive integer" >&2; exit 2; }
kernel_name=""
if [ -n "$kernel" ]; then # the campaign runs from elsewhere: a library by its absolute path
    if [[ $kernel != py:* ]]; then
        [ -f "$kernel" ] || { echo "fuzz.sh: --kernel $kernel: no such file" >&2; exit 2; }
        kernel=$(realpath "$kernel")
    elif [[ ${kernel%:*} == *.py ]]; then # py:FILE.py:FUNCTION, the file by its absolute path too
        file=${kernel#py:} file=${file%:*}
        [ -f "$file" ] || { echo "fuzz.sh: --kernel $kernel: no file $file" >&2; exit 2; }
        kernel=py:$(realpath "$file"):${kernel##*:}
    fi
    kernel_name=$(basename "${kernel#py:}" .so | tr -c 'A-Za-z0-9_.\n-' _)
fi

build_args=()
[ -z "$sanitize" ] || build_args+=(--sanitize)
[ -z "$mutant" ] || build_args+=(--mutant "$mutant")
echo "== building $engine ${build_args[*]:-}"
dir=$(ci/build-fuzz.sh "$engine" "${build_args[@]}" | tail -1) || exit 2
# The kernels' workers: the fuzz build's own lossfuzz on the simulation; for
# CUDA, a gcc + nvcc build of it (no sanitizers: ASan and CUDA do not mix).
worker=$PWD/$dir/lossfuzz
if [ "$backend" = cuda ]; then
    echo "== building the CUDA workers"
    worker=$PWD/$(ci/build-fuzz.sh replay --cuda ${mutant:+--mutant "$mutant"} | tail -1)/lossfuzz || exit 2
fi
bin=$dir/fuzzers/$target
work=${LF_FUZZ_OUT:-fuzz-out}/$target${mutant:+-$mutant}${kernel_name:+-kernel-$kernel_name} # a planted bug's or your kernel's findings never mix with lossfuzz's
mkdir -p "$work/corpus" "$work/findings"
[ -n "$out" ] || { [ -n "$mutant$kernel" ] && out=$work/repros || out=regressions; }
mkdir -p "$out"
# The campaign's ledger, first cases, minimized repros and report: afresh each time.
campaign=$(realpath -m "$work/campaign")
rm -rf "$campaign"
mkdir -p "$campaign"
if [ "$first" = 0 ]; then
    date +%s%3N >"$campaign/start"
    export LOSSFUZZ_CAMPAIGN=$campaign
fi
export LOSSFUZZ_FINDINGS=$PWD/$work/findings LOSSFUZZ_BACKEND=$backend LOSSFUZZ_ASSERTS=$asserts LOSSFUZZ_WORKER=$worker
dict=fuzzers/$target.dict

# Workers that cannot start (no GPU, a broken build) stop the campaign here,
# with the reason, rather than as a "finding" of its first input.
path_args=(--backend "$backend" --asserts "$asserts")
[ "$backend" = sim ] || path_args+=(--executor)
if [ -n "$kernel" ]; then
    export LOSSFUZZ_KERNEL=$kernel
    path_args+=(--kernel "$kernel")
fi
if [ "$backend" = cuda ] || [ "$asserts" = hard ] || [ -n "$kernel" ]; then
    rc=0 # 1 (a finding there) is for the campaign to report; 2: the workers do not start
    "$dir/lossfuzz" check "${path_args[@]}" regressions/all_targets_ignored_mean.json >/dev/null || rc=$?
    [ "$rc" -ne 2 ] || { echo "fuzz.sh: the $backend workers do not run (above); no campaign" >&2; exit 2; }
fi

seeds=corpus/$target
stats=$work/stats.txt rows=$work/rows.txt # execs; cases with rows past 2,048 classes (LOSSFUZZ_STATS)
: >"$stats"
: >"$rows"
export LOSSFUZZ_STATS=1
start=$(date +%s)
# Findings of earlier campaigns stay where they are; this one's are those newer than this mark.
mark=$work/.campaign-start
touch "$mark"
sleep 1 # file times have one-second granularity on some filesystems
# Progress must pass every stage of a pipe line by line (fuzz.sh | cat, CI):
# grep --line-buffered, and for mawk (Debian's awk), which reads a pipe in
# blocks, -W interactive; fflush() in the program for the other awks.
line_awk=(awk)
! awk -W version 2>&1 | grep -q mawk || line_awk=(awk -W interactive)
new_findings() { find "$work/findings" -maxdepth 1 -type f -newer "$mark" -name "$1" | sort; }

if [ "$engine" = libfuzzer ]; then
    # libFuzzer stops at the first crash: start it again with the time left,
    # from the grown corpus, until the time is up.
    text=$(ci/libfuzzer-flags.sh "$target") || exit 2
    mapfile -t flags <<<"$text"
    while :; do
        left=$((seconds - ($(date +%s) - start)))
        [ "$left" -gt 0 ] || break
        set +e
        (cd "$work" && "$OLDPWD/$bin" -max_total_time="$left" "${flags[@]}" \
            -print_final_stats=1 -artifact_prefix=findings/ corpus "$OLDPWD/$seeds") 2>&1 |
            tee -a "$work/libfuzzer.log" |
            grep --line-buffered -E '^#[0-9]+.*(pulse|NEW|DONE)|DEDUP_TOKEN|saved|ERROR|lossfuzz executor|^(finding|accepted) ' |
            "${line_awk[@]}" '/pulse|DONE|DEDUP|saved|ERROR|executor|^finding|^accepted/ || NR % 20 == 1 { print; fflush() }' || true
        set -e
        grep -h 'stat::number_of_executed_units' "$work/libfuzzer.log" | tail -1 >>"$stats" || true
        grep -h '^lossfuzz rows: ' "$work/libfuzzer.log" | tail -1 >>"$rows" || true
        : >"$work/libfuzzer.log"
        [ "$first" = 0 ] || [ -z "$(new_findings '*')" ] || break # a finding or a crash file
    done
    execs=$(awk '{s += $2} END {print s + 0}' "$stats")
else
    [ -d "$seeds" ] && [ -n "$(ls -A "$seeds")" ] || { echo "fuzz.sh: $seeds is empty (AFL++ needs seeds)" >&2; exit 2; }
    if ci/targets.sh --byte-format | grep -qx -- "$target"; then
        mutator=$(ci/build-fuzz.sh replay | tail -1)/fuzzers/lf_afl_mutator_$target.so
        export AFL_CUSTOM_MUTATOR_LIBRARY=$PWD/$mutator
    fi
    rm -rf "$work/afl"
    # AFL_TRY_AFFINITY: afl-fuzz and the target on one core, where each hand-over is
    # cheap (2.5x the execs/s on a 2-core VM); unbound when no core is free.
    AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_TRY_AFFINITY=1 \
        AFL_FAST_CAL=1 AFL_STATSD=0 \
        afl-fuzz -i "$seeds" -o "$work/afl" -V "$seconds" -x "$dict" -t 10000 -- "$bin" 2>&1 |
        grep --line-buffered -E 'execs|crash|saved|DEDUP|PROGRAM ABORT|Fuzzing test case|^(finding|accepted) ' || true
    execs=$(awk -F: '/^execs_done/ {gsub(/ /, "", $2); print $2}' "$work/afl/default/fuzzer_stats" 2>/dev/null || echo 0)
    # afl/ is started afresh by the next campaign: keep its crash and hang inputs with the findings.
    for kind in crash hang; do
        for input in "$work"/afl/default/${kind}s/id:*; do
            [ -e "$input" ] || continue
            cp "$input" "$work/findings/afl-$kind-$(sha1sum "$input" | cut -c1-16)"
        done
    done
fi
elapsed=$(($(date +%s) - start))
if [ "${execs:-0}" -eq 0 ]; then # an engine that never ran must not look like a clean campaign
    echo "fuzz.sh: $engine ran no executions (see $work/ for its output)" >&2
    exit 2
fi

# Minimize the smallest finding of each class into a JSON regression (with
# this build's lossfuzz, so a planted bug still reproduces). The oracle saved
# a JSON case for each of its findings; a crash the oracle never saw (an ASan
# report from inside a kernel) is only in the engine's crash files, so those
# are minimized too, into a scratch directory, and kept when their signature is
# a crash of a class not reported yet. A finding lossfuzz cannot minimize (a
# loader target's crash, one it does not reproduce, a timeout, an out-of-memory
# or a leak) is reported by its raw input: nothing found is dropped.
repros=()
classes=()
keep() { repros+=("$1"); classes+=("$2"); }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
accepted=0
if [ "$first" = 0 ]; then
    # The campaign's report (its repros re-checked); each finding's minimized
    # repro joins the others in $out (a first case the minimizer did not finish stays where it is).
    rc=0
    "$dir/lossfuzz" report "${path_args[@]}" --title "$target${kernel:+ on $kernel_name}" "$campaign" >/dev/null || rc=$?
    [ "$rc" -ne 2 ] || { echo "fuzz.sh: cannot write the campaign's report into $campaign" >&2; exit 2; }
    while IFS=$'\t' read -r kind sig file; do
        if [ "$kind" = accepted ]; then accepted=$((accepted + 1)); continue; fi
        [[ $file != "$campaign/repros/"* ]] || { cp "$file" "$out/" && file=$out/$(basename "$file"); }
        keep "$file" "$sig"
    done < <(python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    print("accepted" if f["accepted"] else "finding", f["signature"], f["file"], sep="\t")' "$campaign/report.json")
fi
minimize() { # FILE DIR: prints the signature and the repro's path
    local line # its progress and errors pass on stderr; its result is stdout's last line
    line=$("$dir/lossfuzz" minimize --target "$target" "${path_args[@]}" --out "$2" "$1" | tail -1) || true
    [ -z "$line" ] || echo "   $line" >&2
    sed -n 's/^[^:]*: \([^:]*\): .* -> \([^ ]*\).*$/\1 \2/p' <<<"$line"
}
for cls in $(new_findings '*.json' | xargs -r -n1 basename | sed -n 's/-[0-9a-f]\{16\}\.json$//p' | sort -u); do
    smallest=$(new_findings "$cls-????????????????.json" | xargs -r ls -S | tail -1)
    if read -r sig repro < <(minimize "$smallest" "$out"); then keep "$repro" "$sig"; else keep "$smallest" "$cls"; fi
done
# The oracle saved the input of each finding it aborted on (<class>-<hash>.bin): the
# engine's crash file of that same input is that finding, not one of its own.
seen_by_oracle() { local bin; for bin in $(new_findings '*.bin'); do cmp -s "$1" "$bin" && return 0; done; return 1; }
for crash in $(new_findings 'crash-*') $(new_findings 'afl-crash-*'); do
    seen_by_oracle "$crash" && continue
    if ! read -r sig repro < <(minimize "$crash" "$scratch"); then
        keep "$crash" crash/unminimized # a loader target's: the raw input is the repro
        continue
    fi
    case $sig in
    ok/* | host_error/* | device_assert/*) keep "$crash" crash/not-reproduced ;; # lossfuzz does not see it
    *)
        [[ " ${classes[*]} " == *" $sig "* ]] && continue # reported from the oracle's JSON or the campaign already
        mv -f "$repro" "$out/" && keep "$out/$(basename "$repro")" "$sig"
        ;;
    esac
done
for input in $(new_findings 'timeout-*') $(new_findings 'oom-*') $(new_findings 'leak-*') $(new_findings 'slow-unit-*') \
    $(new_findings 'afl-hang-*'); do
    name=$(basename "$input")
    keep "$input" "${name%-*}"
done
n=${#repros[@]}
rate=$((execs / (elapsed > 0 ? elapsed : 1)))
hard_note=""
[ "$asserts" = soft ] || hard_note=" (hard asserts)"
# The share of cases whose rows take the block path (past 2,048 classes), and
# of the target's time they took (decoding and the oracle), over the runs that
# ended normally (libFuzzer; a run stopped by a finding prints none):
# lf_features.c's "lossfuzz rows:" line.
block=$(awk '{c += $3; w += $5; t += $15; b += $11 * $15 / 100}
    END {if (c > 0) printf ", rows past 2048 classes: %.2f%% of %d cases, %.0f%% of their time", 100 * w / c, c, (t > 0 ? 100 * b / t : 0)}' \
    "$rows" 2>/dev/null || true)
campaign_note="" # the report first: the repros' paths end the line
[ "$first" = 1 ] || campaign_note=", report: $campaign/report.md, accepted deviations: $accepted"
summary="$target: $engine/$backend$hard_note${mutant:+ (planted bug: $mutant)}${kernel:+ (kernel: $kernel_name)} ${elapsed} s, execs/s: $rate, execs: $execs$block$campaign_note, findings: $n"
[ "$n" -eq 0 ] || summary="$summary ($(printf '%s\n' "${classes[@]}" | paste -sd, -)), minimized repros: ${repros[*]}"
echo "$summary"
if [ -n "$json" ]; then # through Python's json: names and paths escaped as JSON wants them
    python3 - "$json" "$target" "$engine" "$backend" "$asserts" "${sanitize:+asan+ubsan}" "$mutant" "$kernel_name" \
        "$elapsed" "$execs" "$rate" "$work/findings" "${#classes[@]}" "${classes[@]}" "${repros[@]}" <<'PY' ||
import json, sys
a = sys.argv[1:]
path, keys, n = a[0], ["target", "engine", "backend", "asserts", "sanitizers", "mutant", "kernel"], int(a[12])
doc = dict(zip(keys, (v or None for v in a[1:8])))
doc.update(seconds=int(a[8]), execs=int(a[9]), execs_per_s=int(a[10]), findings_dir=a[11])
doc["findings"] = [{"class": c, "repro": r} for c, r in zip(a[13:13 + n], a[13 + n:13 + 2 * n])]
with open(path, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
PY
        { echo "fuzz.sh: cannot write --json $json" >&2; exit 2; }
fi
[ "$n" -eq 0 ]
