"""Cross-entropy as a fused kernel computes it, in torch ops: rows in chunks,
each row's log-sum-exp by online softmax over vocabulary chunks (a running
(max, sum) pair, as llm.c's fused classifier and Liger-Kernel's do), the
gradient computed in forward and scaled by the upstream gradient in backward
(a custom autograd Function with a hand-written backward), 16-bit input
computed in float32 and rounded once. Faithful to PyTorch's contract for
class targets with weights, ignore_index, label smoothing and the three
reductions on [N, C] and [C] input: a control that a campaign must leave
without a finding (docs/released-kernels.md, "Controls").

    lossfuzz fuzz --seconds 60 --kernel py:examples/kernels/faithful/chunked_online.py:cross_entropy"""
import torch

ROWS, VOCAB = 3, 5  # chunk sizes: small, so that the fuzzer's rows span several


def _lse(x):
    """Each row's log-sum-exp, online over vocabulary chunks. A max of +-inf shifts by 0, so a row with
    +inf gives inf and an all -inf row -inf (PyTorch's answers); NaN stays NaN."""
    m = torch.full((x.shape[0],), float("-inf"), dtype=x.dtype)
    s = torch.zeros(x.shape[0], dtype=x.dtype)
    for k in range(0, x.shape[1], VOCAB):
        chunk = x[:, k:k + VOCAB]
        new = torch.maximum(m, chunk.amax(dim=1))
        shift = torch.where(torch.isfinite(new), new, torch.zeros_like(new))
        old = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(s), s * torch.exp(m - shift))
        s = old + torch.exp(chunk - shift[:, None]).sum(dim=1)
        m = new
    return torch.log(s) + torch.where(torch.isfinite(m), m, torch.zeros_like(m))


class _ChunkedCE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, weight, ignore_index, eps, divide):
        """Per-row losses of x [N, C] (float32 or float64), with their gradient for an upstream of 1."""
        N, C = x.shape
        loss, grad = torch.zeros(N, dtype=x.dtype), torch.zeros_like(x)
        w = weight if weight is not None else torch.ones(C, dtype=x.dtype)
        for r in range(0, N, ROWS):
            xs, ts = x[r:r + ROWS], target[r:r + ROWS]
            keep = ts != ignore_index
            safe = torch.where(keep, ts, torch.zeros_like(ts))
            lse = _lse(xs)
            lp = xs - lse[:, None]
            w_t = torch.where(keep, w[safe], torch.zeros((), dtype=x.dtype))
            nll = -(lp.gather(1, safe[:, None])[:, 0] * w_t)
            rows = (1 - eps) * nll
            W = torch.zeros_like(xs)
            W[torch.arange(xs.shape[0]), safe] = (1 - eps) * w_t
            if eps > 0:
                rows = rows - eps / C * (lp * w).sum(dim=1)
                W = W + eps / C * w[None, :]
            W = torch.where(keep[:, None], W, torch.zeros_like(W))
            loss[r:r + ROWS] = torch.where(keep, rows, torch.zeros_like(rows))
            p = torch.exp(lp)
            grad[r:r + ROWS] = torch.where(keep[:, None], p * W.sum(dim=1, keepdim=True) - W, torch.zeros_like(W))
        ctx.save_for_backward(grad)
        ctx.divide = divide
        return loss

    @staticmethod
    def backward(ctx, upstream):
        (grad,) = ctx.saved_tensors
        return grad * upstream[:, None], None, None, None, None, None


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    if input.dim() not in (1, 2) or target.dim() != input.dim() - 1 or target.dtype != torch.int64:
        raise RuntimeError("chunked_online: input [N, C] with int64 target [N], or [C] with a 0-D target")
    if label_smoothing > 1.0:
        raise RuntimeError("chunked_online: label_smoothing must be at most 1.0, got %s" % label_smoothing)
    one_d = input.dim() == 1
    x, t = (input[None], target[None]) if one_d else (input, target)
    N, C = x.shape
    if t.shape[0] != N:
        raise ValueError("chunked_online: %d targets for %d rows" % (t.shape[0], N))
    if weight is not None and (weight.dim() != 1 or weight.shape[0] != C or weight.dtype != input.dtype):
        raise RuntimeError("chunked_online: a %s weight of %d classes, got %s %s" %
                           (input.dtype, C, weight.dtype, tuple(weight.shape)))
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= C))
    if bad.any():
        raise IndexError("chunked_online: target %d is out of bounds" % t[bad][0])
    if C == 0 or N == 0:  # nothing to chunk (no classes: every row ignored): rows of 0, a mean of 0 / 0
        rows = x.sum(dim=1) * 0  # (in the autograd graph)
        out = rows if reduction == "none" else rows.sum() / (keep.sum() if reduction == "mean" else 1)
        return out[0] if one_d and reduction == "none" else out.to(input.dtype)
    low = input.dtype in (torch.float16, torch.bfloat16)
    xf = x.float() if low else x
    wf = weight.float() if weight is not None and low else weight
    rows = _ChunkedCE.apply(xf, t, wf, ignore_index, float(label_smoothing), reduction == "mean")
    if reduction == "none":
        out = rows
    else:
        out = rows.sum()
        if reduction == "mean":
            w = wf if wf is not None else torch.ones(C, dtype=xf.dtype)
            out = out / torch.where(keep, w[torch.where(keep, t, torch.zeros_like(t))], torch.zeros((), dtype=xf.dtype)).sum()
    out = out.to(input.dtype)
    return out[0] if one_d and reduction == "none" else out


cross_entropy.lossfuzz_claims = {"name": "chunked_online", "losses": ["cross_entropy"], "target_dtypes": ["int64"],
                                 "max_spatial_dims": 0}
