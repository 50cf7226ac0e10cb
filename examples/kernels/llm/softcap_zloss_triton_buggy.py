"""softcap_zloss_triton.py with two planted bugs, each one real kernels make
(marked `# BUG:`), for lossfuzz to find:

  a. the softcap applied after the max subtraction, cap(x - max) in place of
     cap(x) - max': the same loss at softcap 0 or a row max of 0, wrong at
     any other (and so the gradient, which reuses the row's max and sum)
  b. the z-loss gradient without its 2 * lse factor: z_loss_scale * p in
     place of 2 * z_loss_scale * lse * p; invisible at z_loss_scale 0

The host side (checks, reductions, autograd) is the correct module's."""
import os
import sys

import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the correct module, beside this one
from softcap_zloss_triton import CLAIMS, _cap, _run  # noqa: E402


@triton.jit
def _fwd_buggy(X, T, P, LOSS, Z, M, LOGS, x_stride, V, ignore_index, CAP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * x_stride
    softcap = tl.load(P)
    z_scale = tl.load(P + 1)
    m = tl.full((), float("-inf"), softcap.dtype)
    for start in range(0, V, BLOCK):  # two passes: the max of the raw logits first
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < V, other=float("-inf")).to(softcap.dtype)
        m = tl.maximum(m, tl.max(x, 0))
    base = tl.where(m == float("-inf"), 0.0, m)
    s = tl.zeros((), softcap.dtype)
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < V, other=0.0).to(softcap.dtype)
        # BUG: (a) capped after the shift, cap(x - max), where the loss needs cap(x) - max(cap(x))
        x = tl.where(cols < V, _cap(x - base, softcap, CAP), float("-inf"))
        s += tl.sum(tl.exp(x), 0)
    t = tl.load(T + row)
    kept = t != ignore_index
    x_t = tl.load(x_row + tl.where(kept, t, 0)).to(softcap.dtype)
    x_t = _cap(x_t - base, softcap, CAP)  # bug (a) again, for the label's logit
    log_s = tl.log(s)
    lse = m + log_s
    z = z_scale * lse * lse
    tl.store(LOSS + row, tl.where(kept, log_s - x_t + z, 0.0))
    tl.store(Z + row, tl.where(kept, z, 0.0))
    tl.store(M + row, m)
    tl.store(LOGS + row, log_s)


@triton.jit
def _bwd_buggy(X, T, P, M, LOGS, COEF, DX, x_stride, V, ignore_index, CAP: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = X + row * x_stride
    softcap = tl.load(P)
    z_scale = tl.load(P + 1)
    t = tl.load(T + row)
    m = tl.load(M + row)
    log_s = tl.load(LOGS + row)
    coef = tl.load(COEF + row)
    dz = 1.0 + z_scale  # BUG: (b) d(z_scale * lse^2)/dx' taken as z_scale * p, the 2 * lse dropped
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < V, other=0.0).to(softcap.dtype)
        xc = _cap(x, softcap, CAP)
        p = tl.exp((xc - m) - log_s)
        g = p * dz - tl.where(cols == t, 1.0, 0.0)
        if CAP:
            th = xc / softcap
            g = g * (1.0 - th * th)
        tl.store(DX + row * V + cols, g * coef, mask=cols < V)


def cross_entropy(input, target, ignore_index=-100, reduction="mean", softcap=0.0, z_loss_scale=0.0):
    return _run(input, target, ignore_index, reduction, float(softcap), float(z_loss_scale),
                (_fwd_buggy, _bwd_buggy))


cross_entropy.lossfuzz_claims = dict(CLAIMS, name="softcap_zloss_triton (buggy: cap after shift, z-loss grad)")
