#!/bin/sh
# llm_test.sh LOSSFUZZ - the LLM cross-entropy family end to end
# (docs/llm-cross-entropy.md), on kernels written apart from lossfuzz:
# - the spec against the definitions composed of torch ops (Debian's torch),
#   fuzz_llm for LLM_TEST_SECONDS (60): no disagreement;
# - the Triton softcap + z-loss kernel (Triton's interpreter) and the plain
#   torch vocabulary-parallel kernel (2 gloo ranks): no finding in
#   LLM_TEST_SECONDS each; their buggy copies each found from an empty corpus
#   within 60 s, 2 of 2 seeds (as ci/test-long.sh's Python kernels);
# - a rank that skips a collective: hang/kernel, every rank replaced, the
#   next case judged;
# - the definitions composed of torch ops run as a kernel (composition.py),
#   and its planted bugs;
# - the examples' own standalone check (check_examples.py).
# Skips (77) without a Python that has torch and triton (ci/setup.sh's .venv).
. "$(dirname "$0")/../../../harness/tests/lf_expect.sh"
lossfuzz=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
seconds=${LLM_TEST_SECONDS:-60}
cd "$(dirname "$0")/../../.." || exit 2
py=${LOSSFUZZ_PYTHON:-.venv/bin/python3}
if ! "$py" -c "import torch, triton" 2>/dev/null; then
    echo "skipped: $py has no torch and triton (ci/setup.sh makes .venv)"
    exit 77
fi
if [ -n "${LF_SKIP_PYTHON_KERNELS:-}" ]; then # ci/test-long.sh's sanitized stage: the plain one runs them
    echo "skipped: LF_SKIP_PYTHON_KERNELS is set"
    exit 77
fi
export LOSSFUZZ_PYTHON="$py" LOSSFUZZ_PROGRESS=off
k=examples/kernels/llm
work=$(mktemp -d)
empty="$work/empty"
mkdir -p "$empty"
triton="py:$k/softcap_zloss_triton.py:cross_entropy" triton_buggy="py:$k/softcap_zloss_triton_buggy.py:cross_entropy"
vp="py:$k/vocab_parallel_ce.py:vocab_parallel_cross_entropy"
vp_buggy="py:$k/vocab_parallel_ce_buggy.py:vocab_parallel_cross_entropy"

# clean KERNEL WORLD: no finding in $seconds (WORLD 0: one process).
clean() {
    world=""
    [ "$2" -gt 0 ] && world="--world-size $2"
    # shellcheck disable=SC2086
    expect 0 "findings: 0" "$lossfuzz" fuzz --target fuzz_llm --seconds "$seconds" --kernel "$1" $world \
        --out "$work/clean"
}
# found KERNEL WORLD: its first finding within 60 s from an empty corpus, seeds 1 and 2.
found() {
    world=""
    [ "$2" -gt 0 ] && world="--world-size $2"
    for seed in 1 2; do
        # shellcheck disable=SC2086
        expect 1 "finding " "$lossfuzz" fuzz --target fuzz_llm --corpus "$empty" --seed "$seed" --first --seconds 60 \
            --kernel "$1" $world --out "$work/found-$seed"
        grep -h "^first after" "$work/found-$seed/report.md" | sed "s|^|  $1 seed $seed: |"
    done
}

# The sanitized build asks for the short part (LLM_TEST_PYTHON=short): the spec, the ranks and the files, which
# are lossfuzz's C side; the kernels' Python side, which ASan does not watch, is the plain build's to test in full.
full=${LLM_TEST_PYTHON:-full}
expect 0 "findings: 0" "$lossfuzz" fuzz --target fuzz_llm --torch --seconds "$seconds" --out "$work/torch"
# (uint8 labels whose ignore_index wraps: PyTorch's NaN is not the composition's to reproduce)
expect 0 "1 passed, 0 failed" "$lossfuzz" check --torch $k/cases/u8_wrapped_ignore_zloss_torch.json
[ "$full" != full ] || clean "$triton" 0
[ "$full" != full ] || found "$triton_buggy" 0
clean "$vp" 2
[ "$full" != full ] || found "$vp_buggy" 2
# The definitions composed of torch ops as a kernel: within the spec's tolerances (softcap's saturated gradient:
# float32's 1 - tanh^2 to 6e-5); its lse judged on a plain call too; a rounded lse as without the options.
comp=py:$k/composition.py
expect 0 "3 passed, 0 failed" "$lossfuzz" check --kernel "$comp:cross_entropy" $k/cases/softcap_saturated_grad.json \
    $k/cases/plain_call_lse.json $k/cases/lse_rounded_plain.json
# One set of rules (issue 38): the family's cases judged by PyTorch's rules and rounding points - the composition
# and the same computed in float32 (as fused kernels do) both pass; each case failed one of them before.
one_rules="bf16_zloss_lse_grad masked_row_inf_probability zero_weight_smoothing_softcap zloss_large_lse_grad
    softcap_backward_overflow bf16_cap_saturated_grad u8_wrapped_ignore_smoothing ignored_inf_weight_smoothing_softcap
    subnormal_weight_zloss scaled_past_float f16_smoothing_sum_overflow masked_row_inf_weight"
one_rules=$(for c in $one_rules; do printf '%s ' "$k/cases/$c.json"; done)
expect 0 "12 passed, 0 failed" "$lossfuzz" check --kernel "$comp:cross_entropy" $one_rules
expect 0 "12 passed, 0 failed" "$lossfuzz" check --kernel "$comp:in_float32" $one_rules
# (a masked row with an infinite weight: the mask's product gives NaN, a selection 0; real trainers do both)
expect 0 "1 passed, 0 failed" "$lossfuzz" check --kernel "$comp:mask_selects" $k/cases/masked_row_inf_weight.json
# (an ignored row's z-loss past float's range: the Triton example's NaN gradient is not judged)
[ "$full" != full ] || expect 0 "1 passed, 0 failed" "$lossfuzz" check --kernel "$triton" \
    $k/cases/ignored_zloss_overflow.json
# ... and the cap in bfloat16 (-0.998 is -1 there, its gradient 0), which a reference composed in bfloat16 forgave
expect 1 "d input[0] = 0, spec 0.0153198242" "$lossfuzz" check --kernel "$comp:cap_in_input_dtype" \
    $k/cases/bf16_cap_saturated_grad.json
expect 1 "output-mismatch/kernel/lse: kernel lse[0] = 0.407605886, spec 3.40760589" "$lossfuzz" check \
    --kernel "$comp:lse_without_max" $k/cases/plain_call_lse.json
expect 1 "0 passed, 2 failed" "$lossfuzz" check --kernel "$comp:lse_rounded_first" $k/cases/lse_rounded_plain.json \
    $k/cases/lse_rounded_n_items.json
# Option ranges: the byte format makes a logit_scale of -1; a kernel claiming scales above 0 is not sent it.
expect 0 '"logit_scale": -1.0' "$lossfuzz" show --target fuzz_llm corpus/fuzz_llm/52780aced8737f842eb9de23ec2d2cb6fd227f2a
expect 0 "0 passed, 0 failed, 0 unusable, 1 skipped" "$lossfuzz" check --kernel "$comp:positive_scale"     $k/cases/negative_scale.json
expect 0 "1 passed, 0 failed" "$lossfuzz" check --kernel "$comp:cross_entropy" $k/cases/negative_scale.json
# A vocabulary-parallel LM head: its weight's rows sharded, d hidden whole; without its all-reduce, found.
expect 0 "1 passed, 0 failed" "$lossfuzz" check --world-size 2 \
    --kernel "py:$k/vocab_parallel_ce.py:vocab_parallel_linear_cross_entropy" $k/cases/linear_two_ranks.json
[ "$full" != full ] || expect 1 "grad-mismatch/kernel" "$lossfuzz" fuzz --target fuzz_linear --corpus "$empty" --first \
    --seconds 60 --world-size 2 --kernel "py:$k/vocab_parallel_linear_ce_buggy.py:vocab_parallel_linear_cross_entropy" \
    --out "$work/linear"
# A rank that never joins a collective: the case's finding, then every rank anew.
export LOSSFUZZ_RANK_TIMEOUT=3
expect 1 "1 passed, 1 failed" "$lossfuzz" check --world-size 2 \
    --kernel "py:$k/vocab_parallel_hang.py:cross_entropy" $k/cases/all_ignored.json $k/cases/two_ranks.json
expect 1 "hang/kernel: kernel: rank 0 of 2 gave no answer" "$lossfuzz" check --world-size 2 \
    --kernel "py:$k/vocab_parallel_hang.py:cross_entropy" $k/cases/all_ignored.json
# A world size the case was not made for is skipped and said; a kernel without the claim is refused.
expect 0 "1 skipped (outside the kernel's claims)" "$lossfuzz" check --world-size 3 --kernel "$vp" \
    $k/cases/two_ranks.json
expect 2 "does not claim \"vocab_parallel\"" "$lossfuzz" check --world-size 2 --kernel "$triton" \
    $k/cases/two_ranks.json
expect 2 "--world-size takes 1 to 8 ranks" "$lossfuzz" check --world-size 9 --kernel "$vp" $k/cases/two_ranks.json
# A dumped batch carries the family too: its options as 0-d arrays, the mask as loss_mask.
"$py" -c "import numpy as np; np.savez('$work/batch.npz', logits=np.linspace(-3, 3, 15, dtype=np.float32).reshape(3, 5),
labels=np.array([1, 4, -100]), softcap=np.array(2.0), z_loss_scale=np.array(0.01),
loss_mask=np.array([1.0, 0.5, 1.0], dtype=np.float32)); np.savez('$work/typo.npz', logits=np.zeros((1, 2), np.float32),
labels=np.array([0]), softcapp=np.array(2.0))"
expect 0 "1 passed, 0 failed" "$lossfuzz" check --torch "$work/batch.npz"
expect 2 "softcapp: unknown array; did you mean softcap?" "$lossfuzz" check "$work/typo.npz"
[ "$full" != full ] || expect 0 "its bugs are caught" "$py" $k/check_examples.py
rm -rf "$work"
finish
