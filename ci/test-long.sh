#!/bin/sh
# ci/test-long.sh - the long tier (after ci/test.sh, which sets up and builds): the long CTest tests (the
# example and LLM kernels' campaigns, the fuzz API); the ASan + UBSan build and its whole CTest suite; the
# version-dependent tests under Debian's torch 1.13; saved inputs decoding the same with a loss added; every
# planted bug caught (ci/mutants.sh); each fuzz target's short libFuzzer and AFL++ smoke campaigns, summarized
# (ci/ci-summary.py); the OSS-Fuzz build convention (ci/oss-fuzz-test.sh); a consumer project against the
# installed package (ci/install-test.sh); `pip install .` into a fresh environment (ci/pip-test.sh);
# hard-assert campaigns through the executor's workers; the buggy example kernels (C, Python) found by
# campaigns and the correct ones clean; Liger-Kernel's classified bugs and nothing else; PyTorch's chunked
# path's kept findings; campaigns keeping what they report (ci/campaign-test.sh).
# Python runs under .venv (today's torch, ci/setup.sh); the version-dependent tests again under Debian's 1.13.
set -eu
cd "$(dirname "$0")/.."
. ci/test-lib.sh
ci/build.sh
zygote_start
# The sanitized build is made while the long tests run, at the lowest priority: it takes the CPU they leave,
# and their campaigns, which run for a set time, fuzz about as much as alone. Without a GPU its CUDA kernels
# would only be compiled again (the plain build compiles them: 45 of its 73 s here), so they are left out.
asan_cuda=OFF
nvidia-smi -L 2>/dev/null | grep -q '^GPU' && asan_cuda=AUTO
# (its own process group, so a failure below stops its compilers too, not only its shell)
asan_log=$(mktemp)
LF_CUDA=$asan_cuda setsid nice -n 19 ci/build.sh --sanitize >"$asan_log" 2>&1 &
asan_build=$!
stage "ctest (build): the long tests"
ctest --test-dir build --output-on-failure -j "$(nproc)" -L long || { kill -- -$asan_build 2>/dev/null; exit 1; }
skipped build
total=$((total + $(ctest --test-dir build -N -L long | sed -n 's/^Total Tests: //p')))
wait $asan_build || { tail -30 "$asan_log"; echo "ci: the sanitized build (build-asan) failed"; exit 1; }
rm -f "$asan_log"
stage "ctest (build-asan): all"
# The Python kernels' campaigns run once, on the plain build: a Python worker runs each kernel, so the
# sanitizers would watch the same harness code the other tests already run under them. So do the Python side's
# own tests (python/*: the worker, the zygote, Triton's interpreter) and the floors' link check (a build, no run).
asan_skip='^(python/|build/floors$)'
LF_SKIP_PYTHON_KERNELS=1 ctest --test-dir build-asan --output-on-failure -j "$(nproc)" -E "$asan_skip"
skipped build-asan
total=$((total + $(ctest --test-dir build-asan -N -E "$asan_skip" | sed -n 's/^Total Tests: //p')))
# The older PyTorch too (ci/setup.sh's .venv-debian: Debian's torch 1.13, triton 3.6): the tests whose
# answers depend on the version - the live-PyTorch checks, the worker, the Triton interpreter's mends.
if [ -x .venv-debian/bin/python3 ]; then
    stage "the older PyTorch: Debian's torch 1.13 and triton 3.6 (.venv-debian)"
    old=$PWD/.venv-debian/bin/python3
    LF_PYTHON=$old LOSSFUZZ_PYTHON=$old ctest --test-dir build --output-on-failure -j "$(nproc)" \
        -R '^(conformance/pytorch|cli/executor|python/(worker|api|triton_empty|triton_interp))$'
    total=$((total + 6))
fi
stage "saved inputs keep their meaning: the shipped seeds decode the same with a loss added"
ci/corpus-stability.sh
total=$((total + 1))
stage "planted bugs"
ci/mutants.sh
total=$((total + $(grep -c '^[a-z]' fuzzers/mutants/mutants.txt)))
stage "fuzz smoke runs"
reports=$(mktemp -d)
for target in $(ci/targets.sh); do # a smoke run each, sanitized: libFuzzer starts, fuzzes and reports
    ci/fuzz.sh "$target" 3 --out "$(mktemp -d)" --json "$reports/$target.json"
done
# The reports CI systems read: the campaigns' JSON and a JUnit run of the regressions, summarized.
build/lossfuzz check --junit "$reports/regressions.xml" regressions/ >/dev/null
python3 ci/ci-summary.py "$reports"/*.json "$reports/regressions.xml" | grep -c '| fuzz_safetensors | libfuzzer | sim |' >/dev/null ||
    { echo "ci: ci/ci-summary.py did not summarize the campaigns"; exit 1; }
total=$((total + 1))
stage "the OSS-Fuzz / ClusterFuzzLite build, in a simulated environment"
ci/oss-fuzz-test.sh
stage "lossfuzz as a package: installed, and a consumer project built against it"
ci/install-test.sh
total=$((total + 2))
stage "lossfuzz for PyTorch users: pip install . in a fresh environment, the Python API and the pytest plugin"
ci/pip-test.sh
total=$((total + 1))
for target in $(ci/targets.sh --cases); do # a smoke run each: AFL++ starts, fuzzes and reports
    ci/fuzz.sh "$target" 3 --engine afl --fast --out "$(mktemp -d)"
done
total=$((total + 11))
stage "hard-assert campaigns: real asserts end workers, the executor replaces them"
log=$(mktemp)
ci/fuzz.sh fuzz_class 10 --asserts hard --out "$(mktemp -d)" 2>&1 | tee "$log" | tail -2
# The campaign must have met asserts and survived them all (its counts, at the end).
grep -Eq 'lossfuzz executor: [0-9]+ cases, [1-9][0-9]* hard asserts survived, 0 crashes, 0 hangs' "$log" ||
    { echo "ci: the hard-assert campaign survived no assert, or lost workers"; exit 1; }
ci/fuzz.sh fuzz_class 5 --engine afl --fast --asserts hard --out "$(mktemp -d)"
# A planted bug is found through the workers too.
ci/fuzz.sh fuzz_class 20 --first --fast --asserts hard --mutant off_by_one --out "$(mktemp -d)" 2>&1 | tail -1 |
    grep -q 'findings: [1-9].*guard-miss/label_out_of_range' || { echo "ci: off_by_one not found with hard asserts"; exit 1; }
total=$((total + 3))
stage "kernels under test: the buggy example is found, minimized and kept"
out=$(mktemp -d)
ci/fuzz.sh fuzz_class 30 --first --kernel build/examples/kernels/ce_buggy.so --out "$out" 2>&1 | tail -1 |
    grep -Eq 'findings: [1-9].*(kernel-silent|oob-read)' || { echo "ci: the buggy example kernel was not found"; exit 1; }
# Its repro keeps failing on the buggy kernel and passes on the guarded one.
set -- "$out"/*.json
build/lossfuzz check --kernel build/examples/kernels/ce_buggy.so "$@" >/dev/null &&
    { echo "ci: the buggy kernel's repro passes on it"; exit 1; }
build/lossfuzz check --kernel build/examples/kernels/ce_guarded.so "$@" >/dev/null ||
    { echo "ci: the buggy kernel's repro fails on the guarded kernel"; exit 1; }
# The correct example keeps the contract for a campaign as long.
ci/fuzz.sh fuzz_class 15 --kernel build/examples/kernels/ce_plain.so --out "$(mktemp -d)" 2>&1 | tail -1 |
    grep -q 'findings: 0' || { echo "ci: the plain example kernel gave a finding"; exit 1; }
total=$((total + 2))
if ci/find-python.sh torch >/dev/null 2>&1; then
    stage "Python kernels under test: each buggy example is found from an empty corpus, 2 of 2 runs"
    ci/bench-kernels.sh --corpus empty --runs 2 --cap 60 --check --no-rates
    stage "... the correct ones give no finding; a repro keeps failing on its kernel"
    out=$(mktemp -d) py=examples/kernels/ce_python.py
    ci/fuzz.sh fuzz_class 30 --first --kernel "py:$py:rows_buggy" --out "$out" 2>&1 | tail -1 |
        grep -q 'findings: [1-9].*value-mismatch/kernel' || { echo "ci: the buggy Python kernel was not found"; exit 1; }
    set -- "$out"/*.json
    build/lossfuzz check --kernel "py:$py:rows_buggy" "$@" >/dev/null &&
        { echo "ci: the buggy Python kernel's repro passes on it"; exit 1; }
    build/lossfuzz check --kernel "py:$py:rows" "$@" >/dev/null ||
        { echo "ci: the buggy Python kernel's repro fails on the correct one"; exit 1; }
    # Campaigns two at a time (a lossfuzz process and its Python worker take about one core between them), each
    # its own folder and log, said in order when both have ended.
    two_at_a_time() { # FUNCTION ARG...: FUNCTION ARG for each ARG, two at once; fails when one does
        fn=$1
        shift
        while [ $# -gt 0 ]; do
            logs=$(mktemp -d)
            "$fn" "$1" >"$logs/1" 2>&1 &
            p1=$! p2=""
            if [ $# -gt 1 ]; then "$fn" "$2" >"$logs/2" 2>&1 & p2=$!; fi
            r1=0 r2=0
            wait "$p1" || r1=$?
            [ -z "$p2" ] || wait "$p2" || r2=$?
            cat "$logs/1" "$logs/2" 2>/dev/null
            [ "$r1" = 0 ] && [ "$r2" = 0 ] || exit 1
            shift
            [ $# -eq 0 ] || shift
        done
    }
    # (The three-bug example's one campaign, all three bugs one entry each: kernel/examples.)
    # The correct kernels: 10 s of lossfuzz fuzz each, no finding.
    correct_kernel() { # TARGET=KERNEL
        out=$(mktemp -d)
        if build/lossfuzz fuzz --seconds 10 --target "${1%%=*}" --kernel "${1#*=}" --out "$out" >"$out/log" 2>&1; then
            echo "correct kernel ${1#*=}: $(tail -1 "$out/log")"
        else
            echo "ci: the correct kernel ${1#*=} gave a finding: $(tail -1 "$out/log")"
            cat "$out/report.md" 2>/dev/null
            return 1
        fi
    }
    lin=examples/kernels/ce_linear.py
    correct="fuzz_class=py:$py:rows fuzz_class=py:$py:fused fuzz_linear=py:$lin:composed fuzz_linear=py:$lin:chunked"
    correct="$correct fuzz_linear=build/examples/kernels/ce_linear.so"
    ! .venv/bin/python3 -c "import triton" 2>/dev/null ||
        correct="$correct fuzz_class=py:examples/kernels/ce_triton.py:cross_entropy"
    # shellcheck disable=SC2086
    two_at_a_time correct_kernel $correct
    total=$((total + 3))
else
    stage "Python kernels under test: skipped, no python3 with torch"
fi
# A released kernel nobody here wrote: Liger-Kernel 0.8.5 (.venv, ci/setup.sh). Its bugs show in plain torch, and a
# fixed-seed campaign reports each required one, one entry each, and nothing unclassified (docs/released-kernels.md).
if .venv/bin/python3 -c "import liger_kernel" 2>/dev/null; then
    stage "a released kernel: Liger-Kernel 0.8.5's cross-entropy, its classified bugs and nothing else"
    rel=examples/kernels/released
    # its kept findings (and its fused linear CE's), each a generated plain-torch script: every one still shows
    ci/exported-scripts-check.sh --pytest .venv/bin/python3 $rel/findings/liger_cross_entropy \
        $rel/findings/liger_fused_linear_ce ||
        { echo "ci: a kept Liger finding no longer shows in plain torch"; exit 1; }
    out=$(mktemp -d)
    rc=0 # 1: findings, as it must
    build/lossfuzz fuzz --seconds 60 --seed 1 --kernel py:$rel/liger_cross_entropy.py:cross_entropy --out "$out" \
        >"$out/campaign.log" 2>&1 || rc=$?
    [ "$rc" = 1 ] || { tail -5 "$out/campaign.log"; echo "ci: the Liger campaign exited $rc"; exit 1; }
    python3 ci/report-known.py "$out/report.json" $rel/liger_cross_entropy.bugs.json ||
        { echo "ci: the Liger campaign's report is not its classified bugs, one entry each"; exit 1; }
    # each entry's generated plain-torch script shows its bug: as one pytest file (one torch import), a test each
    ci/exported-scripts-check.sh --pytest .venv/bin/python3 "$out" ||
        { echo "ci: a generated script of the Liger campaign no longer shows its bug"; exit 1; }
    total=$((total + 3))
else
    stage "a released kernel: skipped, no liger_kernel in .venv (ci/setup.sh)"
fi
# PyTorch's own chunked linear_cross_entropy (torch 2.15): its kept findings each still show as a generated script,
# and the two it cannot generate by hand (examples/kernels/released/torch_chunked_bugs.py; 77: a torch without the op)
if .venv/bin/python3 -c "import torch.nn.functional as F; F.linear_cross_entropy" 2>/dev/null; then
    stage "PyTorch's chunked linear_cross_entropy: its known differences still show in plain torch"
    ci/exported-scripts-check.sh --pytest .venv/bin/python3 examples/kernels/released/findings/torch_chunked ||
        { echo "ci: a kept finding of the chunked path no longer shows (fixed upstream?)"; exit 1; }
    said=$(cd examples/kernels/released && ../../../.venv/bin/python3 torch_chunked_bugs.py) ||
        { echo "$said"; echo "ci: a chunked path's difference no longer shows in plain torch (fixed?)"; exit 1; }
    echo "$said" | tail -1
    total=$((total + 1))
fi
stage "campaigns keep what they report"
ci/campaign-test.sh
total=$((total + 4))
# Every step above stops the script on a failure: reaching here means all passed.
echo "ci: long tier: $total passed, 0 failed, $(( $(date +%s) - start )) s"
