"""A cross-entropy written out in torch ops with three independent bugs, each
of a kind seen in public kernels: one `lossfuzz fuzz` campaign must report all
three (kernel_test.sh, ci/bench-kernels.sh), not just the first it meets.

  1. reduction="mean" divides by every row, ignored ones included
     (value-mismatch/kernel: a silently wrong loss)
  2. reduction="none" squeezes its result: a batch of one row gives a 0-D
     tensor, not shape [1] (shape-mismatch/kernel; Liger-Kernel issue 421's kin)
  3. backward under reduction="none" scales every row by the first upstream
     value (grad-mismatch/kernel; Liger-Kernel issues 678 and 968)

    lossfuzz fuzz --seconds 60 --kernel py:examples/kernels/ce_three_bugs.py:cross_entropy"""
import torch


class _Rows(torch.autograd.Function):
    """Per-row losses; the gradient computed in forward, as fused kernels do."""

    @staticmethod
    def forward(ctx, x, target, ignore_index):
        keep = target != ignore_index
        safe = torch.where(keep, target, torch.zeros_like(target))
        lp = torch.log_softmax(x, dim=1)  # PyTorch's NaN and inf answers for non-finite logits
        picked = lp.gather(1, safe[:, None])[:, 0] if x.shape[1] else torch.zeros(target.shape, dtype=x.dtype)
        loss = torch.where(keep, -picked, torch.zeros_like(picked))
        grad = torch.softmax(x, dim=1) if x.shape[1] else x.clone()
        if x.shape[1]:
            grad[torch.arange(x.shape[0]), safe] -= 1
        ctx.save_for_backward(grad * keep[:, None].to(x.dtype))
        return loss

    @staticmethod
    def backward(ctx, upstream):
        (grad,) = ctx.saved_tensors
        return grad * upstream[:1, None], None, None  # bug 3: the first row's upstream value for every row


def cross_entropy(input, target, ignore_index=-100, reduction="mean"):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    if input.dim() == 1 and target.dim() <= 1 and target.numel() == 1:  # one row: PyTorch's 0-D result
        return cross_entropy(input[None], target.reshape(1), ignore_index, "sum").reshape(())
    if input.dim() != 2 or target.dim() != 1 or target.shape[0] != input.shape[0] or target.dtype != torch.int64:
        raise ValueError("three_bugs: input [N, C] with int64 target [N], or [C] with target [] or [1]")
    bad = (target != ignore_index) & ((target < 0) | (target >= input.shape[1]))
    if bad.any():
        raise IndexError("Target %d is out of bounds." % target[bad][0])
    rows = _Rows.apply(input, target, ignore_index)
    if reduction == "none":
        return rows.squeeze()  # bug 2
    if reduction == "sum":
        return rows.sum()
    return rows.sum() / target.numel()  # bug 1: ignored rows counted


cross_entropy.lossfuzz_claims = {"name": "ce_three_bugs", "losses": ["cross_entropy"],
                                 "input_dtypes": ["float32", "float64"], "target_dtypes": ["int64"],
                                 "features": ["ignore_index"], "max_spatial_dims": 0}
