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


def in_float32(input, target, weight=None, **options):
    """The definitions as fused kernels compute them: a 16-bit input's whole loss in float32, the results
    rounded to its dtype once. Correct: where PyTorch's own float16 intermediates overflow (a smoothing sum
    past 65504) its inf is the dtype's, and this kernel's number passes."""
    import torch
    low = input.dtype in (torch.float16, torch.bfloat16)
    if low:
        if "loss_mask" in options and options["loss_mask"] is not None:
            options["loss_mask"] = options["loss_mask"].float() if options["loss_mask"].is_floating_point() \
                else options["loss_mask"]
        weight = weight.float() if weight is not None and weight.is_floating_point() else weight
        target = target.float() if target.is_floating_point() else target
    loss, z_loss, lse = cross_entropy(input.float() if low else input, target, weight=weight, **options)
    return loss.to(input.dtype), z_loss.to(input.dtype), lse.to(input.dtype)


in_float32.lossfuzz_claims = cross_entropy.lossfuzz_claims


def cap_in_input_dtype(input, target, logit_scale=1.0, softcap=0.0, **options):
    """A planted bug: the scale and the cap computed in the input's dtype (a bfloat16 tanh of -0.998 is -1,
    its gradient 0), which a reference composed in bfloat16 would forgive (issue 38, item 4)."""
    import torch
    y = input * logit_scale if logit_scale != 1.0 else input
    if softcap > 0:
        y = softcap * torch.tanh(y / softcap)
    return cross_entropy(y, target, **options)


cap_in_input_dtype.lossfuzz_claims = dict(cross_entropy.lossfuzz_claims, input_dtypes=["bfloat16"],
                                          losses=["cross_entropy"])


def positive_scale(input, target, logit_scale=1.0, **options):
    """The composition behind flash-attention's check: it asserts logit_scale > 0, and claims that range."""
    assert logit_scale > 0, "logit_scale must be positive"
    return cross_entropy(input, target, logit_scale=logit_scale, **options)


positive_scale.lossfuzz_claims = dict(cross_entropy.lossfuzz_claims, ranges={"logit_scale": [1e-6, 1e6]})


def mask_selects(input, target, ignore_index=-100, reduction="mean", loss_mask=None, **options):
    """The loss mask as a selection, as trainers that turn masked labels into -100 apply it: a masked row
    of a sum or of reduction none gives 0 whatever its terms (an infinite class weight too), where the
    mask's product gives 0 * inf = NaN. Real trainers do both: undecided (docs/llm-cross-entropy.md).
    (A mean divides by the mask's sum, not the rows' weights: left to the mask's product.)"""
    import torch
    binary = loss_mask is not None and bool(((loss_mask == 0) | (loss_mask == 1)).all())
    if binary and reduction != "mean" and not target.is_floating_point():
        masked = loss_mask.reshape(target.shape) == 0
        target, loss_mask = torch.where(masked, torch.full_like(target, ignore_index), target), None
    return cross_entropy(input, target, ignore_index=ignore_index, reduction=reduction, loss_mask=loss_mask,
                         **options)


mask_selects.lossfuzz_claims = cross_entropy.lossfuzz_claims
