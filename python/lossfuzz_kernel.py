"""A Python kernel under test: a callable with the signature of
F.cross_entropy (or of F.nll_loss / F.binary_cross_entropy_with_logits for
the losses it claims; for "linear_cross_entropy", a fused linear +
cross-entropy, (input, linear_weight, target, linear_bias=None, weight=None,
ignore_index=-100, reduction="mean", label_smoothing=0.0), input the hidden
states [N, H] and linear_weight [V, H]), named MODULE:FUNCTION, where MODULE is a dotted module
name found on sys.path (the current directory first) or the path of a .py
file. Triton kernels, torch.compile'd losses and CUDA extensions are tested
through such a callable.

What it supports is its `lossfuzz_claims`, a dict on the function (or, else,
on its module; $LOSSFUZZ_CLAIMS, a JSON object, before both) with the keys
of include/lossfuzz/kernel.h's table, as names:

    cross_entropy.lossfuzz_claims = {
        "name": "my_ce", "guarded": False,
        "losses": ["cross_entropy"],                 # cross_entropy_prob, nll_loss, ...
        "input_dtypes": ["float32", "bfloat16"], "target_dtypes": ["int64"],
        "reductions": ["none", "mean", "sum"],
        "features": ["weight", "ignore_index"],      # label_smoothing, pos_weight, contiguous_only, linear_bias
        "max_spatial_dims": 0,
        "backward": True,                            # d input (and d linear_weight, d linear_bias) through autograd
        "max_numel": 4096}                           # larger inputs are not sent (0: no limit)

What it does differently from PyTorch on purpose goes in the claims too: the
findings it explains are still reported and counted, as accepted, never failing.

        "min_batch": 1, "min_classes": 1,            # no empty tensors
        "grad_in_place": True,                       # d input written into the input when it requires grad
        "float32_result": True,                      # a float32 loss for bfloat16 / float16 input
        "labels_unchecked": True,                    # numbers for out-of-range labels (memory still judged)
        "targets_flattened": True,                   # targets viewed as [-1]: any shape of one label per row
        "no_ignore_index": True,                     # no ignore_index in its API: no ignored (-100) label sent
        "empty_mean_zero": True,                     # a mean over no counted row is 0, PyTorch's NaN
        "accept": {"dtype-mismatch/kernel": "why"},  # any signature (or its start; * for any run), with a reason

The LLM family (docs/llm-cross-entropy.md), none of it unless claimed:

        "options": {"softcap": "logit_softcapping",  # lossfuzz's option name -> your keyword
                    "z_loss_scale": "lse_square_scale"},   # (logit_scale, n_items, loss_mask; or any option)
        "outputs": ["loss", "z_loss"],               # your return order; "lse" too
        "vocab_last": True,                          # logits [B, T, V], the classes last
        "vocab_parallel": {"group": "group", "split": "any", "empty_shards": True},  # with --world-size W
        "ranges": {"logit_scale": [1e-6, 1e6]},      # an option's values it takes (its off value inside)

A key left out claims everything lossfuzz can send, except "losses" (both
kinds of cross_entropy) and "guarded" (False). A guarded callable promises to
raise for every call PyTorch rejects; an unguarded one only to be right on
valid calls and never to return a number where PyTorch gives none."""
import importlib
import importlib.util
import json
import os
import sys

from lossfuzz_triton_compat import enable_interpreter

CLAIM_KEYS = ("name", "guarded", "losses", "input_dtypes", "target_dtypes", "reductions", "features",
              "max_spatial_dims", "backward", "max_numel",
              "min_batch", "min_classes", "grad_in_place", "float32_result", "labels_unchecked", "targets_flattened",
              "no_ignore_index", "empty_mean_zero",
              "accept",
              "options", "outputs", "vocab_last", "vocab_parallel", "ranges")
DEFAULT_LOSSES = ["cross_entropy", "cross_entropy_prob"]
# A kernel's exception of these types is a bug in it (kernel_failed), not a
# rejection of the call: PyTorch and guarded kernels raise RuntimeError,
# ValueError or IndexError.
REJECTIONS = (RuntimeError, ValueError, IndexError)


class KernelError(Exception):
    """The kernel cannot be loaded, or its claims cannot be read."""


def kernel_error(exc):
    """The error class of an exception the kernel raised itself."""
    return "kernel_rejected" if isinstance(exc, REJECTIONS) else "kernel_failed"


def import_module(name):
    """The module named by a dotted name or a .py path."""
    if name.endswith(".py") or os.sep in name:
        if not os.path.isfile(name):
            raise KernelError("no file %s" % name)
        if os.path.dirname(os.path.abspath(name)) not in sys.path:  # its sibling modules, as `python FILE` finds
            sys.path.insert(0, os.path.dirname(os.path.abspath(name)))  # them
        spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(name))[0], name)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # a user's module beside them, as `python -c` finds it
    return importlib.import_module(name)


def claims_of(fn, module, label, device_type):
    """The hello's "kernel" object: the callable's claims, with defaults.
    $LOSSFUZZ_CLAIMS (a JSON object: lossfuzz.fuzz's claims=) stands for them."""
    given = os.environ.get("LOSSFUZZ_CLAIMS")
    try:
        claims = json.loads(given) if given else getattr(fn, "lossfuzz_claims", None)
    except ValueError as exc:
        raise KernelError("$LOSSFUZZ_CLAIMS is not JSON: %s" % exc)
    if claims is None:
        claims = getattr(module, "lossfuzz_claims", None)
    if claims is None:
        claims = {}
    if not isinstance(claims, dict):
        raise KernelError("lossfuzz_claims must be a dict, not %s" % type(claims).__name__)
    unknown = sorted(set(claims) - set(CLAIM_KEYS))
    if unknown:
        raise KernelError("lossfuzz_claims has %s; the keys are %s" % (", ".join(map(repr, unknown)),
                                                                        ", ".join(CLAIM_KEYS)))
    out = {"name": label, "guarded": False, "losses": DEFAULT_LOSSES}
    out.update(claims)
    out["device"] = device_type
    return out


def load_kernel(spec, device_type):
    """(callable, claims) for MODULE:FUNCTION; KernelError says why not."""
    module_name, _, fn_name = spec.rpartition(":")
    if not module_name or not fn_name:
        raise KernelError("expected MODULE:FUNCTION (a dotted module or a .py file, then the callable)")
    if device_type == "cpu":  # a Triton kernel runs in Triton's interpreter there
        enable_interpreter()
    try:
        module = import_module(module_name)
    except KernelError:
        raise
    except BaseException as exc:  # an import runs the user's code: anything may come out
        raise KernelError("cannot import %s: %s: %s" % (module_name, type(exc).__name__, exc))
    fn = module
    for part in fn_name.split("."):  # a method of a class or an object: mod:Loss.apply
        fn = getattr(fn, part, None)
        if fn is None:
            raise KernelError("%s has no %s" % (module_name, fn_name))
    if not callable(fn):
        raise KernelError("%s:%s is not callable" % (module_name, fn_name))
    label = "%s:%s" % (os.path.basename(module_name), fn_name) if module_name.endswith(".py") else spec
    return fn, claims_of(fn, module, label, device_type)


def same_size_ints(torch, t):
    """t's bits as integers, for a comparison that sees NaN and -0: an
    input the kernel must leave unchanged, bit for bit."""
    ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    return t.view(ints[t.element_size()]) if t.dtype != torch.bool else t
