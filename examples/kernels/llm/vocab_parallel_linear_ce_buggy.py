"""vocab_parallel_ce.py's vocabulary-parallel LM head with one bug of its
kind: d hidden is left partial on each rank (its vocabulary's part only),
the all-reduce of Megatron's column-parallel layer forgotten. lossfuzz
finds it as grad-mismatch/kernel on d input (examples/kernels/llm/llm_test.sh).

    lossfuzz fuzz --target fuzz_linear --world-size 2 \\
        --kernel py:examples/kernels/llm/vocab_parallel_linear_ce_buggy.py:vocab_parallel_linear_cross_entropy"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vocab_parallel_ce  # noqa: E402


def vocab_parallel_linear_cross_entropy(input, linear_weight, target, linear_bias=None, ignore_index=-100,
                                        reduction="mean", label_smoothing=0.0, group=None):
    logits = torch.nn.functional.linear(input, linear_weight, linear_bias)  # BUG: d hidden not all-reduced
    return vocab_parallel_ce._run(logits, target, ignore_index, reduction, label_smoothing, group,
                                  vocab_parallel_ce._target_logit)


vocab_parallel_linear_cross_entropy.lossfuzz_claims = dict(
    vocab_parallel_ce.vocab_parallel_linear_cross_entropy.lossfuzz_claims,
    name="vocab_parallel_linear_ce (buggy: d hidden not all-reduced)")
