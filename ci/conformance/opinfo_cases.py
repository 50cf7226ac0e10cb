#!/usr/bin/env python3
"""PyTorch's own test inputs as lossfuzz cases: the OpInfo samples and error
inputs (torch.testing._internal.common_methods_invocations) and the module
inputs (common_modules) of linear_cross_entropy (its variants, the chunked
path's options= among them) and multi_margin_loss, each written as a JSON
case holding its exact values, then `lossfuzz check --torch --json` over all
of them: the spec's outcome, error class and message against what this
torch does, and each error input's message against the regex PyTorch's
test expects. What a case cannot hold is counted by its reason, never
converted approximately.

    .venv/bin/python3 ci/conformance/opinfo_cases.py --lossfuzz build/lossfuzz [--quick] [--keep DIR] [--verbose]

Needs torch 2.15 (F.linear_cross_entropy) and expecttest (ci/setup.sh puts it
in .venv). Exit: 0 all agree, 1 a disagreement, 2 usage, 77 no such torch."""
import argparse
import json
import os
import re
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lossfuzz_json  # noqa: E402

try:
    import torch
    import torch.nn.functional as F
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_modules import module_db
    from torch_cases import tensor_json
except Exception as exc:  # ImportError, or an older torch's missing names
    print("SKIP: PyTorch's OpInfo inputs need torch 2.15 and expecttest: %s" % exc)
    sys.exit(77)

OPS = {"nn.functional.linear_cross_entropy": "linear_cross_entropy",
       "nn.functional.multi_margin_loss": "multi_margin_loss"}
DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.float16)
CHUNKED = ("acc_policy", "chunking_method", "batch_chunk_size", "acc_dtype", "allow_retain_graph")
DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64", torch.float16: "float16",
               torch.bfloat16: "bfloat16", torch.int32: "int32"}


class Unexpressible(Exception):
    """A call a case cannot hold: its reason is the tally's key."""


def tensor(t, what):
    if not isinstance(t, torch.Tensor):
        raise Unexpressible("%s is no tensor (%s)" % (what, type(t).__name__))
    if t.dtype not in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32,
                       torch.uint8, torch.bool):
        raise Unexpressible("%s of dtype %s" % (what, t.dtype))
    return tensor_json(t.detach().contiguous())


def chunked_options(options):
    """LinearCrossEntropyOptions as the case's five options (each given: options= is asked for)."""
    out = {}
    for field in CHUNKED:
        v = getattr(options, field)
        if field == "acc_dtype":
            v = None if v is None else DTYPE_NAMES.get(v, str(v))
        elif field == "allow_retain_graph":
            v = int(bool(v))
        elif field == "batch_chunk_size" and v is None:
            continue  # None: not given (the case's 0)
        out[field] = v
    return out


def case_of(loss, args, kwargs, grad):
    """The JSON case of F.<loss>(*args, **kwargs); Unexpressible where it cannot hold it."""
    names = ("input", "linear_weight", "target") if loss == "linear_cross_entropy" else ("input", "target")
    if len(args) != len(names):
        raise Unexpressible("%d positional arguments" % len(args))
    doc = {"loss": loss}
    for name, t in zip(names, args):
        doc[name] = tensor(t, name)
    for k, v in kwargs.items():
        if k in ("weight", "linear_bias"):
            if v is not None:
                doc[k] = tensor(v, k)
        elif k == "options":
            if v is not None:
                doc.update(chunked_options(v))
        elif k in ("reduction", "ignore_index", "label_smoothing", "p", "margin"):
            if v is not None:
                doc[k] = v
        else:
            raise Unexpressible("keyword %s" % k)
    if isinstance(args[-1], torch.Tensor) and args[-1].requires_grad:
        raise Unexpressible("a target that requires grad")
    if grad and loss == "linear_cross_entropy" and args[0].is_floating_point():
        doc["backward"] = {"seed": 1, "upstream": "random", "input_requires_grad": True,
                           "linear_weight_requires_grad": True, "linear_bias_requires_grad": "linear_bias" in doc}
    return doc


def samples(dtypes):
    """(origin, loss, args, kwargs, error_regex or None, grad) of every input of the two ops."""
    for op in op_db:
        loss = OPS.get(op.name)
        if not loss:
            continue
        label = op.name + ("." + op.variant_test_name if op.variant_test_name else "")
        for dtype in dtypes:
            if dtype not in op.supported_dtypes("cpu"):
                continue
            for s in op.sample_inputs("cpu", dtype, requires_grad=False):
                yield "opinfo " + label, loss, (s.input,) + tuple(s.args), dict(s.kwargs), None, True
        for e in op.error_inputs(torch.device("cpu")):
            s = e.sample_input
            yield "error " + label, loss, (s.input,) + tuple(s.args), dict(s.kwargs), e.error_regex, False
    for m in module_db:
        if m.module_cls not in (torch.nn.LinearCrossEntropyLoss, torch.nn.MultiMarginLoss):
            continue
        for dtype in [d for d in dtypes if d in (torch.float32, torch.float64)]:
            for mi in m.module_inputs_func(m, device="cpu", dtype=dtype, requires_grad=False, training=True):
                yield ("module " + m.module_cls.__name__,) + module_call(m.module_cls, mi)


def module_call(cls, mi):
    """A module input as the functional call the module makes (its parameters as tensors)."""
    ctor, fwd = mi.constructor_input, mi.forward_input
    try:
        module = cls(*ctor.args, **ctor.kwargs)
    except Exception as exc:  # noqa: BLE001 - a constructor's refusal: not a call
        return "multi_margin_loss", (), {"_refused": exc}, None, False
    if cls is torch.nn.MultiMarginLoss:
        kwargs = {"p": module.p, "margin": module.margin, "weight": module.weight, "reduction": module.reduction}
        return "multi_margin_loss", tuple(fwd.args), kwargs, None, False
    lin, shape = module.linear, (module.num_classes,) + tuple(module.out_features)  # as its forward reshapes them
    bias = None if lin.bias is None else lin.bias.detach().reshape(shape)
    kwargs = {"linear_bias": bias, "weight": module.weight, "ignore_index": module.ignore_index,
              "reduction": module.reduction, "label_smoothing": module.label_smoothing, "options": module.options}
    weight = lin.weight.detach().reshape(shape + (lin.in_features,))
    return "linear_cross_entropy", (fwd.args[0], weight, fwd.args[1]), kwargs, None, True


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lossfuzz", required=True)
    p.add_argument("--keep", help="write the cases here and keep them")
    p.add_argument("--quick", action="store_true", help="float32 inputs only (CTest's conformance/opinfo)")
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args(argv)
    os.environ["LOSSFUZZ_PYTHON"] = sys.executable  # --torch runs the torch whose inputs these are
    if not os.access(a.lossfuzz, os.X_OK):
        print("opinfo_cases: no lossfuzz binary at %s" % a.lossfuzz)
        return 2
    if not hasattr(F, "linear_cross_entropy"):
        print("SKIP: torch %s has no F.linear_cross_entropy (2.15's)" % torch.__version__)
        return 77
    work = a.keep or tempfile.mkdtemp(prefix="lossfuzz-opinfo-")
    os.makedirs(work, exist_ok=True)
    torch.manual_seed(0)
    cannot, cases = Counter(), {}
    for i, (origin, loss, args, kwargs, regex, grad) in enumerate(samples((torch.float32,) if a.quick else DTYPES)):
        try:
            if "_refused" in kwargs:
                raise Unexpressible("the module's constructor refuses it")
            doc = case_of(loss, args, kwargs, grad)
        except Unexpressible as exc:
            cannot["%s: %s" % (origin.split(" ")[0], exc)] += 1
            continue
        doc["note"] = origin
        path = os.path.join(work, "%05d.json" % i)
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        cases[path] = (origin, regex)
    recs = lossfuzz_json.records(a.lossfuzz, sorted(cases), a.verbose, options=("--torch",))
    tally, bad = Counter(), []
    for path, (origin, regex) in sorted(cases.items()):
        r = recs.get(path, {})
        kind = origin.split(" ")[0]
        s, t = r.get("spec") or {}, r.get("torch") or {}
        why = []
        if r.get("_problem") or r.get("verdict") == "unusable":
            why.append("unusable: %s" % (r.get("message") or r.get("detail")))
        elif r.get("torch_known_id"):  # torch's answer is one of lossfuzz's listed differences
            tally[(kind, "known " + r["torch_known_id"])] += 1
            continue
        else:
            if r.get("verdict") != "pass":
                why.append("%s: %s" % (r.get("finding"), r.get("detail")))
            if s.get("outcome") == "host_error" and s.get("message") != t.get("message"):
                why.append("message: spec %r, torch %r" % (s.get("message"), t.get("message")))
            if regex and not re.search(regex, s.get("message") or ""):
                why.append("the spec's message %r is not PyTorch's test's %r" % (s.get("message"), regex))
        tally[(kind, "agree" if not why else "disagree")] += 1
        if why:
            bad.append((path, origin, why))
    print("PyTorch %s's own inputs of linear_cross_entropy and multi_margin_loss as lossfuzz cases" % torch.__version__)
    for kind in ("opinfo", "error", "module"):
        n_ok, n_bad = tally[(kind, "agree")], tally[(kind, "disagree")]
        known = sorted((k[1][6:], n) for k, n in tally.items() if k[0] == kind and k[1].startswith("known "))
        print("  %-7s %5d cases: %5d agree (outcome, class, message), %d disagree, %d a known difference%s" % (
            kind, n_ok + n_bad + sum(n for _, n in known), n_ok, n_bad, sum(n for _, n in known),
            " (%s)" % ", ".join("%s %d" % kn for kn in known) if known else ""))
    print("  not expressible as a case: %d" % sum(cannot.values()))
    for why, n in cannot.most_common():
        print("    %5d  %s" % (n, why))
    for path, origin, why in bad[:40]:
        print("DISAGREE %s (%s): %s" % (path, origin, "; ".join(why)))
    if not a.keep:
        for path in cases:
            os.unlink(path)
        os.rmdir(work)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
