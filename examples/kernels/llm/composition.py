"""lossfuzz's own definitions of the LLM family composed of torch ops
(python/lossfuzz_llm.py, the --torch path) run as a kernel under test: a
kernel written to docs/llm-cross-entropy.md that rounds wherever torch does.
A campaign against it checks the spec's tolerances, not the composition:
every finding is lossfuzz's defect or a documented difference.

    lossfuzz fuzz --target fuzz_llm --kernel py:examples/kernels/llm/composition.py:cross_entropy
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import lossfuzz_llm  # noqa: E402


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0,
                  logit_scale=1.0, softcap=0.0, z_loss_scale=0.0, n_items=0.0, loss_mask=None):
    loss, out = lossfuzz_llm.cross_entropy(
        input, target, weight=weight, ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing,
        logit_scale=logit_scale, softcap=softcap, z_loss_scale=z_loss_scale, n_items=n_items, loss_mask=loss_mask,
        vocab_last=input.dim() >= 3)
    return loss, out["z_loss"], out["lse"]


cross_entropy.lossfuzz_claims = {
    "name": "llm_composition", "losses": ["cross_entropy", "cross_entropy_prob"],
    "options": {"logit_scale": "logit_scale", "softcap": "softcap", "z_loss_scale": "z_loss_scale",
                "n_items": "n_items", "loss_mask": "loss_mask"},
    "outputs": ["loss", "z_loss", "lse"], "vocab_last": True}


def lse_without_max(input, target, **options):
    """A planted bug: the returned lse lacks the row's max (the loss is right)."""
    loss, z_loss, lse = cross_entropy(input, target, **options)
    x = input if input.dim() < 3 else input.movedim(-1, 1)
    return loss, z_loss, lse - x.amax(dim=1 if x.dim() > 1 else 0).to(lse.dtype)


lse_without_max.lossfuzz_claims = cross_entropy.lossfuzz_claims


def lse_rounded_first(input, target, **options):
    """A planted bug: each row's loss is lse - x[label] with lse rounded to the input's dtype first (the
    digits of a large lse lost), as several fused kernels compute it."""
    loss, z_loss, lse = cross_entropy(input, target, **options)
    if options.get("reduction", "mean") != "mean" or input.dim() != 2 or target.is_floating_point():
        return loss, z_loss, lse
    import torch
    x = input * options.get("logit_scale", 1.0)
    rows = lse.to(input.dtype) - x.gather(1, target.long().clamp(0, x.shape[1] - 1)[:, None])[:, 0]
    return rows.mean(), z_loss, lse


lse_rounded_first.lossfuzz_claims = dict(cross_entropy.lossfuzz_claims, features=[], reductions=["mean"],
                                         input_dtypes=["float32"], target_dtypes=["int64"])
