"""The real bugs lossfuzz finds in segmentation_models_pytorch 0.6.0's
`SoftCrossEntropyLoss` ("Drop-in replacement for torch.nn.CrossEntropyLoss with
label_smoothing"; losses/soft_ce.py over label_smoothed_nll_loss of
losses/_functional.py), each shown against F.cross_entropy in plain torch: the
entries of a 90 s campaign of smp_soft_ce.py:soft_cross_entropy on fuzz_class
(one entry each since the reduction a [N, 1] result fills is no longer read as
unneeded; before, smoothing_zero_masked_logit_nan and smoothing_not_positive
shared one).

    sh examples/kernels/released/install_released.sh
    .venv/bin/python3 examples/kernels/released/smp_bugs.py

Prints each bug with both answers; exits 1 when one no longer shows (fixed
upstream, or this demonstration is wrong), 77 without the installed files."""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plain_torch import answer, rejects, report  # noqa: E402

try:
    from smp_soft_ce import SoftCrossEntropyLoss
except ImportError as e:
    print("SKIP: %s" % e)
    sys.exit(77)


def smp(x, t, reduction="mean", smooth_factor=0.0, ignore_index=-100):
    return SoftCrossEntropyLoss(reduction=reduction, smooth_factor=smooth_factor, ignore_index=ignore_index)(x, t)


def mean_counts_ignored():
    """a mean over 2 rows, 1 ignored: PyTorch divides by 1, smp by 2 (all ignored: 0, PyTorch NaN)"""
    x, t = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([0, -100])
    want = [answer(lambda: F.cross_entropy(x, t)), answer(lambda: F.cross_entropy(x, torch.tensor([-100, -100])))]
    got = [answer(lambda: smp(x, t)), answer(lambda: smp(x, torch.tensor([-100, -100])))]
    return want, got, lambda a, b: abs(a[0] - 2 * b[0]) < 1e-6 and a[1] != a[1] and b[1] == 0


def none_result_shape():
    """reduction none: PyTorch's result is [N] ([N, H, W] for segmentation), smp's [N, 1] ([N, 1, H, W])"""
    x, t = torch.zeros(2, 3), torch.tensor([0, 1])
    xs, ts = torch.zeros(2, 3, 4, 5), torch.zeros(2, 4, 5, dtype=torch.long)
    want = [list(F.cross_entropy(x, t, reduction="none").shape), list(F.cross_entropy(xs, ts, reduction="none").shape)]
    got = [list(smp(x, t, reduction="none").shape), list(smp(xs, ts, reduction="none").shape)]
    return want, got, lambda a, b: a != b


def smoothing_range_unchecked():
    """label smoothing 1.5: PyTorch raises, smp computes"""
    x, t = torch.tensor([[1.0, 2.0]]), torch.tensor([0])
    return answer(lambda: F.cross_entropy(x, t, label_smoothing=1.5)), answer(lambda: smp(x, t, smooth_factor=1.5)), \
        lambda a, b: rejects(a) and not rejects(b)


def smoothing_zero_masked_logit_nan():
    """a -inf logit (a masked class) with smoothing 0: PyTorch 0, smp NaN (0 * the smoothing term's inf)"""
    x, t = torch.tensor([[0.0, float("-inf")]]), torch.tensor([0])
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: smp(x, t)), lambda a, b: a == 0 and b != b


def smoothing_not_positive():
    """label smoothing NaN or -0.1, which PyTorch takes as none: smp gives NaN, or computes with -0.1"""
    x, t = torch.tensor([[1.0, 2.0]]), torch.tensor([0])
    want = [answer(lambda: F.cross_entropy(x, t, label_smoothing=s)) for s in (float("nan"), -0.1)]
    got = [answer(lambda: smp(x, t, smooth_factor=s)) for s in (float("nan"), -0.1)]
    return want, got, lambda a, b: b[0] != b[0] and abs(a[1] - b[1]) > 1e-3


def target_shape_unchecked():
    """a target [N, 1] (a mask with an extra dim): PyTorch raises, smp computes"""
    x, t = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[0], [1]])
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: smp(x, t)), \
        lambda a, b: rejects(a) and not rejects(b)


def batch_size_unchecked():
    """one label for a batch of 2: PyTorch raises, smp computes"""
    x, t = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([0])
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: smp(x, t)), \
        lambda a, b: rejects(a) and not rejects(b)


def no_classes_fails():
    """no classes: PyTorch NaN; smp divides by C = 0 (empty batch), gathers class 0 (an ignored row)"""
    want = [answer(lambda: F.cross_entropy(torch.zeros(0, 0), torch.zeros(0, dtype=torch.long))),
            answer(lambda: F.cross_entropy(torch.zeros(1, 0), torch.tensor([-100])))]
    got = [answer(lambda: smp(torch.zeros(0, 0), torch.zeros(0, dtype=torch.long))),
           answer(lambda: smp(torch.zeros(1, 0), torch.tensor([-100])))]
    return want, got, lambda a, b: not any(map(rejects, a)) and all(map(rejects, b))


BUGS = [mean_counts_ignored, none_result_shape, smoothing_range_unchecked, smoothing_zero_masked_logit_nan,
        smoothing_not_positive, target_shape_unchecked, batch_size_unchecked, no_classes_fails]

if __name__ == "__main__":
    sys.exit(report(BUGS, "smp"))
