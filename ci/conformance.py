#!/usr/bin/env python3
"""Conformance check of lossfuzz against PyTorch (CPU).

Generates random cases for F.cross_entropy, F.nll_loss and
F.binary_cross_entropy_with_logits, writes each one as a JSON case file holding
the exact values of its tensors, runs torch on it, runs
`lossfuzz check --json FILE...` over all files, and compares lossfuzz's
spec / reference / guard results with torch's outcome.

    "$(ci/find-python.sh)" ci/conformance.py --lossfuzz build/lossfuzz
        [--cases 2000] [--seed 1] [--workdir DIR] [--keep] [--verbose]
    "$(ci/find-python.sh)" ci/conformance.py --dry-run [--cases N] [--seed S]

Exit status: 0 no disagreements (outside KNOWN_DIFFERENCES), 1 some,
2 usage error or lossfuzz binary missing, 77 torch not importable (skipped).
Needs only the standard library, torch (Debian python3-torch 1.13) and numpy.
"""

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
    IMPORT_ERROR = None
except Exception as exc:  # ImportError, or OSError from a broken install
    IMPORT_ERROR = exc

# Documented torch-version differences: (predicate, reason). predicate(d) gets a
# Disagreement (d.kind, d.case, d.torch, d.record, d.detail) and returns True
# when `reason` explains it; such disagreements are not failures.
def _is_1d_ignored_mean(d):
    t, ign = d.case.tensors["target"], d.case.options.get("ignore_index", -100)
    return (d.kind == "value" and d.case.tensors["input"].dim() == 1 and t.numel() == 1
            and int(t.flatten()[0]) == ign and d.case.options.get("reduction", "mean") == "mean"
            and d.torch["value"] and math.isnan(d.torch["value"][0]))


def _is_1d_input_1d_target(d):
    return (d.kind in ("outcome", "false_alarm", "guard_miss", "error_class")
            and d.case.loss in (CE, NLL) and d.case.tensors["input"].dim() == 1
            and d.case.tensors["target"].dim() == 1
            and (d.case.loss == NLL  # for cross_entropy, equal shapes mean probabilities
                 or d.case.tensors["target"].shape != d.case.tensors["input"].shape))


def _is_empty_batch_dtype(d):
    inp, w = d.case.tensors["input"], d.case.tensors.get("weight")
    return (d.kind in ("outcome", "false_alarm", "guard_miss") and d.torch["outcome"] == "host_error"
            and d.torch["error"] in ("target_dtype", "weight_dtype") and inp.dim() >= 2 and inp.shape[0] == 0
            and d.record.get("spec", {}).get("outcome") == "ok")


def _is_int32_narrowing(d):
    spec = d.record.get("spec") or {}
    return (d.kind in ("outcome", "guard_miss", "false_alarm") and d.torch["outcome"] == "device_assert"
            and spec.get("outcome") == "ok" and spec.get("silent") == "label_truncated")


def _is_f16_sum_overflow(d):
    return (d.kind == "value" and d.torch["dtype"] == "float16" and torch.__version__ < "2"
            and d.case.options.get("reduction", "mean") in ("mean", "sum")
            and d.torch["value"] and math.isinf(d.torch["value"][0]))


def _is_bf16_spatial_log_softmax(d):
    inp = d.case.tensors["input"]
    return (d.kind == "value" and inp.dtype == torch.bfloat16 and inp.dim() >= 3
            and any(math.isinf(v) for v in d.torch["value"]))


KNOWN_DIFFERENCES = [
    (_is_1d_ignored_mean, "CUDA's nll_loss_forward_reduce_cuda_kernel_1d returns 0 for an ignored "
                          "target under mean; the CPU returns NaN (the spec models CUDA)"),
    (_is_1d_input_1d_target, "1-D input with a 1-D target: 2.x accepts shape [1] only, 1.13 accepts "
                             "[C] and rejects [1] unless C == 1 (the spec models 2.x)"),
    (_is_empty_batch_dtype, "an empty batch returns on CUDA before the kernels dispatch on the target's "
                            "and weight's dtypes (PyTorch 2.11, H100); the CPU checks them (the spec models CUDA)"),
    (_is_int32_narrowing, "CUDA's nll_loss2d_forward_kernel (spatial mean/sum) reads int64 labels as int32, "
                          "so 2^32+k is class k, no assert (PyTorch 2.11, H100); the CPU raises (the spec models CUDA)"),
    (_is_bf16_spatial_log_softmax, "torch 1.13's CPU bfloat16 log_softmax over the class dim "
                                        "of a spatial input returns inf at some positions (2.15 CPU "
                                        "gives the spec's finite values)"),
    (_is_f16_sum_overflow, "torch 1.13's CPU sums float16 in float16 and overflows; CUDA and the spec "
                           "accumulate in float32"),
]

# (rtol, atol) per dtype; a case uses the coarsest of its input dtype and the
# dtype of torch's result (BCE returns the target's dtype, e.g. float16).
TOLERANCES = {
    "float64": (1e-9, 1e-9),
    "float32": (1e-4, 1e-5),
    "bfloat16": (3e-2, 1e-2),
    "float16": (1e-2, 1e-3),
}

# An IndexError with this message is what CUDA reports as a device-side assert.
# torch 1.13 prints uint8 labels as characters when reduction="none"
# ("Target \x02 is out of bounds."), and labels >= 128 then give an IndexError
# with an empty message (invalid UTF-8); is_device_assert() accepts both.
DEVICE_ASSERT_RE = re.compile(r"Target (-?\d+|[\s\S]) is out of bounds")

# Host error message -> error class; ordered, first match wins. The optional
# third item is a condition on the case that must also hold.
ERROR_TABLE = [
    (r"is not a valid value for reduction", "reduction_invalid", None),
    (r"Dimension out of range|Expected 1 or more dimensions"
     r"|Dimension specified as \d+ but tensor has no dimensions", "input_dim", None),
    (r"Expected floating point type for target with class probabilities",
     "prob_target_dtype", None),
    (r"ignore_index is not supported for floating point target", "prob_ignore_index", None),
    (r"label_smoothing must be between", "label_smoothing_range", None),
    (r"Expected input batch_size", "batch_size_mismatch", None),
    (r"only batches of spatial targets supported|Expected target size|size mismatch"
     r"|0D or 1D target tensor expected"
     r"|input and target batch or spatial sizes don't match|multi-target not supported"
     r"|For 1D input, 1D target must have size 1",
     "target_shape", None),
    (r"expected scalar type Long but found|expected target dtype", "target_dtype", None),
    (r"gather\(\): Expected dtype int(32/int)?64 for index", "target_dtype",  # uint8 + label_smoothing
     lambda c: c.dtype("target") != "int64"),
    (r"not implemented for 'Int'", "target_dtype",
     lambda c: c.dtype("target") == "int32"),
    (r"weight tensor should be defined either for all", "weight_shape", None),
    (r"expected scalar type (Float|Double|Half|BFloat16) but found", "weight_dtype",
     lambda c: c.dtype("weight") not in (None, c.dtype("input"))),
    (r"Target size .* must be the same as input size", "bce_target_shape", None),
    (r"result type .* can't be cast to the desired output type", "bce_target_dtype", None),
    (r"Subtraction, the `-` operator, with two bool tensors", "bce_target_dtype",
     lambda c: c.loss == BCE),
    (r"The size of tensor a .* must match the size of tensor b"
     r"|output with shape .* doesn't match the broadcast shape", "broadcast", None),
    (r"not implemented for", "unsupported", None),
]

CE, NLL, BCE = "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits"
CHUNK_FILES = 500          # case files per lossfuzz invocation
MAX_PRINTED = 40           # disagreements printed in full
LOSSFUZZ_TIMEOUT_S = 600   # per invocation

# Generator mixes: (value, weight).
LOSS_MIX = [(CE, 45), (NLL, 25), (BCE, 30)]
SCENARIO_MIX = {CE: [("ok", 41), ("oob", 37), ("host", 22)],
                NLL: [("ok", 41), ("oob", 37), ("host", 22)],
                BCE: [("ok", 57), ("host", 43)]}
RANK_MIX = [(0, 2), (1, 14), (2, 45), (3, 18), (4, 15), (5, 6)]
INPUT_DTYPE_MIX = [("float32", 45), ("float64", 25), ("bfloat16", 22), ("float16", 5)]
FLOAT_DTYPES = ["float32", "float64", "bfloat16", "float16"]
REDUCTION_MIX = [(None, 25), ("mean", 30), ("sum", 25), ("none", 20)]
SMOOTHING_MIX = [(None, 50), (0.0, 20), (0.1, 12), (0.5, 8), (1.0, 5), (-0.1, 5)]
SPECIALS = [math.inf, -math.inf, math.nan, 65504.0, -65504.0]


def log_softmax(x, axis):
    """numpy log_softmax; inf/nan inputs give nan/inf as they may."""
    with np.errstate(all="ignore"):
        m = x.max(axis=axis, keepdims=True)
        return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def torch_dtype(name):
    return getattr(torch, {"bool": "bool"}.get(name, name))


def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


# ----------------------------------------------------------------------------
# Cases


class Case:
    """One case: loss name, its tensors (input, target, weight?, pos_weight?),
    scalar options as PyTorch names them, and the case file's path."""

    def __init__(self, loss, tensors, options, meta):
        self.loss, self.tensors, self.options, self.meta = loss, tensors, options, meta
        self.path = None

    def dtype(self, name):
        t = self.tensors.get(name)
        return None if t is None else dtype_name(t)

    def describe(self):
        parts = ["%s %s%s" % (k, dtype_name(t), list(t.shape)) for k, t in self.tensors.items()]
        parts += ["%s=%r" % kv for kv in self.options.items()]
        return "%s  %s" % (self.loss, "  ".join(parts))

    def to_json(self):
        doc = {"loss": self.loss}
        doc.update((k, tensor_json(t)) for k, t in self.tensors.items())
        doc.update(self.options)
        return doc


def encode_float(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def decode_float(v):
    return float(v) if isinstance(v, str) else v


def tensor_json(t):
    """Exact values of t: floats via float64, ints as ints, bool as 0/1."""
    if t.is_floating_point():
        values = [encode_float(v) for v in t.double().flatten().tolist()]
    else:
        values = t.to(torch.int64).flatten().tolist()
    return {"dtype": dtype_name(t), "shape": list(t.shape), "values": values}


def tensor_from_json(doc):
    """Inverse of tensor_json (used by the --dry-run round-trip check)."""
    values = [decode_float(v) for v in doc["values"]]
    base = torch.float64 if doc["dtype"] in FLOAT_DTYPES else torch.int64
    return torch.tensor(values, dtype=base).to(torch_dtype(doc["dtype"])).reshape(doc["shape"])


def write_case(case):
    with open(case.path, "w") as f:
        json.dump(case.to_json(), f, separators=(",", ":"))
        f.write("\n")


# ----------------------------------------------------------------------------
# Generator


class CaseGenerator:
    """Deterministic random cases: a valid base case per loss, then either left
    alone (ok), given an out-of-bounds label (device assert) or given one
    host-error mutation. torch has the last word on each outcome."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.np = np.random.default_rng(seed)

    def pick(self, mix):
        values, weights = zip(*mix)
        return self.rng.choices(values, weights)[0]

    def chance(self, p):
        return self.rng.random() < p

    def case(self):
        loss = self.pick(LOSS_MIX)
        scenario = self.pick(SCENARIO_MIX[loss])
        case = self.bce_case() if loss == BCE else self.class_case(loss, scenario == "oob")
        if scenario == "oob":
            self.inject_bad_label(case)
        elif scenario == "host":
            mutations = BCE_MUTATIONS if loss == BCE else CLASS_MUTATIONS
            self.rng.choice(mutations)(self, case)
        return case

    # -- tensors -------------------------------------------------------------

    def floats(self, values, dtype):
        return torch.from_numpy(np.array(values, dtype=np.float64)).to(torch_dtype(dtype))

    def ints(self, values, dtype):
        return torch.from_numpy(np.asarray(values, dtype=np.int64)).to(torch_dtype(dtype))

    def logits(self, shape):
        """randn, sometimes scaled, offset by 1e4 or salted with inf/nan/65504."""
        x = self.np.standard_normal(shape) * self.pick([(1.0, 8), (5.0, 1), (30.0, 1)])
        if x.size and self.chance(0.12):
            flat = x.reshape(-1)
            for _ in range(self.rng.randint(1, 3)):
                flat[self.rng.randrange(flat.size)] = self.rng.choice(SPECIALS)
        elif self.chance(0.05):
            x = x + 1e4
        return x

    def label_array(self, shape, classes, ignore):
        labels = self.np.integers(0, classes, size=shape)
        if labels.size and self.chance(0.3):
            flat = labels.reshape(-1)
            flat[self.np.random(flat.size) < 0.3] = ignore
        return labels

    def prob_array(self, shape, class_dim):
        kind = self.pick([("softmax", 70), ("uniform", 15), ("mask", 15)])
        if kind == "uniform":
            return self.np.random(shape)
        if kind == "mask":
            return (self.np.random(shape) < 0.5).astype(np.float64)
        z = np.exp(self.np.standard_normal(shape))
        return z / z.sum(axis=class_dim, keepdims=True)

    def float_target_dtype(self, input_dtype):
        return input_dtype if self.chance(0.6) else self.rng.choice(FLOAT_DTYPES)

    # -- base cases ----------------------------------------------------------

    def class_case(self, loss, index_only):
        """Valid cross_entropy / nll_loss case of a random rank."""
        rank, classes = self.pick(RANK_MIX), self.rng.randint(1, 9)
        batch = 0 if self.chance(0.04) else self.rng.randint(1, 6)
        spatial = [self.rng.randint(1, 4) for _ in range(rank - 2)]
        shape = [] if rank == 0 else [classes] if rank == 1 else [batch, classes] + spatial
        class_dim = 0 if rank == 1 else 1
        dtype = self.pick(INPUT_DTYPE_MIX)
        x = self.logits(shape)
        if loss == NLL and rank >= 1 and self.chance(0.6):
            x = log_softmax(x, class_dim)
        tensors, options = {"input": self.floats(x, dtype)}, {}
        prob = loss == CE and rank >= 1 and not index_only and self.chance(0.25)
        if prob:
            tensors["target"] = self.floats(self.prob_array(shape, class_dim),
                                            self.float_target_dtype(dtype))
            if self.chance(0.2):
                options["ignore_index"] = -100
        else:
            ignore = self.pick([(None, 40), (-100, 15), (-1, 10), ("class", 20), (255, 15)])
            if ignore == "class":
                ignore = self.rng.randrange(classes)
            if ignore is not None:
                options["ignore_index"] = ignore
            tshape = shape[:class_dim] + shape[class_dim + 1:]
            labels = self.label_array(tshape, classes, -100 if ignore is None else ignore)
            small = rank <= 2 and labels.size and 0 <= labels.min() and labels.max() <= 255
            tdtype = "uint8" if small and self.chance(0.08) else "int64"
            tensors["target"] = self.ints(labels, tdtype)
        if self.chance(0.3):
            tensors["weight"] = self.floats(self.np.uniform(0.0, 2.0, classes), dtype)
        self.common_options(options, smoothing=loss == CE)
        return Case(loss, tensors, options, {"classes": classes, "prob": prob, "rank": rank})

    def bce_case(self):
        """Valid binary_cross_entropy_with_logits case (broadcastable weights)."""
        rank, last = self.pick(RANK_MIX), self.rng.randint(1, 9)
        batch = 0 if self.chance(0.04) else self.rng.randint(1, 6)
        shape = ([] if rank == 0 else [last] if rank == 1 else
                 [batch] + [self.rng.randint(1, 4) for _ in range(rank - 2)] + [last])
        dtype = self.pick(INPUT_DTYPE_MIX)
        tdtype = self.float_target_dtype(dtype)
        y = self.prob_array(shape, -1) if rank else self.np.random(shape)
        tensors = {"input": self.floats(self.logits(shape), dtype), "target": self.floats(y, tdtype)}
        if self.chance(0.25):
            wshape = self.broadcastable(shape)
            wdtype = dtype if self.chance(0.8) else self.rng.choice(FLOAT_DTYPES)
            tensors["weight"] = self.floats(self.np.uniform(0.0, 2.0, wshape), wdtype)
        if self.chance(0.3):
            pshape = self.pick([(shape[-1:], 6), ([1], 2), (shape, 2)])
            tensors["pos_weight"] = self.floats(self.np.uniform(0.5, 3.0, pshape), dtype)
        options = {}
        self.common_options(options, smoothing=False)
        return Case(BCE, tensors, options, {"rank": rank})

    def broadcastable(self, shape):
        """A shape that broadcasts to `shape` without growing it."""
        kind = self.pick([("full", 3), ("suffix", 3), ("ones", 2), ("one", 1)])
        if kind == "full" or not shape:
            return list(shape)
        if kind == "suffix":
            return list(shape[self.rng.randrange(len(shape)):])
        if kind == "ones":
            return [d if self.chance(0.5) else 1 for d in shape]
        return [1]

    def common_options(self, options, smoothing):
        reduction = self.pick(REDUCTION_MIX)
        if reduction is not None:
            options["reduction"] = reduction
        ls = self.pick(SMOOTHING_MIX) if smoothing else None
        if ls is not None:
            options["label_smoothing"] = ls

    # -- device asserts --------------------------------------------------------

    def inject_bad_label(self, case):
        """Put one out-of-bounds, non-ignored label into a class-index target."""
        target, classes = case.tensors["target"], case.meta["classes"]
        if case.meta["prob"] or target.numel() == 0:
            return
        ignore = case.options.get("ignore_index", -100)
        labels = target.to(torch.int64).flatten().clone()
        pos = self.rng.randrange(labels.numel())
        kind = self.pick([("C", 25), ("one_based", 15), (-1, 15), (-100, 10), (255, 10),
                          (2 ** 31, 8), (2 ** 32 + 3, 7), ("C+", 10)])
        if kind == "one_based":
            labels[pos] = classes - 1
            labels = torch.where(labels == ignore, labels, labels + 1)
        else:
            bad = {"C": classes, "C+": classes + self.rng.randint(1, 5)}.get(kind, kind)
            labels[pos] = classes + 1 if bad == ignore or 0 <= bad < classes else bad
        keep_u8 = target.dtype == torch.uint8 and int(labels.min()) >= 0 and int(labels.max()) <= 255
        case.tensors["target"] = labels.reshape(target.shape).to(target.dtype if keep_u8 else torch.int64)


# -- host-error mutations (one per "host" case) --------------------------------

def mut_reduction(g, case):
    case.options["reduction"] = g.rng.choice(["avg", "batchmean", "MEAN", ""])


def mut_rank0(g, case):
    case.tensors = {"input": g.floats(g.np.standard_normal(()), case.dtype("input"))}
    case.tensors["target"] = (g.ints(0, "int64") if g.chance(0.6)
                              else g.floats(g.np.random(()), "float32"))


def mut_target_dtype(g, case):
    target = case.tensors["target"]
    if case.meta["prob"]:
        case.tensors["target"] = target.double().round().to(torch.int64)
        return
    choices = ["int32", "bool", "float32", "float64", "bfloat16", "float16"]
    if case.meta["rank"] >= 3:
        choices.append("uint8")
    case.tensors["target"] = target.to(torch_dtype(g.rng.choice(choices)))


def mut_one_hot(g, case):
    x = case.tensors["input"]
    if x.dim() == 0:
        return mut_target_dtype(g, case)
    cls = 0 if x.dim() == 1 else 1
    idx = torch.from_numpy(g.np.integers(0, x.shape[cls], size=list(x.shape))).argmax(dim=cls)
    hot = F.one_hot(idx, x.shape[cls])
    case.tensors["target"] = hot if x.dim() == 1 else hot.movedim(-1, 1).contiguous()


def mut_prob_ignore(g, case):
    """Probability target together with a non-default ignore_index."""
    x = case.tensors["input"]
    if case.loss != CE or x.dim() == 0:
        return mut_target_shape(g, case)
    probs = g.prob_array(list(x.shape), 0 if x.dim() == 1 else 1)
    case.tensors["target"] = g.floats(probs, g.float_target_dtype(dtype_name(x)))
    case.meta["prob"] = True
    case.options["ignore_index"] = g.rng.choice([-1, 0, 255, case.meta["classes"] - 1])


def mut_label_smoothing(g, case):
    if case.loss != CE:
        return mut_weight(g, case)
    case.options["label_smoothing"] = g.rng.choice([1.5, 2.0, 1.0001])


def mut_target_shape(g, case):
    """Wrong batch size, extra trailing dim, wrong spatial size, or (1,) vs 0-D."""
    t = case.tensors["target"]
    kind = g.rng.choice(["batch", "extra", "spatial"]) if t.dim() >= 1 else "one"
    if case.meta["prob"]:
        kind = "extra"
    if kind == "one":
        case.tensors["target"] = t.reshape(1)
    elif kind == "extra":
        case.tensors["target"] = t.unsqueeze(-1)
    else:
        dim = 0 if kind == "batch" or t.dim() == 1 else g.rng.randrange(1, t.dim())
        sizes = list(t.shape)
        sizes[dim] = sizes[dim] + 1 if sizes[dim] <= 1 or g.chance(0.5) else sizes[dim] - 1
        case.tensors["target"] = g.ints(g.np.integers(0, case.meta["classes"], sizes), "int64")


def mut_weight(g, case):
    """Weight of the wrong numel or of another dtype."""
    classes, dtype = case.meta["classes"], case.dtype("input")
    if g.chance(0.5):
        n = g.rng.choice([classes + 1, max(classes - 1, 0), classes * 2])
        case.tensors["weight"] = g.floats(g.np.uniform(0, 2, n), dtype)
    else:
        other = g.rng.choice([d for d in FLOAT_DTYPES + ["int64"] if d != dtype])
        case.tensors["weight"] = g.ints(g.np.integers(0, 3, classes), other) if other == "int64" \
            else g.floats(g.np.uniform(0, 2, classes), other)


def mut_bce_target_shape(g, case):
    t = case.tensors["target"]
    sizes = list(t.shape)
    kind = g.rng.choice(["extra", "drop", "size"]) if sizes else "extra"
    if kind == "extra":
        sizes.append(1)
    elif kind == "drop":
        sizes.pop()
    else:
        sizes[-1] += 1
    case.tensors["target"] = g.floats(g.np.random(sizes), dtype_name(t))


def mut_bce_target_dtype(g, case):
    dtype = torch_dtype(g.rng.choice(["int64", "int32", "uint8", "bool"]))
    case.tensors["target"] = case.tensors["target"].double().round().to(dtype)


def mut_bce_broadcast(g, case):
    """pos_weight / weight whose last dim does not match the input's."""
    shape = list(case.tensors["input"].shape) or [1]
    bad = shape[:-1] + [shape[-1] + g.rng.randint(1, 3)]
    name = g.rng.choice(["weight", "pos_weight"])
    case.tensors[name] = g.floats(g.np.uniform(0.5, 2.0, bad[-1:] if g.chance(0.6) else bad),
                                  case.dtype("input"))


CLASS_MUTATIONS = [mut_reduction, mut_rank0, mut_target_dtype, mut_target_dtype, mut_one_hot,
                   mut_prob_ignore, mut_label_smoothing, mut_target_shape, mut_target_shape,
                   mut_weight, mut_weight]
BCE_MUTATIONS = [mut_reduction, mut_bce_target_shape, mut_bce_target_shape,
                 mut_bce_target_dtype, mut_bce_target_dtype, mut_bce_broadcast, mut_bce_broadcast]


# ----------------------------------------------------------------------------
# torch side

LOSS_FNS = None  # filled by main() once torch is imported


def is_device_assert(case, exc, message):
    """IndexError for an out-of-bounds label (see DEVICE_ASSERT_RE)."""
    if not isinstance(exc, IndexError):
        return False
    return bool(DEVICE_ASSERT_RE.search(message)) or (
        message == "" and case.dtype("target") == "uint8")


def classify_error(case, exc):
    """Outcome dict for an exception raised by torch."""
    name, message = type(exc).__name__, str(exc).strip()
    outcome = {"exception": name, "message": message, "value": None, "dtype": None}
    if is_device_assert(case, exc, message):
        outcome.update(outcome="device_assert", error=None)
        return outcome
    for pattern, error, condition in ERROR_TABLE:
        if re.search(pattern, message) and (condition is None or condition(case)):
            break
    else:
        error = "unmapped:" + name
    outcome.update(outcome="unsupported" if error == "unsupported" else "host_error", error=error)
    return outcome


def run_torch(case):
    """Run the torch function for the case; return its outcome dict."""
    kwargs = {k: v for k, v in case.tensors.items() if k in ("weight", "pos_weight")}
    kwargs.update(case.options)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = LOSS_FNS[case.loss](case.tensors["input"], case.tensors["target"], **kwargs)
    except Exception as exc:  # torch raises RuntimeError, ValueError, IndexError, ...
        return classify_error(case, exc)
    return {"outcome": "ok", "error": None, "exception": None, "message": None,
            "value": result.double().flatten().tolist(), "dtype": dtype_name(result)}


def roundtrip_errors(cases):
    """Paths of case files whose JSON does not reproduce the tensors bit for bit."""
    bad = []
    for case in cases:
        with open(case.path) as f:
            doc = json.load(f)
        for name, t in case.tensors.items():
            back = tensor_from_json(doc[name])
            same = back.dtype == t.dtype and back.shape == t.shape and torch.equal(
                back.double().nan_to_num(7.0), t.double().nan_to_num(7.0)) and torch.equal(
                back.double().isnan(), t.double().isnan())
            if not same:
                bad.append("%s (%s)" % (case.path, name))
    return bad


# ----------------------------------------------------------------------------
# lossfuzz side


def lossfuzz_invoke(binary, files):
    """Run `lossfuzz check --json` on files: (rc, {realpath: record}, stderr)."""
    try:
        proc = subprocess.run([binary, "check", "--json"] + files, capture_output=True,
                              text=True, timeout=LOSSFUZZ_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, {}, "timed out after %ds" % LOSSFUZZ_TIMEOUT_S
    records = {}
    for line in proc.stdout.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict) and "file" in rec:
            records[os.path.realpath(str(rec["file"]))] = rec
    return proc.returncode, records, proc.stderr.strip()


def lossfuzz_records(binary, files, verbose):
    """{path: record} for all files; failures become {"_problem": kind, ...}."""
    out = {}
    for start in range(0, len(files), CHUNK_FILES):
        chunk = files[start:start + CHUNK_FILES]
        rc, records, stderr = lossfuzz_invoke(binary, chunk)
        if verbose:
            print("lossfuzz: files %d..%d rc=%s" % (start, start + len(chunk) - 1, rc))
        if rc in (0, 1):
            for path in chunk:
                out[path] = records.get(os.path.realpath(path)) or {
                    "_problem": "missing", "message": "no output line (rc=%s) %s" % (rc, stderr)}
            continue
        for path in chunk:  # rc 2 or a crash: find the culprit(s) one by one
            rc1, recs1, err1 = lossfuzz_invoke(binary, [path])
            rec = recs1.get(os.path.realpath(path))
            if rc1 in (0, 1) and rec:
                out[path] = rec
            else:
                kind = "unusable" if rc1 == 2 else "crash"
                out[path] = {"_problem": kind, "message": "rc=%s %s" % (rc1, err1)}
    return out


# ----------------------------------------------------------------------------
# comparison


class Disagreement:
    def __init__(self, kind, case, torch_out, record, detail=""):
        self.kind, self.case, self.torch, self.record, self.detail = \
            kind, case, torch_out, record, detail
        self.known = None  # reason string when matched by KNOWN_DIFFERENCES


def tolerance(case, torch_out, spec):
    """(rtol, atol) of the coarsest dtype among input, torch's result and the
    dtypes the spec says the values passed through (tolerance_dtype)."""
    names = [case.dtype("input"), torch_out["dtype"], spec.get("tolerance_dtype")]
    return max((TOLERANCES[n] for n in names if n in TOLERANCES), key=lambda t: t[0])


def close(a, b, rtol, atol, scale=0.0):
    """NaN-safe closeness of one torch value a and one lossfuzz value b; the
    tolerance grows with the magnitude of the terms behind the value (the
    spec's `scale`), since summation order and rounding of intermediates
    differ between PyTorch builds."""
    if not isinstance(b, (int, float, str)) or isinstance(b, bool):
        return False
    try:
        b = decode_float(b)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    scale = decode_float(scale) if scale is not None else 0.0
    scale = scale if math.isfinite(scale) else 0.0
    return abs(a - b) <= atol + rtol * max(abs(a), scale)


def values_close(expected, got, tol, scale=None):
    """expected: torch's flat list; got: lossfuzz number or flat list; scale:
    the spec's term magnitudes (number or list), or None."""
    got = got if isinstance(got, list) else [got]
    scale = scale if isinstance(scale, list) else [scale] * len(got)
    return (len(got) == len(expected) == len(scale)
            and all(close(a, b, *tol, s) for a, b, s in zip(expected, got, scale)))


def compare_case(case, tout, rec):
    """(flags, disagreements) for one supported case; flags feed the summary."""
    flags = dict(outcome=False, error_class=None, caught=None, false_alarm=None,
                 value=None, finding=False)
    if "_problem" in rec:
        return flags, [Disagreement(rec["_problem"], case, tout, rec, rec.get("message", ""))]
    spec, ref, guard = (rec.get(k) or {} for k in ("spec", "reference", "guard"))
    found = []
    if tout["outcome"] == "host_error" and tout["error"].startswith("unmapped:"):
        found.append(Disagreement("unmapped", case, tout, rec, "torch error not in ERROR_TABLE"))
    flags["outcome"] = spec.get("outcome") == tout["outcome"]
    if not flags["outcome"]:
        found.append(Disagreement("outcome", case, tout, rec))
    elif tout["outcome"] == "host_error":
        flags["error_class"] = spec.get("error") == tout["error"]
        if not flags["error_class"] and not tout["error"].startswith("unmapped:"):
            found.append(Disagreement("error_class", case, tout, rec))
    rejected = guard.get("outcome") == "rejected"
    if tout["outcome"] == "ok":
        flags["false_alarm"] = rejected
        if rejected:
            found.append(Disagreement("false_alarm", case, tout, rec))
    else:
        flags["caught"] = rejected
        if not rejected:
            found.append(Disagreement("guard_miss", case, tout, rec))
    if tout["outcome"] == "ok" and spec.get("outcome") == "ok":
        tol = tolerance(case, tout, spec)
        parts = [("spec", spec), ("reference", ref)] + ([] if rejected else [("guard", guard)])
        wrong = [n for n, side in parts
                 if not values_close(tout["value"], side.get("value"), tol, spec.get("scale"))]
        flags["value"] = not wrong
        if wrong:
            found.append(Disagreement("value", case, tout, rec, "differs: " + ", ".join(wrong)))
    if rec.get("verdict") == "finding":
        flags["finding"] = True
        found.append(Disagreement("lossfuzz_finding", case, tout, rec, str(rec.get("finding"))))
    return flags, found


def mark_known(disagreements):
    for d in disagreements:
        for predicate, reason in KNOWN_DIFFERENCES:
            if predicate(d):
                d.known = reason
                break


# ----------------------------------------------------------------------------
# reporting


def short(text, limit=220):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def fmt_value(v):
    if isinstance(v, list) and len(v) == 1:
        v = v[0]
    v = [encode_float(x) if isinstance(x, float) else x for x in v] if isinstance(v, list) \
        else encode_float(v) if isinstance(v, float) else v
    return short(json.dumps(v), 120)


def fmt_torch(t):
    if t["outcome"] == "ok":
        return "ok %s value=%s" % (t["dtype"], fmt_value(t["value"]))
    cls = "" if t["error"] is None else " " + t["error"]
    return "%s%s (%s: %s)" % (t["outcome"], cls, t["exception"], short(t["message"]))


def fmt_side(side):
    side = side or {}
    text = str(side.get("outcome"))
    if side.get("error"):
        text += "/" + str(side["error"])
    if side.get("value") is not None:
        text += " value=" + fmt_value(side["value"])
    if side.get("outcome") not in ("ok", None) and side.get("message"):
        text += " (%s)" % short(side["message"], 120)
    return text


def print_disagreement(d):
    print("[%s] %s%s" % (d.kind, d.case.path, "  -- " + d.detail if d.detail else ""))
    print("    %s" % d.case.describe())
    print("    torch:     %s" % fmt_torch(d.torch))
    if "_problem" not in d.record:
        for name in ("spec", "reference", "guard"):
            print("    %-10s %s" % (name + ":", fmt_side(d.record.get(name))))
    if d.known:
        print("    known difference: %s" % d.known)


def print_summary(n_cases, n_unsupported, stats, failures, known, keep):
    version = ".".join(torch.__version__.split(".")[:2])
    print("conformance: %d cases (%d unsupported by torch %s CPU, excluded)"
          % (n_cases, n_unsupported, version))
    for label, key in (("outcome agreement", "outcome"), ("host-error class", "error_class")):
        print("  %-21s %d/%d" % (label, stats[key, True], stats[key, True] + stats[key, False]))
    caught, missed = stats["caught", True], stats["caught", False]
    print("  %-21s %d/%d  (misses: %d)" % ("guard catches", caught, caught + missed, missed))
    alarms = stats["false_alarm", True]
    print("  %-21s %d/%d" % ("false alarms", alarms, alarms + stats["false_alarm", False]))
    print("  %-21s %d/%d" % ("value agreement", stats["value", True],
                             stats["value", True] + stats["value", False]))
    print("  %-21s %d" % ("lossfuzz findings", stats["finding", True]))
    print("  %-21s %d  (cases left out of the counts above; reasons below)"
          % ("known differences", len({d.case.path for d in known})))
    print("  %-21s %d" % ("disagreements", len(failures)))
    shown = failures[:MAX_PRINTED] + known[:max(0, MAX_PRINTED - len(failures))]
    if shown:
        print("\n%d disagreement(s) + %d known difference(s); showing %d:"
              % (len(failures), len(known), len(shown)))
        for d in shown:
            print_disagreement(d)
        if not keep:
            print("\n(case files were deleted; rerun with --keep to replay them "
                  "with `lossfuzz check FILE`)")


def print_distribution(cases, outcomes):
    """--dry-run report: torch outcome mix, error classes, unmapped messages."""
    total = len(cases)
    print("dry run: %d cases, torch %s" % (total, torch.__version__))
    counts = Counter(o["outcome"] for o in outcomes)
    for name in ("ok", "device_assert", "host_error", "unsupported"):
        print("  %-15s %5d  (%4.1f%%)" % (name, counts[name], 100.0 * counts[name] / max(total, 1)))
    print("by loss (ok / device_assert / host_error / unsupported):")
    for loss in (CE, NLL, BCE):
        c = Counter(o["outcome"] for k, o in zip(cases, outcomes) if k.loss == loss)
        print("  %-33s %4d %4d %4d %4d" % (loss, c["ok"], c["device_assert"],
                                            c["host_error"], c["unsupported"]))
    print("host-error classes:")
    for error, n in Counter(o["error"] for o in outcomes
                            if o["outcome"] == "host_error").most_common():
        print("  %-22s %5d" % (error, n))
    unmapped = Counter((o["error"], o["message"].splitlines()[0]) for o in outcomes
                       if o["outcome"] == "host_error" and o["error"].startswith("unmapped:"))
    for (error, message), n in unmapped.most_common():
        print("  UNMAPPED %dx %s: %s" % (n, error, short(message)))
    unsupported = Counter(short(o["message"], 90) for o in outcomes if o["outcome"] == "unsupported")
    print("unsupported messages:")
    for message, n in unsupported.most_common():
        print("  %5d  %s" % (n, message))
    return len(unmapped)


# ----------------------------------------------------------------------------
# main


def parse_args(argv):
    p = argparse.ArgumentParser(description="Compare lossfuzz with PyTorch on random cases.")
    p.add_argument("--lossfuzz", metavar="PATH", help="the lossfuzz binary")
    p.add_argument("--cases", type=int, default=2000, help="number of cases (default 2000)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    p.add_argument("--workdir", metavar="DIR", help="write case files here and keep them")
    p.add_argument("--keep", action="store_true", help="keep the case files")
    p.add_argument("--verbose", action="store_true", help="print every case")
    p.add_argument("--dry-run", action="store_true",
                   help="generate and run torch only; print the outcome distribution")
    args = p.parse_args(argv)
    if args.cases < 1:
        p.error("--cases must be at least 1")
    if not args.dry_run and not args.lossfuzz:
        p.error("--lossfuzz is required (or use --dry-run)")
    return args


def make_workdir(args):
    """(directory, keep?)"""
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)
        return os.path.abspath(args.workdir), True
    return tempfile.mkdtemp(prefix="lossfuzz-conformance-"), args.keep


def generate_cases(args, workdir):
    gen = CaseGenerator(args.seed)
    cases = [gen.case() for _ in range(args.cases)]
    for i, case in enumerate(cases):
        case.path = os.path.join(workdir, "case_%05d.json" % i)
        write_case(case)
    return cases


def dry_run(cases, outcomes, verbose):
    if verbose:
        for case, out in zip(cases, outcomes):
            print("%s  %s\n    %s" % (os.path.basename(case.path), case.describe(), fmt_torch(out)))
    n_unmapped = print_distribution(cases, outcomes)
    bad = roundtrip_errors(cases)
    print("JSON round trip: %s" % ("exact" if not bad else "%d MISMATCHES" % len(bad)))
    for line in bad[:MAX_PRINTED]:
        print("  " + line)
    return 1 if bad or n_unmapped else 0


def conformance(args, cases, outcomes, keep):
    supported = [(c, o) for c, o in zip(cases, outcomes) if o["outcome"] != "unsupported"]
    records = lossfuzz_records(os.path.abspath(args.lossfuzz), [c.path for c, _ in supported],
                               args.verbose)
    stats, found = Counter(), []
    for case, tout in supported:
        flags, disagreements = compare_case(case, tout, records[case.path])
        mark_known(disagreements)
        # A case explained by a known difference is reported there, not in the counts.
        if not disagreements or not all(d.known for d in disagreements):
            stats.update((key, value) for key, value in flags.items() if value is not None)
        found += disagreements
        if args.verbose:
            print("%s  %s: %s" % (os.path.basename(case.path), fmt_torch(tout),
                                  ", ".join(d.kind for d in disagreements) or "agree"))
    failures = [d for d in found if not d.known]
    print_summary(len(cases), len(cases) - len(supported), stats, failures,
                  [d for d in found if d.known], keep)
    return 1 if failures else 0


def main(argv=None):
    global LOSS_FNS
    args = parse_args(argv)
    if not args.dry_run and not (os.path.isfile(args.lossfuzz) and os.access(args.lossfuzz, os.X_OK)):
        print("error: lossfuzz binary not found or not executable: %s" % args.lossfuzz,
              file=sys.stderr)
        return 2
    if IMPORT_ERROR is not None:
        print("SKIP: cannot import torch/numpy: %s" % IMPORT_ERROR)
        return 77
    print("python: %s, torch %s" % (sys.executable, torch.__version__))
    torch.set_num_threads(1)
    LOSS_FNS = {CE: F.cross_entropy, NLL: F.nll_loss, BCE: F.binary_cross_entropy_with_logits}
    workdir, keep = make_workdir(args)
    try:
        t0 = time.monotonic()
        cases = generate_cases(args, workdir)
        t1 = time.monotonic()
        outcomes = [run_torch(c) for c in cases]
        t2 = time.monotonic()
        if args.verbose or args.dry_run:
            print("generated %d cases in %.2fs, torch ran in %.2fs (%s)"
                  % (len(cases), t1 - t0, t2 - t1, workdir))
        if args.dry_run:
            return dry_run(cases, outcomes, args.verbose)
        return conformance(args, cases, outcomes, keep)
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
