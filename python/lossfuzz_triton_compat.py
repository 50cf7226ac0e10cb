"""Triton kernels on a CPU runner: Triton's interpreter (TRITON_INTERPRET=1,
set before the kernel's module imports triton) runs @triton.jit kernels on
CPU tensors. What it needs of torch that Debian's 1.13 lacks is added here:
Tensor.untyped_storage (the interpreter copies tensors through it), the
tensor's storage as bytes. It must be untyped: the interpreter keys the
storages of a launch's arguments by data_ptr(), and every empty tensor has
data pointer 0, so an empty int64 target may be handed the float input's
storage, which a typed storage of the wrong dtype refuses.

Where Triton 3.6's interpreter computes other numbers than compiled Triton,
it is mended here, so that a kernel is judged on its own arithmetic (each of
these was a false alarm on a public kernel; python/tests/triton_interp_test.py):
- a Python float argument stays a Python float (`s.to(tl.float32)` raises,
  its arithmetic is float64), where compiled Triton passes a float32 scalar;
- bfloat16 values are held as their uint16 bit patterns, and arithmetic,
  comparisons, math functions and reductions (sum, max, min, argmax) ran on
  those integers (1.0 * 0.5 gave -0.0); here they run in float32 and the
  result is rounded back to bfloat16;
- tl.fma of bfloat16 multiplied and added the bit patterns (3.9 too), and
  tl.dot of bfloat16 operands multiplied them (3.9: every fused linear + CE
  kernel's bfloat16 logits were 2.9e9 where 4.9 was due);
- float32 -> bfloat16 (a cast, or a float32 value stored into a bfloat16
  tensor) truncated; compiled Triton and torch round to nearest even; an
  integer cast to bfloat16 became the bits of its value.

The interpreter also has no libdevice (triton.language.extra.libdevice and
its cuda twin): 3.6 raises NotImplementedError in extern_elementwise, 3.9's
stubs return None, so every softcap case of Liger's and unsloth's kernels
(libdevice.tanh) failed. Stand-ins evaluate them with numpy in the
argument's dtype (16-bit floats through float32, rounded back); each is put
in only where a probe finds the installed Triton's own missing."""
import os


def enable_interpreter():
    """Before the user's module is imported: run Triton kernels on the CPU,
    unless TRITON_INTERPRET is already set either way."""
    os.environ.setdefault("TRITON_INTERPRET", "1")
    import torch
    if not hasattr(torch.Tensor, "untyped_storage"):
        torch.Tensor.untyped_storage = lambda self: self.storage().untyped()
    if os.environ["TRITON_INTERPRET"] == "1":
        try:
            import triton.runtime.interpreter  # noqa: F401
        except ImportError:  # no triton: nothing to mend
            return
        _mend_interpreter()
        _mend_libdevice()


def _mend_interpreter():
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as it

    if getattr(it, "_lossfuzz_mended", False):
        return
    it._lossfuzz_mended = True
    bf16 = tl.bfloat16

    def widen(h):  # a handle's data as float32 where it holds bfloat16 bits
        if h.dtype.scalar != bf16:
            return h.data
        return (np.asarray(h.data).astype(np.uint32) << 16).view(np.float32)

    def narrow(x):  # float32 -> bfloat16 bits, rounded to nearest even; NaN stays NaN
        x = np.asarray(x, dtype=np.float32)
        bits = x.view(np.uint32)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        return np.where(np.isnan(x), np.uint16(0x7FC0), rounded)

    def result(out):  # a bfloat16 op's float32 result back into bfloat16; a comparison's booleans as they are
        if out.dtype == np.bool_:
            return it.TensorHandle(out, tl.int1)
        return it.TensorHandle(narrow(out), bf16)

    implicit_cvt = it._implicit_cvt

    def implicit_cvt_float(arg):
        if isinstance(arg, float):
            return tl.tensor(it.TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return implicit_cvt(arg)

    it._implicit_cvt = implicit_cvt_float
    B = it.InterpreterBuilder
    binary_op, unary_op, cast_impl = B.binary_op, B.unary_op, B.cast_impl

    def binary_bf16(self, lhs, rhs, op):
        if bf16 not in (lhs.dtype.scalar, rhs.dtype.scalar):
            return binary_op(self, lhs, rhs, op)
        return result(op(widen(lhs), widen(rhs)))

    def unary_bf16(self, arg, op):
        if arg.dtype.scalar != bf16:
            return unary_op(self, arg, op)
        return result(op(widen(arg)))

    def cast_by_value(self, src, dst_type):  # to and from bfloat16 by value, to it rounded to nearest even
        have, want = src.dtype.scalar, dst_type.scalar
        if want == bf16 and have != bf16:
            return it.TensorHandle(narrow(widen(src).astype(np.float32)), bf16)
        if have == bf16 and want != bf16:
            return it.TensorHandle(widen(src).astype(it._get_np_dtype(want)), want)
        return cast_impl(self, src, dst_type)

    fma = B.create_fma

    def fma_bf16(self, x, y, z):  # tl.fma on bfloat16 values (3.6 and 3.9 multiplied their bit patterns)
        if bf16 not in (x.dtype.scalar, y.dtype.scalar, z.dtype.scalar):
            return fma(self, x, y, z)
        wide = np.multiply(widen(x), widen(y), dtype=np.float64) + widen(z)
        return result(wide.astype(np.float32))

    dot = B.create_dot

    def dot_bf16(self, a, b, d, input_precision, max_num_imprecise_acc):  # 3.9 multiplied the bit patterns
        if bf16 not in (a.dtype.scalar, b.dtype.scalar):
            return dot(self, a, b, d, input_precision, max_num_imprecise_acc)
        acc = np.matmul(widen(a).astype(np.float32), widen(b).astype(np.float32), dtype=np.float32)
        if d.dtype.scalar == bf16:  # a bfloat16 accumulator: the sum rounded back into it
            return result(acc + widen(d))
        return it.TensorHandle((acc + d.data).astype(d.data.dtype), d.dtype.scalar)

    B.binary_op, B.unary_op, B.cast_impl, B.create_fma = binary_bf16, unary_bf16, cast_by_value, fma_bf16
    B.create_dot = dot_bf16
    _mend_reductions(it, bf16, widen, narrow)
    B.get_bf16 = lambda self, value: it.TensorHandle(narrow(np.array([value], dtype=np.float32)), bf16)


def _mend_reductions(it, bf16, widen, narrow):
    """tl.sum, tl.max, tl.min, tl.argmax and tl.argmin of bfloat16 values."""
    import triton.language as tl

    R = it.ReduceOps
    min_max, total = R.min_max, R.sum

    def min_max_bf16(self, input, val_reduce_op, idx_reduce_op=None):
        x = input[0] if isinstance(input, tuple) else input
        if x.dtype != bf16:
            return min_max(self, input, val_reduce_op, idx_reduce_op)
        data = widen(x.handle)
        out = []
        if val_reduce_op:
            out.append(self.to_tensor(narrow(val_reduce_op(data, axis=self.axis, keepdims=self.keep_dims)), bf16))
        if idx_reduce_op:
            out.append(self.to_tensor(idx_reduce_op(data, axis=self.axis, keepdims=self.keep_dims), tl.int32))
        return tuple(out) if len(out) == 2 else out[0]

    def sum_bf16(self, input):
        if input.dtype != bf16:
            return total(self, input)
        return self.to_tensor(narrow(widen(input.handle).sum(axis=self.axis, keepdims=self.keep_dims)), bf16)

    R.min_max, R.sum = min_max_bf16, sum_bf16


def _erf(x):
    import math
    import numpy as np
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


# libdevice functions public kernels call: numpy's name, or a function of numpy arrays
_LIBDEVICE = {
    "tanh": "tanh", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log2": "log2",
    "log1p": "log1p", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "abs": "abs", "floor": "floor",
    "ceil": "ceil", "pow": "power", "fmax": "fmax", "fmin": "fmin", "erf": _erf,
    "rsqrt": lambda x: 1 / __import__("numpy").sqrt(x),
}
_TWO_ARGS = ("pow", "fmax", "fmin")


def _libdevice_modules():
    import importlib
    mods = []
    for name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            mods.append(importlib.import_module(name))
        except ImportError:
            pass
    return mods


def _stand_in(op):
    """A libdevice function for the interpreter: numpy's op on the arguments' values,
    in the first tensor argument's dtype (16-bit floats through float32, rounded back)."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as it
    fn = op if callable(op) else getattr(np, op)

    def values(a, want):
        if not isinstance(a, tl.tensor):
            return np.asarray(a, dtype=want)
        data = np.asarray(a.handle.data)
        if a.handle.dtype.scalar == tl.bfloat16 and data.dtype == np.uint16:  # 3.6 holds bfloat16 as its bits
            data = (data.astype(np.uint32) << 16).view(np.float32)
        return data.astype(want)

    def call(*args, **kwargs):
        first = next(a for a in args if isinstance(a, tl.tensor))
        scalar = first.handle.dtype.scalar
        raw = np.asarray(first.handle.data)
        want = np.float32 if scalar in (tl.bfloat16, tl.float16) else raw.dtype
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*[values(a, want) for a in args]), dtype=want)
        if scalar == tl.float16:
            out = out.astype(np.float16)
        elif scalar == tl.bfloat16:  # rounded to nearest even, NaN kept; as bits where the interpreter keeps bits
            bits = out.view(np.uint32)
            rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
            rounded = np.where(np.isnan(out), np.uint16(0x7FC0), rounded)
            out = rounded if raw.dtype == np.uint16 else (rounded.astype(np.uint32) << 16).view(np.float32)
        return tl.tensor(it.TensorHandle(out, scalar), first.type)

    call._lossfuzz_stand_in = True
    return call


def _missing(name, fn):
    """Whether this Triton's interpreter lacks fn: it gives None or raises on a float32 tensor."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as it
    probe = tl.tensor(it.TensorHandle(np.array([0.5], dtype=np.float32), tl.float32), tl.float32)
    try:
        return fn(*([probe, probe] if name in _TWO_ARGS else [probe])) is None
    except Exception:  # NotImplementedError (3.6's extern_elementwise), or a semantic it lacks
        return True


def _mend_libdevice():
    for mod in _libdevice_modules():
        for name, op in _LIBDEVICE.items():
            fn = getattr(mod, name, None)
            if fn is None or getattr(fn, "_lossfuzz_stand_in", False) or not _missing(name, fn):
                continue
            setattr(mod, name, _stand_in(op))
