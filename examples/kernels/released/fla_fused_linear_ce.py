"""flash-linear-attention's Triton fused linear + cross-entropy:
`fla.modules.fused_linear_cross_entropy` (`FusedLinearCrossEntropyLoss` over
`fused_linear_cross_entropy_loss`, in `fla/modules/fused_linear_cross_entropy/ops.py`,
"adapted from" Liger-Kernel's) of fla-core 0.6.0, the package `fla` that
flash-linear-attention 0.6.0 pins, installed into .released/ as fla_ce.py
says; on a machine without a GPU its kernels run in Triton's interpreter.
Held to torch 2.15's F.linear_cross_entropy, as every fused LM head is.

Its claims are written from its docstrings and code:
`fused_linear_cross_entropy_loss(x, target, weight, bias, ignore_index,
label_smoothing, ...)`: x `[batch_size * seq_len, hidden_size]`, weight
`[vocab_size, hidden_size]`, bias `[vocab_size]`, target
`[batch_size * seq_len]` "with values in [0, vocab_size)" (unchecked:
`labels_unchecked`); ignore_index, label smoothing; reduction "'mean' |
'sum'" (FusedLinearCrossEntropyLoss asserts one of the two); "Scalar loss in
fp32" (`float32_result`; float64 not claimed); no class weight. A mean over
no counted target is 0 by its code on purpose: `total =
target.ne(ignore_index).sum().clamp_min(1)` (`empty_mean_zero`). 1-D hidden
states are outside its API (accepted below). The module form flattens
`[B, T, H]` and `[B, T]` itself; the function is called here with the
case's tensors as they are, as the module does after its reshape.

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --target fuzz_linear --seconds 90 \\
        --kernel py:examples/kernels/released/fla_fused_linear_ce.py:fused_linear_cross_entropy"""
import warnings

import released_package

released_package.pinned_first("fla_core-0.6.0")  # else the environment's own

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "Triton is not supported on current platform, roll back to CPU."
    import fla  # noqa: E402
    from fla.modules.fused_linear_cross_entropy import fused_linear_cross_entropy_loss  # noqa: E402

assert fla.__version__ == "0.6.0", fla.__version__


def fused_linear_cross_entropy(input, linear_weight, target, linear_bias=None, ignore_index=None, reduction="mean",
                               label_smoothing=0.0):
    ignore_index = -100 if ignore_index is None else ignore_index  # torch 2.15's None; fla's default -100
    assert reduction in ["mean", "sum"], f"reduction: {reduction} is not supported"  # FusedLinearCrossEntropyLoss
    return fused_linear_cross_entropy_loss(input, target, linear_weight, linear_bias, ignore_index=ignore_index,
                                           label_smoothing=label_smoothing, reduction=reduction)


fused_linear_cross_entropy.lossfuzz_claims = {
    "name": "fla-core 0.6.0 fused_linear_cross_entropy_loss (Triton)", "losses": ["linear_cross_entropy"],
    "input_dtypes": ["float32", "bfloat16", "float16"], "target_dtypes": ["int64"],
    "reductions": ["mean", "sum"], "features": ["ignore_index", "label_smoothing", "linear_bias"],
    "max_spatial_dims": 0,
    "float32_result": True,    # "Scalar loss in fp32"
    "labels_unchecked": True,  # "with values in [0, vocab_size)"
    "empty_mean_zero": True,   # total = target.ne(ignore_index).sum().clamp_min(1)
    "accept": {"false-alarm/kernel[*1-D": "the API takes [batch_size * seq_len, hidden_size] hidden states only"},
}
