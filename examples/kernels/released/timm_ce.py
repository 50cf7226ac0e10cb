"""timm 1.0.31's hand-written cross-entropies, `SoftTargetCrossEntropy` and
`LabelSmoothingCrossEntropy` of `timm/loss/cross_entropy.py`, read out of the
PyPI wheel timm-1.0.31-py3-none-any.whl into .released/ and loaded by their
file's path: `import timm` (and `timm.loss`'s __init__) brings in its models,
which need torchvision; the file itself imports torch only.

The file documents no shapes; its claims are written from its code:

- `SoftTargetCrossEntropy()(x, target)`: `sum(-target * log_softmax(x, -1), -1)`
  and then `.mean()` - PyTorch's cross-entropy with probability targets and
  reduction mean, for logits with the classes last: (batch, classes) and the
  1-D (classes) PyTorch also takes, no spatial dims (the classes are dim 1
  there, its sum runs over the last). No class weight, no smoothing, no
  other reduction. Probability targets only (`"losses": ["cross_entropy_prob"]`).
- `LabelSmoothingCrossEntropy(smoothing)(x, target)`: `(1 - smoothing) * nll
  + smoothing * mean(-log_softmax)`, then `.mean()` - PyTorch's label
  smoothing (eps / C times the sum is eps times the mean) with class targets
  and reduction mean; `target.unsqueeze(1)` and the gather over dim -1 make
  it a (batch, classes) loss with (batch,) int64 labels (a 1-D input's 0-d
  target has no dim 1: outside its use, accepted below). No ignore_index
  in its API (`"no_ignore_index"`: no -100 label is sent), no class weight;
  the smoothing is its constructor's argument, made per call here; its
  `assert smoothing < 1.0` is its own range (PyTorch takes [0, 1]).

Both compute in the input's dtype, as PyTorch does, so every float dtype is
claimed, and d input comes from autograd.

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --target fuzz_prob --seconds 90 --kernel py:examples/kernels/released/timm_ce.py:soft_target
    lossfuzz fuzz --target fuzz_class --seconds 90 --kernel py:examples/kernels/released/timm_ce.py:label_smoothing"""
import importlib.util
import os

import released_package

# the package's folder, without running its __init__ (its models need torchvision)
PACKAGE = released_package.package_folder("timm", "timm-1.0.31", "timm==1.0.31")
FILE = os.path.join(PACKAGE, "loss", "cross_entropy.py")
_spec = importlib.util.spec_from_file_location("timm_loss_cross_entropy", FILE)
timm_ce = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(timm_ce)


def soft_target(input, target, reduction="mean"):
    assert reduction == "mean"  # its one reduction (claimed)
    return timm_ce.SoftTargetCrossEntropy()(input, target)


soft_target.lossfuzz_claims = {
    "name": "timm 1.0.31 SoftTargetCrossEntropy", "losses": ["cross_entropy_prob"],
    "input_dtypes": ["float32", "float64", "bfloat16", "float16"],
    "reductions": ["mean"], "features": [], "max_spatial_dims": 0,
}


def label_smoothing(input, target, reduction="mean", label_smoothing=0.0):
    assert reduction == "mean"  # its one reduction (claimed)
    return timm_ce.LabelSmoothingCrossEntropy(smoothing=label_smoothing)(input, target)


label_smoothing.lossfuzz_claims = {
    "name": "timm 1.0.31 LabelSmoothingCrossEntropy", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "float64", "bfloat16", "float16"], "target_dtypes": ["int64"],
    "reductions": ["mean"], "features": ["label_smoothing"], "max_spatial_dims": 0,
    "no_ignore_index": True,
    # target.unsqueeze(1) and a gather over dim -1: (batch, classes) logits with (batch,) labels
    "accept": {"false-alarm/kernel[*1-D": "its code takes (batch, classes) logits and (batch,) labels only"},
}
