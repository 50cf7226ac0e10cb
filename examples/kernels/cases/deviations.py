"""Kernels that deviate from PyTorch on purpose, each with and without the
claim that says so (kernel_test.sh): with it, check's verdict is "accepted"
(exit 0); without it, the finding."""
import torch
import torch.nn.functional as F

_BASE = {"losses": ["cross_entropy"], "features": ["ignore_index"], "max_spatial_dims": 0}


def float32_result(input, target, ignore_index=-100, reduction="mean"):
    return F.cross_entropy(input.float(), target, ignore_index=ignore_index, reduction=reduction)


def no_empty(input, target, ignore_index=-100, reduction="mean"):
    if input.numel() == 0:
        raise ValueError("no_empty: an empty batch")
    return F.cross_entropy(input, target, ignore_index=ignore_index, reduction=reduction)


def unchecked(input, target, ignore_index=-100, reduction="mean"):
    t = torch.where(target == ignore_index, target, target.clamp(0, max(input.shape[-1] - 1, 0)))
    return F.cross_entropy(input, t, ignore_index=ignore_index, reduction=reduction)


def batched_only(input, target, ignore_index=-100, reduction="mean"):
    if input.dim() != 2:
        raise ValueError("batched_only: input [N, C] only")
    return F.cross_entropy(input, target, ignore_index=ignore_index, reduction=reduction)


def empty_zero(input, target, ignore_index=-100, reduction="mean"):
    loss = F.cross_entropy(input, target, ignore_index=ignore_index, reduction=reduction)
    counted = (target != ignore_index).sum()
    return torch.where(counted > 0, loss, torch.zeros_like(loss)) if reduction == "mean" else loss


def linear_flat(input, linear_weight, target, linear_bias=None, ignore_index=-100, reduction="mean"):
    """A fused linear that views its hidden states as [-1, H] and its targets as [-1], checking their count."""
    if input.dim() < 1 or linear_weight.dim() != 2 or target.is_floating_point():
        raise ValueError("linear_flat: hidden [..., H], weight [V, H], class indices")
    h, t = input.reshape(-1, input.shape[-1]), target.reshape(-1)
    if t.numel() != h.shape[0]:
        raise ValueError("linear_flat: %d labels for %d rows" % (t.numel(), h.shape[0]))
    loss = F.cross_entropy(F.linear(h, linear_weight, linear_bias), t, ignore_index=ignore_index, reduction=reduction)
    return loss.reshape(input.shape[:-1]) if reduction == "none" else loss


float32_result_unclaimed = lambda *a, **k: float32_result(*a, **k)  # noqa: E731
no_empty_unclaimed = lambda *a, **k: no_empty(*a, **k)  # noqa: E731
unchecked_unclaimed = lambda *a, **k: unchecked(*a, **k)  # noqa: E731
batched_only_unclaimed = lambda *a, **k: batched_only(*a, **k)  # noqa: E731
empty_zero_unclaimed = lambda *a, **k: empty_zero(*a, **k)  # noqa: E731
linear_flat_unclaimed = lambda *a, **k: linear_flat(*a, **k)  # noqa: E731
float32_result.lossfuzz_claims = dict(_BASE, float32_result=True)
no_empty.lossfuzz_claims = dict(_BASE, min_batch=1, min_classes=1)
unchecked.lossfuzz_claims = dict(_BASE, labels_unchecked=True)
# '*': every 1-D rejection, whatever the dtype and layout traits before "1-D"
batched_only.lossfuzz_claims = dict(_BASE, accept={"false-alarm/kernel[*1-D": "input [N, C] only, as documented"})
empty_zero.lossfuzz_claims = dict(_BASE, empty_mean_zero=True)
_LINEAR = {"losses": ["linear_cross_entropy"], "features": ["ignore_index", "linear_bias"]}
linear_flat.lossfuzz_claims = dict(_LINEAR, targets_flattened=True)
linear_flat_unclaimed.lossfuzz_claims = dict(_LINEAR)
for _fn in (float32_result_unclaimed, no_empty_unclaimed, unchecked_unclaimed, batched_only_unclaimed,
            empty_zero_unclaimed):
    _fn.lossfuzz_claims = dict(_BASE)
