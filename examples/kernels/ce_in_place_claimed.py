"""A fused cross-entropy that writes its gradient into the caller's logits on
purpose, as memory-saving fused kernels do (Liger-Kernel's in-place mode),
and says so in its claims ("grad_in_place"): a campaign reports the changed
input as an accepted deviation, counted but never failing, and still judges
the gradient and the through-softmax call (it writes in place only into a
leaf, never into an activation another op saved: Liger-Kernel issue 272).

    lossfuzz fuzz --seconds 60 --kernel py:examples/kernels/ce_in_place_claimed.py:cross_entropy"""
import torch


class _Fused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, ignore_index, reduction, into_any=False):
        keep = target != ignore_index
        safe = torch.where(keep, target, torch.zeros_like(target))
        lp = torch.log_softmax(x, dim=1)
        picked = lp.gather(1, safe[:, None])[:, 0] if x.shape[1] else torch.zeros(target.shape, dtype=x.dtype)
        rows = torch.where(keep, -picked, torch.zeros_like(picked))
        kept = keep.sum().to(x.dtype)
        grad = torch.softmax(x, dim=1)
        if x.shape[1]:
            grad[torch.arange(x.shape[0]), safe] -= 1
        if reduction == "mean":
            grad = grad / kept
        grad = torch.where(keep[:, None], grad, torch.zeros_like(grad))  # an ignored row: 0, even over 0 kept
        # the deliberate part: a leaf's logits become its gradient (no buffer of its own); a view
        # whose elements share memory (an expanded tensor) cannot hold one
        in_place = x.requires_grad and (x.is_leaf or into_any) and x.is_contiguous()
        buf = x.data if in_place else torch.empty_like(x)
        buf.copy_(grad)
        ctx.save_for_backward(buf)
        ctx.reduction = reduction
        if reduction == "none":
            return rows
        return rows.sum() / kept if reduction == "mean" else rows.sum()

    @staticmethod
    def backward(ctx, upstream):
        (grad,) = ctx.saved_tensors
        scale = upstream[:, None] if ctx.reduction == "none" else upstream
        return grad * scale, None, None, None, None


def cross_entropy(input, target, ignore_index=-100, reduction="mean", into_any=False):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    if input.dim() == 1 and target.dim() <= 1 and target.numel() == 1:  # one row: PyTorch's 0-D result
        return cross_entropy(input[None], target.reshape(1), ignore_index, "sum", into_any).reshape(())
    if input.dim() != 2 or target.dim() != 1 or target.shape[0] != input.shape[0] or target.dtype != torch.int64:
        raise ValueError("in_place: input [N, C] with int64 target [N], or [C] with target [] or [1]")
    bad = (target != ignore_index) & ((target < 0) | (target >= input.shape[1]))
    if bad.any():
        raise IndexError("Target %d is out of bounds." % target[bad][0])
    return _Fused.apply(input, target, ignore_index, reduction, into_any)


def into_activations(input, target, ignore_index=-100, reduction="mean"):
    """A planted bug, Liger-Kernel's issue 272: the gradient written into any input that requires grad, an
    activation another op saved included (softmax's output): that op's backward then reads the gradient."""
    return cross_entropy(input, target, ignore_index, reduction, into_any=True)


cross_entropy.lossfuzz_claims = {"name": "ce_in_place_claimed", "losses": ["cross_entropy"],
                                 "input_dtypes": ["float32", "float64"], "target_dtypes": ["int64"],
                                 "features": ["ignore_index"], "max_spatial_dims": 0, "grad_in_place": True}
into_activations.lossfuzz_claims = cross_entropy.lossfuzz_claims
