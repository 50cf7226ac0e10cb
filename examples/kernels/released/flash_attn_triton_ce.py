"""flash-attention 2.8.3's Triton cross-entropy under lossfuzz: the module
`flash_attn.losses.cross_entropy.CrossEntropyLoss` over the autograd
function `flash_attn.ops.triton.cross_entropy.cross_entropy_loss`, from the
PyPI sdist (only those two Python files, out of .released/: the package's
own __init__ loads its CUDA extension). Its claims are written from its
docstrings and code: logits (batch, vocab) with labels (batch,) - 2-D only;
ignore_index, label smoothing, the three reductions (mean: the sum divided
by the count of labels that are not ignore_index); no class weight; a
float32 loss for any logits (`losses = torch.empty(n_rows,
dtype=torch.float)`), so float64 is not claimed; a label
outside [0, vocab) gives a loss of 0 on purpose ("If label is out of bounds,
we set the CE loss to 0.0"), so no out-of-range error; logit_scale
(asserted > 0) and the z-loss (lse_square_scale), returned too.

CrossEntropyLoss.forward asserts CUDA tensors. On a CUDA device the adapter
calls it; on the CPU (Triton's interpreter) it calls cross_entropy_loss and
reduces as that forward does, its three lines copied below. This torch's
torch.cuda.device(None) raises on a machine without a GPU, where torch
documents a no-op: the adapter mends that (below) before the launches.

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --seconds 60 --kernel py:examples/kernels/released/flash_attn_triton_ce.py:cross_entropy
    lossfuzz fuzz --target fuzz_llm --seconds 60 \\
        --kernel py:examples/kernels/released/flash_attn_triton_ce.py:cross_entropy_llm"""

import released_package

released_package.pinned_first("flash_attn-2.8.3")  # else the environment's own

import torch  # noqa: E402


def _mend_cuda_device():
    """Its launches run inside `with torch.cuda.device(logits.device.index)`, None for a CPU tensor: torch
    documents that as a no-op, but this torch (2.15, no GPU) raises "invalid argument to exchangeDevice"
    there. Where a probe finds that, None and a negative index are made the documented no-op again."""
    try:
        with torch.cuda.device(None):
            return
    except RuntimeError:
        pass
    real = torch.cuda.device

    class device(real):
        def __enter__(self):
            if self.idx is not None and self.idx >= 0:
                return super().__enter__()

        def __exit__(self, *exc):
            if self.idx is not None and self.idx >= 0:
                return super().__exit__(*exc)
            return False

    torch.cuda.device = device


_mend_cuda_device()

from flash_attn.losses.cross_entropy import CrossEntropyLoss  # noqa: E402
from flash_attn.ops.triton.cross_entropy import cross_entropy_loss  # noqa: E402


def _call(input, target, ignore_index, reduction, label_smoothing, logit_scale, z_loss_scale):
    if input.is_cuda:
        module = CrossEntropyLoss(ignore_index=ignore_index, reduction=reduction, label_smoothing=label_smoothing,
                                  logit_scale=logit_scale, lse_square_scale=z_loss_scale, return_z_loss=True)
        return module(input, target)
    if reduction not in ["mean", "none", "sum"]:  # CrossEntropyLoss.__init__
        raise NotImplementedError("Only support reduction = 'mean' or 'none' or 'sum'")
    loss, z_loss = cross_entropy_loss(input, target, label_smoothing=label_smoothing, logit_scale=logit_scale,
                                      lse_square_scale=z_loss_scale, ignore_index=ignore_index)
    # CrossEntropyLoss.forward's reduction, as it is there
    if reduction == "mean":
        count = (target != ignore_index).sum()
        return loss.sum() / count, z_loss.sum() / count
    if reduction == "sum":
        return loss.sum(), z_loss.sum()
    return loss, z_loss


def cross_entropy(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    return _call(input, target, ignore_index, reduction, label_smoothing, 1.0, 0.0)[0]


cross_entropy.lossfuzz_claims = {
    "name": "flash-attention 2.8.3 CrossEntropyLoss (Triton)", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "bfloat16", "float16"], "target_dtypes": ["int64"],
    "features": ["ignore_index", "label_smoothing"], "max_spatial_dims": 0,
    "float32_result": True,
    "labels_unchecked": True,
    # documented as logits (batch, vocab): a 1-D input is outside its API
    "accept": {"false-alarm/kernel[*1-D": "the API takes (batch, vocab) logits only"},
}


def cross_entropy_llm(input, target, ignore_index=-100, reduction="mean", label_smoothing=0.0, logit_scale=1.0,
                      z_loss_scale=0.0):
    """The same with the options it documents: logit_scale and lse_square_scale; (loss, z_loss)."""
    return _call(input, target, ignore_index, reduction, label_smoothing, logit_scale, z_loss_scale)


cross_entropy_llm.lossfuzz_claims = dict(
    cross_entropy.lossfuzz_claims, name="flash-attention 2.8.3 CrossEntropyLoss (Triton), logit_scale and z-loss",
    options={"logit_scale": "logit_scale", "z_loss_scale": "z_loss_scale"}, outputs=["loss", "z_loss"],
    ranges={"logit_scale": [1e-30, 1e30]})  # `assert logit_scale > 0.0`
