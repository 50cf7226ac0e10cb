"""A kernel that keeps its gradient in its input's memory when the input is
an activation (not a leaf): "an intermediate nobody reads again", as fused
kernels assume (Liger-Kernel issue 272, unsloth 5002). A leaf input is left
alone, so the bit-for-bit check of the main call passes; called on
softmax(input), whose output softmax saved for its backward, the input's
gradient comes out wrong: kernel_test.sh expects upstream-grad-mismatch/kernel."""
import torch
import torch.nn.functional as F


class _ActivationInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target, reduction):
        loss = F.cross_entropy(input.detach(), target, reduction=reduction)
        grad = torch.softmax(input.detach(), dim=1)
        grad[torch.arange(grad.shape[0]), target] -= 1
        if reduction == "mean":
            grad /= grad.shape[0]
        if not input.is_leaf:  # the bug: an activation's memory taken for the gradient
            input.data.copy_(grad)  # .data bypasses autograd's version counter
            grad = input.data
        ctx.save_for_backward(grad)
        ctx.reduction = reduction
        return loss

    @staticmethod
    def backward(ctx, upstream):
        (grad,) = ctx.saved_tensors
        return grad * (upstream[:, None] if upstream.dim() else upstream), None, None


def cross_entropy(input, target, reduction="mean"):
    return _ActivationInPlace.apply(input, target, reduction)


cross_entropy.lossfuzz_claims = {"losses": ["cross_entropy"], "input_dtypes": ["float32"], "target_dtypes": ["int64"],
                                 "reductions": ["none", "mean", "sum"], "features": [], "max_spatial_dims": 0}
