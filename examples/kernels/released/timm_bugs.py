"""The real bugs lossfuzz finds in timm 1.0.31's hand-written cross-entropies
(`timm/loss/cross_entropy.py`: SoftTargetCrossEntropy, LabelSmoothingCrossEntropy),
each shown against F.cross_entropy in plain torch: the entries of 90 s campaigns
of timm_ce.py:soft_target (fuzz_prob) and timm_ce.py:label_smoothing (fuzz_class).

    sh examples/kernels/released/install_released.sh
    .venv/bin/python3 examples/kernels/released/timm_bugs.py

Prints each bug with both answers; exits 1 when one no longer shows (fixed
upstream, or this demonstration is wrong), 77 without the installed file."""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plain_torch import answer, rejects, report  # noqa: E402

try:
    from timm_ce import timm_ce
except ImportError as e:
    print("SKIP: %s" % e)
    sys.exit(77)


def soft(x, t):
    return timm_ce.SoftTargetCrossEntropy()(x, t)


def smoothed(x, t, smoothing=0.0):
    return timm_ce.LabelSmoothingCrossEntropy(smoothing=smoothing)(x, t)


# SoftTargetCrossEntropy (fuzz_prob)

def soft_target_int_target():
    """an int64 target of the logits' shape (one-hot labels): PyTorch raises, timm takes it as probabilities"""
    x, t = torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), torch.tensor([[0, 1, 0], [1, 0, 0]])
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: soft(x, t)), \
        lambda a, b: rejects(a) and not rejects(b)


def soft_target_shape_unchecked():
    """one probability row [1, C] for a batch of 2 (or a [C] target): PyTorch raises, timm broadcasts it over the rows"""
    x, t = torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), torch.tensor([[0.2, 0.3, 0.5]])
    want = [answer(lambda: F.cross_entropy(x, t)), answer(lambda: F.cross_entropy(x, t[0]))]
    got = [answer(lambda: soft(x, t)), answer(lambda: soft(x, t[0]))]
    return want, got, lambda a, b: all(map(rejects, a)) and not any(map(rejects, b))


def soft_target_0d_input():
    """a 0-d input and target: PyTorch raises, timm returns 0"""
    x, t = torch.tensor(0.5), torch.tensor(1.0)
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: soft(x, t)), \
        lambda a, b: rejects(a) and not rejects(b)


def soft_target_no_classes():
    """logits [2, 0] (no classes): PyTorch's mean is NaN (0 / 0), timm's 0"""
    x, t = torch.zeros(2, 0), torch.zeros(2, 0)
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: soft(x, t)), lambda a, b: a != a and b == 0


# LabelSmoothingCrossEntropy (fuzz_class)

def smoothing_zero_masked_logit_nan():
    """a -inf logit (a masked class) with smoothing 0: PyTorch 0, timm NaN (0 * the smoothing term's inf)"""
    x, t = torch.tensor([[float("-inf"), 0.0]]), torch.tensor([1])
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: smoothed(x, t, 0.0)), \
        lambda a, b: a == 0 and b != b


def smoothing_target_shape_unchecked():
    """an empty batch with a target [0, 1]: PyTorch raises, timm returns NaN (its gather checks no rank when empty)"""
    x, t = torch.zeros(0, 3), torch.zeros(0, 1, dtype=torch.long)
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: smoothed(x, t)), \
        lambda a, b: rejects(a) and not rejects(b)


def smoothing_batch_size_unchecked():
    """one label for a batch of 2: PyTorch raises, timm broadcasts the label's loss over the rows"""
    x, t = torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]]), torch.tensor([0])
    return answer(lambda: F.cross_entropy(x, t)), answer(lambda: smoothed(x, t)), \
        lambda a, b: rejects(a) and not rejects(b)


def smoothing_negative():
    """label smoothing -0.1, which PyTorch takes as none: timm computes with it (value and gradient)"""
    x, t = torch.tensor([[1.0, 2.0]]), torch.tensor([0])
    return answer(lambda: F.cross_entropy(x, t, label_smoothing=-0.1)), answer(lambda: smoothed(x, t, -0.1)), \
        lambda a, b: abs(a - b) > 1e-3


def smoothing_nan_or_one_refused():
    """label smoothing NaN (PyTorch: none) or 1.0 (PyTorch: all smoothing): timm's `assert smoothing < 1.0` fails"""
    x, t = torch.tensor([[1.0, 2.0]]), torch.tensor([0])
    want = [answer(lambda: F.cross_entropy(x, t, label_smoothing=s)) for s in (float("nan"), 1.0)]
    got = [answer(lambda: smoothed(x, t, s)) for s in (float("nan"), 1.0)]
    return want, got, lambda a, b: not any(map(rejects, a)) and all(map(rejects, b))


BUGS = [soft_target_int_target, soft_target_shape_unchecked, soft_target_0d_input, soft_target_no_classes,
        smoothing_zero_masked_logit_nan, smoothing_target_shape_unchecked, smoothing_batch_size_unchecked,
        smoothing_negative, smoothing_nan_or_one_refused]

if __name__ == "__main__":
    sys.exit(report(BUGS, "timm"))
