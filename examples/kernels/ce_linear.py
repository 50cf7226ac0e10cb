"""Example fused linear + cross-entropy kernels under test: they claim
"linear_cross_entropy" and have its signature,

    fn(input, linear_weight, target, linear_bias=None, weight=None, ignore_index=None, reduction="mean")

input the hidden states [N, H] (or [H]), linear_weight [V, H]: the loss of
torch 2.15's F.linear_cross_entropy, its checks, then
cross_entropy(linear(input, linear_weight, linear_bias), target, ...).

    lossfuzz check --kernel py:examples/kernels/ce_linear.py:chunked examples/kernels/cases/linear_*.json
    ci/fuzz.sh fuzz_linear 60 --kernel py:examples/kernels/ce_linear.py:chunked_frozen_crash

  composed               F.cross_entropy(F.linear(...)) after torch 2.15's own
                         checks: what PyTorch computes (K-dim weights too)
  chunked                the memory-saving kernel of LM heads: the logits made
                         CHUNK rows at a time, in float32 (float64 for float64
                         input), never all at once; backward makes each
                         chunk's logits again and sums d weight and d bias
  chunked_frozen_crash   the same, whose backward makes d input only when the
                         input requires grad and returns it anyway: an
                         UnboundLocalError for frozen hidden states with a
                         trainable weight (Liger-Kernel issue 930)
  chunked_mean_of_chunks the same, reduction mean averaging the chunks' means:
                         wrong whenever chunks keep different weights (an
                         ignored label, class weights, a short last chunk)"""
import torch
import torch.nn.functional as F

CHUNK = 3  # rows per chunk: small, so that the fuzzer's small batches have several


def composed(input, linear_weight, target, linear_bias=None, ignore_index=None, **options):
    logits_shape = _check_linear(input, linear_weight, target, linear_bias, ignore_index)
    V = linear_weight.shape[:-1].numel()
    b = None if linear_bias is None else linear_bias.reshape(V)
    logits = F.linear(input, linear_weight.reshape(V, linear_weight.shape[-1]), b).reshape(logits_shape)
    return F.cross_entropy(logits, target, ignore_index=-100 if ignore_index is None else ignore_index, **options)


def _check_linear(input, linear_weight, target, linear_bias, ignore_index):
    """torch 2.15's own checks of F.linear_cross_entropy, in its order and
    words, before cross_entropy's; the logits' shape [*batch, C, d1..dK]."""
    if input.dim() not in (1, 2):
        raise RuntimeError("expected input with dimensionality 1 or 2, got %d" % input.dim())
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got %d" % linear_weight.dim())
    H = input.shape[-1]
    if linear_weight.shape[-1] != H:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), got %d and %d, "
                           "respectively" % (H, linear_weight.shape[-1]))
    if linear_bias is not None and linear_bias.shape != linear_weight.shape[:-1]:
        raise RuntimeError("expected linear_bias shape %s, got %s" % (tuple(linear_weight.shape[:-1]),
                                                                      tuple(linear_bias.shape)))
    if linear_weight.dim() > 2 and input.dim() == 1:
        raise RuntimeError("K-dimensional loss defined by linear_weight shape %s requires batched input, (N, %d), "
                           "got unbatched input with shape %s" % (tuple(linear_weight.shape), H, tuple(input.shape)))
    logits_shape = input.shape[:-1] + linear_weight.shape[:-1]
    if ignore_index is not None and target.shape == logits_shape:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    return logits_shape


def _type_name(dtype):
    return {torch.float32: "Float", torch.float64: "Double", torch.float16: "Half",
            torch.bfloat16: "BFloat16", torch.int64: "Long"}.get(dtype, str(dtype))


def _checked(input, linear_weight, target, linear_bias, weight, ignore_index):
    """PyTorch's errors for the call, raised as PyTorch raises them; else the
    rows [N, H], their targets [N], and whether the call was one row."""
    one_row = input.dim() == 1
    logits_shape = _check_linear(input, linear_weight, target, linear_bias, ignore_index)
    if target.shape == logits_shape:  # cross_entropy reads a target of the logits' shape as probabilities
        raise RuntimeError("Expected floating point type for target with class probabilities, got %s" %
                           _type_name(target.dtype))
    x = input[None] if one_row else input
    t = target.reshape(1) if one_row and target.numel() == 1 and target.dim() <= 1 else target
    if x.dim() != 2 or t.dim() != 1 or t.shape[0] != x.shape[0] or t.dtype != torch.int64:
        raise ValueError("chunked: hidden states [N, H] with int64 targets [N], or [H] with a target of shape [] or [1]")
    if linear_weight.dim() != 2:
        raise ValueError("chunked: linear_weight [V, H]")
    V = linear_weight.shape[0]
    if weight is not None and weight.shape != (V,):
        raise ValueError("chunked: weight must have one element per class")
    if weight is not None and weight.dtype != x.dtype:  # checked on an empty batch too (Loss.cu)
        raise RuntimeError("expected scalar type %s but found %s" % (_type_name(x.dtype), _type_name(weight.dtype)))
    bad = (t != (-100 if ignore_index is None else ignore_index)) & ((t < 0) | (t >= V))
    if bad.any():
        raise IndexError("Target %d is out of bounds." % t[bad][0])
    return x, t, one_row


class _ChunkedLinearCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b, t, cw, ignore_index, reduction, one_row, bug):
        acc = torch.float64 if x.dtype == torch.float64 else torch.float32
        keep = t != ignore_index
        label = torch.where(keep, t, torch.zeros_like(t))
        # each row's weight: its class's, 0 when ignored (masked, not multiplied: an infinite weight times 0 is NaN)
        row_w = cw.to(acc)[label] if cw is not None and w.shape[0] else torch.ones(t.shape, dtype=acc)
        row_w = torch.where(keep, row_w, torch.zeros_like(row_w))
        losses = torch.zeros(t.shape, dtype=acc)
        for s in range(0, x.shape[0], CHUNK):
            logits = _chunk_logits(x[s:s + CHUNK], w, b, acc)
            if logits.shape[1] == 0:
                continue
            picked = logits.gather(1, label[s:s + CHUNK, None])[:, 0]
            # (max - x[label]) + log(sum): logsumexp(x) - x[label] loses every digit for logits near 1e26
            mx = logits.max(1).values
            loss = (mx - picked) + torch.log(torch.exp(logits - mx[:, None]).sum(1))
            losses[s:s + CHUNK] = torch.where(keep[s:s + CHUNK], row_w[s:s + CHUNK] * loss, torch.zeros_like(loss))
        if reduction == "mean" and bug == "mean_of_chunks":
            means = [losses[s:s + CHUNK].sum() / row_w[s:s + CHUNK].sum() for s in range(0, x.shape[0], CHUNK)]
            out = torch.stack(means).mean() if means else losses.sum() / row_w.sum()
        elif reduction == "mean":
            out = losses.sum() / row_w.sum()  # all ignored: 0 / 0 = NaN, as PyTorch
        elif reduction == "sum":
            out = losses.sum()
        else:
            out = losses
        if one_row:  # a 0-D result; one ignored row's mean is 0, not 0 / 0
            out = torch.where(keep[0], out.reshape(()), out.new_zeros(())) if reduction == "mean" else out.reshape(())
        ctx.save_for_backward(x, w, b, label, keep, row_w)
        ctx.acc, ctx.reduction, ctx.total, ctx.bug = acc, reduction, row_w.sum(), bug
        return out.to(x.dtype)

    @staticmethod
    def backward(ctx, upstream):
        x, w, b, label, keep, row_w = ctx.saved_tensors
        acc, needs = ctx.acc, ctx.needs_input_grad
        up = upstream.to(acc)
        if ctx.reduction == "mean":
            up = up / ctx.total
        if needs[0]:
            grad_x = torch.zeros(x.shape, dtype=acc)
        elif ctx.bug != "frozen_crash":  # the bug: grad_x left unbound for a frozen input
            grad_x = None
        grad_w = torch.zeros(w.shape, dtype=acc) if needs[1] else None
        grad_b = torch.zeros(b.shape, dtype=acc) if b is not None and needs[2] else None
        for s in range(0, x.shape[0], CHUNK):
            logits = _chunk_logits(x[s:s + CHUNK], w, b, acc)
            d = torch.softmax(logits, 1) if logits.shape[1] else logits
            if logits.shape[1]:
                d[torch.arange(d.shape[0]), label[s:s + CHUNK]] -= 1
            scale = up[s:s + CHUNK] if up.dim() == 1 and up.numel() == x.shape[0] else up.reshape(())
            # ignored rows: 0 (NaN where their softmax is), never the 0 / 0 of an all-ignored mean
            d = torch.where(keep[s:s + CHUNK, None], d * (row_w[s:s + CHUNK] * scale)[:, None], d * 0)
            if needs[0]:
                grad_x[s:s + CHUNK] = d @ w.to(acc)
            if grad_w is not None:
                grad_w += d.T @ x[s:s + CHUNK].to(acc)
            if grad_b is not None:
                grad_b += d.sum(0)
        cast = [g if g is None else g.to(dtype) for g, dtype in
                ((grad_x, x.dtype), (grad_w, w.dtype), (grad_b, None if b is None else b.dtype))]
        return cast[0], cast[1], cast[2], None, None, None, None, None, None


def _chunk_logits(rows, w, b, acc):
    logits = rows.to(acc) @ w.to(acc).T
    return logits + b.to(acc) if b is not None else logits


def _chunked(bug, input, linear_weight, target, linear_bias=None, weight=None, ignore_index=None, reduction="mean"):
    x, t, one_row = _checked(input, linear_weight, target, linear_bias, weight, ignore_index)
    ignore_index = -100 if ignore_index is None else ignore_index
    loss = _ChunkedLinearCrossEntropy.apply(x, linear_weight, linear_bias, t, weight, ignore_index, reduction,
                                            one_row, bug)
    return loss


def chunked(input, linear_weight, target, linear_bias=None, weight=None, ignore_index=None, reduction="mean"):
    return _chunked(None, input, linear_weight, target, linear_bias, weight, ignore_index, reduction)


def chunked_frozen_crash(input, linear_weight, target, linear_bias=None, weight=None, ignore_index=None,
                         reduction="mean"):
    return _chunked("frozen_crash", input, linear_weight, target, linear_bias, weight, ignore_index, reduction)


def chunked_mean_of_chunks(input, linear_weight, target, linear_bias=None, weight=None, ignore_index=None,
                           reduction="mean"):
    return _chunked("mean_of_chunks", input, linear_weight, target, linear_bias, weight, ignore_index, reduction)


_CLAIMS = {"losses": ["linear_cross_entropy"], "input_dtypes": ["float32", "float64", "bfloat16", "float16"],
           "target_dtypes": ["int64"], "features": ["weight", "ignore_index", "linear_bias"], "max_spatial_dims": 0}
composed.lossfuzz_claims = {"name": "F.cross_entropy(F.linear(...))", "losses": ["linear_cross_entropy"]}
chunked.lossfuzz_claims = dict(_CLAIMS, name="ce_linear chunked")
chunked_frozen_crash.lossfuzz_claims = dict(_CLAIMS, name="ce_linear chunked (buggy: frozen input crashes backward)")
chunked_mean_of_chunks.lossfuzz_claims = dict(_CLAIMS, name="ce_linear chunked (buggy: mean of the chunks' means)")
