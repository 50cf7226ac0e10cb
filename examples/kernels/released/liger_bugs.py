"""The real bugs lossfuzz finds in Liger-Kernel 0.8.5's cross-entropy
(`LigerCrossEntropyFunction`), each shown against F.cross_entropy in plain torch:
docs/released-kernels.md says what each is and whether upstream knows it;
liger_cross_entropy.bugs.json is the list CI's campaign is checked against.

    .venv/bin/python3 examples/kernels/released/liger_bugs.py     (ci/setup.sh's .venv)

Runs on the CPU in Triton's interpreter (lossfuzz's mends for it). Prints each
bug with both answers; exits 1 when one no longer shows (fixed upstream, or
this demonstration is wrong), 77 without liger_kernel."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
import lossfuzz_triton_compat  # noqa: E402

lossfuzz_triton_compat.enable_interpreter()  # before triton is imported
from plain_torch import answer, rejects, report  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

try:
    from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
except ImportError as e:
    print("SKIP: no liger_kernel (ci/setup.sh installs 0.8.5 into .venv): %s" % e)
    sys.exit(77)


def liger(x, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    return LigerCrossEntropyFunction.apply(x, target, weight, ignore_index, 0.0, label_smoothing, reduction, None,
                                           False, False, False)[0]


def grad_of(loss_fn, x, *args, **kw):
    x = x.clone().requires_grad_()
    loss_fn(x, *args, **kw).backward()
    return x.grad


def lse_rounded_first():
    """equal logits far from 0: log(2), but Liger rounds m + log(d) to float32 before subtracting the label's logit"""
    x, t = torch.full((1, 2), 6.1743466e16), torch.tensor([0])
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: liger(x.clone(), t)), lambda a, b: a != b


def column_major_grad():
    """the gradient of column-major logits (a transposed view): Liger's backward returns the logits themselves"""
    t, logits = torch.tensor([0, 0]), torch.tensor([[1.0, 3.0], [2.0, 4.0]])
    want = grad_of(F.cross_entropy, logits.t().contiguous(), t)
    x = logits.clone().t().requires_grad_()
    liger(x, t).backward()
    return want.tolist(), x.grad.tolist(), lambda a, b: a != b


def no_target_shape_check():
    """a [N, 1] target: PyTorch raises, Liger computes"""
    x, t = torch.zeros(2, 3), torch.zeros(2, 1, dtype=torch.long)
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: liger(x.clone(), t)), \
        lambda a, b: rejects(a) and not rejects(b)


def no_batch_size_check():
    """a target one longer than the batch: PyTorch raises, Liger reads the first N (one shorter: past its end)"""
    x, t = torch.zeros(2, 3), torch.zeros(3, dtype=torch.long)
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: liger(x.clone(), t)), \
        lambda a, b: rejects(a) and not rejects(b)


def no_smoothing_range_check():
    """label_smoothing 1.5: PyTorch raises, Liger computes"""
    x, t = torch.zeros(2, 3), torch.zeros(2, dtype=torch.long)
    return answer(lambda: F.cross_entropy(x, t, label_smoothing=1.5)), \
        answer(lambda: liger(x.clone(), t, label_smoothing=1.5)), lambda a, b: rejects(a) and not rejects(b)


def smoothing_not_positive_grad():
    """label smoothing of NaN or below 0, which PyTorch takes as none: Liger's gradient uses it (NaN, or shifted)"""
    t, x = torch.tensor([0]), torch.tensor([[1.0, 2.0]])
    want = [grad_of(F.cross_entropy, x, t, label_smoothing=e).tolist() for e in (float("nan"), -0.1)]
    got = [grad_of(liger, x, t, label_smoothing=e).tolist() for e in (float("nan"), -0.1)]
    return want, got, lambda a, b: a != b


def all_ignored_mean_zero():
    """a mean over ignored targets only: PyTorch's 0/0 is NaN, Liger returns 0 (upstream's choice, issue #177)"""
    x, t = torch.zeros(2, 3), torch.full((2,), -100)
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: liger(x.clone(), t)), lambda a, b: a != a and b == 0


def no_weight_dtype_check():
    """a float64 weight for float32 logits: PyTorch raises, Liger computes"""
    x, t, w = torch.zeros(2, 3), torch.zeros(2, dtype=torch.long), torch.ones(3, dtype=torch.float64)
    return answer(lambda: F.cross_entropy(x, t, weight=w)), answer(lambda: liger(x.clone(), t, weight=w)), \
        lambda a, b: rejects(a) and not rejects(b)


def nan_weight_of_another_class():
    """a NaN weight of a class no target names: PyTorch's gradient is finite, Liger's NaN"""
    t, w = torch.tensor([1]), torch.tensor([float("nan"), 1.0])
    want = grad_of(F.cross_entropy, torch.zeros(1, 2), t, weight=w)
    got = grad_of(liger, torch.zeros(1, 2), t, weight=w)
    return want.tolist(), got.tolist(), lambda a, b: not torch.tensor(b).isfinite().all() and torch.tensor(a).isfinite().all()


def softmax_output_overwritten():
    """logits from softmax: Liger writes its gradient into softmax's saved output, and softmax's backward goes wrong"""
    t = torch.tensor([0])
    z1, z2 = torch.zeros(1, 2, requires_grad=True), torch.zeros(1, 2, requires_grad=True)
    F.cross_entropy(torch.softmax(z1, 1), t).backward()
    liger(torch.softmax(z2, 1), t).backward()
    return z1.grad.tolist(), z2.grad.tolist(), lambda a, b: a != b


def frozen_input_modified():
    """logits that do not require grad: Liger zeroes an ignored row's logits in place in forward"""
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    before = x.clone()
    liger(x, torch.tensor([0, -100]), reduction="sum")
    return before.tolist(), x.tolist(), lambda a, b: a != b


def empty_batch_rejected():
    """an empty batch: PyTorch's mean is NaN, Liger raises"""
    x, t = torch.zeros(0, 3), torch.zeros(0, dtype=torch.long)
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: liger(x.clone(), t)), \
        lambda a, b: not rejects(a) and rejects(b)


def zero_weight_smoothing_mean():
    """label smoothing over targets of total weight 0: PyTorch's mean is NaN (its nll part's 0/0), Liger's -inf or
    +inf (it divides the smoothing term by the target weights too; found under issue 38's one set of rules)"""
    x, t, w = torch.zeros(1, 2), torch.tensor([1]), torch.tensor([-0.0294, 0.0])
    return answer(lambda: F.cross_entropy(x, t, weight=w, label_smoothing=0.1)), \
        answer(lambda: liger(x.clone(), t, weight=w, label_smoothing=0.1)), \
        lambda a, b: a != a and b in (float("-inf"), float("inf"))


BUGS = [lse_rounded_first, column_major_grad, no_target_shape_check, no_batch_size_check, no_smoothing_range_check,
        smoothing_not_positive_grad, all_ignored_mean_zero, no_weight_dtype_check, nan_weight_of_another_class,
        softmax_output_overwritten, frozen_input_modified, empty_batch_rejected, zero_weight_smoothing_mean]


if __name__ == "__main__":
    sys.exit(report(BUGS, "Liger"))
