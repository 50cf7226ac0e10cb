"""PyTorch's own nll_loss, binary_cross_entropy(_with_logits) as kernels under
test: the spec's forward and backward checked against real PyTorch on every
case the fuzzer makes (the cross_entropy one is ce_python.py:wrapper)."""
import torch.nn.functional as F


def nll_loss(input, target, **options):
    return F.nll_loss(input, target, **options)


def bce_with_logits(input, target, **options):
    return F.binary_cross_entropy_with_logits(input, target, **options)


def bce(input, target, **options):
    return F.binary_cross_entropy(input, target, **options)


def bce_clamped(input, target, **options):
    """A kernel that clamps its input into [0, 1] silently instead of refusing it (a planted bug)."""
    return F.binary_cross_entropy(input.clamp(0, 1).nan_to_num(0.5), target, **options)


def bce_in_float32(input, target, weight=None, reduction="mean"):
    """binary_cross_entropy computed in float32 for 16-bit input, as fused kernels do (PyTorch: in the dtype)."""
    if target.dtype != input.dtype:
        raise RuntimeError("Found dtype %s but expected %s" % (target.dtype, input.dtype))
    w = weight.float() if weight is not None and weight.is_floating_point() else weight
    return F.binary_cross_entropy(input.float(), target.float(), weight=w, reduction=reduction).to(input.dtype)


nll_loss.lossfuzz_claims = {"name": "F.nll_loss", "losses": ["nll_loss"]}
bce_with_logits.lossfuzz_claims = {"name": "F.binary_cross_entropy_with_logits",
                                   "losses": ["binary_cross_entropy_with_logits"]}
bce.lossfuzz_claims = {"name": "F.binary_cross_entropy", "losses": ["binary_cross_entropy"]}
bce_clamped.lossfuzz_claims = {"name": "binary_cross_entropy, input clamped", "losses": ["binary_cross_entropy"]}
bce_in_float32.lossfuzz_claims = {"name": "binary_cross_entropy in float32", "losses": ["binary_cross_entropy"]}
