"""unsloth 2026.10.9's Triton cross-entropy, `fast_cross_entropy_loss` of
`unsloth/kernels/cross_entropy_loss.py` (its Fast_CrossEntropyLoss and
kernels), read out of the PyPI wheel unsloth-2026.10.9-py3-none-any.whl
into .released/ and loaded by its path: `import unsloth` refuses a machine
without a GPU ("Unsloth cannot find any torch accelerator? You need a
GPU.") and brings unsloth_zoo, transformers and bitsandbytes in. The
file's imports are stood in for here, by what they are on one CUDA GPU or
none: from `unsloth/kernels/utils.py` its own MAX_FUSED_SIZE,
next_power_of_2 and calculate_settings (their source, taken from that
file), triton_tanh = libdevice.tanh, triton_cast = tl.cast (in Triton's
interpreter, which mends no builtin bound to another name, a jit function
calling tl.cast),
torch_gpu_device a null context (its DEVICE_COUNT <= 1 branch), is_cdna
False (not ROCm); from `rope_embedding.py` its _eviction_hints_ok (source);
unsloth_zoo's Version as packaging's; a logger; the loss patchers, unused
here, raise. On a machine without a GPU it runs in Triton's interpreter.

Its claims are written from its docstring and code: logits (batch,
seq_len, vocab_size) and labels (batch, seq_len) (asserted), the
vocabulary last; ignored labels are -100 only (no ignore_index argument);
the sum over the rows divided by n_items, by default the count of labels
that are not -100 (reduction mean; lossfuzz's n_items); a float32 loss
(`losses` is float32, the logits read as tl.float32), so float64 is not
claimed; labels unchecked; the options logit_softcapping and logit_scaling,
each 0 for off: lossfuzz's logit_scale 1 is passed as 0, and, as
logit_scaling cannot say a scale of 0, the scales claimed are positive
(it takes negative ones too). Logits [N, V] are given to it as [N, 1, V].

    sh examples/kernels/released/install_released.sh
    lossfuzz fuzz --target fuzz_llm --seconds 60 --kernel py:examples/kernels/released/unsloth_ce.py:cross_entropy"""
import ast
import contextlib
import functools
import importlib.util
import logging
import os
import sys
import types

import torch
import triton
import triton.language as tl
from packaging.version import Version
from triton.language.extra import libdevice

import released_package

# the package's folder, without running its __init__ (it needs a GPU and unsloth_zoo)
PACKAGE = released_package.package_folder("unsloth", "unsloth-2026.10.9", "unsloth==2026.10.9")
ROOT = os.path.join(PACKAGE, "kernels")


def _source_of(path, names, namespace):
    """The top-level definitions and assignments `names` of the file at path, executed into namespace."""
    with open(path) as f:
        text = f.read()
    found = set()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AnnAssign, ast.Assign)):
            name = node.name if isinstance(node, ast.FunctionDef) else \
                (node.target if isinstance(node, ast.AnnAssign) else node.targets[0]).id
            if name in names:
                exec(compile(ast.Module([node], []), path, "exec"), namespace)
                found.add(name)
    missing = set(names) - found
    if missing:
        raise ImportError("%s has no %s" % (path, ", ".join(sorted(missing))))


def _module(name, package=False, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    if package:
        module.__path__ = []
    sys.modules[name] = module
    return module


if os.environ.get("TRITON_INTERPRET") == "1":
    # Triton's interpreter mends the builtins it finds through `tl` in a kernel's globals, not one bound
    # to another name (unsloth's `triton_cast = tl.cast` fails there: "Did you forget to add @triton.jit ?"):
    # there triton_cast calls tl.cast from a jit function, as utils.py's own fallback for old Triton does.
    @triton.jit
    def _triton_cast(x, dtype: tl.constexpr):
        return tl.cast(x, dtype)
else:
    _triton_cast = tl.cast


def _unused(*args, **kwargs):
    raise NotImplementedError("unsloth's loss patchers are not part of this adapter")


_utils = _module("unsloth.kernels.utils", triton=triton, torch=torch, functools=functools, os=os,
                 triton_tanh=libdevice.tanh, triton_cast=_triton_cast,
                 torch_gpu_device=lambda device: contextlib.nullcontext(),
                 is_cdna=lambda: False)
_source_of(os.path.join(ROOT, "utils.py"), ("MAX_FUSED_SIZE", "next_power_of_2", "calculate_settings"),
           _utils.__dict__)
_rope = _module("unsloth.kernels.rope_embedding", torch=torch, functools=functools)
_source_of(os.path.join(ROOT, "rope_embedding.py"), ("_eviction_hints_ok_at", "_eviction_hints_ok"), _rope.__dict__)
if torch.version.hip is not None or torch.cuda.device_count() > 1:
    raise ImportError("this adapter's stand-ins are unsloth's for one CUDA GPU or none")
for _name in ("unsloth", "unsloth.kernels", "unsloth_zoo", "transformers", "transformers.models",
              "transformers.models.llama"):
    if _name not in sys.modules:
        _module(_name, package=True)
_module("transformers.models.llama.modeling_llama", logger=logging.getLogger("unsloth"))
_module("unsloth_zoo.utils", Version=Version)
_module("unsloth_zoo.loss_utils", patch_loss_functions=_unused, post_patch_loss_function=_unused)

_spec = importlib.util.spec_from_file_location("unsloth.kernels.cross_entropy_loss",
                                               os.path.join(ROOT, "cross_entropy_loss.py"))
unsloth_ce = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = unsloth_ce
_spec.loader.exec_module(unsloth_ce)


def cross_entropy(input, target, ignore_index=-100, reduction="mean", softcap=0.0, logit_scale=1.0, n_items=0.0):
    assert ignore_index == -100 and reduction == "mean"  # its claims: -100 only, and its one reduction
    if input.dim() == 2:  # [N, V]: N sequences of one token
        input, target = input.unsqueeze(1), target.unsqueeze(-1)  # a 2-D target stays a mismatch
    return unsloth_ce.fast_cross_entropy_loss(input, target, logit_softcapping=softcap,
                                              logit_scaling=0 if logit_scale == 1.0 else logit_scale,
                                              n_items=n_items if n_items else None)


cross_entropy.lossfuzz_claims = {
    "name": "unsloth 2026.10.9 fast_cross_entropy_loss (Triton)", "losses": ["cross_entropy"],
    "input_dtypes": ["float32", "bfloat16", "float16"], "target_dtypes": ["int64"], "reductions": ["mean"],
    "features": [], "max_spatial_dims": 1, "vocab_last": True,
    "options": {"softcap": "softcap", "logit_scale": "logit_scale", "n_items": "n_items"},
    "ranges": {"logit_scale": [1e-30, 1e30]},  # logit_scaling 0 is off; a positive scale is claimed
    "float32_result": True,
    "labels_unchecked": True,
    "accept": {"false-alarm/kernel[*1-D": "the API takes (batch, seq_len, vocab_size) logits only"},
}
