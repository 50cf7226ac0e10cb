"""Checks the LLM example kernels without lossfuzz: each against a float64
plain-torch reference of its semantics (forward values, and d input through
torch.autograd.grad with a random upstream gradient), on a handful of small
cases. The correct kernels must pass every check; each buggy one must fail at
least one, or its bugs would be invisible to this kind of test. The
vocabulary-parallel kernels run in W = 2 and W = 3 gloo processes on this
machine, each rank given its shard (uneven ones too, one of width 0).

    .venv/bin/python3 examples/kernels/llm/check_examples.py

Exit status 0 when the correct kernels pass and every buggy one is caught."""
import os
import socket
import sys
import tempfile
import time

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported: Triton kernels on the CPU
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
import torch.nn.functional as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# torch 1.13 lacks what Triton's interpreter copies tensors through (as lossfuzz_triton_compat adds)
if not hasattr(torch.Tensor, "untyped_storage"):
    torch.Tensor.untyped_storage = lambda self: self.storage().untyped()

# lossfuzz's tolerances (harness/model/case/lf_dtype.c): |got - want| <= atol + rtol * max|want|
TOL = {torch.float64: (1e-10, 1e-12), torch.float32: (1e-5, 1e-6), torch.float16: (4e-3, 1e-4),
       torch.bfloat16: (3e-2, 1e-3)}


def close(got, want, dtype):
    """(ok, why): NaN where the reference has NaN, else within dtype's tolerance."""
    rtol, atol = TOL[dtype]
    if got.shape != want.shape:
        return False, "shape %s, want %s" % (tuple(got.shape), tuple(want.shape))
    if not want.numel():
        return True, "empty, as the reference"
    got, want = got.detach().double(), want.detach().double()
    nan = want.isnan()
    if (got.isnan() != nan).any():
        return False, "NaN where the reference has none, or the reverse"
    if nan.all():
        return True, "NaN as the reference"
    err, scale = (got - want)[~nan].abs().max().item(), want[~nan].abs().max().item()
    return err <= atol + rtol * scale, "max err %.2e (tol %.2e)" % (err, atol + rtol * scale)


def reduce(loss, kept, reduction):
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / kept.sum() if reduction == "mean" else loss  # mean over none kept: 0 / 0 = NaN


def ref_softcap_zloss(x, t, ignore_index, reduction, softcap, z_loss_scale):
    """The semantics in float64 torch ops: (loss, z_loss)."""
    if x.dim() == 1:  # PyTorch's 1-D input: the row's own loss, 0-D
        return tuple(r.reshape(()) for r in ref_softcap_zloss(x[None], t.reshape(1), ignore_index, "sum",
                                                              softcap, z_loss_scale))
    xc = softcap * torch.tanh(x / softcap) if softcap > 0 else x
    lse = torch.logsumexp(xc, 1)
    kept = t != ignore_index
    x_t = xc.gather(1, torch.where(kept, t, torch.zeros_like(t))[:, None])[:, 0]
    z = z_loss_scale * lse ** 2
    zero = torch.zeros_like(lse)
    return (reduce(torch.where(kept, lse - x_t + z, zero), kept, reduction),
            reduce(torch.where(kept, z, zero), kept, reduction).detach())


def case(seed, n, v, dtype, ignored=(), shift=0.0, scale=3.0, one_row=False):
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(n, v, generator=g, dtype=torch.float64) * scale + shift).to(dtype)
    t = torch.randint(0, max(v, 1), (n,), generator=g)
    t[list(ignored)] = -100
    return (x[0], t[0]) if one_row else (x, t)


# (label, (x, t), reduction, softcap, z_loss_scale)
TRITON_CASES = [
    ("f32 plain mean", case(1, 6, 37, torch.float32, ignored=[2]), "mean", 0.0, 0.0),
    ("f32 softcap none", case(2, 6, 37, torch.float32, ignored=[0, 5], shift=2.0), "none", 5.0, 0.0),
    ("f32 z-loss sum", case(3, 5, 40, torch.float32, ignored=[1]), "sum", 0.0, 1e-2),
    ("f32 softcap+z none", case(4, 6, 37, torch.float32, ignored=[3], shift=-1.0), "none", 4.0, 1e-2),
    ("f32 V=1 softcap+z mean", case(5, 5, 1, torch.float32, ignored=[4]), "mean", 2.0, 0.1),
    ("f32 N=0 mean", case(6, 0, 10, torch.float32), "mean", 3.0, 1e-3),
    ("f32 all ignored mean", case(7, 3, 10, torch.float32, ignored=[0, 1, 2]), "mean", 3.0, 1e-3),
    ("f32 1-D row", case(8, 1, 20, torch.float32, one_row=True), "mean", 3.0, 1e-2),
    ("f64 softcap+z sum", case(9, 4, 50, torch.float64, ignored=[2]), "sum", 2.0, 0.1),
    ("bf16 softcap+z none V=1500", case(10, 3, 1500, torch.bfloat16, ignored=[1]), "none", 30.0, 1e-4),
    ("bf16 plain mean", case(11, 5, 64, torch.bfloat16), "mean", 0.0, 0.0),
    ("f16 softcap+z mean", case(12, 4, 100, torch.float16, ignored=[0]), "mean", 10.0, 1e-3),
    ("f32 V=50257 softcap+z mean", case(13, 2, 50257, torch.float32, scale=5.0), "mean", 30.0, 1e-4),
]


def run_triton(fn):
    """One (label, ok, why) per check of fn on TRITON_CASES."""
    out = []
    for label, (x, t), reduction, softcap, z_scale in TRITON_CASES:
        xk = x.clone().requires_grad_()
        loss, z = fn(xk, t, reduction=reduction, softcap=softcap, z_loss_scale=z_scale)
        xr = x.double().requires_grad_()
        want, want_z = ref_softcap_zloss(xr, t, -100, reduction, softcap, z_scale)
        up = torch.randn(want.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(len(out)))
        (grad,) = torch.autograd.grad(loss, xk, up.to(x.dtype))
        (want_grad,) = torch.autograd.grad(want, xr, up)
        ok, why = close(loss, want, x.dtype)
        if loss.dtype != x.dtype or z.dtype != x.dtype or z.requires_grad:
            ok, why = False, "dtypes %s, %s (want %s), z_loss requires grad: %s" % (loss.dtype, z.dtype, x.dtype,
                                                                                   z.requires_grad)
        out.append((label + ": loss", ok, why))
        out.append((label + ": z_loss", *close(z, want_z, x.dtype)))
        out.append((label + ": d input", *close(grad, want_grad, x.dtype)))
    x, t = case(14, 3, 10, torch.float32)
    t[1] = 10
    try:
        fn(x, t, softcap=3.0, z_loss_scale=1e-3)
        out.append(("label 10 of V=10: IndexError", False, "returned a number"))
    except IndexError as e:
        out.append(("label 10 of V=10: IndexError", True, str(e)))
    return out


# (label, (x, t), reduction, label_smoothing, shard sizes for W = 2, for W = 3)
VP_CASES = [
    ("f64 mean", case(21, 6, 11, torch.float64, ignored=[1]), "mean", 0.0, [5, 6], [4, 4, 3]),
    ("f32 none smoothed", case(22, 6, 11, torch.float32, ignored=[0, 4], shift=3.0), "none", 0.1, [2, 9], [1, 7, 3]),
    ("f64 sum smoothed, a 0-wide shard", case(23, 5, 8, torch.float64), "sum", 0.2, [8, 0], [3, 0, 5]),
    ("f64 N=0 mean", case(24, 0, 7, torch.float64), "mean", 0.1, [3, 4], [2, 2, 3]),
    ("f32 all ignored mean smoothed", case(25, 3, 7, torch.float32, ignored=[0, 1, 2]), "mean", 0.1, [3, 4], [2, 2, 3]),
    ("f64 1-D row smoothed", case(26, 1, 9, torch.float64, one_row=True), "mean", 0.3, [4, 5], [3, 3, 3]),
]


def vp_worker(rank, world, port, out_dir):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=world)
    import vocab_parallel_ce
    import vocab_parallel_ce_buggy
    results = {}
    for mod in (vocab_parallel_ce, vocab_parallel_ce_buggy):
        fn = mod.vocab_parallel_cross_entropy
        for i, (label, (x, t), reduction, eps, sizes2, sizes3) in enumerate(VP_CASES):
            sizes = sizes2 if world == 2 else sizes3
            off = sum(sizes[:rank])
            shard = x[..., off:off + sizes[rank]].clone().requires_grad_()
            loss = fn(shard, t, reduction=reduction, label_smoothing=eps)
            up = torch.randn(loss.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(i))
            (grad,) = torch.autograd.grad(loss, shard, up.to(x.dtype))
            results[mod.__name__, i] = (loss.detach(), grad)
        x, t = case(27, 3, 10, torch.float32)
        t[2] = 10
        try:
            fn(x[:, rank::world].contiguous(), t)
            results[mod.__name__, "bad label"] = "returned a number"
        except IndexError as e:
            results[mod.__name__, "bad label"] = e
    torch.save(results, os.path.join(out_dir, "%d.pt" % rank))
    dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_vocab_parallel(world):
    """{module name: [(label, ok, why)]} for W = world ranks."""
    with tempfile.TemporaryDirectory() as out_dir:
        mp.spawn(vp_worker, args=(world, free_port(), out_dir), nprocs=world, join=True)
        ranks = [torch.load(os.path.join(out_dir, "%d.pt" % r), weights_only=False)  # our ranks wrote them
                 for r in range(world)]
    out = {}
    for name in ("vocab_parallel_ce", "vocab_parallel_ce_buggy"):
        checks = out[name] = []
        for i, (label, (x, t), reduction, eps, _, _) in enumerate(VP_CASES):
            xr = x.double().requires_grad_()
            want = F.cross_entropy(xr, t, reduction=reduction, label_smoothing=eps)  # PyTorch is the reference
            up = torch.randn(want.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(i))
            (want_grad,) = torch.autograd.grad(want, xr, up)
            label = "W=%d %s" % (world, label)
            for r in range(world):
                checks.append(("%s: rank %d loss" % (label, r), *close(ranks[r][name, i][0], want, x.dtype)))
            grad = torch.cat([ranks[r][name, i][1] for r in range(world)], dim=-1)
            checks.append((label + ": d input (shards joined)", *close(grad, want_grad, x.dtype)))
        raised = [ranks[r][name, "bad label"] for r in range(world)]
        ok = all(isinstance(e, IndexError) for e in raised)
        checks.append(("W=%d label 10 of V=10: IndexError on every rank" % world, ok,
                       str(raised[0]) if ok else "; ".join(map(str, raised))))
    return out


def main():
    start = time.time()
    torch.set_num_threads(1)
    import softcap_zloss_triton
    import softcap_zloss_triton_buggy
    results = {"softcap_zloss_triton": run_triton(softcap_zloss_triton.cross_entropy),
               "softcap_zloss_triton_buggy": run_triton(softcap_zloss_triton_buggy.cross_entropy),
               "vocab_parallel_ce": [], "vocab_parallel_ce_buggy": []}
    for world in (2, 3):
        for name, checks in run_vocab_parallel(world).items():
            results[name] += checks
    for name, checks in results.items():
        for label, ok, why in checks:
            print("%-4s %-27s %-52s %s" % ("ok" if ok else "FAIL", name, label, why))
    good = True
    print()
    for name, checks in results.items():
        failed = sum(not ok for _, ok, _ in checks)
        if name.endswith("_buggy"):
            good &= failed > 0
            print("%s: %d of %d checks fail: %s" % (name, failed, len(checks), "its bugs are caught" if failed
                                                     else "NOT CAUGHT"))
        else:
            good &= not failed
            print("%s: %s (%d checks)" % (name, "all pass" if not failed else "%d FAIL" % failed, len(checks)))
    print("%s in %.1f s" % ("OK" if good else "FAILED", time.time() - start))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
