"""What every script `lossfuzz export` writes shares: its text from the
marker on (SOURCE) is copied into each script and pytest file, so they need
no lossfuzz. It reads names each case block defines: KERNEL, PYTORCH, BLOB,
case(), GRADS, UPSTREAM, SCALE, GRAD_SCALE, TOLERANCE_DTYPE, PROPERTY, passed to
main() as a dict (a script's globals(), a pytest test's locals())."""
import os

MARKER = "# ---- from here on: copied into the scripts\n"
with open(os.path.abspath(__file__)) as _f:
    SOURCE = _f.read().split(MARKER, 1)[1]

# ---- from here on: copied into the scripts
import importlib
import os
import importlib.util
import json
import struct
import sys

import torch
import torch.nn.functional as F  # noqa: F401 (the case block's PYTORCH)

HERE = os.path.dirname(os.path.abspath(__file__))
nan, inf = float("nan"), float("inf")
# lossfuzz's tolerances (harness/model/case/lf_dtype.c): rtol, atol of the coarsest dtype the values passed through
TOLERANCES = {"float64": (1e-10, 1e-12), "float32": (1e-5, 1e-6), "float16": (4e-3, 1e-4), "bfloat16": (3e-2, 1e-3)}
# what a strided tensor's storage holds outside its view: NaN, PyTorch's default ignore_index, the void label
POISON = {torch.int64: -100, torch.int32: -100, torch.uint8: 255, torch.bool: True}
ST_DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16,
             "I64": torch.int64, "I32": torch.int32, "U8": torch.uint8, "BOOL": torch.bool}


def stored(name, blob):
    """A tensor's values too large to inline, from the safetensors file `blob` beside this script."""
    with open(os.path.join(HERE, blob), "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        head, data = json.loads(f.read(size)), f.read()
    lo, hi = head[name]["data_offsets"]
    return torch.frombuffer(bytearray(data[lo:hi]), dtype=ST_DTYPES[head[name]["dtype"]]).tolist()


def tensor(dtype, shape, values, strides=None, offset=0):
    """The values (row-major) as a tensor of that shape, laid out with these strides and storage offset when
    given: transposed, sliced or expanded, as the caller's tensor was. The storage outside the view, and as much
    again past it, holds POISON: a kernel that reads the view as dense meets a value that shows there."""
    flat = torch.tensor(values, dtype=dtype).reshape(shape)
    if strides is None:
        return flat
    extent = offset + sum((d - 1) * s for d, s in zip(shape, strides)) + 1 if flat.numel() else 0
    storage = torch.full((max(extent, offset) + flat.numel(),), POISON.get(dtype, nan), dtype=dtype)
    where = torch.full(shape, offset, dtype=torch.int64)
    for d, (size, stride) in enumerate(zip(shape, strides)):
        view = [1] * len(shape)
        view[d] = size
        where = where + (torch.arange(size) * stride).reshape(view)
    storage[where.reshape(-1)] = flat.reshape(-1)
    return storage.as_strided(shape, strides, offset)


def is_library(name):
    """Whether a kernel's name is a C/CUDA shared library's (LIB.so, or LIB.so:SYMBOL), not a Python callable's."""
    return name.partition(":")[0].endswith(".so")


def find_file(path, roots=()):
    """A kernel's file as looked for from the current folder, this script's, then each of `roots` (relative to
    this script, or absolute); the path as given where none has it."""
    places = [path, os.path.join(HERE, path)] + [os.path.join(HERE, r, path) for r in roots]
    return next((p for p in places if os.path.isfile(p)), path)


def load(name, roots=()):
    """A callable by MODULE:FUNCTION (a dotted module, or a .py file found by find_file); lossfuzz's py: prefix
    taken off."""
    name = name[3:] if name.startswith("py:") else name
    module, _, fn = name.rpartition(":")
    if module.endswith(".py"):
        path = find_file(module, roots)
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    else:
        mod = importlib.import_module(module)
    return getattr(mod, fn)


def same_bits(a, b):
    """Whether two tensors hold the same values bit for bit (-0.0 is not 0.0, NaN is NaN)."""
    ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    a, b = a.contiguous(), b.contiguous()
    bits = (lambda t: t) if a.dtype == torch.bool else (lambda t: t.view(ints[t.element_size()]))
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(bits(a), bits(b))


def unpack(result, names):
    """(loss, {output: tensor}) of a call's return value: a tensor; a tuple in the order `names` gives (the
    kernel's claimed outputs), or the definitions' (loss, {...}); a dict by name."""
    if isinstance(result, dict):
        return result["loss"], {k: v for k, v in result.items() if k != "loss"}
    if isinstance(result, (tuple, list)):
        if names and len(names) == len(result):
            got = dict(zip(names, result))
            return got["loss"], {k: v for k, v in got.items() if k != "loss"}
        return result[0], result[1] if len(result) > 1 and isinstance(result[1], dict) else {}
    return result, {}


def outcome(fn, c, kernel=False):
    """fn on a fresh copy of the case c: what it returned (value, shape, dtype, other outputs) or raised, each
    gradient asked for given the upstream gradient, and the tensors it changed. kernel: False for PyTorch's own
    call; "own" for the campaign's kernel, given its keywords for the options (its claims') and unpacked by its
    claimed outputs; "other" for a callable put in its place (F.cross_entropy's keywords). A kernel gets no layout
    keyword (it takes [B, T, V] as it is)."""
    positional, options = c["case"]()
    args = list(positional.values())
    named = dict(positional, **{k: v for k, v in options.items() if isinstance(v, torch.Tensor)})
    before = {k: v.detach().clone() for k, v in named.items()}
    wanted = [(k, named[k]) for k in c["GRADS"] if k in named and named[k].is_floating_point()]
    for _, t in wanted:
        t.requires_grad_(True)
    if c["PROPERTY"] == "softmax":  # the input is softmax's output, which softmax saved for its backward
        leaf = positional["input"].detach().clone().requires_grad_(True)
        positional["input"] = torch.softmax(leaf, -1)
        args, wanted = list(positional.values()), [("input", leaf)]
    if kernel:  # a kernel under test: no layout keyword; the campaign's own its keywords ("own")
        keywords = c.get("KEYWORDS", {}) if kernel == "own" else {}
        options = {keywords.get(k, k): v for k, v in options.items() if k != "vocab_last"}
    try:
        result, others = unpack(fn(*args, **options), c.get("OUTPUTS") if kernel == "own" else None)
        out = {"value": result.detach().double().reshape(-1), "shape": list(result.shape), "dtype": result.dtype,
               "outputs": {k: v.detach().double().reshape(-1) for k, v in others.items() if v is not None}}
    except Exception as e:  # a rejection, or a bug's exception
        return {"raised": "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:200])}
    out["grads"] = {}
    if wanted and c["UPSTREAM"] is not None:
        try:
            up = torch.tensor(c["UPSTREAM"], dtype=torch.float64).to(result.dtype).reshape(result.shape)
            grads = torch.autograd.grad(result, [t for _, t in wanted], up, allow_unused=True)
            out["grads"] = {k: g for (k, _), g in zip(wanted, grads)}
        except Exception as e:
            out["grads"] = {k: "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:200]) for k, _ in wanted}
    out["changed"] = [k for k, v in named.items() if not same_bits(v.detach(), before[k])]
    return out


def far(want, got, scale, dtype):
    """The first index where got is not want within lossfuzz's tolerance (NaN must meet NaN), or None."""
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES["float64"])
    for i, (w, g) in enumerate(zip(want.tolist(), got.tolist())):
        s = abs(w) if scale is None or i >= len(scale) or scale[i] != scale[i] else max(abs(scale[i]), abs(w))
        if w != w or g != g:
            if not (w != w and g != g):
                return i
        elif w in (inf, -inf) or g in (inf, -inf):
            if w != g:
                return i
        elif abs(w - g) > atol + rtol * s:
            return i
    return None


def said(o):
    if "raised" in o:
        return "raised " + o["raised"]
    v = o["value"]
    return "%s shape %s %s" % (v.tolist() if v.numel() <= 8 else "%s ... (%d values)" % (v[:8].tolist(), v.numel()),
                               o["shape"], str(o["dtype"]).replace("torch.", ""))


def differs(want, got, c):
    """Why got breaks the case's PROPERTY against PyTorch's want, or None where it holds."""
    prop = c["PROPERTY"]
    if prop == "rejects":
        if "raised" not in want:
            return None
        return None if "raised" in got else "PyTorch refuses the call; the kernel returns a result"
    if "raised" in want:
        return None  # PyTorch itself refuses the call here (another torch or device): nothing to hold it to
    if "raised" in got:
        return "PyTorch accepts the call; the kernel raised"
    if prop == "accepts":
        return None
    if prop == "inputs":
        return "the kernel changed its %s" % ", ".join(got["changed"]) if got["changed"] else None
    if prop == "result" and c.get("OUTPUT"):  # one of the LLM family's other outputs (z_loss, lse)
        w, g = want["outputs"].get(c["OUTPUT"]), got["outputs"].get(c["OUTPUT"])
        if g is None or w is None or g.shape != w.shape:
            return "%s: %s, PyTorch's %s" % (c["OUTPUT"], None if g is None else list(g.shape),
                                             None if w is None else list(w.shape))
        i = far(w, g, None, c["TOLERANCE_DTYPE"])
        return None if i is None else "%s[%d] = %r, PyTorch's %r" % (c["OUTPUT"], i, g[i].item(), w[i].item())
    if prop == "result":
        if got["shape"] != want["shape"]:
            return "a result of shape %s, PyTorch's is %s" % (got["shape"], want["shape"])
        if got["dtype"] != want["dtype"]:
            return "a %s result, PyTorch's is %s" % (got["dtype"], want["dtype"])
        i = far(want["value"], got["value"], c["SCALE"], c["TOLERANCE_DTYPE"])
        return None if i is None else "value[%d] = %r, PyTorch's %r" % (i, got["value"][i].item(),
                                                                           want["value"][i].item())
    for k, w in want["grads"].items():  # PROPERTY "grad", or "softmax": d of softmax's input
        k_name = "(softmax's input)" if prop == "softmax" else k
        g = got["grads"].get(k)
        if isinstance(w, str) or w is None:
            continue  # PyTorch's own backward fails here, or gives none
        if g is None or isinstance(g, str):
            return "d %s: %s" % (k_name, g or "no gradient")
        if g.shape != w.shape or g.dtype != w.dtype:
            return "d %s is %s %s, PyTorch's %s %s" % (k_name, list(g.shape), g.dtype, list(w.shape), w.dtype)
        i = far(w.double().reshape(-1), g.double().reshape(-1),
                c["GRAD_SCALE"] if k == "input" and prop == "grad" else None, c["TOLERANCE_DTYPE"])
        if i is not None:
            return "d %s[%d] = %r, PyTorch's %r" % (k_name, i, g.reshape(-1)[i].item(), w.reshape(-1)[i].item())
    return None


def in_child(kernel, c, own):
    """The kernel's outcome, computed in a child process where one can be forked without a CUDA context, so that
    a stray read past an allocation (SIGSEGV) kills only the child: (outcome, None) or (None, what it died of)."""
    if not hasattr(os, "fork") or torch.cuda.is_initialized():
        return outcome(kernel, c, kernel=own), None
    import pickle
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            data = pickle.dumps(outcome(kernel, c, kernel=own))
        except BaseException as e:  # an outcome that cannot be sent back is still an answer
            data = pickle.dumps({"raised": "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:200])})
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return None, "died of signal %d" % os.WTERMSIG(status)
    return pickle.loads(data), None


def replay_c(name, c):
    """A C/CUDA library has no Python call: lossfuzz replays the repro on it (`lossfuzz check`), the one part of
    such a script that needs lossfuzz; its verdict is printed, 1 while a finding shows."""
    import subprocess
    lib, _, symbol = name.partition(":")
    kernel = find_file(lib, c.get("ROOTS", ())) + (":" + symbol if symbol else "")
    try:
        out = subprocess.run([c.get("LOSSFUZZ", "lossfuzz"), "check", "--kernel", kernel, c["REPRO"]],
                             capture_output=True, text=True)
    except OSError as e:
        return cannot_run(c, "a C/CUDA kernel is replayed by lossfuzz, not found here (%s): %s" % (
            c.get("LOSSFUZZ"), e))
    print((out.stdout + out.stderr).strip())
    if out.returncode not in (0, 1):
        return cannot_run(c, "lossfuzz check could not replay %s (exit %d)" % (c["REPRO"], out.returncode))
    return out.returncode


class CannotRun(Exception):
    """The kernel could not be called at all (its package missing, lossfuzz not found): no verdict either way."""


def cannot_run(c, why):
    """2 for a script, neither the bug's 1 nor a fix's 0; in a pytest test an error that is no failed assert."""
    if c.get("__name__") != "__main__":
        raise CannotRun(why)
    print("CANNOT RUN: %s" % why, file=sys.stderr)
    return 2


def main(c):
    """The case c's answers, PyTorch's and its kernel's (KERNEL, or MODULE:FUNCTION given to the script), a
    line each; 1 while the bug shows, 0 once it is gone, 2 where the kernel cannot be called."""
    name = sys.argv[1] if c.get("__name__") == "__main__" and len(sys.argv) > 1 else c["KERNEL"]
    if is_library(name):
        return replay_c(name, c)
    try:
        kernel = load(name, c.get("ROOTS", ()) if name == c["KERNEL"] else ())
    except Exception as e:  # its package, or a module it needs, is missing here
        return cannot_run(c, "could not load %s: %s: %s" % (name, type(e).__name__, str(e).split("\n")[0]))
    # the campaign kernel's keywords and outputs are its own: another callable takes F.cross_entropy's
    own = "own" if name == c["KERNEL"] else "other"
    # the child first: a fork after PyTorch's threaded ops have run can hang in the child (OpenMP's pool)
    got, died = in_child(kernel, c, own) if c.get("CRASHED") else (None, None)
    want = outcome(c["PYTORCH"], c)
    if died:
        print("PyTorch: %s\nkernel:  %s\nBUG: the kernel crashed" % (said(want), died))
        return 1
    if got is None:
        got = outcome(kernel, c, kernel=own)
    print("PyTorch: %s\nkernel:  %s" % (said(want), said(got)))
    why = differs(want, got, c)
    print("BUG: %s" % why if why else "fixed: the kernel keeps PyTorch's contract on this call")
    return 1 if why else 0
