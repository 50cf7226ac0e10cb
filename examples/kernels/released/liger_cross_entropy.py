"""Liger-Kernel 0.8.5's Triton cross-entropy (`LigerCrossEntropyFunction`,
from PyPI) under lossfuzz, its claims written from its documented API: logits
(BT, V) with targets (BT), float32 or bfloat16; a class weight, ignore_index,
label smoothing and the three reductions; its gradient written into the
logits on purpose (`grad_in_place`: it saves the gradient in the input's
memory). On a machine without a GPU it runs in Triton's interpreter.

    pip install torch==2.15.0 && pip install --no-deps liger-kernel==0.8.5 packaging
    lossfuzz fuzz --seconds 90 --kernel py:examples/kernels/released/liger_cross_entropy.py:cross_entropy"""
from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    # positional: _input, target, weight, ignore_index, lse_square_scale, label_smoothing, reduction,
    # softcap, return_z_loss, return_token_accuracy, return_predicted_tokens
    loss = LigerCrossEntropyFunction.apply(input, target, weight, ignore_index, 0.0, label_smoothing, reduction, None,
                                           False, False, False)
    return loss[0]


cross_entropy.lossfuzz_claims = {
    "name": "Liger-Kernel 0.8.5 LigerCrossEntropyFunction", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "bfloat16"], "target_dtypes": ["int64"],
    "features": ["weight", "ignore_index", "label_smoothing"], "max_spatial_dims": 0, "grad_in_place": True,
    # documented as (BT, V) logits: a 1-D input is outside its API, not a bug
    "accept": {"false-alarm/kernel[*1-D": "the API takes (BT, V) logits only"},
}


def cross_entropy_llm(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0,
                      softcap=0.0, z_loss_scale=0.0):
    """The same function with the LLM family's options it documents: softcap (None is off; it asserts a cap
    above 0) and the z-loss (lse_square_scale), returned too (return_z_loss)."""
    loss, z_loss = LigerCrossEntropyFunction.apply(input, target, weight, ignore_index, z_loss_scale, label_smoothing,
                                                   reduction, softcap if softcap > 0 else None, True, False,
                                                   False)[:2]
    return loss, z_loss


cross_entropy_llm.lossfuzz_claims = dict(
    cross_entropy.lossfuzz_claims, name="Liger-Kernel 0.8.5 LigerCrossEntropyFunction, softcap and z-loss",
    options={"softcap": "softcap", "z_loss_scale": "z_loss_scale"}, outputs=["loss", "z_loss"])
