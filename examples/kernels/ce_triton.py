"""Example Triton kernels under test: cross-entropy the way fused kernels
write it - an autograd.Function whose forward kernel (one program per row,
online softmax) also writes the gradient into a buffer of its own, which
backward scales by the upstream gradient. On a CPU runner they run in
Triton's interpreter (ci/setup.sh puts triton into .venv):

    lossfuzz check --kernel py:examples/kernels/ce_triton.py:cross_entropy regressions/
    ci/fuzz.sh fuzz_class 60 --kernel py:examples/kernels/ce_triton.py:upstream_first

  cross_entropy     done right
  upstream_first    backward scales every row by the first upstream value
                    under reduction none (Liger-Kernel issues 678 and 968)
  scalar_none       reduction none returns the sum, a scalar (Liger-Kernel 421)
  inplace           the gradient written into the caller's logits (Liger-Kernel 507)
  frozen_crash      fails when the input does not require grad (Liger-Kernel 930)
  all_ignored_zero  mean over no target gives 0, where PyTorch gives NaN (Liger-Kernel 177)"""
import torch
import triton
import triton.language as tl


@triton.jit
def _ce_rows(X, T, LOSS, DX, x_stride, dx_stride, C, ignore_index, coef, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = X + row * x_stride
    t = tl.load(T + row)
    # one pass: the running maximum and the sum of exp relative to it
    m = float("-inf")
    s = 0.0
    for start in range(0, C, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < C, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, 0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), 0)
        m = m_new
    kept = t != ignore_index
    safe_t = tl.where(kept, t, 0)  # an ignored row reads class 0 and uses nothing of it
    x_t = tl.load(x_row + safe_t).to(tl.float32)
    # (m - x_t) first: lse - x_t loses log(s) for logits near 1e4 in float32
    tl.store(LOSS + row, tl.where(kept, (m - x_t) + tl.log(s), 0.0))
    # d loss / d x = (softmax - onehot) * coef, 0 * (NaN softmax) staying NaN as in PyTorch
    row_coef = tl.where(kept, coef, 0.0)
    for start in range(0, C, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < C, other=0.0).to(tl.float32)
        dx = (tl.exp((x - m) - tl.log(s)) - tl.where(cols == t, 1.0, 0.0)) * row_coef  # not x - lse: see above
        tl.store(DX + row * dx_stride + cols, dx, mask=cols < C)


class _CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, ignore_index, reduction, bug):
        n, c = x.shape
        kept = int((target != ignore_index).sum())
        mean = reduction == "mean"
        # mean divides by the rows kept; with none kept, 0 / 0 = NaN, as PyTorch's
        divisor = max(kept, 1) if bug == "all_ignored_zero" else kept
        coef = (1.0 / divisor if divisor else 0.0) if mean else 1.0
        loss = torch.empty(n, dtype=torch.float32)
        grad = x if bug == "inplace" else torch.empty(x.shape, dtype=x.dtype)
        if c:  # launched on an empty batch too (a grid of no programs), as fused kernels are
            _ce_rows[(n,)](x, target, loss, grad, x.stride(0), grad.stride(0), c, ignore_index, coef,
                           BLOCK=min(1024, triton.next_power_of_2(c)))
        else:
            loss.zero_()
            grad.zero_()
        if reduction == "none" and bug != "scalar_none":
            out = loss
        elif mean:
            out = loss.sum() / divisor if divisor else torch.full((), float("nan"))
        else:
            out = loss.sum()
        ctx.save_for_backward(grad)
        ctx.reduction = reduction
        ctx.bug = bug
        return out.to(x.dtype)

    @staticmethod
    def backward(ctx, upstream):
        (grad,) = ctx.saved_tensors
        if ctx.reduction == "none" and upstream.dim() == 1:
            rows = upstream[:1] if ctx.bug == "upstream_first" else upstream
            return grad * rows[:, None].to(grad.dtype), None, None, None, None
        return grad * upstream.to(grad.dtype), None, None, None, None


def _call(input, target, ignore_index, reduction, bug):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    one_row = input.dim() == 1 and target.dim() <= 1 and target.numel() == 1
    x, t = (input[None], target.reshape(1)) if one_row else (input, target)
    if x.dim() != 2 or t.dim() != 1 or t.shape[0] != x.shape[0] or t.dtype != torch.int64:
        raise ValueError("ce_triton: input [N, C] with int64 target [N], or [C] with target [] or [1]")
    bad = (t != ignore_index) & ((t < 0) | (t >= x.shape[1]))
    if bad.any():  # the label check PyTorch's kernel makes (it asserts on CUDA)
        raise IndexError("Target %d is out of bounds." % t[bad][0])
    if bug == "frozen_crash" and not input.requires_grad:
        raise AttributeError("'NoneType' object has no attribute 'stride' (no gradient buffer for a frozen input)")
    # the kernel reads rows by their stride, columns and labels densely
    x = x.contiguous() if bug != "inplace" else x
    t = t.contiguous()
    if one_row:  # PyTorch's 1-D kernel: the row's own loss, 0-D, for every reduction (an ignored one: 0)
        return _CrossEntropy.apply(x, t, ignore_index, "sum", bug).reshape(())
    return _CrossEntropy.apply(x, t, ignore_index, reduction, bug)


def cross_entropy(input, target, ignore_index=-100, reduction="mean"):
    return _call(input, target, ignore_index, reduction, None)


def upstream_first(input, target, ignore_index=-100, reduction="mean"):
    return _call(input, target, ignore_index, reduction, "upstream_first")


def scalar_none(input, target, ignore_index=-100, reduction="mean"):
    return _call(input, target, ignore_index, reduction, "scalar_none")


def inplace(input, target, ignore_index=-100, reduction="mean"):
    return _call(input, target, ignore_index, reduction, "inplace")


def frozen_crash(input, target, ignore_index=-100, reduction="mean"):
    return _call(input, target, ignore_index, reduction, "frozen_crash")


def all_ignored_zero(input, target, ignore_index=-100, reduction="mean"):
    return _call(input, target, ignore_index, reduction, "all_ignored_zero")


# What they take; the interpreter runs a program per row in Python, so the
# cases stay small on a CPU runner (max_numel, a documented limit: raise it
# for a compiled Triton on a GPU).
lossfuzz_claims = {"name": "ce_triton", "losses": ["cross_entropy"], "input_dtypes": ["float32"],
                   "target_dtypes": ["int64"], "features": ["ignore_index"], "max_spatial_dims": 0,
                   "max_numel": 4096}
for _fn in (upstream_first, scalar_none, inplace, frozen_crash, all_ignored_zero):
    _fn.lossfuzz_claims = dict(lossfuzz_claims, name="ce_triton (buggy: %s)" % _fn.__name__)
