"""One comparison of what PyTorch did with a case against what lossfuzz says
(`lossfuzz check --json`), shared by every conformance run: the CPU-torch run
(ci/conformance/cpu_torch.py) and the recorded CUDA set (ci/conformance/recorded_set.py).

PyTorch's side is a dict: {"outcome": "ok"|"host_error"|"device_assert",
"value": number or list (non-finite as "nan"/"inf"/"-inf"), "dtype", and for
asserts "kernel" and "assertion"}. Values are NaN-safe and judged with a
relative tolerance by the coarsest dtype involved, against the larger of
|PyTorch's value| and the spec's `scale` (the magnitude of the terms behind it):
summation order and the rounding of intermediates differ between builds."""
import math

# (rtol, atol) like torch.testing's defaults; the CPU run passes looser ones.
TORCH_TESTING = {"float64": (1e-7, 1e-7), "float32": (1e-5, 1e-5),
                 "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5)}


def number(v):
    """A JSON number or one of the strings "nan", "inf", "-inf"."""
    if isinstance(v, bool):
        raise ValueError("not a number")
    return float(v) if not isinstance(v, str) else {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]


UNDECIDED = -1.0  # a spec scale: the value depends on PyTorch's order of operations (LF_SCALE_UNDECIDED)


def close(a, b, rtol, atol, scale=0.0):
    """NaN-safe: NaN only matches NaN, an infinity only itself; anything
    matches where the spec's scale says it does not decide."""
    try:
        a, b = number(a), number(b)
        scale = number(scale) if scale is not None else 0.0
    except (ValueError, KeyError, TypeError):
        return False
    if scale == UNDECIDED:
        return True
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    scale = scale if math.isfinite(scale) else 0.0
    return abs(a - b) <= atol + rtol * max(abs(a), scale)


def values_close(expected, got, tol, scale=None):
    """expected, got: a number or a flat list each; scale: the spec's (number or list)."""
    expected = expected if isinstance(expected, list) else [expected]
    got = got if isinstance(got, list) else [got]
    scale = scale if isinstance(scale, list) else [scale] * len(got)
    return (len(got) == len(expected) == len(scale)
            and all(close(a, b, *tol, s) for a, b, s in zip(expected, got, scale)))


def tolerance(dtypes, table):
    """(rtol, atol) of the coarsest of the dtypes the table knows."""
    known = [table[d] for d in dtypes if d in table]
    return max(known, key=lambda t: t[0]) if known else table["float64"]


def compare(torch_out, rec, input_dtype, table=TORCH_TESTING):
    """(flags, problems): flags say what agreed (None where it does not apply);
    problems are (kind, detail) pairs."""
    flags = dict(outcome=False, kernel=None, assertion=None, caught=None, false_alarm=None,
                 silent_caught=None, value=None, finding=False)
    if "_problem" in rec:
        return flags, [(rec["_problem"], rec.get("message", ""))]
    spec, ref, guard = (rec.get(k) or {} for k in ("spec", "reference", "guard"))
    problems = []
    flags["outcome"] = spec.get("outcome") == torch_out["outcome"]
    if not flags["outcome"]:
        problems.append(("outcome", "spec says %s" % spec.get("outcome")))
    elif torch_out["outcome"] == "device_assert" and "kernel" in torch_out:
        site = spec.get("assert") or {}
        flags["kernel"] = site.get("kernel") == torch_out["kernel"]
        flags["assertion"] = site.get("condition") == torch_out.get("assertion")
        if not flags["kernel"]:
            problems.append(("kernel", "spec says %s" % site.get("kernel")))
        if not flags["assertion"]:
            problems.append(("assertion", "spec says %s" % site.get("condition")))
    rejected = guard.get("outcome") == "rejected"
    if torch_out["outcome"] == "ok" and spec.get("silent"):
        # PyTorch returns a number that is not the loss asked for: the guard must reject it, under that name
        flags["silent_caught"] = rejected and guard.get("error") == spec["silent"]
        if not flags["silent_caught"]:
            problems.append(("silent_miss", "PyTorch silently miscomputes (%s); the guard: %s"
                             % (spec["silent"], guard.get("error") or "accepted")))
    elif torch_out["outcome"] == "ok":
        flags["false_alarm"] = rejected
        if rejected:
            problems.append(("false_alarm", "%s: %s" % (guard.get("error"), guard.get("message"))))
    else:
        flags["caught"] = rejected
        if not rejected:
            problems.append(("guard_miss", ""))
    if torch_out["outcome"] == "ok" and spec.get("outcome") != "ok":
        flags["value"] = False  # no value where PyTorch gave one
    elif torch_out["outcome"] == "ok":
        tol = tolerance([input_dtype, torch_out.get("dtype"), spec.get("tolerance_dtype")], table)
        sides = [("spec", spec), ("reference", ref)] + ([] if rejected else [("guard", guard)])
        wrong = [name for name, side in sides
                 if not values_close(torch_out["value"], side.get("value"), tol, spec.get("scale"))]
        flags["value"] = not wrong
        if wrong:
            problems.append(("value", "differs: %s (torch %s, spec %s)" % (", ".join(wrong), short(torch_out["value"]),
                                                                           short(spec.get("value")))))
    if rec.get("verdict") == "finding":
        flags["finding"] = True
        problems.append(("lossfuzz_finding", str(rec.get("finding"))))
    return flags, problems


def compare_grad(torch_grad, rec, input_dtype, table=TORCH_TESTING):
    """(flag, problems) for d input: PyTorch's autograd (torch_grad, a flat
    list, or None where its backward raised) against the spec's and each
    lossfuzz path's that computed the loss, the spec's scales as for values.
    flag is None where there is no gradient to compare."""
    spec_grad = rec.get("spec_grad")
    if torch_grad is None or not spec_grad or "upstream" not in rec:
        return None, []
    tol = tolerance([input_dtype, spec_grad.get("tolerance_dtype")], table)
    sides = [("spec", spec_grad.get("values"))]
    for name in ("reference", "guard"):
        grad = ((rec.get(name) or {}).get("grad") or {}).get("input") or {}
        if grad.get("state") == "ok":
            sides.append((name, grad.get("values")))
    wrong = [name for name, values in sides if not values_close(torch_grad, values, tol, spec_grad.get("scale"))]
    if not wrong:
        return True, []
    return False, [("grad", "d input differs: %s (torch %s, spec %s)" % (", ".join(wrong), short(torch_grad),
                                                                       short(spec_grad.get("values"))))]


def short(v, limit=80):
    text = str(v)
    return text if len(text) <= limit else text[:limit] + "..."
