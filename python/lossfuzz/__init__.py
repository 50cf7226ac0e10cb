"""lossfuzz for PyTorch users: no device-side assert ever again.

Your own kernel, fuzzed against PyTorch's contract (lossfuzz.fuzzing; in
pytest, the plugin: lossfuzz.pytest_plugin):

    campaign = lossfuzz.fuzz(my_cross_entropy, seconds=30)
    lossfuzz.check_kernel(my_cross_entropy, "regressions/", raise_on_finding=True)

Before PyTorch's own loss:

    import lossfuzz
    lossfuzz.check(logits, target, ignore_index=255)   # one line before the loss
    loss = F.cross_entropy(logits, target, ignore_index=255)

check() runs lossfuzz's guard (liblossfuzz_guard.so, include/lossfuzz/guard.h)
on the call: it returns quietly when PyTorch computes it as asked, and raises
GuardError - the error class, the first offending target element and a hint at
the likely cause - where PyTorch would raise, hit a device-side assert (which
kills the CUDA context for good) or silently return a wrong loss. A suspicious
but valid call (soft targets not summing to 1, an ignore_index that is a real
class) gives a LossfuzzWarning.

    with lossfuzz.capture("bad_batch.safetensors"):
        loss = F.cross_entropy(logits, target)

capture() checks every call made inside it to a loss the guard takes (the
loss table's, lossfuzz_guard_loss: cross_entropy, nll_loss, ...); when one would fail,
it writes that call's tensors and options as a .safetensors dump (never a
pickle) before raising, for `lossfuzz repro bad_batch.safetensors`.

Cost: the guard reads the targets once. Class-index CUDA targets are
validated on the GPU where they are when the library was built with CUDA
(else copied to the host); probability targets and their input are read on
the host; a CUDA input's values are not read for class-index targets. On the
development machine (CPU) a check of a [64, 1000] float32 batch took about
0.01 ms (printed by python/tests/api_test.py).
"""
import contextlib
import ctypes
import functools
import warnings

from . import _native, _safetensors
from .fuzzing import Campaign, CaseResult, Finding, FindingsError, LossfuzzError, check_kernel, fuzz

__all__ = ["check", "capture", "GuardError", "LossfuzzWarning", "fuzz", "check_kernel", "Campaign", "CaseResult",
           "Finding", "FindingsError", "LossfuzzError"]
_lib = None


class GuardError(RuntimeError):
    """A call PyTorch would not compute as asked. Attributes: error (a stable
    class: label_out_of_range, target_dtype, batch_size_mismatch, ...),
    message, hint, hint_id, index and value (the first offending target
    element and its value; index -1 when none)."""

    def __init__(self, v):
        self.error, self.message = v["error"], v["message"]
        self.hint, self.hint_id, self.index, self.value = v["hint"], v["hint_id"], v["index"], v["value"]
        text = "%s: %s" % (self.error, self.message)
        super().__init__(text + ("\nhint: %s" % self.hint if self.hint else ""))


class LossfuzzWarning(UserWarning):
    """A call PyTorch computes, but that looks like a mistake."""


def _guard():
    global _lib
    if _lib is None:
        _lib = _native.load()
    return _lib


@functools.lru_cache(maxsize=None)
def _losses():
    """The losses check() takes: the guard library's (lossfuzz_guard_loss)."""
    names = []
    while _guard().lossfuzz_guard_loss(len(names)):
        names.append(_guard().lossfuzz_guard_loss(len(names)).decode())
    return tuple(names)


def _verdict(loss, input, target, weight, pos_weight, ignore_index, reduction, label_smoothing):
    """What the guard says, as a dict. Where tensors go: class-index targets
    stay on the GPU where the library validates them there (else are copied
    to the host); probability targets and their input are read on the host; a
    CUDA input's or weight's values are not read at all (shape and dtype only)."""
    probs = target.is_floating_point()
    on_gpu = target.device.type == "cuda" and not probs and _guard().lossfuzz_guard_devices() & _native.CUDA
    if target.device.type == "cuda" and not on_gpu:
        target = target.detach().to("cpu")
    if probs and input.device.type == "cuda":
        input = input.detach().to("cpu")
    dl = {"target": _native.dltensor(target)}
    for name, t in (("input", input), ("weight", weight), ("pos_weight", pos_weight)):
        if t is not None:
            dl[name] = _native.dltensor(t, with_data=t.device.type == "cpu")
    ptr = {k: ctypes.pointer(v) for k, v in dl.items()}
    call = _native.Call(loss.encode(), ptr["input"], ptr["target"], ptr.get("weight"), ptr.get("pos_weight"),
                        int(ignore_index), reduction.encode(), float(label_smoothing))
    out = _native.Verdict()
    if _guard().lossfuzz_guard_check(call, out) != 0:
        raise TypeError("lossfuzz.check: %s" % out.message.decode())
    fields = ("error", "message", "hint", "hint_id", "warning", "warning_id")
    v = {k: getattr(out, k).decode(errors="replace") for k in fields}
    v.update(accepted=bool(out.accepted), index=out.index, value=out.value)
    return v


def check(input, target, weight=None, *, loss="cross_entropy", pos_weight=None, ignore_index=-100, reduction="mean",
          label_smoothing=0.0, **_ignored):
    """Raises GuardError where PyTorch would not compute the loss as asked;
    the keywords are those of the torch.nn.functional loss loss= names (one
    the guard library serves: cross_entropy by default)."""
    if loss not in _losses():
        raise ValueError("lossfuzz.check: loss must be one of %s" % ", ".join(_losses()))
    v = _verdict(loss, input, target, weight, pos_weight, ignore_index, reduction, label_smoothing)
    if not v["accepted"]:
        raise GuardError(v)
    if v["warning"]:
        warnings.warn("%s: %s" % (v["warning_id"], v["warning"]), LossfuzzWarning, stacklevel=2)


@contextlib.contextmanager
def capture(path):
    """Within it, each loss call is checked first; a call that would fail is
    written to `path` (.safetensors: input, target, weight, pos_weight and the
    options as metadata) and the GuardError raised. So is a call that raised
    anyway: its tensors were readable, as a host error leaves them."""
    import torch.nn.functional as F
    originals = {name: getattr(F, name) for name in _losses()}

    def wrap(name, fn):
        @functools.wraps(fn)
        def checked(input, target, weight=None, *args, **kw):
            opts = dict(ignore_index=kw.get("ignore_index", -100), reduction=kw.get("reduction", "mean"),
                        label_smoothing=kw.get("label_smoothing", 0.0))
            pos_weight = kw.get("pos_weight")
            try:
                check(input, target, weight, loss=name, pos_weight=pos_weight, **opts)
                return fn(input, target, weight, *args, **kw)
            except Exception:
                tensors = {"input": input, "target": target, "weight": weight, "pos_weight": pos_weight}
                # the options the caller gave: those F.<name> takes (it raises TypeError for others)
                meta = dict({k: kw[k] for k in ("ignore_index", "label_smoothing") if k in kw}, loss=name,
                            reduction=opts["reduction"])
                try:
                    _safetensors.write(path, {k: t for k, t in tensors.items() if t is not None}, meta)
                except Exception as dump_error:  # a context a device assert killed: the tensors are gone
                    warnings.warn("lossfuzz.capture: could not write %s: %s" % (path, dump_error), LossfuzzWarning)
                raise
        return checked

    for name, fn in originals.items():
        setattr(F, name, wrap(name, fn))
    try:
        yield path
    finally:
        for name, fn in originals.items():
            setattr(F, name, fn)
