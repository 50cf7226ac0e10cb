"""vocab_parallel_ce.py with one planted bug of the kind its docs name
(marked `# BUG:`): the target logit taken from the local shard without
masking the labels another rank holds. Each rank gathers at its local index
t - off_r clamped into [0, V_r), so the SUM adds W - 1 wrong logits to the
right one: the loss is wrong for any row with W > 1 (the gradient, made
locally, is not)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the correct module, beside this one
from vocab_parallel_ce import CLAIMS, _run  # noqa: E402


def _target_logit_unmasked(shifted, target, mine, off):
    # BUG: no mask to the owning rank: every rank adds the logit at its clamped local index
    idx = (target - off).clamp(0, shifted.shape[1] - 1)
    return shifted.gather(1, idx[:, None])[:, 0]


def vocab_parallel_cross_entropy(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0,
                                 group=None):
    return _run(input, target, ignore_index, reduction, label_smoothing, group, _target_logit_unmasked)


vocab_parallel_cross_entropy.lossfuzz_claims = dict(CLAIMS, name="vocab_parallel_ce (buggy: unmasked target logit)")
