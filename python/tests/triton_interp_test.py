"""Triton's interpreter computes what compiled Triton computes, through
lossfuzz_triton_compat's mends: bfloat16 arithmetic, comparisons, abs
fma and reductions on values (not on their bit patterns), float32 ->
bfloat16 rounded to nearest even (cast and store), a Python float argument a
float32 scalar, libdevice's functions (tanh, exp, log1p, erf, pow...: softcap
kernels call tanh) in the argument's dtype. Each check fails on Triton 3.6's
interpreter unmended; the libdevice, bfloat16 fma and tl.dot checks on 3.9's too.
usage: triton_interp_test.py ROOT (run by a python3 with torch and triton: ci/find-python.sh torch triton)"""
import os
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "python"))
import lossfuzz_triton_compat  # noqa: E402

lossfuzz_triton_compat.enable_interpreter()
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

try:
    from triton.language.extra import libdevice  # noqa: E402
except ImportError:  # older Triton: the CUDA one only
    from triton.language.extra.cuda import libdevice  # noqa: E402

N = 4
failures = []


@triton.jit
def _arith(A, B, OUT, LESS, ABS, SUMMAX):
    i = tl.arange(0, 4)
    a = tl.load(A + i)
    b = tl.load(B + i)
    tl.store(OUT + i, a * b + a / b - b)
    tl.store(LESS + i, (a < b).to(tl.int32))
    tl.store(ABS + i, tl.abs(a))
    tl.store(SUMMAX, tl.sum(a, 0))
    tl.store(SUMMAX + 1, tl.max(a, 0))
    tl.store(SUMMAX + 2, tl.min(a, 0))
    tl.store(SUMMAX + 3, tl.argmin(a, 0).to(tl.bfloat16))


@triton.jit
def _narrow(X, CAST, STORED):
    i = tl.arange(0, 4)
    x = tl.load(X + i)
    tl.store(CAST + i, x.to(tl.bfloat16))
    tl.store(STORED + i, x)  # a float32 value into a bfloat16 tensor


@triton.jit
def _scaled(X, OUT, scale):
    i = tl.arange(0, 4)
    tl.store(OUT + i, tl.load(X + i) * scale.to(tl.float32))


@triton.jit
def _libdevice(X, OUT, cap):
    i = tl.arange(0, 4)
    x = tl.load(X + i)
    tl.store(OUT + i, cap * libdevice.tanh(x / cap))
    tl.store(OUT + 4 + i, libdevice.exp(x) + libdevice.log1p(libdevice.abs(x)))
    tl.store(OUT + 8 + i, libdevice.erf(x) + libdevice.pow(libdevice.abs(x), x))


@triton.jit
def _fma(A, B, C, OUT):
    i = tl.arange(0, 4)
    tl.store(OUT + i, tl.fma(tl.load(A + i), tl.load(B + i), tl.load(C + i)))


@triton.jit
def _dot(A, B, OUT):  # [16, 16] @ [16, 16] into float32, as a fused linear's logits tile
    r = tl.arange(0, 16)
    a = tl.load(A + r[:, None] * 16 + r[None, :])
    b = tl.load(B + r[:, None] * 16 + r[None, :])
    tl.store(OUT + r[:, None] * 16 + r[None, :], tl.dot(a, b))


def check(what, got, want):
    if not torch.equal(got, want):
        failures.append("%s: %s, want %s" % (what, got.tolist(), want.tolist()))


bf = torch.bfloat16
a = torch.tensor([1.0, -0.5, 3.0, -2.0], dtype=bf)
b = torch.tensor([0.5, 0.5, -1.5, 4.0], dtype=bf)
out, less, ab, summax = (torch.empty(N, dtype=bf), torch.empty(N, dtype=torch.int32), torch.empty(N, dtype=bf),
                         torch.empty(4, dtype=bf))
_arith[(1,)](a, b, out, less, ab, summax)
f = a.float(), b.float()
check("bfloat16 a * b + a / b - b", out, ((f[0] * f[1]).to(bf).float() + (f[0] / f[1]).to(bf).float()).to(bf).float()
      .sub(f[1]).to(bf))
check("bfloat16 a < b", less, (a < b).to(torch.int32))
check("bfloat16 abs", ab, a.abs())
check("bfloat16 sum, max, min, argmin", summax, torch.tensor([a.float().sum(), a.float().max(), a.float().min(), 3.0]).to(bf))

x = torch.tensor([1.0059, 200.7, -3.3, float("nan")])
cast, stored = torch.empty(N, dtype=bf), torch.empty(N, dtype=bf)
_narrow[(1,)](x, cast, stored)
check("float32 -> bfloat16 cast", cast[:3], x[:3].to(bf))
check("float32 stored into bfloat16", stored[:3], x[:3].to(bf))
if not (cast[3].isnan() and stored[3].isnan()):
    failures.append("NaN -> bfloat16: %s, %s" % (cast[3].item(), stored[3].item()))

scaled = torch.empty(N)
try:
    _scaled[(1,)](x, scaled, 0.1)
    check("a Python float argument, float32", scaled[:3], x[:3] * torch.tensor(0.1, dtype=torch.float32))
except Exception as e:  # noqa: BLE001 - the unmended interpreter raises AttributeError inside its own error
    failures.append("a Python float argument: %s: %s" % (type(e).__name__, e))

fma_out = torch.empty(N, dtype=bf)
c = torch.tensor([0.25, 1.0, 2.0, -3.0], dtype=bf)
_fma[(1,)](a, b, c, fma_out)
check("bfloat16 fma", fma_out, (a.double() * b.double() + c.double()).to(bf))

g = torch.Generator().manual_seed(0)
da, db = torch.randn(16, 16, generator=g).to(bf), torch.randn(16, 16, generator=g).to(bf)
dot_out = torch.empty(16, 16)
try:
    _dot[(1,)](da, db, dot_out)
    if not torch.allclose(dot_out, da.float() @ db.float(), rtol=1e-5, atol=1e-5):
        failures.append("bfloat16 tl.dot: %s, want %s" % (dot_out[0, :3].tolist(), (da.float() @ db.float())[0, :3].tolist()))
except Exception as e:  # noqa: BLE001
    failures.append("bfloat16 tl.dot: %s: %s" % (type(e).__name__, str(e)[:200]))

for dt in (torch.float32, bf, torch.float16):
    x = torch.tensor([-2.0, -0.5, 0.25, 3.0], dtype=dt)
    got = torch.empty(12, dtype=dt)
    try:
        _libdevice[(1,)](x, got, 5.0)
        f = x.float()
        want = torch.cat([(5.0 * torch.tanh(f / 5.0)).to(dt), (torch.exp(f).to(dt).float() + torch.log1p(f.abs()).to(dt)
                                                                .float()).to(dt),
                          (torch.erf(f).to(dt).float() + torch.pow(f.abs(), f).to(dt).float()).to(dt)])
        if not torch.allclose(got.float(), want.float(), rtol=1e-2 if dt != torch.float32 else 1e-6, atol=0):
            failures.append("libdevice in %s: %s, want %s" % (dt, got.tolist(), want.tolist()))
    except Exception as e:  # noqa: BLE001 - unmended: None from the stub, inside the interpreter's own error
        failures.append("libdevice in %s: %s: %s" % (dt, type(e).__name__, str(e)[:200]))

for f in failures:
    print("FAIL", f)
print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
