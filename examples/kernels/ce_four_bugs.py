"""A cross-entropy in torch ops with four independent bugs, each of a kind seen
in public kernels: a campaign must report each, and one entry per bug, not one
per dtype, reduction or upstream gradient the fuzzer happened to meet.

  1. reduction="mean" divides by the batch size, counting ignored rows and
     ignoring class weights (value-mismatch and grad-mismatch)
  2. a non-contiguous input is read as if it were dense, from its storage
     (flash-attn's strided-target bug, on the logits): wrong numbers, or an
     error where the storage is too small for that (an expanded input)
  3. label smoothing's term leaves out the class weight (Liger-Kernel's kin)
  4. backward under reduction="sum" ignores the upstream gradient

    lossfuzz fuzz --seconds 120 --kernel py:examples/kernels/ce_four_bugs.py:cross_entropy"""
import torch
import torch.nn.functional as F


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    if input.dim() == 1 or input.numel() == 0:  # one row, or nothing: handed to PyTorch, as many wrappers do
        return F.cross_entropy(input, target, weight, ignore_index=ignore_index, reduction=reduction,
                               label_smoothing=label_smoothing)
    x, t = input, target
    if x.dim() != 2 or t.dim() != 1 or t.shape[0] != x.shape[0] or t.dtype != torch.int64:
        raise ValueError("four_bugs: input [N, C] with int64 target [N], or [C] with target [] or [1]")
    if label_smoothing > 1.0:  # PyTorch checks it only inside `if label_smoothing > 0.0`
        raise ValueError("label_smoothing must be between 0.0 and 1.0. Got: %s" % label_smoothing)
    if weight is not None and (weight.shape != (x.shape[1],) or weight.dtype != x.dtype):
        raise ValueError("four_bugs: weight must have one element per class, in the input's dtype")
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= x.shape[1]))
    if bad.any():
        raise IndexError("Target %d is out of bounds." % t[bad][0])
    if not x.is_contiguous():  # bug 2: the storage read with dense strides
        x = torch.as_strided(x, x.shape, (x.shape[1], 1))
    if x.shape[1] == 0:
        rows = torch.zeros(t.shape, dtype=x.dtype) + x.sum()
    else:
        safe = torch.where(keep, t, torch.zeros_like(t))
        lp = torch.log_softmax(x, dim=1)
        w = torch.ones(x.shape[1], dtype=x.dtype) if weight is None else weight
        nll = -(lp.gather(1, safe[:, None])[:, 0] * w[safe])
        rows = nll
        if label_smoothing > 0:
            smooth = -lp.sum(dim=1) / x.shape[1]  # bug 3: PyTorch weights each class's term
            rows = (1 - label_smoothing) * nll + label_smoothing * smooth
        rows = torch.where(keep, rows, torch.zeros_like(rows))
    if reduction == "none":
        return rows
    if reduction == "sum":
        return _IgnoreUpstream.apply(rows.sum())  # bug 4
    return rows.sum() / t.numel()  # bug 1: every row counted, class weights not


class _IgnoreUpstream(torch.autograd.Function):
    @staticmethod
    def forward(ctx, loss):
        return loss.clone()

    @staticmethod
    def backward(ctx, upstream):
        return torch.ones_like(upstream)  # bug 4: as if the upstream gradient were 1


cross_entropy.lossfuzz_claims = {"name": "ce_four_bugs", "losses": ["cross_entropy"],
                                 "input_dtypes": ["float32", "float64"], "target_dtypes": ["int64"],
                                 "features": ["weight", "ignore_index", "label_smoothing"], "max_spatial_dims": 0}
