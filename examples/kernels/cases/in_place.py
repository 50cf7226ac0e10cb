"""A kernel that writes its gradient into its input in backward (Liger-Kernel
issue 507's pattern): kernel_test.sh expects input-modified/kernel."""
import torch
import torch.nn.functional as F


class _InPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target, reduction):
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        return F.cross_entropy(input.detach(), target, reduction=reduction)

    @staticmethod
    def backward(ctx, upstream):
        input, target = ctx.saved_tensors
        grad = input.detach()  # the caller's logits, reused as the gradient buffer
        grad.copy_(torch.softmax(grad, dim=1))
        grad[torch.arange(grad.shape[0]), target] -= 1
        return grad * (upstream[:, None] if upstream.dim() else upstream), None, None


def cross_entropy(input, target, reduction="mean"):
    return _InPlace.apply(input, target, reduction)


cross_entropy.lossfuzz_claims = {"losses": ["cross_entropy"], "input_dtypes": ["float32"], "target_dtypes": ["int64"],
                                 "features": [], "max_spatial_dims": 0}
