"""torch_ce.py SHAPE:DTYPE... - PyTorch's F.cross_entropy on the GPU, timed
as ci/bench-gpu.sh compares lossfuzz's kernels with it: the median of CUDA
event times over --iters runs of the forward, and of the forward plus
backward (the input requiring grad, loss.backward()), with the defaults
(class-index targets, reduction mean). Prints a line per shape, tab-separated:
    shape dtype torch_fwd_ms torch_fwdbwd_ms loss
Exits 77 (with the reason) where torch has no CUDA device."""
import argparse
import sys

import torch
import torch.nn.functional as F

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16, "float64": torch.float64}


def median_ms(fn, iters):
    times = []
    for i in range(iters + 1):  # the first: a warm-up
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        if i:
            times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("shapes", nargs="+")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: torch %s has no CUDA device" % torch.__version__)
        sys.exit(77)
    for spec in args.shapes:
        dims, dtype = spec.split(":")
        shape = [int(d) for d in dims.split("x")]
        x = torch.empty(shape, device="cuda", dtype=DTYPES[dtype]).uniform_(-4, 4)
        t = torch.randint(0, shape[1], [shape[0]] + shape[2:], device="cuda")
        loss = F.cross_entropy(x, t)
        fwd = median_ms(lambda: F.cross_entropy(x, t), args.iters)
        xg = x.detach().requires_grad_()

        def fwd_bwd():
            xg.grad = None  # a fresh gradient each run, not one accumulated into
            F.cross_entropy(xg, t).backward()

        fwdbwd = median_ms(fwd_bwd, args.iters)
        print("%s\t%s\t%.4f\t%.4f\t%.7g" % (dims, dtype, fwd, fwdbwd, loss.item()), flush=True)
        del x, xg, t
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
