#!/usr/bin/env python3
"""The PyTorch worker: runs each case the executor hands it through real
torch.nn.functional (each loss of harness/model/case/lf_losses.def as F.<name>,
from `lossfuzz describe --json`) and answers with the outcome, speaking the one worker protocol of
harness/runtime/workers/lf_wire.h: requests on fd 3, answers on fd 4, the case's tensors
and the result values in the shared memory on fd 5. Serves the path "torch",
or with --kernel the path "kernel": a callable under test with the signature
of F.cross_entropy (lossfuzz_kernel.py loads it and reads its claims).

    python3 python/lossfuzz_worker.py --describe "$(lossfuzz describe --json)" [--device cpu|cuda] [--kernel MODULE:FUNCTION]

Errors are named by lossfuzz_torch.py, as in the CPU conformance run.
Exit status: 0 end of requests, 2 torch (or CUDA) missing, a kernel that
cannot be loaded, or an unreadable request, 3 the CUDA context died (after answering "dead")."""
import argparse
import json
import mmap
import os
import sys
import warnings

import lossfuzz_llm
from lossfuzz_kernel import KernelError, kernel_error, load_kernel, same_size_ints
from lossfuzz_torch import assert_value, classify_error, read_losses

PROTOCOL = 1
FD_REQUESTS, FD_ANSWERS, FD_SHM = 3, 4, 5
# The loss table's facts, from the C side (`lossfuzz describe --json`, given
# by the executor as --describe): the dtypes, the options each loss takes
# besides reduction (lf_options.def: their defaults, which are tensors), and
# the tensors its call takes before its keywords.
DTYPES = ()
OPTIONS = {}
POSITIONAL = {}
FUSED_LINEAR = set()  # losses whose input is hidden states: cross_entropy(linear(input, W, b), target)
TENSOR_OPTIONS = ()  # the options that are tensors on the wire
CHUNKED_OPTIONS = ()  # torch 2.15's LinearCrossEntropyOptions fields: a fused linear's options= where any is given
# The start of torch's warning where it ignores options= (the chunked path does not apply to the call).
CHUNKED_FALLBACK = "linear_cross_entropy: ``options`` ignored"
LAST_WARNING = [None]  # the fallback warning of the last linear_cross_entropy call, or None
# The tensors a gradient is asked of (lf_grad_part's order), with the flag that asks.
GRAD_PARTS = (("input", "input_requires_grad"), ("linear_weight", "linear_weight_requires_grad"),
              ("linear_bias", "linear_bias_requires_grad"))


def positional(loss):
    """The names of a loss function's positional tensors, in order."""
    return POSITIONAL[loss]


def read_describe(text):
    """Takes the loss table and dtypes of `lossfuzz describe --json`."""
    global DTYPES, TENSOR_OPTIONS, CHUNKED_OPTIONS
    doc = json.loads(text)
    DTYPES = tuple(doc["dtypes"])
    DEFAULTS.update(doc["option_defaults"])
    TENSOR_OPTIONS = tuple(doc["tensor_options"])
    CHUNKED_OPTIONS = tuple(doc.get("chunked_options", ()))
    lossfuzz_llm.LLM_OPTIONS = tuple(doc["llm"]["options"])
    lossfuzz_llm.OUTPUTS = tuple(doc["llm"]["outputs"])
    read_losses(doc["losses"])
    for loss in doc["losses"]:
        OPTIONS[loss["name"]] = tuple(loss["options"])
        POSITIONAL[loss["name"]] = tuple(loss["positional"])
        if loss["fused_linear"]:
            FUSED_LINEAR.add(loss["name"])


def one_line(exc):
    """An exception as the protocol carries it: its type and first line."""
    return ("%s: %s" % (type(exc).__name__, exc)).split("\n", 1)[0]
DEFAULTS = {}  # the options' defaults: PyTorch's, from --describe
# Text of an exception from a CUDA context that is broken for good.
DEAD_CONTEXT = ("device-side assert", "CUDA error")


def hit_recompile_limit(exc):
    """Whether a torch.compile'd kernel failed on its recompile limit: the worker's earlier cases compiled
    that many variants (dtypes, shapes, options), a state of the worker's, not of the case."""
    return type(exc).__name__ == "FailOnRecompileLimitHit" or "recompile_limit" in str(exc)


def number(v):
    """JSON has no NaN or infinity: the executor sends them as "nan", "inf", "-inf"."""
    return float(v) if isinstance(v, str) else v


class BadRequest(Exception):
    """A request this worker cannot read; answered as a host_error."""


class WireCase:
    """The case of a request, with the interface lossfuzz_torch's table uses."""

    def __init__(self, doc):
        if not isinstance(doc, dict) or doc.get("loss") not in OPTIONS:
            raise BadRequest("case: missing or unknown loss")
        self.doc, self.loss = doc, doc["loss"]
        self.reduction = doc.get("reduction", "mean")

    def dtype(self, name):
        t = self.doc.get(name)
        return t.get("dtype") if isinstance(t, dict) else None

    def ndim(self, name):
        t = self.doc.get(name)
        return len(t.get("shape", ())) if isinstance(t, dict) else None


class Worker:
    """Runs requests on one device; owns the answers (fd 4) and the shared memory map."""

    def __init__(self, torch, device, kernel=None, claims=None, ranks=None):
        """Serves "torch" (torch.nn.functional), or "kernel": the callable
        `kernel`, called for every loss it claims as F.<loss> would be (its
        options by the keywords its claims map them to; a vocabulary-parallel
        one on the ranks of `ranks`, lossfuzz_ranks.py)."""
        self.torch, self.device = torch, device
        self.claims, self.ranks = claims or {}, ranks
        self.recompile_resets = 0  # a torch.compile'd kernel's recompile limit, met and reset (call)
        self.keywords = lossfuzz_llm.keyword_map(self.claims)
        self.outputs = tuple(self.claims.get("outputs") or ("loss",))
        self.names_of, self.error_of = positional, error_result  # for the ranks (lossfuzz_ranks.py)
        import torch.nn.functional as F
        # PyTorch's own functions: the torch path, and a kernel's reference
        # (F.<name>, or for a fused linear the composition below)
        self.torch_fns = {name: linear_cross_entropy if name in FUSED_LINEAR else getattr(F, name) for name in OPTIONS}
        if kernel is None:
            self.path = "torch"
            self.fns = self.torch_fns
        else:
            self.path = "kernel"
            self.fns = {name: kernel for name in OPTIONS}
        self.shm, self.shm_size = None, 0
        self.out = os.fdopen(FD_ANSWERS, "w", encoding="utf-8")

    def send(self, doc):
        # ensure_ascii: a uint8 label's character in a message stays one line.
        self.out.write(json.dumps(doc, separators=(",", ":")) + "\n")
        self.out.flush()

    def map(self, size):
        """Maps fd 5 with `size` bytes, again when the size changes. The old
        map is dropped, not closed: tensors made from it keep it alive."""
        if size != self.shm_size:
            if os.fstat(FD_SHM).st_size < size:  # reading past the end would SIGBUS
                raise BadRequest("shm_size %d is larger than the shared memory" % size)
            self.shm, self.shm_size = mmap.mmap(FD_SHM, size), size

    def tensor(self, doc):
        """A tensor on the worker's device, read from the shared memory."""
        torch = self.torch
        if not isinstance(doc, dict) or doc.get("dtype") not in DTYPES:
            raise BadRequest("tensor: missing or unknown dtype")
        dtype, shape, at = getattr(torch, doc["dtype"]), doc["shape"], doc["at"]
        n = 1
        for d in shape:
            n *= d
        size = torch.empty((), dtype=dtype).element_size()
        if min(shape, default=0) < 0 or at < 0 or at + n * size > self.shm_size:
            raise BadRequest("tensor: shape %r at %d is outside the shared memory" % (shape, at))
        if n == 0:  # torch.frombuffer refuses count 0
            t = torch.empty(shape, dtype=dtype)
        else:
            t = torch.frombuffer(self.shm, dtype=dtype, count=n, offset=at).reshape(shape)
        if "strides" in doc:
            return self.laid_out(t, doc["strides"], doc.get("offset", 0))
        return t.to(self.device)

    def laid_out(self, values, strides, offset):
        """The values as a view with the case's strides and storage offset
        (transposed, sliced, expanded), as the caller's tensor would be."""
        torch = self.torch
        shape = list(values.shape)
        if len(strides) != len(shape) or min(strides, default=0) < 0 or offset < 0:
            raise BadRequest("tensor: strides %r, offset %r do not fit shape %r" % (strides, offset, shape))
        extent = offset + sum((d - 1) * s for d, s in zip(shape, strides)) + 1 if values.numel() else 0
        storage = torch.zeros(extent, dtype=values.dtype, device=self.device)
        if values.numel():  # where each element lies: offset + sum(index_d * stride_d)
            where = torch.full(shape, offset, dtype=torch.int64)
            for d, (size, stride) in enumerate(zip(shape, strides)):
                view = [1] * len(shape)
                view[d] = size
                where = where + (torch.arange(size) * stride).reshape(view)
            storage[where.reshape(-1).to(self.device)] = values.reshape(-1).to(self.device)
        return storage.as_strided(shape, strides, offset)

    def arguments(self, case):
        """The loss function's arguments: the tensors, then the options given
        and not at PyTorch's default (a kernel under test may not take them)."""
        kwargs = {"reduction": case.reduction}
        for k in OPTIONS[case.loss]:
            # linear_cross_entropy's ignore_index defaults to None: a given -100 is a value; a chunked option
            # given at its default still asks for options=
            given = case.loss in FUSED_LINEAR and (k == "ignore_index" or k in CHUNKED_OPTIONS)
            if k in case.doc and (given or case.doc[k] != DEFAULTS.get(k)):
                kwargs[k] = self.tensor(case.doc[k]) if k in TENSOR_OPTIONS else self.scalar(k, case.doc[k])
        return tuple(self.tensor(case.doc[k]) for k in positional(case.loss)), kwargs

    def scalar(self, name, v):
        """A scalar option's value as torch takes it; the chunked ones as LinearCrossEntropyOptions takes them
        (names as they are, acc_dtype a torch dtype, allow_retain_graph a bool)."""
        if name == "acc_dtype" and v is not None:
            return getattr(self.torch, v)
        if name == "allow_retain_graph":
            return bool(v)
        return v if name in CHUNKED_OPTIONS else number(v)

    def call(self, case, args, kwargs, path=None):
        """(result, {output: tensor}) of the path's function on the call: for
        "torch", F.<loss>, or the LLM family's composition where the case
        asks for it (lossfuzz_llm.py); for "kernel", the callable, its
        options renamed to its keywords, its return value unpacked by its
        claims' "outputs"."""
        if (path or self.path) == "kernel":
            try:
                return self.call_path(case, args, kwargs, path)
            except Exception as exc:
                if not hit_recompile_limit(exc) or "torch._dynamo" not in sys.modules:
                    raise
                # the limit is the worker's: dynamo's caches go, the case is called once more, as afresh
                sys.modules["torch._dynamo"].reset()
                self.recompile_resets += 1
                if self.recompile_resets == 1:
                    print("lossfuzz worker: the kernel hit torch.compile's recompile limit (%s): dynamo's caches "
                          "are reset and the call made again, each time it does" % one_line(exc), file=sys.stderr)
        return self.call_path(case, args, kwargs, path)

    def call_path(self, case, args, kwargs, path=None):
        """call's work, without its second try."""
        if (path or self.path) == "torch":
            if not lossfuzz_llm.uses_llm(case.doc):
                return self.torch_fns[case.loss](*args, **kwargs), {}
            names = positional(case.loss)
            named = dict(zip(names, args))
            extra = {"vocab_last": True} if case.doc.get("vocab_last") else {}
            if case.loss in FUSED_LINEAR:
                extra["linear_weight"] = named.pop("linear_weight")
            return lossfuzz_llm.cross_entropy(named["input"], named["target"], **kwargs, **extra)
        renamed = {self.keywords.get(k, k): v for k, v in kwargs.items()}
        return lossfuzz_llm.unpack(self.fns[case.loss](*args, **renamed), self.outputs)

    def run_path(self, case, values_at, cap):
        """One path's result dict; its values go to the shared memory. The
        kernel under test is also held to the rest of PyTorch's contract:
        the tensors it is given unchanged, and (when asked) d input."""
        args, kwargs = self.arguments(case)  # outside the try: a bad request is no torch error
        # (torch's own fused linear is asked for its gradients too: the executor sends the upstream gradient)
        backward = case.doc.get("backward") if self.path == "kernel" or "upstream" in case.doc.get("backward", {}) \
            else None
        upstream = self.tensor(backward["upstream"]) if backward else None
        given = list(zip(positional(case.loss), args)) + [(k, v) for k, v in kwargs.items() if k in TENSOR_OPTIONS]
        before = [(name, t.detach().clone()) for name, t in given] if self.path == "kernel" else []
        # The tensors asked for a gradient, each made to require one where its dtype can.
        by_name = dict(given)
        wanted = [(name, by_name[name]) for name, flag in GRAD_PARTS
                  if backward and backward.get(flag) and name in by_name]
        for _, t in wanted:
            if t.is_floating_point():
                t.requires_grad_(True)
        reference = self.reference(case, args, kwargs) if self.path == "kernel" else None
        if self.ranks is not None:  # a vocabulary-parallel kernel: its ranks answer
            return self.ranks.run(self, case, args, kwargs, backward, upstream, wanted, values_at, cap, reference)
        try:
            LAST_WARNING[0] = None
            result, outputs = self.call(case, args, kwargs)
            values = result.detach().double().flatten().cpu()  # waits for the kernels
        except Exception as exc:  # torch raises RuntimeError, ValueError, IndexError, ...
            if self.device.type == "cuda" and any(s in str(exc) for s in DEAD_CONTEXT):
                raise  # main() answers "dead"
            return error_result(case, exc, self.path == "kernel")
        n = values.numel()
        room = cap - (sum(by_name[name].numel() for name, _ in GRAD_PARTS if name in by_name) if backward else 0)
        if n > room:
            return {"outcome": "host_error", "error": "result_too_large",
                    "message": "%d values, room for %d" % (n, room)}
        self.put_values(values, values_at)
        answer = {"outcome": "ok", "n": n, "scalar": result.dim() == 0, "shape": list(result.shape),
                  "dtype": str(result.dtype).replace("torch.", "")}
        if self.path == "torch" and LAST_WARNING[0]:
            answer["warning_id"], answer["warning"] = "chunked_fallback", LAST_WARNING[0][:500]
        changed = self.changed(given, before, "in forward")
        used = n
        if wanted:
            answer["grads"] = self.grads(result, wanted, upstream, values_at + 8 * n)
            used += sum(g.get("n", 0) for g in answer["grads"].values())
            changed = changed or self.changed(given, before, "in backward")
        if outputs:
            answer["outputs"], used = self.put_outputs(outputs, values_at, used, cap)
        if reference is not None and used + reference.numel() <= cap:
            self.put_values(reference, values_at + 8 * used)
            answer["reference"] = {"n": reference.numel()}
        # (a change the kernel claims - its gradient written into its input - does not spare it the call on
        # softmax's output: writing there breaks softmax's backward, a bug of its own)
        if self.path == "kernel" and backward and backward.get("through_softmax") and \
                (not changed or self.claims.get("grad_in_place")):
            broken = self.through_softmax(case, args, kwargs, upstream)
            if broken:
                answer["through_softmax"] = broken
        if changed:
            answer["changed"] = changed
        return answer

    def put_outputs(self, outputs, values_at, used, cap):
        """The answer's "outputs" (lf_llm.def's order), their values after
        those already `used`; returns it and the new count used."""
        out = {}
        for name in lossfuzz_llm.OUTPUTS:
            if name not in outputs or outputs[name] is None:
                continue
            v = outputs[name].detach().double().flatten().cpu()
            if used + v.numel() > cap:
                break
            self.put_values(v, values_at + 8 * used)
            out[name] = {"n": v.numel()}
            used += v.numel()
        return out, used

    def put_values(self, values, at):
        if values.numel():
            out = self.torch.frombuffer(self.shm, dtype=self.torch.float64, count=values.numel(), offset=at)
            out.copy_(values)

    def grads(self, result, wanted, upstream, at):
        """The answer's "grads": d result / d t for each (name, t) wanted,
        given the upstream gradient (result's shape and dtype); the values of
        each one given follow each other from `at`."""
        torch = self.torch
        out = {}
        able = [(name, t) for name, t in wanted if t.requires_grad]
        for name, t in wanted:
            if not t.requires_grad:
                out[name] = {"state": "missing", "message": "the %s's dtype %s cannot require grad" % (name, t.dtype)}
            elif not result.requires_grad:
                out[name] = {"state": "missing",
                             "message": "the result does not require grad (no graph back to the %s)" % name}
        if not able or not result.requires_grad:
            return out
        try:
            seed = upstream.to(result.dtype).reshape(result.shape)
            gs = torch.autograd.grad(result, [t for _, t in able], seed, allow_unused=True)
        except Exception as exc:  # the kernel's backward raised
            return dict(out, **{name: {"state": "error", "message": one_line(exc)} for name, _ in able})
        for (name, _), g in zip(able, gs):
            if g is None:
                out[name] = {"state": "missing", "message": "the graph does not reach the %s" % name}
                continue
            self.put_values(g.detach().double().flatten().cpu(), at)
            at += 8 * g.numel()
            out[name] = {"state": "ok", "n": g.numel(), "shape": list(g.shape),
                         "dtype": str(g.dtype).replace("torch.", "")}
        return out

    def reference(self, case, args, kwargs):
        """PyTorch's own values on the call, for a bfloat16 or float16 input
        (the measure of what the dtype costs: lossfuzz_kernel_verdict's
        judge_low_precision), before the kernel runs; None where PyTorch
        raises. PyTorch's losses leave their inputs as they are."""
        torch = self.torch
        if args[0].dtype not in (torch.bfloat16, torch.float16):
            return None
        try:
            with torch.no_grad():
                return self.call(case, args, kwargs, "torch")[0].double().flatten().cpu()
        except Exception:  # PyTorch rejects it: the spec's rule alone
            return None

    def through_softmax(self, case, args, kwargs, upstream):
        """The kernel called again, its input now y = softmax(leaf) along the
        last dim, an output softmax saves for its backward: the leaf's
        gradient must be, bit for bit, softmax's backward of the kernel's d y
        on an untouched y. A write into y that bypasses autograd's version
        counter (a Triton or CUDA kernel's, or .data's) breaks it. None when
        it holds, else what went wrong."""
        torch, x = self.torch, args[0]
        if not x.is_floating_point() or x.dim() == 0 or x.numel() == 0:
            return None
        leaf = x.detach().clone().requires_grad_(True)
        try:
            y = torch.softmax(leaf, -1)
        except Exception:  # this torch has no softmax for the dtype (1.13's CPU float16): no check
            return None
        # An exception here is an error of its own, never a wrong gradient: "raised in forward: ..." (a valid
        # call refused) or "raised in backward: ..." (lf_kernel_verdict.c reads the prefix).
        try:
            result = self.call(case, (y,) + tuple(args[1:]), kwargs)[0]
        except Exception as exc:
            return "raised in forward: " + one_line(exc)
        if not result.requires_grad:
            return None  # no graph: grad-missing says so on the main call
        try:
            seed = upstream.to(result.dtype).reshape(result.shape)
            got, dy = torch.autograd.grad(result, [leaf, y], seed, allow_unused=True)
        except Exception as exc:
            return "raised in backward: " + one_line(exc)
        if got is None or dy is None:
            return None
        fresh = leaf.detach().clone().requires_grad_(True)
        (want,) = torch.autograd.grad(torch.softmax(fresh, -1), fresh, dy)
        if torch.equal(same_size_ints(torch, got), same_size_ints(torch, want)):
            return None
        return ("the input's gradient through softmax is not softmax's backward of the kernel's d input "
                "(the kernel wrote into the output softmax saved for its backward)")

    def changed(self, given, before, when):
        """The first tensor given to the kernel whose bits differ from its copy
        taken before the call (NaN payloads included), e.g. "input (in forward)"."""
        for (name, t), (_, copy) in zip(given, before):
            now = t.detach()
            if now.shape != copy.shape or not self.torch.equal(same_size_ints(self.torch, now),
                                                               same_size_ints(self.torch, copy)):
                return "%s (%s)" % (name, when)
        return None

    def handle(self, req):
        """The answer to one request (a dict with an id)."""
        try:
            paths, case = req["paths"], WireCase(req["case"])
            out_at, cap = req["out_at"], req["out_cap"]
            if not isinstance(paths, list) or not paths or cap < 0:
                raise BadRequest("paths must be a non-empty list, out_cap >= 0")
            self.map(req["shm_size"])
            if out_at < 0 or out_at + 8 * cap * len(paths) > self.shm_size:
                raise BadRequest("the values do not fit in the shared memory")
            results = []
            for i, path in enumerate(paths):
                if path != self.path:
                    results.append({"outcome": "host_error", "error": "unsupported_path",
                                    "message": "this worker serves %r, not %r" % (self.path, path)})
                else:
                    results.append(self.run_path(case, out_at + 8 * cap * i, cap))
        except (BadRequest, KeyError, TypeError, ValueError, OverflowError) as exc:
            n = len(req["paths"]) if isinstance(req.get("paths"), list) and req["paths"] else 1
            bad = {"outcome": "host_error", "error": "bad_request",
                   "message": "%s: %s" % (type(exc).__name__, exc)}
            return {"id": req["id"], "results": [bad] * n}
        return {"id": req["id"], "results": results}


def linear_cross_entropy(input, linear_weight, target, linear_bias=None, **kwargs):
    """PyTorch's fused linear + cross-entropy: F.linear_cross_entropy since
    torch 2.15, the chunked options given as its options=
    (LinearCrossEntropyOptions; its ValueErrors are the call's), torch's
    fallback warning kept in LAST_WARNING; before 2.15, the composition it
    stands for, options ignored (its answers are the version-keyed known
    difference linear_cross_entropy_composed)."""
    import torch
    import torch.nn.functional as F
    chunked = {k: kwargs.pop(k) for k in CHUNKED_OPTIONS if k in kwargs}
    if hasattr(F, "linear_cross_entropy"):
        if chunked:
            kwargs["options"] = torch.nn.LinearCrossEntropyOptions(**chunked)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = F.linear_cross_entropy(input, linear_weight, target, linear_bias=linear_bias, **kwargs)
        said = [str(w.message) for w in caught if str(w.message).startswith(CHUNKED_FALLBACK)]
        LAST_WARNING[0] = said[0] if said else None
        return out
    kwargs.setdefault("ignore_index", -100)  # 2.15's None
    return F.cross_entropy(F.linear(input, linear_weight, linear_bias), target, **kwargs)


def error_result(case, exc, under_test=False):
    """The protocol's result for an exception torch (or the kernel under
    test) raised. A kernel's own exception, in no class of PyTorch's, is
    kernel_rejected, or kernel_failed when it is a bug's (lossfuzz_kernel.py)."""
    c = classify_error(case, exc)
    if under_test and c["outcome"] == "host_error" and c["error"].startswith("unmapped:"):
        c["error"] = kernel_error(exc)
        if c["error"] == "kernel_failed":  # a bug's exception: its type says the most
            c["message"] = "%s: %s" % (type(exc).__name__, c["message"])
    message = c["message"].split("\n", 1)[0]
    if under_test and c["outcome"] == "device_assert":
        # On the CPU an exception is a rejection, whatever its class: PyTorch's
        # CPU build raises this IndexError where CUDA asserts. A kernel's real
        # device assert kills its worker, and the assertion line says so.
        return {"outcome": "host_error", "error": c["error"] or "label_out_of_range", "exception": c["exception"],
                "message": message}
    if c["outcome"] == "device_assert":
        r = {"outcome": "device_assert", "message": message}
        if c["error"]:
            r["error"] = c["error"]
        value = assert_value(case, message)
        if value is not None:
            r["value"] = value
        return r
    # The protocol has no "unsupported" outcome: torch's "not implemented for
    # 'Half'" is a host error of class "unsupported".
    return {"outcome": "host_error", "error": c["error"], "exception": c["exception"],
            "message": message}


def read_request(line):
    """The request dict, or None (after saying why on stderr) when it has no id."""
    try:
        req = json.loads(line.decode("utf-8"))
    except ValueError as exc:
        req, why = None, exc
    else:
        why = "no integer id"
    if isinstance(req, dict) and isinstance(req.get("id"), int):
        return req
    sys.stderr.write("lossfuzz_worker: unreadable request (%s): %.200r\n" % (why, line))
    return None


def main(argv=None):
    p = argparse.ArgumentParser(description="lossfuzz's PyTorch worker (protocol: harness/runtime/workers/lf_wire.h)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--describe", metavar="JSON", required=True,
                   help="the loss table, as `lossfuzz describe --json` prints it (the executor gives it)")
    p.add_argument("--kernel", metavar="MODULE:FUNCTION",
                   help="serve this callable as the kernel under test (MODULE may be a .py file)")
    p.add_argument("--world-size", type=int, default=0, metavar="W",
                   help="a vocabulary-parallel kernel: run it on W ranks joined in a torch.distributed group "
                        "(gloo on the CPU, NCCL on CUDA), each given its shard of the classes")
    args = p.parse_args(argv)
    from lossfuzz_ranks import die_with_parent
    die_with_parent()
    try:
        read_describe(args.describe)
    except (ValueError, KeyError, TypeError) as exc:
        sys.stderr.write("lossfuzz_worker: --describe is not lossfuzz describe --json's: %s\n" % exc)
        return 2
    try:
        import torch
    except Exception as exc:  # ImportError, or OSError from a broken install
        sys.stderr.write("lossfuzz_worker: %s cannot import torch: %s\n" % (sys.executable, exc))
        return 2
    warnings.simplefilter("ignore")  # torch's warnings would only clutter the executor's log
    # Workers run side by side; one thread each also sums in one fixed order.
    torch.set_num_threads(1)
    try:
        for fd in (FD_REQUESTS, FD_ANSWERS, FD_SHM):  # no child process keeps them open
            os.set_inheritable(fd, False)
    except OSError:
        sys.stderr.write("lossfuzz_worker: fds 3, 4 and 5 must be open (the executor starts workers)\n")
        return 2
    if args.device == "cuda":
        if not torch.cuda.is_available():
            sys.stderr.write("lossfuzz_worker: torch %s sees no CUDA device\n" % torch.__version__)
            return 2
        torch.zeros(1, device="cuda")  # makes the context before the hello
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device("cpu")
    hello = {"hello": "lossfuzz-worker", "protocol": PROTOCOL, "device": str(device),
             "torch": torch.__version__}
    kernel, ranks = None, None
    if args.kernel:
        try:
            kernel, hello["kernel"] = load_kernel(args.kernel, device.type)
        except KernelError as exc:
            sys.stderr.write("lossfuzz_worker: --kernel py:%s: %s\n" % (args.kernel, exc))
            return 2
    if args.world_size:
        import lossfuzz_ranks
        try:
            ranks = lossfuzz_ranks.RankPool(args.kernel, args.world_size, device.type, hello.get("kernel") or {})
        except lossfuzz_ranks.RankError as exc:
            sys.stderr.write("lossfuzz_worker: --world-size %d: %s\n" % (args.world_size, exc))
            return 2
        hello["kernel"]["world_size"] = args.world_size
    worker = Worker(torch, device, kernel, hello.get("kernel"), ranks)
    hello["paths"] = [worker.path]
    worker.send(hello)
    requests = os.fdopen(FD_REQUESTS, "rb")
    for line in requests:
        req = read_request(line)
        if req is None:
            return 2
        try:
            answer = worker.handle(req)
        except Exception as exc:
            if device.type != "cuda" or not any(s in str(exc) for s in DEAD_CONTEXT):
                raise  # a bug here: the traceback goes to the executor's log
            worker.send({"id": req["id"], "dead": str(exc).strip().split("\n", 1)[0]})
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(3)  # no teardown on a broken context: it can hang
        worker.send(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
