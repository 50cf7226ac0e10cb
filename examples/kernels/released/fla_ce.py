"""flash-linear-attention's Triton cross-entropy: `fla.modules.fused_cross_entropy`
(`FusedCrossEntropyLoss` over the autograd function `cross_entropy_loss`, in
`fla/modules/fused_cross_entropy/ops.py`) of fla-core 0.6.0, the package `fla`
that flash-linear-attention 0.6.0 pins (`fla-core==0.6.0`; the
flash-linear-attention wheel itself holds only fla/layers and fla/models).
Installed from PyPI into .released/ with einops 0.8.2, which `import
fla.modules` needs; `fla` imports on a machine without a GPU ("Triton is not
supported on current platform, roll back to CPU"), and there its kernels run
in Triton's interpreter. Its own dispatch to other backends (Ascend, Gluon)
finds none here: the Triton code in ops.py is what runs.

Its claims are written from its docstrings and code: logits `[N, V]` and
targets `[N]` (`assert target.shape == (N,)`), 2-D only; ignore_index
("Target index excluded from loss and gradients"), label smoothing
("Uniform label smoothing coefficient"), the three reductions ("Reduction
over non-ignored targets: mean, sum, or none": the sum divided by the count
of targets that are not ignore_index); no class weight; "FP32 loss and
z-loss tensors" for any logits, so float64 is not claimed and 16-bit logits
give a float32 loss (`float32_result`). The target's range is not documented
for this function (no claim). `cross_entropy_llm` adds the options it
documents: logit_scale ("Scale applied before softcapping", any value:
its kernel handles a scale <= 0), logit_softcapping (None is off: lossfuzz's
0), lse_square_scale (the z-loss, included in the loss; returned too).

FusedCrossEntropyLoss.forward asserts CUDA/NPU/XPU tensors. On such a device
the adapter calls it; on the CPU it calls cross_entropy_loss and reduces as
that forward does, its lines copied below.

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --target fuzz_class --seconds 90 --kernel py:examples/kernels/released/fla_ce.py:cross_entropy
    lossfuzz fuzz --target fuzz_llm --seconds 90 --kernel py:examples/kernels/released/fla_ce.py:cross_entropy_llm"""
import warnings

import released_package

released_package.pinned_first("fla_core-0.6.0")  # else the environment's own

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "Triton is not supported on current platform, roll back to CPU."
    import fla  # noqa: E402
    from fla.modules.fused_cross_entropy import FusedCrossEntropyLoss, cross_entropy_loss  # noqa: E402

assert fla.__version__ == "0.6.0", fla.__version__


def _call(input, target, ignore_index, reduction, label_smoothing, logit_scale, softcap, z_loss_scale):
    softcap = softcap if softcap else None  # lossfuzz's 0 is off; fla's off is None
    if input.device.type in ("cuda", "npu", "xpu"):
        module = FusedCrossEntropyLoss(ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing,
                                       logit_scale=logit_scale, lse_square_scale=z_loss_scale,
                                       logit_softcapping=softcap, return_z_loss=True)
        return module(input, target)
    if reduction not in ('mean', 'sum', 'none'):  # FusedCrossEntropyLoss.__init__
        raise NotImplementedError(f"Unsupported reduction: {reduction}")
    loss, z_loss = cross_entropy_loss(logits=input, target=target, label_smoothing=label_smoothing,
                                      logit_scale=logit_scale, lse_square_scale=z_loss_scale,
                                      logit_softcapping=softcap, ignore_index=ignore_index)
    # FusedCrossEntropyLoss.forward's reduction, as it is there (return_z_loss=True)
    if reduction != 'none':
        loss = loss.sum()
        z_loss = z_loss.sum()
        if reduction == 'mean':
            total = (target != ignore_index).sum()
            loss = loss / total
            z_loss = z_loss / total
    return loss, z_loss


def cross_entropy(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    return _call(input, target, ignore_index, reduction, label_smoothing, 1.0, 0.0, 0.0)[0]


cross_entropy.lossfuzz_claims = {
    "name": "fla-core 0.6.0 FusedCrossEntropyLoss (Triton)", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "bfloat16", "float16"], "target_dtypes": ["int64"],
    "features": ["ignore_index", "label_smoothing"], "max_spatial_dims": 0,
    "float32_result": True,  # "FP32 loss and z-loss tensors"
    # documented as [N, V] logits and [N] targets: a 1-D input is outside its API
    "accept": {"false-alarm/kernel[*1-D": "the API takes [N, V] logits only"},
}


def cross_entropy_llm(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0, logit_scale=1.0,
                      softcap=0.0, z_loss_scale=0.0):
    """The same with the options it documents: logit_scale, logit_softcapping, lse_square_scale; (loss, z_loss)."""
    return _call(input, target, ignore_index, reduction, label_smoothing, logit_scale, softcap, z_loss_scale)


cross_entropy_llm.lossfuzz_claims = dict(
    cross_entropy.lossfuzz_claims, name="fla-core 0.6.0 FusedCrossEntropyLoss (Triton), scale, softcap and z-loss",
    options={"logit_scale": "logit_scale", "softcap": "softcap", "z_loss_scale": "z_loss_scale"},
    outputs=["loss", "z_loss"])
