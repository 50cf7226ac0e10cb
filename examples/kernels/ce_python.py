"""Example Python kernels under test, each with F.cross_entropy's signature.

    lossfuzz check --kernel py:examples/kernels/ce_python.py:rows regressions/
    ci/fuzz.sh fuzz_class 60 --kernel py:examples/kernels/ce_python.py:rows_buggy

  wrapper     F.cross_entropy itself: claims everything, and must give no finding
  rows        cross-entropy written out in torch ops (logsumexp minus the
              label's logit), the way a hand-written loss looks
  rows_buggy  the same with a bug seen in released kernels: reduction mean
              divides by the batch size, counting ignored rows
  fused       an autograd.Function the way fused kernels are written: the
              gradient computed in forward into a buffer of its own, scaled
              by the upstream gradient in backward
  fused_buggy the same, scaling every row by the first upstream value under
              reduction none (Liger-Kernel issues 678 and 968): invisible to
              loss.sum().backward()
  rows_lowp_sum  bfloat16 and float16 rows whose sum of exponentials is kept
              in the input's dtype, one class at a time: right to the
              dtype's rounding on narrow rows, far off on a wide one (past
              256 terms of about 1, bfloat16 adds nothing more)"""
import torch
import torch.nn.functional as F


def wrapper(input, target, **options):
    return F.cross_entropy(input, target, **options)


def _rows(input, target, weight=None, ignore_index=-100, reduction="mean", count_ignored=False):
    if input.dim() == 1 and target.numel() == 1 and target.dim() <= 1:  # one row: [C] with [] or [1]
        t = target.reshape(1)
        loss = _rows(input[None], t, weight, ignore_index, "none")
        # PyTorch's 1-D kernel under mean: the row's own loss, unweighted, or 0 (still
        # part of the graph, as _rows leaves it) when ignored
        if reduction == "mean" and weight is not None and t[0] != ignore_index:
            loss = loss / weight[t].to(loss.dtype)
        return loss.reshape(())  # 0-D for every reduction, even a target of shape [1]
    if input.dim() != 2 or target.dim() != 1 or target.shape[0] != input.shape[0]:
        raise ValueError("rows: input [N, C] with target [N], or [C] with target [] or [1]")
    if target.dtype != torch.int64:
        raise ValueError("rows: int64 class indices only")
    if weight is not None and weight.shape != (input.shape[1],):
        raise ValueError("rows: weight must have one element per class")
    # PyTorch's nll_loss checks the weight's dtype on an empty batch too.
    if weight is not None and weight.dtype != input.dtype:
        raise ValueError("rows: weight must have the input's dtype")
    keep = target != ignore_index
    bad = keep & ((target < 0) | (target >= input.shape[1]))
    if bad.any():  # as PyTorch on the CPU says it (CUDA asserts)
        raise IndexError("Target %d is out of bounds." % target[bad][0])
    zeros = torch.zeros(target.shape, dtype=input.dtype)
    if input.shape[1] == 0:  # no classes: every row is ignored (else it raised above)
        loss = w_row = zeros
    else:
        safe = torch.where(keep, target, torch.zeros_like(target))  # gather needs a class everywhere
        w_row = torch.ones_like(zeros) if weight is None else weight[safe].to(input.dtype)
        w_row = torch.where(keep, w_row, zeros)
        # Shifted by the row maximum first: logsumexp(x) - x[t] cancels
        # catastrophically when the logits are large (1e4 in float32 keeps 3 digits).
        shifted = input - input.max(dim=1, keepdim=True).values if input.shape[0] else input
        loss = w_row * (torch.logsumexp(shifted, dim=1) - shifted.gather(1, safe[:, None])[:, 0])
        loss = torch.where(keep, loss, zeros)  # 0 * NaN is NaN: an ignored row's logits do not count
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction != "mean":
        raise ValueError("%s is not a valid value for reduction" % reduction)
    return loss.sum() / (input.shape[0] if count_ignored else w_row.sum())


def rows(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return _rows(input, target, weight, ignore_index, reduction)


def rows_buggy(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return _rows(input, target, weight, ignore_index, reduction, count_ignored=True)


class _FusedCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, target, ignore_index, reduction, first_upstream_only):
        one_row = input.dim() == 1
        x, t = (input[None], target.reshape(1)) if one_row else (input, target)
        loss = _rows(x.detach(), t, None, ignore_index, "none")
        keep = (t != ignore_index).to(x.dtype)
        grad = torch.softmax(x.detach(), dim=1) if x.shape[1] else x.detach().clone()
        if x.shape[1]:
            grad[torch.arange(x.shape[0]), torch.where(t != ignore_index, t, torch.zeros_like(t))] -= 1
        grad *= keep[:, None]
        if reduction == "mean":
            count = keep.sum()
            loss = loss.sum() / count if not one_row else torch.where(keep[0] > 0, loss[0], loss[0] * 0)
            grad = grad / count.clamp(min=1) if not one_row else grad  # all ignored: 0, not 0/0
        elif reduction == "sum":
            loss = loss.sum()
        elif one_row:
            loss = loss.reshape(())
        ctx.save_for_backward(grad)
        ctx.shape, ctx.reduction, ctx.first = input.shape, reduction, first_upstream_only
        return loss

    @staticmethod
    def backward(ctx, upstream):
        (grad,) = ctx.saved_tensors
        if ctx.reduction == "none" and upstream.dim() == 1:
            scale = upstream[:1] if ctx.first else upstream  # the bug: row 0's upstream for every row
            grad = grad * scale[:, None]
        else:
            grad = grad * upstream
        return grad.reshape(ctx.shape), None, None, None, None


def fused(input, target, ignore_index=-100, reduction="mean"):
    _check_rows(input, target, ignore_index)
    return _FusedCrossEntropy.apply(input, target, ignore_index, reduction, False)


def fused_buggy(input, target, ignore_index=-100, reduction="mean"):
    _check_rows(input, target, ignore_index)
    return _FusedCrossEntropy.apply(input, target, ignore_index, reduction, True)


def rows_lowp_sum(input, target, ignore_index=-100, reduction="mean"):
    _check_rows(input, target, ignore_index)
    one_row = input.dim() == 1
    x, t = (input[None], target.reshape(1)) if one_row else (input, target)
    keep = t != ignore_index
    label = torch.where(keep, t, torch.zeros_like(t))
    if x.shape[0] == 0 or x.shape[1] == 0:
        return wrapper(input, target, ignore_index=ignore_index, reduction=reduction)
    mx = x.max(1).values
    s = torch.zeros(x.shape[0], dtype=x.dtype)
    for j in range(x.shape[1]):  # the bug: each partial sum rounded to bfloat16 / float16
        s = s + torch.exp(x[:, j] - mx)
    loss = (mx.float() - x.gather(1, label[:, None])[:, 0].float()) + torch.log(s.float())
    loss = torch.where(keep, loss, torch.zeros_like(loss))
    if reduction == "mean":
        loss = loss.sum() / keep.sum() if not one_row else loss[0]
    elif reduction == "sum" or one_row:
        loss = loss.sum()
    return loss.to(x.dtype)


def _check_rows(input, target, ignore_index):
    if input.dim() == 1 and target.numel() == 1 and target.dim() <= 1:
        target = target.reshape(1)
        input = input[None]
    if input.dim() != 2 or target.dim() != 1 or target.shape[0] != input.shape[0] or target.dtype != torch.int64:
        raise ValueError("fused: input [N, C] with int64 target [N], or [C] with target [] or [1]")
    bad = (target != ignore_index) & ((target < 0) | (target >= input.shape[1]))
    if bad.any():
        raise IndexError("Target %d is out of bounds." % target[bad][0])


_ROWS_CLAIMS = {"losses": ["cross_entropy"], "input_dtypes": ["float32", "float64"], "target_dtypes": ["int64"],
                "features": ["weight", "ignore_index"], "max_spatial_dims": 0}
rows.lossfuzz_claims = dict(_ROWS_CLAIMS, name="ce_python rows")
rows_buggy.lossfuzz_claims = dict(_ROWS_CLAIMS, name="ce_python rows (buggy: mean counts ignored rows)")
wrapper.lossfuzz_claims = {"name": "F.cross_entropy", "losses": ["cross_entropy", "cross_entropy_prob"]}
fused.lossfuzz_claims = {"name": "ce_python fused", "losses": ["cross_entropy"],
                        "input_dtypes": ["float32", "float64"], "target_dtypes": ["int64"], "max_spatial_dims": 0,
                        "features": []}
fused_buggy.lossfuzz_claims = dict(fused.lossfuzz_claims, name="ce_python fused (buggy: first upstream value)")
rows_lowp_sum.lossfuzz_claims = {"name": "ce_python rows (buggy: sums exp in bfloat16 / float16)",
                                 "losses": ["cross_entropy"], "input_dtypes": ["bfloat16", "float16"],
                                 "target_dtypes": ["int64"], "features": ["ignore_index"], "max_spatial_dims": 0,
                                 "backward": False}
