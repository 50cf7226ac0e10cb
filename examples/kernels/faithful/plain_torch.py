"""Cross-entropy written out in plain torch ops, faithful to PyTorch's contract
(every option: class weights, ignore_index, label smoothing, the three
reductions, spatial and 1-D input, probability targets): a control that a
campaign must leave without a finding (docs/released-kernels.md, "Controls").
Its rejections are in its own words, as a user's kernel's are; where CPU
PyTorch rejects a call CUDA accepts (a listed difference), so does it.

`three_bugs` is the same kernel with three independent bugs, each showing in
several layouts and harms; a campaign must report three entries:
  1. a non-contiguous input read as if contiguous (its storage as row-major)
  2. label smoothing's term without the class weight
  3. reduction="mean" divides by every row, ignored ones included

    lossfuzz fuzz --seconds 60 --kernel py:examples/kernels/faithful/plain_torch.py:cross_entropy
    lossfuzz fuzz --seconds 60 --kernel py:examples/kernels/faithful/plain_torch.py:three_bugs"""
import torch


def _dense_strides(shape):
    strides, s = [], 1
    for n in reversed(shape):
        strides.insert(0, s)
        s *= max(n, 1)
    return strides


def _acc(t):
    """PyTorch's accumulation type: float for 16-bit floats."""
    return torch.float32 if t.dtype in (torch.float16, torch.bfloat16) else t.dtype


def _check(input, target, weight, reduction, label_smoothing):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    if not input.is_floating_point():
        raise RuntimeError("plain_torch: the input must be floating point, not %s" % input.dtype)
    if input.dim() == 0:
        raise RuntimeError("plain_torch: a 0-D input has no classes")
    if label_smoothing > 1.0:  # (a negative one is taken as it is, as PyTorch takes it)
        raise RuntimeError("plain_torch: label_smoothing must be at most 1.0, got %s" % label_smoothing)
    classes = input.shape[0 if input.dim() == 1 else 1]
    # nll_loss2d (3-D input reshaped) checks a non-empty batch's weight by its size only; nll_loss and
    # the probability path (a target shaped as the input) its rank too
    spatial_2d = input.dim() == 4 or (input.dim() >= 3 and input.numel() > 0)  # (4-D is nll_loss2d's without reshape)
    spatial_2d = spatial_2d and target.shape != input.shape
    if weight is not None and (weight.numel() != classes or (weight.dim() != 1 and not spatial_2d)):
        raise RuntimeError("plain_torch: a weight of %d classes, got shape %s" % (classes, tuple(weight.shape)))
    # every check, even on an empty batch, as CPU PyTorch does (CUDA returns first: a listed difference)
    if weight is not None and label_smoothing > 0 and (weight.dim() == 0 or weight.shape[0] != weight.numel()):
        raise RuntimeError("plain_torch: label smoothing views the weight along its first dim")
    # (class targets only: the probabilities' product promotes a weight of any dtype, as PyTorch's does)
    if weight is not None and weight.dtype != input.dtype and not target.is_floating_point():
        raise RuntimeError("plain_torch: expected scalar type %s but found %s" % (input.dtype, weight.dtype))
    if target.shape == input.shape and not target.is_floating_point():  # a target shaped as the input: probabilities
        raise RuntimeError("plain_torch: class probabilities must be floating point, got %s" % target.dtype)
    if not target.is_floating_point() and target.dtype not in (torch.int64, torch.uint8):
        raise RuntimeError("plain_torch: class targets must be int64 or uint8, got %s" % target.dtype)
    if input.dim() in (3,) or input.dim() > 4:  # PyTorch reshapes these to [N, C, 1, -1]: no classes, no -1
        if classes == 0:
            raise RuntimeError("plain_torch: a spatial input without classes")


def _reduce(rows, divisor, reduction, dtype):
    if reduction == "none":
        return rows.to(dtype)
    total = rows.sum(dtype=_acc(rows))
    return (total / divisor if reduction == "mean" else total).to(dtype)


def _cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, bugs):
    _check(input, target, weight, reduction, label_smoothing)
    one_d = input.dim() == 1
    x = input[None] if one_d else input  # [N, C, d1, ...]
    if "contiguous" in bugs:  # bug 1: the storage read as row-major
        x = torch.as_strided(x, x.shape, _dense_strides(x.shape), x.storage_offset())
    C, eps = x.shape[1], float(label_smoothing)
    w = weight.reshape(C) if weight is not None else torch.ones(C, dtype=x.dtype)
    w_at = w.reshape([1, C] + [1] * (x.dim() - 2))
    lp = torch.log_softmax(x, dim=1)
    if target.is_floating_point():  # probabilities: one per class
        if ignore_index >= 0:  # (PyTorch refuses a class index only)
            raise RuntimeError("plain_torch: no ignore_index for probability targets")
        t = target[None] if one_d else target  # another float dtype: the result promoted, as PyTorch's
        if t.shape != x.shape:
            raise RuntimeError("plain_torch: a probability target of shape %s for input %s" %
                               (tuple(target.shape), tuple(input.shape)))
        if eps > 0:  # (no classes: an empty target, any term will do)
            t = t * (1 - eps) + (eps / C if C else 0.0)
        prod = lp * t * w_at  # PyTorch's order and promotion: lp * 0 is 0 before any weight
        # a row's sum for reduction none; mean and sum add every product at once (no row sum in float16 first)
        rows = -prod.sum(1) if reduction == "none" else -prod.reshape(-1)
        out = _reduce(rows, (x.numel() // C) if C else 0, reduction, prod.dtype)
        return out[0] if one_d and reduction == "none" else out
    if one_d and (target.numel() != 1 or target.dim() > 1):
        raise RuntimeError("plain_torch: 1-D input takes a 0-D target, got shape %s" % (tuple(target.shape),))
    # PyTorch's smoothing mean gathers the weight by the labels kept: an int64 index into a 1-D weight
    gathers = weight is not None and reduction == "mean" and bool((target != ignore_index).any())
    if eps > 0 and ((gathers and (target.dtype != torch.int64 or weight.dim() != 1)) or (one_d and target.dim() == 1)):
        raise RuntimeError("plain_torch: label smoothing takes an int64 target (0-D for 1-D input)")
    t = (target.reshape(1) if one_d else target).long()
    if tuple(t.shape) != (x.shape[0],) + tuple(x.shape[2:]):
        raise ValueError("plain_torch: target of shape %s for input %s" % (tuple(target.shape), tuple(input.shape)))
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= C))
    if bad.any():
        raise IndexError("plain_torch: target %d is out of bounds" % t[bad][0])
    safe = torch.where(keep, t, torch.zeros_like(t))
    zero = torch.zeros((), dtype=x.dtype)
    picked = lp.gather(1, safe.unsqueeze(1)).squeeze(1) if C else torch.zeros(t.shape, dtype=x.dtype)
    counted = torch.where(keep, w[safe], zero) if C else torch.zeros(t.shape, dtype=x.dtype)
    nll = torch.where(keep, -(picked * counted), zero)  # an ignored row is 0 (its gradient too) whatever its terms
    every_row = w[safe] if C else counted  # bug 3: the ignored rows' weights counted too
    divisor = (every_row if "mean_counts_ignored" in bugs else counted).sum(dtype=_acc(counted))
    loss = _reduce(nll, divisor, reduction, x.dtype)
    if eps > 0:
        smooth = -((lp * w_at) if "smoothing_unweighted" not in bugs else lp).sum(1)  # bug 2
        smooth = _reduce(torch.where(keep, smooth, zero), divisor, reduction, x.dtype)
        loss = (1 - eps) * loss + (eps / C if C else 0.0) * smooth
    return loss[0] if one_d and reduction == "none" else loss


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    return _cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing, ())


def three_bugs(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    return _cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing,
                          ("contiguous", "smoothing_unweighted", "mean_counts_ignored"))


cross_entropy.lossfuzz_claims = {"name": "plain_torch", "losses": ["cross_entropy", "cross_entropy_prob"]}
three_bugs.lossfuzz_claims = {"name": "plain_torch_three_bugs", "losses": ["cross_entropy", "cross_entropy_prob"]}
