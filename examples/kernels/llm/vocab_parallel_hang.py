"""A vocabulary-parallel cross-entropy with a bug of the kind that hangs a
job: rank 1 returns early on a batch whose labels are all ignored, so rank 0
waits in its all-reduce for a rank that never joins. lossfuzz reports the
case as hang/kernel (rank_hang) and replaces every rank; tests use it
(examples/kernels/llm/llm_test.sh).

    lossfuzz fuzz --target fuzz_llm --world-size 2 --kernel py:examples/kernels/llm/vocab_parallel_hang.py:cross_entropy"""
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vocab_parallel_ce  # noqa: E402


def cross_entropy(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0, group=None):
    if dist.get_rank(group) == 1 and target.numel() and bool((target == ignore_index).all()):
        return input.sum() * 0  # BUG: no collective on this rank; rank 0 waits in its all-reduce forever
    return vocab_parallel_ce.vocab_parallel_cross_entropy(input, target, ignore_index, reduction, label_smoothing,
                                                          group)


cross_entropy.lossfuzz_claims = dict(vocab_parallel_ce.CLAIMS, name="vocab_parallel_hang (buggy: a skipped collective)")
