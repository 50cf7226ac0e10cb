"""segmentation_models_pytorch 0.6.0's `SoftCrossEntropyLoss`
(`segmentation_models_pytorch/losses/soft_ce.py`, over `label_smoothed_nll_loss`
of `losses/_functional.py`), read out of the PyPI wheel
segmentation_models_pytorch-0.6.0-py3-none-any.whl into .released/ and the two
files loaded by their paths (`import segmentation_models_pytorch` brings in
its encoders: timm, huggingface_hub, torchvision). `_functional.py` imports
numpy and torch only.

Its claims are written from its docstring: "Drop-in replacement for
torch.nn.CrossEntropyLoss with label_smoothing", y_pred (N, C, H, W) and
y_true (N, H, W), and its arguments: reduction (its code sums for "sum",
averages for "mean", leaves the rest unreduced: the three of PyTorch),
smooth_factor (PyTorch's label_smoothing: "[1, 0, 0] -> [0.9, 0.05, 0.05]"),
ignore_index (default -100), dim 1 (the classes). So class targets, the
classes at dim 1 with any spatial dims (0 to 3 claimed) - a 1-D input has no
dim 1 (accepted below); int64 labels (its gather's index); no class weight;
every float dtype (it computes in the input's). The adapter passes smooth_factor = the case's label_smoothing
(0.0 when none: its default None fails in `1.0 - epsilon`) and the case's ignore_index.

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --target fuzz_class --seconds 90 --kernel py:examples/kernels/released/smp_soft_ce.py:soft_cross_entropy"""
import importlib.util
import os
import sys
import types

import released_package

# the package's folder, without running its __init__ (it imports timm and huggingface_hub)
PACKAGE = released_package.package_folder("segmentation_models_pytorch", "segmentation_models_pytorch-0.6.0",
                                          "segmentation-models-pytorch==0.6.0")
ROOT = os.path.join(PACKAGE, "losses")

# a package of the two files only, under a name of its own (soft_ce.py imports `._functional`)
_PKG = "lossfuzz_smp_losses"
_package = types.ModuleType(_PKG)
_package.__path__ = [ROOT]
sys.modules[_PKG] = _package
for _name in ("_functional", "soft_ce"):
    _spec = importlib.util.spec_from_file_location("%s.%s" % (_PKG, _name), os.path.join(ROOT, _name + ".py"))
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[_spec.name] = _module
    _spec.loader.exec_module(_module)
SoftCrossEntropyLoss = sys.modules[_PKG + ".soft_ce"].SoftCrossEntropyLoss


def soft_cross_entropy(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    loss = SoftCrossEntropyLoss(reduction=reduction, smooth_factor=label_smoothing, ignore_index=ignore_index, dim=1)
    return loss(input, target)


soft_cross_entropy.lossfuzz_claims = {
    "name": "segmentation_models_pytorch 0.6.0 SoftCrossEntropyLoss", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "float64", "bfloat16", "float16"], "target_dtypes": ["int64"],
    "reductions": ["none", "mean", "sum"], "features": ["ignore_index", "label_smoothing"],
    "max_spatial_dims": 3,
    # dim=1: the classes at dim 1, (N, C, ...) logits
    "accept": {"false-alarm/kernel[*1-D": "its classes are dim 1: (N, C, H, W) logits, (N, H, W) labels"},
}
