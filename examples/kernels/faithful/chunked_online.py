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


def _log_softmax(x):
    """Each row's log-probabilities, its log-sum-exp online over vocabulary chunks, taken as (x - m) - log(s):
    m + log(s) rounded first loses the digits of a large logit. A row's max of -inf so far shifts by 0 (a
    later chunk may still be finite); +inf or NaN anywhere gives NaN, as PyTorch's log_softmax does."""
    m = torch.full((x.shape[0],), float("-inf"), dtype=x.dtype)
    s = torch.zeros(x.shape[0], dtype=x.dtype)
    for k in range(0, x.shape[1], VOCAB):
        chunk = x[:, k:k + VOCAB]
        new = torch.maximum(m, chunk.amax(dim=1))
        shift = torch.where(new == float("-inf"), torch.zeros_like(new), new)
        old = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(s), s * torch.exp(m - shift))
        s = old + torch.exp(chunk - shift[:, None]).sum(dim=1)
        m = new
    m = torch.where(m == float("-inf"), torch.zeros_like(m), m)
    return (x - m[:, None]) - torch.log(s)[:, None]


class _ChunkedCE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, weight, ignore_index, eps):
        """Per-row losses of x [N, C] (float32 or float64), with their gradient for an upstream of 1."""
        N, C = x.shape
        loss, grad = torch.zeros(N, dtype=x.dtype), torch.zeros_like(x)
        w = weight if weight is not None else torch.ones(C, dtype=x.dtype)
        for r in range(0, N, ROWS):
            xs, ts = x[r:r + ROWS], target[r:r + ROWS]
            keep = ts != ignore_index
            safe = torch.where(keep, ts, torch.zeros_like(ts))
            lp = _log_softmax(xs)
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
        ctx.save_for_backward(grad, target != ignore_index)
        return loss

    @staticmethod
    def backward(ctx, upstream):
        grad, keep = ctx.saved_tensors  # an ignored row's gradient is 0, whatever the upstream (a mean of 0 / 0)
        return torch.where(keep[:, None], grad * upstream[:, None], torch.zeros_like(grad)), None, None, None, None


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    one_d = input.dim() == 1
    one_label = one_d and target.numel() == 1 and target.dim() <= 1  # [C] takes a 0-D target or, unsmoothed, [1]
    if input.dim() not in (1, 2) or target.dtype != torch.int64 or not (one_label or target.dim() == input.dim() - 1):
        raise RuntimeError("chunked_online: input [N, C] with int64 target [N], or [C] with a 0-D target")
    if label_smoothing > 1.0:
        raise RuntimeError("chunked_online: label_smoothing must be at most 1.0, got %s" % label_smoothing)
    eps = float(label_smoothing) if label_smoothing > 0 else 0.0  # NaN or below 0: none, as PyTorch takes it
    if one_d and target.dim() == 1 and eps > 0:
        raise RuntimeError("chunked_online: label smoothing of [C] input takes a 0-D target")
    x, t = (input[None], target.reshape(1)) if one_d else (input, target)
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
    rows = _ChunkedCE.apply(xf, t, wf, ignore_index, eps)
    if reduction == "none":
        out = rows
    else:
        out = rows.sum()
        if reduction == "mean":
            w = wf if wf is not None else torch.ones(C, dtype=xf.dtype)
            safe = torch.where(keep, t, torch.zeros_like(t))
            total = torch.where(keep, w[safe], torch.zeros((), dtype=xf.dtype)).sum()
            summed, out = out, out / total
            if total == 0 and eps > 0:  # PyTorch divides its nll and smoothing sums apart: 0 / 0 is NaN there
                with torch.no_grad():
                    nll = -torch.where(keep, _log_softmax(xf).gather(1, safe[:, None])[:, 0] * w[safe],
                                       torch.zeros((), dtype=xf.dtype)).sum()
                    smooth = (summed - (1 - eps) * nll) * (C / eps)
                    value = (1 - eps) * (nll / total) + eps / C * (smooth / total)
                out = out + (value - out).detach()
    out = out.to(input.dtype)
    return out[0] if one_d and reduction == "none" else out


cross_entropy.lossfuzz_claims = {"name": "chunked_online", "losses": ["cross_entropy"], "target_dtypes": ["int64"],
                                 "max_spatial_dims": 0}
