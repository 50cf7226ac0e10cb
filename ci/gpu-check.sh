#!/bin/bash
# ci/gpu-check.sh [--seconds N] [--no-setup] - everything a GPU runner checks, in
# one command. Sets up (ci/setup.sh; where apt cannot install, the environment
# as configured is accepted when pkg-config finds jansson), builds (ci/build.sh,
# CUDA when nvcc is found), then:
#   gpu tests    ctest -L gpu, gpu/memcheck apart (gpu/regressions on CUDA)
#   campaign     ci/fuzz.sh fuzz_class N --backend cuda --asserts hard
#   memcheck     gpu/memcheck: compute-sanitizer over regressions on CUDA
#   torch check  lossfuzz check --backend cuda --torch regressions/ (PyTorch
#                on CUDA, the interpreter from ci/find-python.sh torch)
#   executor     bench_exec --backend cuda --cases 1000 --asserts 100
# and ends with a table: step, PASS/FAIL/SKIP, time, log, key figure. Without
# a GPU (no nvidia-smi, none in nvidia-smi -L, or a build without CUDA) it
# says so and runs the CPU parts: a hard-assert campaign on the simulation (N
# seconds, at most 30), the torch check on CPU, bench_exec on sim; the GPU rows
# are SKIP with the reason. Every step's output: gpu-check-out/ (emptied first;
# the campaign's minimized repros go to gpu-check-out/repros/).
#   --seconds N   the campaign's length (default 120)
#   --no-setup    do not run ci/setup.sh
# Exit: 0 when no step failed, 1 when one did, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
seconds=120 setup=1
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) [ $# -ge 2 ] || usage; seconds=$2; shift ;;
    --no-setup) setup=0 ;;
    *) echo "gpu-check: unknown option $1" >&2; usage ;;
    esac
    shift
done
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "gpu-check: --seconds must be a positive integer" >&2
    exit 2
fi

out="gpu-check-out"
rm -rf "$out"
mkdir -p "$out"

# The table: one entry per step.
names=() results=() times=() logs=() figures=()
row() { # NAME RESULT SECONDS LOG FIGURE
    names+=("$1") results+=("$2") times+=("$3") logs+=("$4") figures+=("$5")
    printf '   -> %s: %s, %s s, %s\n' "$1" "$2" "$3" "$5"
    [ "$2" != FAIL ] || [ "$4" = - ] || tail -n 15 "$4" | sed 's/^/   | /'
}
quote() { # the command line as it can be pasted back into a shell
    local a s=""
    for a; do
        [[ $a =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]] || a="'${a//\'/\'\\\'\'}'"
        s+="$a "
    done
    printf '%s' "${s% }"
}
# run LOG CMD...: CMD's output (after its command line) in $out/LOG; sets rc, took and log.
run() {
    log=$out/$1
    shift
    echo "== $(quote "$@")   (log: $log)"
    echo "\$ $(quote "$@")" >"$log"
    local t0
    t0=$(date +%s.%N)
    "$@" >>"$log" 2>&1
    rc=$?
    took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
}
last() { grep -E "$1" "$log" | tail -n 1; } # the last line of the step's log matching ERE
failed_line() { grep -v '^\$ ' "$log" | grep -v '^[[:space:]]*$' | tail -n 1 | cut -c1-160; }

# ---- set-up
if [ "$setup" = 0 ]; then
    row setup SKIP 0.0 - "--no-setup"
else
    if command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
        run 0-setup.log ci/setup.sh
        why="ci/setup.sh could not install (exit $rc)"
    else
        log=$out/0-setup.log rc=127 took=0.0 why="no apt-get here"
        echo "gpu-check: no apt-get/dpkg-query: ci/setup.sh cannot install; using the environment as configured" | tee "$log"
    fi
    if [ "$rc" -eq 0 ]; then
        row setup PASS "$took" "$log" "$(failed_line)"
    elif pkg-config --exists jansson 2>/dev/null; then # jansson and cmocka from elsewhere (gpu-machine.md's .gpu/debs)
        cmocka=$(pkg-config --modversion cmocka 2>/dev/null || echo "absent (no unit tests)")
        row setup PASS "$took" "$log" "$why; using the environment: jansson $(pkg-config --modversion jansson), cmocka $cmocka"
    else
        row setup FAIL "$took" "$log" "$why, and pkg-config finds no jansson (PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-})"
    fi
fi

# ---- build
run 1-build.log ci/build.sh
built=0 cuda=no
if [ "$rc" -ne 0 ]; then
    row build FAIL "$took" "$log" "ci/build.sh exit $rc: $(failed_line)"
    for s in "gpu tests" campaign memcheck "torch check" executor; do row "$s" SKIP 0.0 - "the build failed"; done
else
    built=1
    probe=$(build/lossfuzz check --backend cuda regressions/one_based_labels.json 2>&1)
    case $probe in *"has no CUDA"*) ;; *) cuda=yes ;; esac
    row build PASS "$took" "$log" "build/lossfuzz, CUDA kernels: $cuda"
fi

# ---- a GPU or not: nvidia-smi lists one, and the build has CUDA
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit: $(git rev-parse HEAD 2>/dev/null), host: $(uname -n)"
    if command -v nvidia-smi >/dev/null; then nvidia-smi 2>&1; else echo "nvidia-smi: not on PATH"; fi
    nvcc=$(command -v nvcc || command -v /usr/local/cuda/bin/nvcc) && echo "$nvcc: $("$nvcc" --version | sed -n 's/.*, release/release/p')"
    cs=$(command -v compute-sanitizer "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" | head -n 1)
    echo "compute-sanitizer: ${cs:-not found}"
    cmake --version | head -n 1
    for tool in clang afl-clang-fast; do echo "$tool: $(command -v $tool || echo "not on PATH")"; done
} >"$out/environment.txt" 2>&1
no_gpu="" gpus=""
if ! command -v nvidia-smi >/dev/null; then
    no_gpu="no nvidia-smi on PATH"
elif ! gpus=$(nvidia-smi -L 2>&1) || ! grep -q '^GPU ' <<<"$gpus"; then
    no_gpu="nvidia-smi -L lists no GPU: $(head -n 1 <<<"$gpus")"
fi
if [ "$built" = 1 ] && [ "$cuda" != yes ]; then
    no_gpu="${no_gpu:+$no_gpu; }this build has no CUDA (nvcc was not found when build/ was configured)"
fi
gpu_name=$(grep '^GPU ' <<<"$gpus" | sed 's/ (UUID.*//' | paste -sd ';')
campaign_s=$((seconds < 30 ? seconds : 30))
if [ "$built" = 0 ]; then
    header="the build failed: nothing after it ran${no_gpu:+ (and $no_gpu)}"
elif [ -z "$no_gpu" ]; then
    header="on the GPU: $gpu_name"
    echo "gpu-check: $header"
else
    header="NO GPU ($no_gpu): the CPU parts only, the GPU rows SKIP"
    echo "gpu-check: NO GPU: $no_gpu. Running the CPU parts only (a ${campaign_s} s hard-assert campaign on the simulation," \
        "the PyTorch check on CPU, the executor on sim); the GPU rows are SKIP."
fi

# ctest_row NAME: the row of a ctest step, with each test's own summary or skip reason.
ctest_row() {
    cat build/Testing/Temporary/LastTest.log >>"$log" 2>/dev/null
    local ran skipped figure
    ran=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#' "$log")
    skipped=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#.*\*\*\*Skipped' "$log")
    figure=$(awk '/^[0-9]+\/[0-9]+ Testing: / {name = $3}
                  /^SKIP: / {print name " skipped: " substr($0, 7)}
                  /[0-9]+ passed, [0-9]+ failed/ {summary[name] = name ": " $0}
                  /ERROR SUMMARY: [0-9]+ error/ {errors[name] += $(NF - 1); procs[name]++}
                  END {for (n in summary) print summary[n] (procs[n] ? ", memcheck " errors[n] " errors in " procs[n] " processes" : "")}' "$log" |
        paste -sd ';' | sed 's/;/; /g')
    if [ "$rc" -ne 0 ] || [ "$ran" -eq 0 ]; then
        row "$1" FAIL "$took" "$log" "${figure:-$(failed_line)}"
    elif [ "$skipped" -eq "$ran" ]; then
        row "$1" SKIP "$took" "$log" "$figure"
    else
        row "$1" PASS "$took" "$log" "$ran tests, $skipped skipped: $figure"
    fi
}

if [ "$built" = 1 ]; then
    gpu=cuda # where the GPU steps run; without a GPU: sim, or cpu for PyTorch
    [ -z "$no_gpu" ] || gpu=""
    # ---- 1. the gpu-labelled tests (they skip, 77, without a GPU), memcheck apart
    run 2-gpu-tests.log ctest --test-dir build -L gpu -E '^gpu/memcheck$' --output-on-failure
    ctest_row "gpu tests"

    # ---- 2. a timed campaign with hard asserts: on CUDA, or a short one on the simulation
    name="campaign (${gpu:-sim}, hard)"
    fuzz=(ci/fuzz.sh fuzz_class "$seconds" --backend cuda)
    [ -n "$gpu" ] || fuzz=(ci/fuzz.sh fuzz_class "$campaign_s")
    # A fuzz.sh without --asserts: the targets read LOSSFUZZ_ASSERTS themselves.
    if grep -q -e '--asserts' ci/fuzz.sh; then fuzz+=(--asserts hard); else fuzz=(env LOSSFUZZ_ASSERTS=hard "${fuzz[@]}"); fi
    command -v clang >/dev/null || ! command -v afl-clang-fast >/dev/null || fuzz+=(--engine afl)
    fuzz+=(--out "$out/repros") # minimized repros travel with the logs; copy real ones to regressions/
    carried=${LF_FUZZ_BUILD:-build-fuzz}/libfuzzer-asan/fuzzers/fuzz_class # built elsewhere (docs/gpu-machine.md)
    if ! command -v clang >/dev/null && ! command -v afl-clang-fast >/dev/null && ! [ -x "$carried" ]; then
        row "$name" FAIL 0.0 - "no fuzzing engine: neither clang (libFuzzer) nor afl-clang-fast (ci/setup.sh installs both), nor a carried $carried"
    else
        run 3-campaign.log "${fuzz[@]}"
        summary=$(last '^fuzz_class: ') # fuzz_class: ENGINE/BACKEND S s, execs/s: N, execs: N, findings: N (classes), minimized repros: ...
        if [ -z "$summary" ]; then
            row "$name" FAIL "$took" "$log" "ci/fuzz.sh exit $rc: $(failed_line)"
        elif [ "$rc" -eq 0 ]; then
            row "$name" PASS "$took" "$log" "$summary"
        else
            row "$name" FAIL "$took" "$log" "${summary%%, minimized repros:*}; repros in $out/repros/, inputs in fuzz-out/fuzz_class/findings/"
        fi
    fi

    # ---- 3. compute-sanitizer (gpu/memcheck)
    run 4-memcheck.log ctest --test-dir build -R '^gpu/memcheck$' --output-on-failure
    ctest_row memcheck

    # ---- 4. live PyTorch: on CUDA, or on the CPU
    name="torch check (${gpu:-cpu})"
    torch_cmd=(build/lossfuzz check --backend cuda --torch regressions/)
    [ -n "$gpu" ] || torch_cmd=(build/lossfuzz check --torch regressions/)
    if ! py=$(ci/find-python.sh torch 2>"$out/5-torch-check.log"); then
        row "$name" SKIP 0.0 "$out/5-torch-check.log" "no torch: $(tail -n 1 "$out/5-torch-check.log")"
    else
        version=$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)
        if [ -n "$gpu" ] && ! "$py" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' >/dev/null 2>&1; then
            row "$name" SKIP 0.0 - "torch $version at $py has no CUDA (torch.cuda.is_available() is False)"
        else
            run 5-torch-check.log env LOSSFUZZ_PYTHON="$py" "${torch_cmd[@]}"
            figure="torch $version ($py): $(last '[0-9]+ passed, [0-9]+ failed')"
            if [ "$rc" -eq 0 ]; then row "$name" PASS "$took" "$log" "$figure"; else row "$name" FAIL "$took" "$log" "exit $rc, $figure"; fi
        fi
    fi

    # ---- 5. the executor's figures
    name="executor (${gpu:-sim})"
    # On CUDA each asserting case costs a worker (150 ms on an H200): 5000 cases and 1000 asserts ran past 135 s
    bench=(build/bench_exec --backend cuda --cases 1000 --asserts 100)
    [ -n "$gpu" ] || bench=(build/bench_exec --cases 5000 --asserts 300)
    run 6-executor.log "${bench[@]}"
    rate() { last "$1" | sed -nE 's/.* ([0-9.]+) cases\/s.*/\1/p'; }
    figure="cases/s: in process (soft) $(rate 'in process, soft'), executor soft $(rate 'executor, soft'), hard $(rate 'executor, hard')"
    figure+="; $(last 'warm spare' | sed -nE 's/.* ([0-9]+\/[0-9]+) asserts recorded.*recovery mean ([0-9.]+ ms).*/hard asserts kept \1, recovery \2/p')"
    if [ "$rc" -eq 0 ]; then
        row "$name" PASS "$took" "$log" "$figure"
    else
        error=$(last '^bench_exec: |^LOST')
        row "$name" FAIL "$took" "$log" "exit $rc: ${error:-$(failed_line)}"
    fi
fi

# ---- the table (also as Markdown in summary.md, and the job summary on GitHub)
status=0
for r in "${results[@]}"; do [ "$r" != FAIL ] || status=1; done
{
    echo
    echo "gpu-check: $header"
    printf '%-24s %-6s %8s  %-31s %s\n' step result time log "key figure"
    for i in "${!names[@]}"; do
        printf '%-24s %-6s %6s s  %-31s %s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}" "${logs[$i]}" "${figures[$i]}"
    done
    [ "$status" -eq 0 ] && echo "gpu-check: nothing failed" || echo "gpu-check: FAILED (see the logs above)"
} | tee "$out/summary.txt"
{
    echo "### gpu-check: $header"
    echo
    echo "| step | result | time | log | key figure |"
    echo "|---|---|---|---|---|"
    for i in "${!names[@]}"; do
        echo "| ${names[$i]} | ${results[$i]} | ${times[$i]} s | ${logs[$i]} | ${figures[$i]//|/\\|} |"
    done
} >"$out/summary.md"
[ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$out/summary.md" >>"$GITHUB_STEP_SUMMARY"
exit "$status"
