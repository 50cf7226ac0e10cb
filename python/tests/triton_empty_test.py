"""Triton's interpreter on empty tensors, through lossfuzz_triton_compat: every
input dtype with every target dtype launches (the interpreter keys argument
storages by data_ptr(), 0 for every empty tensor, so a typed storage alias
handed an int64 target the float input's storage and the launch failed), a
launch still writes its outputs back into strided views, and
examples/kernels/ce_triton.py launches on an empty batch.
usage: triton_empty_test.py ROOT (run by a python3 with torch and triton: ci/find-python.sh torch triton)"""
import math
import os
import sys

ROOT = sys.argv[1]
sys.path[:0] = [os.path.join(ROOT, "python"), os.path.join(ROOT, "examples", "kernels")]
import lossfuzz_triton_compat  # noqa: E402

lossfuzz_triton_compat.enable_interpreter()
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
import ce_triton  # noqa: E402

failures = []


@triton.jit
def _copy_scaled(X, T, OUT, OUT_T, n):
    i = tl.program_id(0)
    if i < n:
        tl.store(OUT + i, tl.load(X + i).to(tl.float32) * 2)
        tl.store(OUT_T + i, tl.load(T + i).to(tl.int64) + 1)


INPUTS = [torch.float32, torch.float16, torch.bfloat16, torch.float64]
TARGETS = [torch.int64, torch.int32, torch.uint8, torch.float32, torch.float16]
for xd in INPUTS:
    for td in TARGETS:
        out, out_t = torch.zeros(1), torch.zeros(1, dtype=torch.int64)
        try:
            _copy_scaled[(1,)](torch.empty(0, 4, dtype=xd), torch.empty(0, dtype=td), out, out_t, 0)
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            failures.append("empty %s input, empty %s target: %s" % (xd, td, str(e).splitlines()[0][:120]))
    # views with a storage offset are read from it (a pointer ignores strides: T + i is storage element i)
    x, t = torch.arange(5, dtype=xd)[1:], torch.arange(8, dtype=torch.int64)[2:]
    out, out_t = torch.zeros(4), torch.zeros(4, dtype=torch.int64)
    _copy_scaled[(4,)](x, t, out, out_t, 3)
    if out.tolist() != [2.0, 4.0, 6.0, 0.0] or out_t.tolist() != [3, 4, 5, 0]:
        failures.append("%s views with an offset: got %s, %s" % (xd, out.tolist(), out_t.tolist()))

for reduction, check in (("mean", lambda v: math.isnan(v.item())), ("sum", lambda v: v.item() == 0),
                         ("none", lambda v: v.shape == (0,))):
    x = torch.empty(0, 5, requires_grad=True)
    try:
        loss = ce_triton.cross_entropy(x, torch.empty(0, dtype=torch.int64), reduction=reduction)
        loss.sum().backward()
        if not check(loss.detach()) or x.grad is None or x.grad.shape != (0, 5):
            failures.append("ce_triton on an empty batch, %s: %s, grad %s" % (reduction, loss, x.grad))
    except Exception as e:  # noqa: BLE001
        failures.append("ce_triton on an empty batch, %s: %s" % (reduction, e))

for f in failures:
    print("FAIL:", f)
print("triton_empty: %d launches and calls checked, %d failed" % (len(INPUTS) * (len(TARGETS) + 1) + 3, len(failures)))
sys.exit(1 if failures else 0)
