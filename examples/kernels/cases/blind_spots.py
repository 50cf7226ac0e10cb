"""Kernels with the bugs a verdict that compares counts alone, or sends a
probability kernel only targets of its input's shape, would pass
(kernel_test.sh; issue "No blind spots in the verdict"); and one that keeps to
PyTorch's documentation where eager PyTorch is more lenient, which must pass.

  none_keepdim    soft cross-entropy whose reduction 'none' keeps the class
                  dim: [N, 1] for PyTorch's [N] (`loss * mask` silently
                  becomes [N, N])
  mean_as_1       class-index cross-entropy whose mean is [1], not 0-D
  soft_broadcast  soft cross-entropy that lets a [1, C] target broadcast over
                  [N, C] (PyTorch refuses: batch sizes differ)
  documented_1d   F.cross_entropy, but a 1-D input takes a 0-D class target
                  only, as PyTorch's documentation says (eager PyTorch also
                  takes [1]): correct"""
import torch
import torch.nn.functional as F


def _soft(input, target, keepdim):
    if input.dim() < 1:
        raise ValueError("soft: input [C] or [N, C, ...]")
    dim = 1 if input.dim() > 1 else 0
    return -(target * torch.log_softmax(input, dim)).sum(dim, keepdim=keepdim)


def _reduce(loss, reduction):
    return loss if reduction == "none" else loss.mean() if reduction == "mean" else loss.sum()


def none_keepdim(input, target, reduction="mean"):
    if input.shape != target.shape or not target.is_floating_point() or target.dtype != input.dtype:
        raise ValueError("none_keepdim: probabilities of the input's shape and dtype")
    return _reduce(_soft(input, target, keepdim=True), reduction)


def soft_broadcast(input, target, reduction="mean"):
    if input.dim() < 1 or not target.is_floating_point() or target.dtype != input.dtype:
        raise ValueError("soft_broadcast: float probabilities of the input's dtype")
    return _reduce(_soft(input, target, keepdim=False), reduction)


def mean_as_1(input, target, reduction="mean"):
    loss = F.cross_entropy(input, target, reduction=reduction)
    return loss.reshape(1) if reduction == "mean" else loss


def documented_1d(input, target, **options):
    if input.dim() == 1 and target.dim() != 0 and not target.is_floating_point():
        raise ValueError("documented_1d: a 1-D input takes a 0-D class target (the documentation's shape ())")
    return F.cross_entropy(input, target, **options)


_SOFT = {"losses": ["cross_entropy_prob"], "features": [], "input_dtypes": ["float32", "float64"]}
none_keepdim.lossfuzz_claims = dict(_SOFT, name="blind_spots none_keepdim (buggy: [N, 1])")
soft_broadcast.lossfuzz_claims = dict(_SOFT, name="blind_spots soft_broadcast (buggy: a [1, C] target broadcasts)")
mean_as_1.lossfuzz_claims = {"name": "blind_spots mean_as_1 (buggy: a [1] mean)", "losses": ["cross_entropy"],
                             "features": []}
documented_1d.lossfuzz_claims = {"name": "blind_spots documented_1d", "losses": ["cross_entropy", "cross_entropy_prob"]}
