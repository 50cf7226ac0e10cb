"""NVIDIA TransformerEngine 2.20.2's Triton cross-entropy under lossfuzz:
`transformer_engine.pytorch.cross_entropy.parallel_cross_entropy` (its
`CrossEntropyFunction` over `pytorch/triton/cross_entropy.py` and the kernels
of `common/triton/cross_entropy.py`). Only those three Python files are
used, read out of the PyPI wheel transformer_engine-2.20.2-py3-none-any.whl
into .released/ and imported as namespace packages: TE's package __init__
files load its compiled libraries, which are not built here. The one other
import of the wrapper, `transformer_engine.pytorch.jit.no_torch_dynamo`
(whose module pulls in the compiled core), is stood in for by what it does
outside ONNX export: torch._dynamo.disable; only the overwrite_input path,
not used here, calls it.

Its claims are written from its docstrings and `_validate_inputs`: logits
(B, SQ, V) - 3-D, no dimension 0 - in bfloat16 or float32, the vocabulary
last; int64 targets, one per row, checked by their count alone (viewed as
rows); label smoothing in [0, 1]; ignore_idx; reduce_loss False (a loss per
token, reduction none) or True (the mean over the non-ignored targets); no
class weight, no sum; "The returned loss is FP32". A label outside [0, V)
is given no error: the kernel reads no logit for it (its x_y stays -inf).
Logits [N, V] are given to it as [N, 1, V]; its mean, of shape (1,), is
returned as a scalar, and a loss per token [N, 1] as [N].

parallel_cross_entropy checks `inp.is_cuda`. On a CUDA device the adapter
calls it; on the CPU (Triton's interpreter) it runs TE's _validate_inputs
on a view of the logits whose is_cuda answers True (each other check is
TE's own) and then the call parallel_cross_entropy makes,
CrossEntropyFunction.apply(..., overwrite_input=False).

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --seconds 60 --kernel py:examples/kernels/released/transformer_engine_triton_ce.py:cross_entropy"""
import sys
import types

import torch

import released_package

released_package.pinned_first("transformer_engine-2.20.2")  # else the environment's own


def _no_torch_dynamo(recursive=True, when=None):  # transformer_engine/pytorch/jit.py, outside ONNX export
    def decorator(f):
        return torch._dynamo.disable(f, recursive=recursive)
    return decorator


_jit = types.ModuleType("transformer_engine.pytorch.jit")
_jit.no_torch_dynamo = _no_torch_dynamo
sys.modules.setdefault("transformer_engine.pytorch.jit", _jit)

import transformer_engine.pytorch.cross_entropy as te_ce  # noqa: E402


class _CudaAnswered(torch.Tensor):
    """The logits as TE's _validate_inputs sees them on the CPU: is_cuda True, all else the tensor's."""
    @property
    def is_cuda(self):
        return True


def _call(input, target, label_smoothing, reduce_loss, ignore_index):
    if input.dim() == 2:  # [N, V]: N sequences of one token
        input = input.unsqueeze(1)
    if input.is_cuda:
        return te_ce.parallel_cross_entropy(input, target, label_smoothing, reduce_loss, None, ignore_index)
    te_ce._validate_inputs(input.detach().as_subclass(_CudaAnswered), target, label_smoothing, False)
    return te_ce.CrossEntropyFunction.apply(input, target, label_smoothing, reduce_loss, None, ignore_index, False)


def cross_entropy(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    assert reduction in ("none", "mean")  # its claims: reduce_loss False or True
    loss = _call(input, target, label_smoothing, reduction == "mean", ignore_index)
    # its shapes, (B, SQ) and (1,), as F.cross_entropy's: the logits' without V, and a scalar
    return loss.reshape(input.shape[:-1]) if reduction == "none" else loss.reshape(())


cross_entropy.lossfuzz_claims = {
    "name": "TransformerEngine 2.20.2 parallel_cross_entropy (Triton)", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "bfloat16"], "target_dtypes": ["int64"], "reductions": ["none", "mean"],
    "features": ["ignore_index", "label_smoothing"], "max_spatial_dims": 1, "vocab_last": True,
    "min_batch": 1, "min_classes": 1,  # "inp dimensions must be non-zero"
    "float32_result": True,  # "The returned loss is FP32"
    "labels_unchecked": True,
    "targets_flattened": True,  # "one value for each input row": target.numel() == B * SQ
    "ranges": {"label_smoothing": [0.0, 1.0]},  # _validate_inputs: "label_smoothing must be in [0, 1]"
    "accept": {"false-alarm/kernel[*1-D": "inp must be a 3D tensor (B, SQ, V)"},
}
