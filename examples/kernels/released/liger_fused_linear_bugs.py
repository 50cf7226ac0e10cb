"""The bugs lossfuzz finds in Liger-Kernel 0.8.5's fused linear + cross-entropy
(`LigerFusedLinearCrossEntropyFunction`), each shown against torch 2.15's
F.linear_cross_entropy in plain torch: the entries of a campaign of
liger_fused_linear_ce.py on fuzz_linear (README, "PyTorch's own chunked
linear_cross_entropy"). Most are its plain cross-entropy's (liger_bugs.py).

    .venv/bin/python3 examples/kernels/released/liger_fused_linear_bugs.py     (ci/setup.sh's .venv)

Runs on the CPU in Triton's interpreter. Exits 1 when one no longer shows, 77
without liger_kernel or F.linear_cross_entropy."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import lossfuzz_triton_compat  # noqa: E402

lossfuzz_triton_compat.enable_interpreter()  # before triton is imported
from plain_torch import answer, rejects, report  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

try:
    from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction
    F.linear_cross_entropy
except (ImportError, AttributeError) as e:
    print("SKIP: needs liger_kernel 0.8.5 and torch 2.15 (ci/setup.sh's .venv): %s" % e)
    sys.exit(77)


def liger(x, w, t, bias=None, weight=None, ignore_index=-100, reduction="mean"):
    return LigerFusedLinearCrossEntropyFunction.apply(x, w, t, bias, weight, ignore_index, 0.0, 0.0, reduction)[0]


def both(x, w, t, **kw):
    torch_kw = dict(kw, linear_bias=kw.pop("bias", None))
    return answer(lambda: F.linear_cross_entropy(x, w, t, **torch_kw)), answer(lambda: liger(x, w, t, **kw))


def labels_unchecked():
    """a label of 2 with 1 class: PyTorch raises (CUDA: asserts), Liger computes"""
    want, got = both(torch.zeros(1, 1), torch.tensor([[-0.0036]]), torch.tensor([2]))
    return want, got, lambda a, b: rejects(a) and not rejects(b)


def all_ignored_mean_zero():
    """a mean over ignored rows only: PyTorch's 0/0 is NaN, Liger returns 0"""
    want, got = both(torch.zeros(1, 1), torch.tensor([[-0.0036]]), torch.tensor([0]), ignore_index=0)
    return want, got, lambda a, b: a != a and b == 0


def target_shape_unchecked():
    """a target [1, 1]: PyTorch raises, Liger computes"""
    want, got = both(torch.zeros(1, 1), torch.tensor([[-0.0032], [0.1345]]), torch.zeros(1, 1, dtype=torch.long))
    return want, got, lambda a, b: rejects(a) and not rejects(b)


def float32_loss_for_bfloat16():
    """bfloat16 hidden states: PyTorch's loss is bfloat16, Liger's float32"""
    x, w = torch.zeros(1, 1, dtype=torch.bfloat16), torch.tensor([[-0.0118]], dtype=torch.bfloat16)
    t = torch.tensor([0])
    return str(F.linear_cross_entropy(x, w, t).dtype), str(liger(x, w, t).dtype), lambda a, b: a != b


def weight_dtype_unchecked():
    """a float64 class weight for float32 hidden states: PyTorch raises, Liger computes"""
    want, got = both(torch.zeros(1, 1), torch.tensor([[0.0101]]), torch.tensor([0]),
                     weight=torch.tensor([0.6], dtype=torch.float64))
    return want, got, lambda a, b: rejects(a) and not rejects(b)


def weight_shape_unchecked():
    """a class weight [1, 1] for 1 class (its assert reads only its first dim), the row ignored: PyTorch raises,
    Liger computes"""
    want, got = both(torch.zeros(1, 1), torch.tensor([[0.0101]]), torch.tensor([255]), weight=torch.ones(1, 1),
                     ignore_index=255)
    return want, got, lambda a, b: rejects(a) and not rejects(b)


def nan_weight_of_another_class():
    """a NaN weight of a class no label names: PyTorch's d input is finite, Liger's NaN"""
    w, cw, t = torch.tensor([[0.048], [3.02]]), torch.tensor([1.0, float("nan")]), torch.tensor([0])
    grads = []
    for fn in (lambda x: F.linear_cross_entropy(x, w, t, weight=cw), lambda x: liger(x, w, t, weight=cw)):
        x = torch.zeros(1, 1, requires_grad=True)
        fn(x).backward()
        grads.append(x.grad.tolist())
    return grads[0], grads[1], lambda a, b: a[0][0] == a[0][0] and b[0][0] != b[0][0]


def zero_hidden_size():
    """hidden size 0 (an empty batch too): PyTorch answers, Liger's chunk size divides by it"""
    want, got = both(torch.zeros(0, 0), torch.zeros(1, 0), torch.zeros(0, dtype=torch.long))
    return want, got, lambda a, b: not rejects(a) and b.startswith("ZeroDivisionError")


BUGS = [labels_unchecked, all_ignored_mean_zero, target_shape_unchecked, float32_loss_for_bfloat16,
        weight_dtype_unchecked, weight_shape_unchecked, nan_weight_of_another_class, zero_hidden_size]


if __name__ == "__main__":
    sys.exit(report(BUGS, "Liger"))
