"""Apple's Cut Cross-Entropy (cut-cross-entropy 25.1.1 from PyPI, installed
into .released/) under lossfuzz as a fused linear + cross-entropy:
`cut_cross_entropy.linear_cross_entropy(e, c, targets, ignore_index, softcap,
reduction, shift=False, filter_eps="high", impl="cce")`, its Triton
implementation (on a machine without a GPU, in Triton's interpreter). Its
claims are written from its docstring (cut_cross_entropy/doc.py): it
computes `F.cross_entropy((e @ c.T).float(), targets)` - a float32 loss for
any e, so float64 is outside it and bfloat16 / float16 give a float32 loss;
e (..., D), c (NumClasses, D), targets (...), "Values must be in [0,
NumClasses)" (unchecked); ignore_index, softcap, mean / sum / none; no
class weight, no label smoothing, no bias. Its backward skips gradient
blocks below filter_eps (the library's default, "high": the dtype's eps /
32), as its paper and README say, and asserts bfloat16 or float16 hidden
states (float32 ones are forward only: accepted below); `linear_cross_entropy_exact` passes
filter_eps=None, its documented switch for the unfiltered gradient.

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --target fuzz_linear --seconds 60 \\
        --kernel py:examples/kernels/released/cut_cross_entropy_ce.py:linear_cross_entropy"""

import released_package

released_package.pinned_first("cut_cross_entropy-25.1.1")  # else the environment's own

import cut_cross_entropy  # noqa: E402

assert cut_cross_entropy.__version__ == "25.1.1", cut_cross_entropy.__version__


def _call(input, linear_weight, target, ignore_index, reduction, softcap, filter_eps):
    return cut_cross_entropy.linear_cross_entropy(input, linear_weight, target, ignore_index=ignore_index,
                                                  softcap=softcap if softcap > 0 else None, reduction=reduction,
                                                  filter_eps=filter_eps, impl="cce")


def linear_cross_entropy(input, linear_weight, target, ignore_index=-100, reduction="mean"):
    return _call(input, linear_weight, target, ignore_index, reduction, 0.0, "high")


def linear_cross_entropy_exact(input, linear_weight, target, ignore_index=-100, reduction="mean"):
    return _call(input, linear_weight, target, ignore_index, reduction, 0.0, None)


def linear_cross_entropy_llm(input, linear_weight, target, ignore_index=-100, reduction="mean", softcap=0.0):
    """With the option it documents: softcap (None is off)."""
    return _call(input, linear_weight, target, ignore_index, reduction, softcap, "high")


_CLAIMS = {
    "losses": ["linear_cross_entropy"],
    "input_dtypes": ["float32", "bfloat16", "float16"], "target_dtypes": ["int64"],
    "features": ["ignore_index"], "max_spatial_dims": 0,
    "float32_result": True,  # F.cross_entropy((e @ c.T).float(), targets)
    "labels_unchecked": True,  # "Values must be in [0, NumClasses)"
    # cce_backward_kernel: `assert e.dtype in (torch.float16, torch.bfloat16), "Backwards requires embeddings to be
    # bf16 or fp16"`: float32 hidden states are forward only
    "accept": {"grad-error/kernel[*float32": "its backward asserts bf16 or fp16 embeddings (cce_backward.py)"},
}
linear_cross_entropy.lossfuzz_claims = dict(_CLAIMS, name="cut-cross-entropy 25.1.1 linear_cross_entropy (cce)")
linear_cross_entropy_exact.lossfuzz_claims = dict(
    _CLAIMS, name="cut-cross-entropy 25.1.1 linear_cross_entropy (cce, filter_eps=None)")
linear_cross_entropy_llm.lossfuzz_claims = dict(
    _CLAIMS, name="cut-cross-entropy 25.1.1 linear_cross_entropy (cce), softcap", options={"softcap": "softcap"})
