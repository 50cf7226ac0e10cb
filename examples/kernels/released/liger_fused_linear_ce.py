"""Liger-Kernel 0.8.5's fused linear + cross-entropy
(`LigerFusedLinearCrossEntropyFunction`, from PyPI) under lossfuzz, held to
torch 2.15's F.linear_cross_entropy as every fused LM head is. Its claims
are its documented API: hidden states (BT, H), weight (V, H), bias (V),
targets (BT) in [0, V-1]; float32 or bfloat16; a class weight (ce_weight),
ignore_index, label smoothing and the three reductions. On a machine
without a GPU it runs in Triton's interpreter.

    pip install torch==2.15.0 && pip install --no-deps liger-kernel==0.8.5 packaging
    lossfuzz fuzz --target fuzz_linear --seconds 90 --kernel py:examples/kernels/released/liger_fused_linear_ce.py:fused_linear_cross_entropy"""
from liger_kernel.ops.fused_linear_cross_entropy import LigerFusedLinearCrossEntropyFunction


def fused_linear_cross_entropy(input, linear_weight, target, linear_bias=None, weight=None, ignore_index=None,
                               reduction="mean", label_smoothing=0.0):
    # positional: _input, weight, target, bias, ce_weight, ignore_index, lse_square_scale, label_smoothing, reduction
    ignore_index = -100 if ignore_index is None else ignore_index  # torch 2.15's None
    loss = LigerFusedLinearCrossEntropyFunction.apply(input, linear_weight, target, linear_bias, weight, ignore_index,
                                                      0.0, label_smoothing, reduction)
    return loss[0] if isinstance(loss, tuple) else loss


fused_linear_cross_entropy.lossfuzz_claims = {
    "name": "Liger-Kernel 0.8.5 LigerFusedLinearCrossEntropyFunction", "losses": ["linear_cross_entropy"],
    "input_dtypes": ["float32", "bfloat16"], "target_dtypes": ["int64"],
    "features": ["weight", "ignore_index", "label_smoothing", "linear_bias"], "max_spatial_dims": 0,
    # documented as (BT, H) hidden states: a 1-D input is outside its API, not a bug
    "accept": {"false-alarm/kernel[*1-D": "the API takes (BT, H) hidden states only"},
}
