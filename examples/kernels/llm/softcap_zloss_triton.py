"""A Triton cross-entropy for LLM training, with the two extras of Gemma 2 /
PaLM-style heads (see shared/docs/llm-ce.md):

    x' = softcap * tanh(x / softcap)   (softcap > 0; 0 is off, as unsloth)
    loss_i = lse(x'_i) - x'_{i,t_i} + z_loss_scale * lse(x'_i)^2

An autograd.Function with a forward kernel (one program per row, an online
softmax over V in blocks: per-row max and log-sum-exp, loss and z-loss) and a
backward kernel (the same row again, the gradient scaled by the upstream
value of its row). It returns (loss, z_loss), z_loss reduced like the loss,
detached, as Liger-Kernel's `return_z_loss`. Unguarded (claims guarded False: it raises for what it cannot compute, not always PyTorch's exception); a label outside [0, V)
raises IndexError on the host before any launch, as PyTorch's CPU build does.

Arithmetic is float32 for float32 / bfloat16 / float16 input and float64 for
float64 input (softcap and z_loss_scale travel in a tensor of that dtype, as
compiled Triton would round a Python float argument to float32); results are
cast back to the input's dtype on the host.

    lossfuzz fuzz --seconds 60 --kernel py:examples/kernels/llm/softcap_zloss_triton.py:cross_entropy"""
import torch
import triton
import triton.language as tl


@triton.jit
def _tanh(y):
    # tl has no tanh and the interpreter no libdevice: Cephes' tanh, a rational
    # fit below 0.625, where 1 - 2 / (exp(2y) + 1) would lose y's digits
    z = y * y
    p = (-9.64399179425052238628e-1 * z - 9.92877231001918586564e1) * z - 1.61468768441708447952e3
    q = ((z + 1.12811678491632931402e2) * z + 2.23548839060100448583e3) * z + 4.84406305325125486048e3
    return tl.where(tl.abs(y) < 0.625, y + y * z * p / q, 1.0 - 2.0 / (tl.exp(2.0 * y) + 1.0))


@triton.jit
def _cap(x, softcap, CAP: tl.constexpr):
    if CAP:
        x = softcap * _tanh(x / softcap)
    return x


@triton.jit
def _fwd(X, T, P, LOSS, Z, M, LOGS, x_stride, V, ignore_index, CAP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)  # row * stride past 2^31 elements
    x_row = X + row * x_stride
    softcap = tl.load(P)
    z_scale = tl.load(P + 1)
    m = tl.full((), float("-inf"), softcap.dtype)
    s = tl.zeros((), softcap.dtype)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < V, other=0.0).to(softcap.dtype)
        x = tl.where(cols < V, _cap(x, softcap, CAP), float("-inf"))  # cap(-inf) is -softcap: mask after
        m_new = tl.maximum(m, tl.max(x, 0))
        base = tl.where(m_new == float("-inf"), 0.0, m_new)  # all -inf so far: s stays 0, not NaN
        s = s * tl.exp(m - base) + tl.sum(tl.exp(x - base), 0)
        m = m_new
    t = tl.load(T + row)
    kept = t != ignore_index
    x_t = _cap(tl.load(x_row + tl.where(kept, t, 0)).to(softcap.dtype), softcap, CAP)
    log_s = tl.log(s)
    lse = m + log_s
    z = z_scale * lse * lse
    # (m - x_t) first: lse - x_t loses log(s) for logits near 1e4 in float32
    tl.store(LOSS + row, tl.where(kept, (m - x_t) + log_s + z, 0.0))
    tl.store(Z + row, tl.where(kept, z, 0.0))
    tl.store(M + row, m)
    tl.store(LOGS + row, log_s)


@triton.jit
def _bwd(X, T, P, M, LOGS, COEF, DX, x_stride, V, ignore_index, CAP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * x_stride
    softcap = tl.load(P)
    z_scale = tl.load(P + 1)
    t = tl.load(T + row)
    m = tl.load(M + row)
    log_s = tl.load(LOGS + row)
    coef = tl.load(COEF + row)  # upstream of the row (/ n_valid under mean), 0 if ignored
    dz = 1.0 + 2.0 * z_scale * (m + log_s)  # d(ce + z)/dx' = p * (1 + 2 z lse) - onehot
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < V, other=0.0).to(softcap.dtype)
        xc = _cap(x, softcap, CAP)
        p = tl.exp((xc - m) - log_s)  # not xc - lse: see above
        g = p * dz - tl.where(cols == t, 1.0, 0.0)
        if CAP:
            th = xc / softcap
            g = g * (1.0 - th * th)
        tl.store(DX + row * V + cols, g * coef, mask=cols < V)


class _CrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, ignore_index, reduction, softcap, z_loss_scale, kernels):
        n, v = x.shape
        acc = torch.float64 if x.dtype == torch.float64 else torch.float32
        kept = target != ignore_index
        params = torch.tensor([softcap, z_loss_scale], dtype=acc, device=x.device)
        loss, z, m, log_s = (torch.zeros(n, dtype=acc, device=x.device) for _ in range(4))
        if n and v:  # no classes: every row is ignored (else the label check raised)
            kernels[0][(n,)](x, target, params, loss, z, m, log_s, x.stride(0), v, ignore_index,
                             CAP=softcap > 0, BLOCK=min(1024, triton.next_power_of_2(v)))
        n_valid = int(kept.sum())
        if reduction == "sum":
            loss, z = loss.sum(), z.sum()
        elif reduction == "mean":  # 0 / 0 = NaN with every row ignored, as PyTorch
            loss, z = loss.sum() / n_valid, z.sum() / n_valid
        ctx.save_for_backward(x, target, params, m, log_s)
        ctx.kept, ctx.n_valid, ctx.reduction = kept, n_valid, reduction
        ctx.ignore_index, ctx.cap, ctx.kernels = ignore_index, softcap > 0, kernels
        z = z.to(x.dtype)
        ctx.mark_non_differentiable(z)
        return loss.to(x.dtype), z

    @staticmethod
    def backward(ctx, upstream, _z_upstream):
        x, target, params, m, log_s = ctx.saved_tensors
        n, v = x.shape
        up = upstream.to(params.dtype).expand(n)  # a scalar's upstream reaches every row
        if ctx.reduction == "mean":
            up = up / max(ctx.n_valid, 1)
        coef = torch.where(ctx.kept, up, torch.zeros_like(up)).contiguous()  # ignored rows: 0 whatever upstream
        dx = torch.zeros((n, v), dtype=params.dtype, device=x.device)
        if n and v:
            ctx.kernels[1][(n,)](x, target, params, m, log_s, coef, dx, x.stride(0), v, ctx.ignore_index,
                                 CAP=ctx.cap, BLOCK=min(1024, triton.next_power_of_2(v)))
        return dx.to(x.dtype), None, None, None, None, None, None


def _run(input, target, ignore_index, reduction, softcap, z_loss_scale, kernels):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError("%s is not a valid value for reduction" % reduction)
    if softcap < 0:
        raise ValueError("softcap must be >= 0 (0: off), got %r" % softcap)
    one_row = input.dim() == 1 and target.dim() <= 1 and target.numel() == 1
    x, t = (input[None], target.reshape(1)) if one_row else (input, target)
    if x.dim() == 2 and t.dim() == 1 and t.shape[0] != x.shape[0]:  # PyTorch's class of error for it
        raise ValueError("Expected input batch_size (%d) to match target batch_size (%d)." % (x.shape[0], t.shape[0]))
    if x.dim() != 2 or t.dim() != 1 or t.shape[0] != x.shape[0] or t.dtype != torch.int64:
        raise RuntimeError("softcap_zloss_triton: input [N, V] with int64 target [N], or [V] with target [] or [1]")
    bad = (t != ignore_index) & ((t < 0) | (t >= x.shape[1]))
    if bad.any():  # on the host, before a launch: the kernel would read another row
        raise IndexError("Target %d is out of bounds." % t[bad][0])
    # the kernels read rows by their stride, columns and labels densely
    x, t = x.contiguous(), t.contiguous()
    if one_row:  # PyTorch's 1-D kernel: the row's own loss, 0-D, for every reduction (an ignored one: 0)
        loss, z = _CrossEntropy.apply(x, t, ignore_index, "sum", softcap, z_loss_scale, kernels)
        return loss.reshape(()), z.reshape(())
    return _CrossEntropy.apply(x, t, ignore_index, reduction, softcap, z_loss_scale, kernels)


def cross_entropy(input, target, ignore_index=-100, reduction="mean", softcap=0.0, z_loss_scale=0.0):
    return _run(input, target, ignore_index, reduction, float(softcap), float(z_loss_scale), (_fwd, _bwd))


# The interpreter runs a program per row in Python, so lossfuzz's cases stay
# small on a CPU runner (max_numel; raise it for a compiled Triton on a GPU).
CLAIMS = {"name": "softcap_zloss_triton", "guarded": False, "losses": ["cross_entropy"],
          "input_dtypes": ["float32", "float64", "bfloat16", "float16"], "target_dtypes": ["int64"],
          "reductions": ["none", "mean", "sum"], "features": ["ignore_index"], "max_spatial_dims": 0,
          "backward": True, "max_numel": 8192,
          "options": {"softcap": "softcap", "z_loss_scale": "z_loss_scale"},  # lossfuzz's name -> keyword
          "outputs": ["loss", "z_loss"]}  # the returned tuple, in order
cross_entropy.lossfuzz_claims = CLAIMS
