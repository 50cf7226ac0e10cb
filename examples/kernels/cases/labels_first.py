"""Faithful kernels that check the labels before the shapes, raising IndexError
as PyTorch's CPU build does for a bad label: on a call PyTorch rejects for its
shapes first (labels_first_shape.json: input [1, 0, 1], target [1, 1]), the
unguarded one rejects too, which is never a finding whatever the exception;
the guarded one promises PyTorch's class of error, so its IndexError where
PyTorch raises a RuntimeError is a diagnosis-mismatch/kernel (kernel_test.sh)."""
import torch.nn.functional as F


def _check_labels_first(input, target, ignore_index):
    classes = input.shape[1] if input.dim() > 1 else input.shape[0]
    bad = (target != ignore_index) & ((target < 0) | (target >= classes))
    if bad.any():
        raise IndexError("Target %d is out of bounds." % target[bad][0])


def unguarded(input, target, ignore_index=-100, reduction="mean"):
    _check_labels_first(input, target, ignore_index)
    return F.cross_entropy(input, target, ignore_index=ignore_index, reduction=reduction)


def guarded(input, target, ignore_index=-100, reduction="mean"):
    return unguarded(input, target, ignore_index, reduction)


_CLAIMS = {"losses": ["cross_entropy"], "input_dtypes": ["float32"], "target_dtypes": ["int64"],
           "features": ["ignore_index"]}
unguarded.lossfuzz_claims = dict(_CLAIMS, name="labels first")
guarded.lossfuzz_claims = dict(_CLAIMS, name="labels first (guarded)", guarded=True)
