#!/bin/sh
# kernel_test.sh LOSSFUZZ KERNEL_DIR - the kernel interface end to end on the
# example kernels: the plain and the guarded one keep PyTorch's contract on
# every regression they claim; the buggy one is caught (silent garbage, an
# out-of-bounds read); a library of another ABI version, one without the
# entry, or no library at all is refused with a clear message (exit 2). Then
# the Python callables of ce_python.py alike, when a python3 has torch.
. "$(dirname "$0")/../../harness/tests/lf_expect.sh"
lossfuzz=$1 dir=$2
regressions=$(dirname "$0")/../../regressions
cd "$(dirname "$0")/../.." || exit 2

expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "$dir/ce_plain.so" "$regressions"
expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "$dir/ce_guarded.so" "$regressions"
# Where PyTorch asserts, the plain kernel asserts too (accepted), the guarded one rejects.
expect 0 "assert() failed" "$lossfuzz" check --kernel "$dir/ce_plain.so" "$regressions/one_based_labels.json"
expect 0 "kernel_rejected" "$lossfuzz" check --kernel "$dir/ce_guarded.so" "$regressions/one_based_labels.json"
expect 1 "kernel-silent/label_out_of_range" "$lossfuzz" check --kernel "$dir/ce_buggy.so" "$regressions"
expect 1 "oob-read/kernel: kernel: out-of-bounds read:" "$lossfuzz" check --kernel "$dir/ce_buggy.so" "$regressions"
# Backward (ABI 2): each row's own upstream value, and the tensors given left as they were.
expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "$dir/ce_plain.so" examples/kernels/cases/upstream_none.json
expect 1 "grad-mismatch/kernel: d input[4]" "$lossfuzz" check --kernel "$dir/ce_buggy_grad.so" \
    examples/kernels/cases/upstream_none.json
expect 1 "input-modified/kernel: the kernel changed its input (in forward)" "$lossfuzz" check \
    --kernel "$dir/ce_inplace.so" examples/kernels/cases/upstream_none.json
# Fused linear + cross-entropy in C: d hidden, d weight and d bias from backward.
expect 0 "4 passed, 0 failed, 0 unusable" "$lossfuzz" check --kernel "$dir/ce_linear.so" \
    examples/kernels/cases/linear_none.json examples/kernels/cases/linear_frozen_hidden.json \
    examples/kernels/cases/linear_uneven_chunks.json examples/kernels/cases/linear_mean_first_ignored.json
expect 1 "grad-mismatch/kernel: d linear_bias[0]" "$lossfuzz" check --kernel "$dir/ce_linear_buggy.so" \
    examples/kernels/cases/linear_none.json
# A backward finding's regression spells out its upstream gradient's seed and kind.
min=$(mktemp -d)
expect 0 "grad-mismatch/kernel" "$lossfuzz" minimize --kernel "$dir/ce_buggy_grad.so" --out "$min" \
    examples/kernels/cases/upstream_none.json
if grep -q '"backward": {"seed": 11, "upstream": "random", "input_requires_grad": true}' "$min"/*.json; then ok; else
    fail "the minimized backward finding does not record its backward half: $(cat "$min"/*.json)"; fi
rm -rf "$min"
# A case outside the claims is skipped and counted, not judged.
expect 0 "1 skipped (outside the kernel's claims)" "$lossfuzz" check --kernel "$dir/ce_plain.so" \
    "$regressions/bce_infinite_logits.json"
expect 2 "was built against kernel ABI 4; this lossfuzz speaks ABI 3" "$lossfuzz" check \
    --kernel "$dir/ce_wrong_abi.so" "$regressions/one_based_labels.json"
libm=$(ldconfig -p 2>/dev/null | awk '/libm\.so\.6 / { print $NF; exit }')
[ -z "$libm" ] || expect 2 "exports no lossfuzz_kernel_describe" "$lossfuzz" check --kernel "$libm" \
    "$regressions/one_based_labels.json"
expect 2 "kernel library no-such-kernel.so: No such file" "$lossfuzz" check --kernel no-such-kernel.so \
    "$regressions/one_based_labels.json"

# `lossfuzz fuzz` (no engine) keeps going: the buggy kernel's one bug (no label check) shows as a
# number for a bad label and as an out-of-bounds read, each minimized once, its later hits counted,
# and the report folds both into one entry, the missing check; the plain kernel keeps the contract
fz=$(mktemp -d)
expect 1 "findings: " "$lossfuzz" fuzz --seconds 20 --kernel "$dir/ce_buggy.so" --out "$fz"
for repro in "$fz"/repros/*.json; do
    expect 1 "FINDING" "$lossfuzz" check --kernel "$dir/ce_buggy.so" "$repro"
    expect 0 "1 passed" "$lossfuzz" check --kernel "$dir/ce_guarded.so" "$repro"
done
# (an ASan build's worker may die of its own report on the read first: crash/kernel for the memory bug)
if why=$(python3 ci/report-has.py "$fz/report.json" 1 'kernel-silent/label_out_of_range') &&
    grep -q "^### 1\. \`kernel-silent/label_out_of_range\` - no check for label_out_of_range" "$fz/report.md" &&
    grep -Eq "\`(oob-read|crash)/kernel" "$fz/report.md"; then
    ok
else
    fail "the campaign's report does not fold the missing label check into one entry ($why): $(cat "$fz/report.md")"
fi
rm -rf "$fz" && fz=$(mktemp -d)
expect 0 "findings: 0" "$lossfuzz" fuzz --seconds 3 --kernel "$dir/ce_plain.so" --out "$fz"
# binary_cross_entropy through the C ABI (LOSSFUZZ_BCE): the byte format from the claims (fuzz_prob); the
# guarded kernel passes, the one that clamps its input instead of refusing it is found and minimized
rm -rf "$fz" && fz=$(mktemp -d)
expect 0 "findings: 0" "$lossfuzz" fuzz --seconds 5 --kernel "$dir/bce_guarded.so" --out "$fz"
if grep -q "^# lossfuzz campaign: fuzz_prob, " "$fz/report.md"; then ok; else fail "not fuzz_prob: $(head -1 "$fz/report.md")"; fi
rm -rf "$fz" && fz=$(mktemp -d)
expect 1 "findings: " "$lossfuzz" fuzz --seconds 10 --kernel "$dir/bce_clamped.so" --out "$fz"
if python3 ci/report-has.py "$fz/report.json" 1 'kernel-miss/bce_out_of_range' >/dev/null; then
    ok
else
    fail "the clamping kernel's missing range check is not its entry: $(cat "$fz/report.md")"
fi
# --jobs: processes with seeds of their own, one ledger and one report
rm -rf "$fz" && fz=$(mktemp -d)
expect 1 "findings: " "$lossfuzz" fuzz --seconds 10 --jobs 2 --kernel "$dir/ce_buggy.so" --out "$fz"
if grep -q "^# lossfuzz campaign: .*, 2 jobs" "$fz/report.md"; then ok; else fail "the report does not say 2 jobs"; fi
expect 2 "--jobs takes a count from 1 to 256" "$lossfuzz" fuzz --jobs 0
expect 2 "--seconds takes a positive number" "$lossfuzz" fuzz --seconds -1
expect 2 "--target takes fuzz_class, fuzz_prob, fuzz_linear or fuzz_llm" "$lossfuzz" fuzz --target fuzz_json
expect 2 "--seed takes a number, not 'abc'" "$lossfuzz" fuzz --seed abc
rm -rf "$fz"

# Python callables (py:MODULE:FUNCTION), in a Python worker with torch.
if ! ci/find-python.sh torch >/dev/null 2>&1; then
    echo "note: no python3 with torch; the Python kernels are not tested"
    finish
    exit
fi
if [ -n "${LF_SKIP_PYTHON_KERNELS:-}" ]; then # ci/test-long.sh's sanitized stage: the plain one runs them
    echo "note: LF_SKIP_PYTHON_KERNELS is set; the Python kernels are not tested here"
    finish
    exit
fi
# The workers' Python (lossfuzz's choice: $LOSSFUZZ_PYTHON, .venv, then the first with torch): a check that
# needs today's torch skips under an older one, saying so.
if [ -n "${LOSSFUZZ_PYTHON:-}" ]; then
    wpy=$LOSSFUZZ_PYTHON
elif .venv/bin/python3 -c 'import torch' 2>/dev/null; then
    wpy=.venv/bin/python3
else
    wpy=$(ci/find-python.sh torch)
fi
wtorch=$("$wpy" -c 'import torch; print(torch.__version__)')
if "$wpy" -c 'import sys, torch; sys.exit(tuple(map(int, torch.__version__.split(".")[:2])) < (2, 15))'; then
    today=yes
else
    today=""
    echo "note: $wpy has torch $wtorch: the checks of what torch 2.15 does differently skip, each saying so"
fi
py=examples/kernels/ce_python.py
expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "py:$py:rows" "$regressions"
# The sanitized build asks for the short part (KERNEL_TEST_PYTHON=short): ASan watches lossfuzz's side of
# the worker, which the sweep above and the campaigns below drive; the plain build tests the Python side in full.
if [ "${KERNEL_TEST_PYTHON:-full}" = full ]; then
    # F.cross_entropy itself keeps the contract, but where this PyTorch differs from the spec by design.
    expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "py:$py:wrapper" "$regressions"
    expect 0 "1 passed, 0 failed" "$lossfuzz" check --kernel "py:$py:wrapper" \
        examples/kernels/cases/u8_ignore_index_wrapped.json
    expect 1 "value-mismatch/kernel: kernel value[0] = 0, spec -nan" "$lossfuzz" check --kernel "py:$py:rows_buggy" \
        "$regressions/all_targets_ignored_mean.json"
    # An unguarded callable that raises where PyTorch asserts is accepted: on the CPU an
    # exception is a rejection, never an assert; its message is shown.
    expect 0 "host_error     label_out_of_range: Target 5 is out of bounds." "$lossfuzz" check \
        --kernel "py:$py:rows" "$regressions/one_based_labels.json"
    # ... whatever its class, where PyTorch rejects for another reason; a guarded one must give PyTorch's class.
    lf1=examples/kernels/cases/labels_first.py
    expect 0 "1 passed, 0 failed" "$lossfuzz" check --kernel "py:$lf1:unguarded" \
        examples/kernels/cases/labels_first_shape.json
    expect 1 "diagnosis-mismatch/kernel: PyTorch: RuntimeError" "$lossfuzz" check --kernel "py:$lf1:guarded" \
        examples/kernels/cases/labels_first_shape.json
    # Backward through autograd with a seeded upstream gradient: the fused example
    # keeps it, its buggy twin (every row scaled by the first upstream value) not.
    expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "py:$py:fused" "$regressions"
    expect 1 "grad-mismatch/kernel: d input[" "$lossfuzz" check --kernel "py:$py:fused_buggy" \
        examples/kernels/cases/upstream_none.json
    expect 1 "false-alarm/kernel-failed: PyTorch accepts the call; the kernel failed: UnboundLocalError" "$lossfuzz" check \
        --kernel py:examples/kernels/cases/frozen_crash.py:cross_entropy examples/kernels/cases/upstream_frozen.json
    expect 1 "input-modified/kernel: the kernel changed its input (in backward)" "$lossfuzz" check \
        --kernel py:examples/kernels/cases/in_place.py:cross_entropy examples/kernels/cases/upstream_none.json
    # binary_cross_entropy computed in float: where PyTorch's float16 chain passes 65504 first, not decided
    expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel py:examples/kernels/cases/torch_losses.py:bce_in_float32 \
        examples/kernels/cases/bce_in_float32_*.json
    # bfloat16 judged by PyTorch's own error on the call: a sum kept in bfloat16 is caught on a wide row.
    expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "py:$py:wrapper" \
        examples/kernels/cases/bf16_wide_row.json
    # Finite logits whose x - max overflows float32: PyTorch's inf or a kernel's finite loss, neither a bug
    expect 0 "1 passed" "$lossfuzz" check --kernel "$dir/ce_guarded.so" \
        examples/kernels/cases/overflow_in_log_softmax.json
    # A float32 row of 19,938 classes that torch's CPU adds in order: within the tolerance of a float sum
    expect 0 "1 passed" "$lossfuzz" check --kernel "py:$py:wrapper" examples/kernels/cases/wide_spatial_float32.json
    expect 1 "where PyTorch's own bfloat16 result is off by" "$lossfuzz" check --kernel "py:$py:rows_lowp_sum" \
        examples/kernels/cases/bf16_wide_row.json
    # Called on softmax(input) too: a write into the output softmax saved shows in the input's gradient; where
    # PyTorch's own backward refuses the call (a 1-D input with a [1] target), frozen or not, nothing is judged.
    expect 0 "1 passed, 0 failed" "$lossfuzz" check --kernel "py:$py:wrapper" \
        examples/kernels/cases/through_softmax_1d_frozen.json
    expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "py:$py:fused" \
        examples/kernels/cases/upstream_softmax.json
    expect 1 "upstream-grad-mismatch/kernel: called on softmax(input)" "$lossfuzz" check \
        --kernel py:examples/kernels/cases/in_place_activation.py:cross_entropy \
        examples/kernels/cases/upstream_softmax.json
    # Fused linear + cross-entropy: the gradients of the hidden states, the weight and the bias.
    lin=examples/kernels/ce_linear.py cases=examples/kernels/cases
    for k in composed chunked; do
        expect 0 "5 passed, 0 failed, 0 unusable" "$lossfuzz" check --kernel "py:$lin:$k" "$cases"/linear_*.json
    done
    expect 0 "d linear_bias [" "$lossfuzz" check --kernel "py:$lin:chunked" "$cases/linear_none.json"
    expect 1 "grad-error/kernel: backward failed: UnboundLocalError" "$lossfuzz" check \
        --kernel "py:$lin:chunked_frozen_crash" "$cases/linear_frozen_hidden.json"
    expect 1 "value-mismatch/kernel: kernel value[0] = 2.03" "$lossfuzz" check \
        --kernel "py:$lin:chunked_mean_of_chunks" "$cases/linear_uneven_chunks.json"
    # Minimized, its vocabulary and hidden size shrink with it (the weight's rows and columns).
    min=$(mktemp -d)
    expect 0 "value-mismatch/kernel" "$lossfuzz" minimize --kernel "py:$lin:chunked_mean_of_chunks" --out "$min" \
        "$cases/linear_uneven_chunks.json"
    if grep -q '"linear_weight": {"dtype": "float32", "shape": \[[1-4], [1-7]\]' "$min"/*.json; then ok; else
        fail "the minimized fused linear case keeps its vocabulary or hidden size: $(cat "$min"/*.json)"; fi
    rm -rf "$min"
    # Triton kernels in Triton's interpreter, when the worker's Python has triton (.venv's: ci/setup.sh).
    if "${LOSSFUZZ_PYTHON:-.venv/bin/python3}" -c "import triton" 2>/dev/null; then
        tr=examples/kernels/ce_triton.py cases=examples/kernels/cases
        expect 0 "0 failed, 0 unusable" "$lossfuzz" check --kernel "py:$tr:cross_entropy" "$regressions"
        expect 1 "grad-mismatch/kernel" "$lossfuzz" check --kernel "py:$tr:upstream_first" "$cases/upstream_none.json"
        expect 1 "shape-mismatch/kernel" "$lossfuzz" check --kernel "py:$tr:scalar_none" "$cases/upstream_none.json"
        expect 1 "input-modified/kernel: the kernel changed its input (in forward)" "$lossfuzz" check \
            --kernel "py:$tr:inplace" "$cases/upstream_none.json"
        expect 1 "false-alarm/kernel" "$lossfuzz" check --kernel "py:$tr:frozen_crash" "$cases/upstream_frozen.json"
        expect 1 "value-mismatch/kernel: kernel value[0] = 0, spec -nan" "$lossfuzz" check \
            --kernel "py:$tr:all_ignored_zero" "$regressions/all_targets_ignored_mean.json"
        expect 0 "1 skipped (outside the kernel's claims)" "$lossfuzz" check --kernel "py:$tr:cross_entropy" \
            "$cases/wide_batch.json"
    else
        echo "note: no triton in ${LOSSFUZZ_PYTHON:-.venv} (ci/setup.sh); the Triton kernels are not tested"
    fi
    expect 2 "--kernel py:$py:nothing: $py has no nothing" "$lossfuzz" check --kernel "py:$py:nothing" \
        "$regressions/one_based_labels.json"
    expect 2 "cannot import no_such_module: ModuleNotFoundError" "$lossfuzz" check --kernel py:no_such_module:f \
        "$regressions/one_based_labels.json"
    expect 2 "lossfuzz_claims has 'feature'" "$lossfuzz" check --kernel \
        py:examples/kernels/cases/bad_claims.py:cross_entropy "$regressions/one_based_labels.json"
fi
# A kernel with three independent bugs: one campaign reports all three, one entry each, by harm
rm -rf "$fz" && fz=$(mktemp -d)
expect 1 "accepted deviations: 0" "$lossfuzz" fuzz --seconds 10 --kernel py:examples/kernels/ce_three_bugs.py:cross_entropy \
    --out "$fz" --junit "$fz/report.xml"
if why=$(python3 ci/report-has.py "$fz/report.json" 3 'value-mismatch/kernel\[.*mean,ignored' \
    'shape-mismatch/kernel\[.*none' 'grad-mismatch/kernel\[.*none'); then ok; else fail "the three-bug campaign: $why"; fi
if grep -q '"signature": "shape-mismatch/kernel' "$fz/report.json"; then ok; else fail "report.json lacks the shape bug"; fi
summary=$(python3 ci/ci-summary.py "$fz/report.json" "$fz/report.xml")
if echo "$summary" | grep -q '| `shape-mismatch/kernel\[.*| Silent wrong' &&
    grep -q 'failures="[1-9]' "$fz/report.xml"; then ok; else fail "the campaign's JUnit or CI summary lacks its findings"; fi
# A kernel that writes its gradient in place on purpose and claims it: accepted and counted, never failing
if [ "${KERNEL_TEST_PYTHON:-full}" = full ]; then
    # Another style's three independent bugs (a strided input read densely, smoothing without the weight, the
    # mean counting ignored rows), each met in several layouts and harms: three entries, one per cause (issue 45)
    rm -rf "$fz" && fz=$(mktemp -d)
    expect 1 "findings: 3 (" "$lossfuzz" fuzz --seconds 15 --kernel py:examples/kernels/faithful/plain_torch.py:three_bugs \
        --out "$fz"
    # (each entry's cause names its bug: the variants of one may carry another's traits)
    causes=$(python3 -c 'import json, sys; print(" | ".join(sorted(e["cause"] for e in json.load(open(sys.argv[1]))["findings"])))' \
        "$fz/report.json")
    case "$causes" in
    *"a strided input"*"|"*"label smoothing"*"|"*"rows weighted unevenly (here: an ignored label); reduction mean") ok ;;
    *) fail "the plain-torch three-bug campaign's causes: $causes" ;;
    esac
    # A kernel that rejects in its own words where CPU PyTorch rejects (a listed difference): excused, and named
    expect 0 "known          CUDA's nll_loss2d returns" "$lossfuzz" check \
        --kernel py:examples/kernels/faithful/plain_torch.py:cross_entropy examples/kernels/faithful/cases/empty_spatial_weight_f64.json
    # A float32 chunked kernel where PyTorch's own answer is its dtype's or its backward's artefact: undecided
    expect 0 "2 passed, 0 failed" "$lossfuzz" check --kernel py:examples/kernels/faithful/chunked_online.py:cross_entropy \
        examples/kernels/faithful/cases/
    # torch.compile's recompile limit is the worker's state: dynamo is reset and the call made again. The
    # workers' Python (lossfuzz's choice: $LOSSFUZZ_PYTHON first) must have it: torch 1.13 has no dynamo.
    if "$wpy" -c 'import torch._dynamo; torch._dynamo.config.recompile_limit' >/dev/null 2>&1; then
        expect 0 "4 passed, 0 failed" "$lossfuzz" check --kernel py:examples/kernels/cases/compiled.py:cross_entropy \
            "$regressions/bf16_confident_predictions.json" "$regressions/common_offset_1e4_f32.json" \
            "$regressions/f16_range_logits.json" "$regressions/bf16_large_logits_with_smoothing.json"
    else
        echo "skipped: the torch.compile kernel: torch $wtorch has no torch._dynamo.config.recompile_limit"
    fi
fi
rm -rf "$fz" && fz=$(mktemp -d)
expect 0 "findings: 0 (" "$lossfuzz" fuzz --seconds 10 --kernel py:examples/kernels/ce_in_place_claimed.py:cross_entropy \
    --out "$fz"
if grep -q "^## Accepted by the kernel's claims" "$fz/report.md" && grep -q "grad_in_place" "$fz/report.md"; then ok; else
    fail "the claimed in-place gradient is not reported as accepted: $(cat "$fz/report.md")"; fi
expect 0 "accepted       input-modified/kernel: grad_in_place" "$lossfuzz" check \
    --kernel py:examples/kernels/ce_in_place_claimed.py:cross_entropy examples/kernels/cases/upstream_none.json
# ... and still called on softmax's output: a gradient written there breaks softmax's backward (Liger-Kernel #272)
expect 1 "upstream-grad-mismatch/kernel: called on softmax(input)" "$lossfuzz" check \
    --kernel py:examples/kernels/ce_in_place_claimed.py:into_activations examples/kernels/cases/upstream_softmax.json
if [ "${KERNEL_TEST_PYTHON:-full}" = full ]; then
    # Each deliberate deviation a claim names is accepted; the same kernel without the claim is a finding
    dv=examples/kernels/cases/deviations.py
    for pair in "float32_result bf16_confident_predictions dtype-mismatch/kernel" \
        "no_empty empty_batch_mean false-alarm/kernel" "unchecked one_based_labels kernel-silent/label_out_of_range" \
        "batched_only input_1d_target_0d false-alarm/kernel" "empty_zero all_targets_ignored_mean value-mismatch/kernel"; do
        set -- $pair
        expect 0 "accepted       $3" "$lossfuzz" check --kernel "py:$dv:$1" "$regressions/$2.json"
        expect 1 "FINDING        $3" "$lossfuzz" check --kernel "py:$dv:$1_unclaimed" "$regressions/$2.json"
    done
    # targets_flattened on a fused linear: the count is the logits' rows (not the hidden states' elements), and
    # every shape refusal a flattening kernel skips is accepted (a [1] target of a [H] call too)
    for case in flattened_linear_target_1x2 flattened_linear_1d_target_1; do
        # (before 2.15 linear_cross_entropy is the composition, which takes these calls: nothing to accept)
        [ -n "$today" ] || [ "$case" != flattened_linear_1d_target_1 ] || { echo "skipped: linear_flat on $case: torch $wtorch's composition takes it"; continue; }
        expect 0 "accepted       kernel-silent/" "$lossfuzz" check --kernel "py:$dv:linear_flat" "examples/kernels/cases/$case.json"
        expect 1 "FINDING        kernel-silent/" "$lossfuzz" check --kernel "py:$dv:linear_flat_unclaimed" \
            "examples/kernels/cases/$case.json"
    done
    # No blind spots: a result of the right count and the wrong shape, a [1, C] probability target that a soft
    # kernel broadcasts; a kernel that keeps to the documentation's () target of a 1-D input is right
    bs=examples/kernels/cases/blind_spots.py
    expect 1 "the kernel gave a result of shape [3, 1], PyTorch's is [3]" "$lossfuzz" check \
        --kernel "py:$bs:none_keepdim" "examples/kernels/cases/prob_none.json"
    expect 1 "the kernel gave a result of shape [1], PyTorch's is []" "$lossfuzz" check --kernel "py:$bs:mean_as_1" \
        "examples/kernels/cases/mean_4x8.json"
    expect 1 "kernel-silent/batch_size_mismatch" "$lossfuzz" check --kernel "py:$bs:soft_broadcast" \
        "examples/kernels/cases/prob_target_broadcast.json"
    if [ -n "$today" ]; then # torch 1.13 rejects a [1] target of a [C] input: the kernel's refusal is 1.13's too
        expect 0 "unbatched_target_1" "$lossfuzz" check --kernel "py:$bs:documented_1d" \
            "$regressions/input_1d_target_shape1_none.json"
    else
        echo "skipped: documented_1d's [1] target: torch $wtorch rejects it as the kernel does"
    fi
    expect 2 "\"grad_in_place\" must be true or false" "$lossfuzz" check \
        --kernel py:examples/kernels/cases/bad_claims.py:in_place_not_bool "$regressions/one_based_labels.json"
fi
rm -rf "$fz"
finish
