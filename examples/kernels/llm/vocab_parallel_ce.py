"""A vocabulary-parallel cross-entropy in plain torch.distributed, the way
Megatron-LM and flash-attention split an LM head's logits across ranks: each
rank holds the consecutive classes [off_r, off_r + V_r) of every row (uneven
shards allowed, even V_r = 0), and the whole target. Forward all-reduces the
row max (MAX), then the sum of exp(x - max), the target logit masked to the
rank that owns the label, and, for label smoothing, the sum of x - max (one
SUM for the three, as Megatron packs them). Every rank returns the same full
loss; backward writes this rank's shard of d input from what forward saved,
with no collective.

Label smoothing is PyTorch's: (1 - eps) * nll + eps / V * sum_k(-log p_k), V
the whole vocabulary (the sum of the shard sizes), not the local shard's size
(Megatron's NeMo convention, llm-ce.md) nor world_size * V_r (flash-attn).

Unguarded (its exceptions are not always PyTorch's classes); a label outside [0, V)
raises IndexError on every rank together.
The one collective before that check (an all_gather of each rank's V_r, N
and label range) is made unconditionally, and the check reads every rank's
labels, so no rank is left waiting in an all_reduce.

    torch.distributed initialised (gloo on CPU), then on every rank:
    loss = vocab_parallel_cross_entropy(logits_shard, target, group=group)"""
import torch
import torch.distributed as dist


def _layout(vr, target, ignore_index, group):
    """This rank's offset and the whole vocabulary; raises, on every rank, for
    a label out of range or batch sizes that differ between ranks."""
    kept = target[target != ignore_index]
    lo, hi = (int(kept.min()), int(kept.max())) if kept.numel() else (0, -1)
    mine = torch.tensor([vr, target.shape[0], lo, hi], dtype=torch.int64, device=target.device)  # NCCL: on the GPU
    every = [torch.empty_like(mine) for _ in range(dist.get_world_size(group))]
    dist.all_gather(every, mine, group=group)
    every = torch.stack(every)
    vocab = int(every[:, 0].sum())
    if (every[:, 1] != target.shape[0]).any():
        raise RuntimeError("the ranks' batch sizes differ: %s" % every[:, 1].tolist())
    if (every[:, 2] < 0).any() or (every[:, 3] >= vocab).any():
        bad = int(every[:, 2].min()) if (every[:, 2] < 0).any() else int(every[:, 3].max())
        raise IndexError("Target %d is out of bounds." % bad)
    return int(every[: dist.get_rank(group), 0].sum()), vocab


def _target_logit(shifted, target, mine, off):
    """x_t - max on the rank that holds t, 0 on the others: their SUM is x_t - max."""
    idx = torch.where(mine, target - off, torch.zeros_like(target))
    return torch.where(mine, shifted.gather(1, idx[:, None])[:, 0], shifted.new_zeros(()))


class _VocabParallelCE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, ignore_index, reduction, eps, group, off, vocab, pick):
        n, vr = x.shape
        kept = target != ignore_index
        m = x.max(1).values if vr else x.new_full((n,), float("-inf"))
        dist.all_reduce(m, dist.ReduceOp.MAX, group=group)
        shifted = x - m[:, None]  # x_t - m, not x_t: lse - x_t loses digits for large logits
        mine = kept & (target >= off) & (target < off + vr)  # rows whose label this rank holds
        x_t = pick(shifted, target, mine, off) if vr else m * 0
        sums = torch.stack([shifted.exp().sum(1), x_t, shifted.sum(1) if eps else m * 0])
        dist.all_reduce(sums, dist.ReduceOp.SUM, group=group)
        log_s = sums[0].log()
        loss = log_s - sums[1]
        if eps:  # -sum_k log p_k = V * log_s - sum_k (x_k - m)
            loss = (1 - eps) * loss + eps / _classes(vocab) * (vocab * log_s - sums[2])
        loss = torch.where(kept, loss, x.new_zeros(()))  # ignored rows: 0, whatever their logits
        n_valid = int(kept.sum())
        if reduction == "sum":
            loss = loss.sum()
        elif reduction == "mean":  # 0 / 0 = NaN with every row ignored, as PyTorch
            loss = loss.sum() / n_valid
        if eps and not vocab and reduction != "none":  # PyTorch scales the reduced smoothing term by eps / 0: NaN
            loss = loss + float("nan")
        ctx.save_for_backward(x, m, log_s, target, mine, kept)
        ctx.reduction, ctx.eps, ctx.off, ctx.vocab, ctx.n_valid = reduction, eps, off, vocab, n_valid
        return loss

    @staticmethod
    def backward(ctx, upstream):
        x, m, log_s, target, mine, kept = ctx.saved_tensors
        up = upstream.expand(x.shape[0])
        if ctx.reduction == "mean":
            up = up / max(ctx.n_valid, 1)
        coef = torch.where(kept, up, up.new_zeros(()))  # ignored rows: 0 whatever upstream
        # d loss_i / d x_k = p_k - (1 - eps) [k == t_i] - eps / V, all local once m and log_s are global
        g = torch.exp((x - m[:, None]) - log_s[:, None]) - ctx.eps / _classes(ctx.vocab)
        rows = mine.nonzero()[:, 0]
        g[rows, target[rows] - ctx.off] -= 1 - ctx.eps
        return g * coef[:, None], None, None, None, None, None, None, None, None


def _classes(vocab):
    """V as a divisor: eps / 0 is NaN, as PyTorch's smoothing over no classes gives."""
    return float(vocab) if vocab else float("nan")


def _run(input, target, ignore_index, reduction, label_smoothing, group, pick):
    # checks every rank makes alike, before any collective
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    if label_smoothing > 1.0:  # PyTorch's check; a negative or NaN label_smoothing is off, as in PyTorch
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: %g" % label_smoothing)
    label_smoothing = label_smoothing if label_smoothing > 0 else 0.0
    one_row = input.dim() == 1 and target.dim() <= 1 and target.numel() == 1
    x, t = (input[None], target.reshape(1)) if one_row else (input, target)
    if x.dim() == 2 and t.dim() == 1 and t.shape[0] != x.shape[0]:  # PyTorch's class of error for it
        raise ValueError("Expected input batch_size (%d) to match target batch_size (%d)." % (x.shape[0], t.shape[0]))
    if x.dim() != 2 or t.dim() != 1 or t.shape[0] != x.shape[0] or t.dtype != torch.int64:
        raise RuntimeError("vocab_parallel_ce: input [N, V_r] with int64 target [N], or [V_r] with target [] or [1]")
    off, vocab = _layout(x.shape[1], t, ignore_index, group)
    args = (ignore_index, reduction, float(label_smoothing), group, off, vocab, pick)
    if one_row:  # PyTorch's 1-D kernel: the row's own loss, 0-D, for every reduction (an ignored one: 0) ...
        out = _VocabParallelCE.apply(x, t, ignore_index, "sum", *args[2:]).reshape(())
        if reduction == "mean" and label_smoothing > 0 and int(t[0]) == ignore_index:
            out = out + float("nan")  # ... but smoothing's mean over no kept row is 0 / 0
        return out
    return _VocabParallelCE.apply(x, t, *args)


def vocab_parallel_cross_entropy(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0,
                                 group=None):
    return _run(input, target, ignore_index, reduction, label_smoothing, group, _target_logit)


CLAIMS = {"name": "vocab_parallel_ce", "guarded": False, "losses": ["cross_entropy"],
          "input_dtypes": ["float32", "float64"], "target_dtypes": ["int64"],
          "reductions": ["none", "mean", "sum"], "features": ["ignore_index", "label_smoothing"],
          "max_spatial_dims": 0, "backward": True,
          "vocab_parallel": {"group": "group", "split": "any", "empty_shards": True}}  # any cuts, V_r = 0 too
vocab_parallel_cross_entropy.lossfuzz_claims = CLAIMS


class _CopyToShards(torch.autograd.Function):
    """The hidden states, the same on every rank: forward passes them, backward
    all-reduces their gradient, each rank's vocabulary adding its part (the
    'copy to tensor-parallel region' of Megatron's column-parallel layer)."""

    @staticmethod
    def forward(ctx, hidden, group):
        ctx.group = group
        return hidden.view_as(hidden)

    @staticmethod
    def backward(ctx, grad):
        grad = grad.contiguous()
        dist.all_reduce(grad, dist.ReduceOp.SUM, group=ctx.group)
        return grad, None


def vocab_parallel_linear_cross_entropy(input, linear_weight, target, linear_bias=None, ignore_index=-100,
                                        reduction="mean", label_smoothing=0.0, group=None):
    """A vocabulary-parallel LM head: this rank's rows of the weight [V_r, H]
    (and of the bias), the whole hidden states [N, H]; d hidden all-reduced,
    whole on every rank."""
    logits = torch.nn.functional.linear(_CopyToShards.apply(input, group), linear_weight, linear_bias)
    return _run(logits, target, ignore_index, reduction, label_smoothing, group, _target_logit)


vocab_parallel_linear_cross_entropy.lossfuzz_claims = dict(
    CLAIMS, name="vocab_parallel_linear_ce", losses=["linear_cross_entropy"],
    features=["ignore_index", "label_smoothing", "linear_bias"])
