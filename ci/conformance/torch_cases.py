"""Random cases for the CPU-torch conformance run: F.cross_entropy, F.nll_loss and
F.binary_cross_entropy_with_logits over every option, dtype and rank torch's CPU
build takes, good and bad, each written as a JSON case file holding the exact
values of its tensors (so lossfuzz reads what torch ran)."""
import json
import math
import os
import random
import sys

# The loss names are the product's (python/lossfuzz_torch.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from lossfuzz_torch import BCE, BCE_WITH_LOGITS, CROSS_ENTROPY, MULTI_MARGIN, NLL  # noqa: E402,F401 (re-exported)


try:
    import numpy as np
    import torch
    import torch.nn.functional as F
    IMPORT_ERROR = None
except Exception as exc:  # ImportError, or OSError from a broken install
    IMPORT_ERROR = exc

# Generator mixes: (value, weight).
LOSS_MIX = [(CROSS_ENTROPY, 45), (NLL, 25), (BCE_WITH_LOGITS, 30), (BCE, 20), (MULTI_MARGIN, 15)]
SCENARIO_MIX = {CROSS_ENTROPY: [("ok", 41), ("oob", 37), ("host", 22)],
                NLL: [("ok", 41), ("oob", 37), ("host", 22)],
                BCE_WITH_LOGITS: [("ok", 57), ("host", 43)],
                BCE: [("ok", 50), ("oob", 30), ("host", 20)],
                MULTI_MARGIN: [("ok", 50), ("oob", 30), ("host", 20)]}
MARGIN_P_MIX = [(None, 40), (1, 20), (2, 40)]
MARGIN_MIX = [(None, 40), (1.0, 10), (0.5, 15), (2.0, 15), (0.0, 10), (-1.0, 10)]
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
        # The backward half lossfuzz's own paths run (its "backward" key): the
        # upstream gradient lossfuzz makes from it comes back in its record
        # ("upstream"), and torch's autograd is run with the same one.
        self.backward = None

    def dtype(self, name):
        t = self.tensors.get(name)
        return None if t is None else dtype_name(t)

    def ndim(self, name):
        t = self.tensors.get(name)
        return None if t is None else t.dim()

    def describe(self):
        parts = ["%s %s%s" % (k, dtype_name(t), list(t.shape)) for k, t in self.tensors.items()]
        parts += ["%s=%r" % kv for kv in self.options.items()]
        return "%s  %s" % (self.loss, "  ".join(parts))

    def to_json(self):
        doc = {"loss": self.loss}
        doc.update((k, tensor_json(t)) for k, t in self.tensors.items())
        doc.update(self.options)
        if self.backward:
            doc["backward"] = self.backward
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
        case = self.forward_case()
        case.backward = {"seed": self.rng.randrange(1, 1 << 16), "input_requires_grad": True,
                         "upstream": self.pick([("random", 3), ("zero_first", 1), ("equal", 1)])}
        return case

    def forward_case(self):
        loss = self.pick(LOSS_MIX)
        scenario = self.pick(SCENARIO_MIX[loss])
        case = (self.bce_case() if loss == BCE_WITH_LOGITS else self.bce_prob_case() if loss == BCE
                else self.margin_case() if loss == MULTI_MARGIN else self.class_case(loss, scenario == "oob"))
        if scenario == "oob" and loss == BCE:
            self.inject_bad_probability(case)
        elif scenario == "oob":
            self.inject_bad_label(case)
        elif scenario == "host":
            mutations = {BCE_WITH_LOGITS: BCE_WITH_LOGITS_MUTATIONS, BCE: BCE_MUTATIONS,
                         MULTI_MARGIN: MARGIN_MUTATIONS}.get(loss, CLASS_MUTATIONS)
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
        prob = loss == CROSS_ENTROPY and rank >= 1 and not index_only and self.chance(0.25)
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
        self.common_options(options, smoothing=loss == CROSS_ENTROPY)
        return Case(loss, tensors, options, {"classes": classes, "prob": prob, "rank": rank})

    def margin_case(self):
        """Valid multi_margin_loss case: input [N, C], [C] or [], int64 labels, p, margin, weight."""
        rank, classes = self.pick([(0, 5), (1, 25), (2, 70)]), self.rng.randint(1, 9)
        batch = self.rng.randint(1, 6)
        shape = [] if rank == 0 else [classes] if rank == 1 else [batch, classes]
        classes = 1 if rank == 0 else classes
        dtype = self.pick(INPUT_DTYPE_MIX)
        rows = batch if rank == 2 else 1
        tshape = [rows] if rank == 2 or self.chance(0.5) else []
        tensors = {"input": self.floats(self.logits(shape), dtype),
                   "target": self.ints(self.np.integers(0, classes, size=tshape), "int64")}
        if self.chance(0.3):
            tensors["weight"] = self.floats(self.np.uniform(0.0, 2.0, classes), dtype)
        options = {k: v for k, v in (("p", self.pick(MARGIN_P_MIX)), ("margin", self.pick(MARGIN_MIX)))
                   if v is not None}
        self.common_options(options, smoothing=False)
        return Case(MULTI_MARGIN, tensors, options, {"classes": classes, "prob": False, "rank": rank})

    def elementwise_shape(self):
        """(rank, shape) of a BCE input: [..., last], a batch sometimes empty."""
        rank, last = self.pick(RANK_MIX), self.rng.randint(1, 9)
        batch = 0 if self.chance(0.04) else self.rng.randint(1, 6)
        return rank, ([] if rank == 0 else [last] if rank == 1 else
                      [batch] + [self.rng.randint(1, 4) for _ in range(rank - 2)] + [last])

    def maybe_weight(self, tensors, shape, dtype, p):
        """With probability p, a BCE weight that broadcasts to shape, mostly of the input's dtype."""
        if self.chance(p):
            wshape = self.broadcastable(shape)
            wdtype = dtype if self.chance(0.8) else self.rng.choice(FLOAT_DTYPES)
            tensors["weight"] = self.floats(self.np.uniform(0.0, 2.0, wshape), wdtype)

    def bce_case(self):
        """Valid binary_cross_entropy_with_logits case (broadcastable weights)."""
        rank, shape = self.elementwise_shape()
        dtype = self.pick(INPUT_DTYPE_MIX)
        tdtype = self.float_target_dtype(dtype)
        y = self.prob_array(shape, -1) if rank else self.np.random(shape)
        tensors = {"input": self.floats(self.logits(shape), dtype), "target": self.floats(y, tdtype)}
        self.maybe_weight(tensors, shape, dtype, 0.25)
        if self.chance(0.3):
            pshape = self.pick([(shape[-1:], 6), ([1], 2), (shape, 2)])
            tensors["pos_weight"] = self.floats(self.np.uniform(0.5, 3.0, pshape), dtype)
        options = {}
        self.common_options(options, smoothing=False)
        return Case(BCE_WITH_LOGITS, tensors, options, {"rank": rank})

    def bce_prob_case(self):
        """Valid binary_cross_entropy case: probabilities (a sigmoid in the dtype, some exactly 0 or 1)."""
        rank, shape = self.elementwise_shape()
        dtype = self.pick(INPUT_DTYPE_MIX)
        z = self.np.standard_normal(shape) * self.pick([(1.0, 6), (10.0, 2), (40.0, 2)])
        y = self.prob_array(shape, -1) if rank else self.np.random(shape)
        tensors = {"input": self.floats(1 / (1 + np.exp(-z)), dtype), "target": self.floats(y, dtype)}
        self.maybe_weight(tensors, shape, dtype, 0.3)
        options = {}
        self.common_options(options, smoothing=False)
        return Case(BCE, tensors, options, {"rank": rank})

    def inject_bad_probability(self, case):
        """One input (a sigmoid rounded past 1, logits, a NaN) or target (255, -1, NaN) outside [0, 1]."""
        name = "input" if self.chance(0.6) else "target"
        t = case.tensors[name]
        if t.numel() == 0:
            return
        flat = t.flatten().clone()
        eps = torch.finfo(t.dtype).eps
        flat[self.rng.randrange(flat.numel())] = self.pick(
            [(1 + eps, 25), (-eps, 10), (math.nan, 20), (3.5, 15), (-2.0, 10), (255.0, 10), (-1.0, 10)])
        case.tensors[name] = flat.reshape(t.shape)

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
    if case.loss != CROSS_ENTROPY or x.dim() == 0:
        return mut_target_shape(g, case)
    probs = g.prob_array(list(x.shape), 0 if x.dim() == 1 else 1)
    case.tensors["target"] = g.floats(probs, g.float_target_dtype(dtype_name(x)))
    case.meta["prob"] = True
    case.options["ignore_index"] = g.rng.choice([-1, 0, 255, case.meta["classes"] - 1])


def mut_label_smoothing(g, case):
    if case.loss != CROSS_ENTROPY:
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
def mut_margin_p(g, case):
    case.options["p"] = g.rng.choice([0, 3])


def mut_margin_input_rank(g, case):
    """A spatial input, or a matrix with no classes: not a vector or matrix it takes."""
    x = case.tensors["input"]
    rows = x.shape[0] if x.dim() == 2 else 1
    shape = [rows, 0] if g.chance(0.3) else [rows, max(case.meta["classes"], 1), 2]
    case.tensors["input"] = g.floats(g.np.standard_normal(shape), case.dtype("input"))


def mut_margin_target(g, case):
    """A target of another length, a 2-D one, or int32 labels."""
    t = case.tensors["target"]
    kind = g.rng.choice(["longer", "2d", "int32"])
    if kind == "longer":
        case.tensors["target"] = g.ints([0] * (t.numel() + 1), "int64")
    elif kind == "2d":
        case.tensors["target"] = t.reshape(-1, 1) if t.numel() else g.ints([[0]], "int64")
    else:
        case.tensors["target"] = t.to(torch.int32)


MARGIN_MUTATIONS = [mut_reduction, mut_margin_p, mut_margin_input_rank, mut_margin_target, mut_margin_target]
def mut_bce_prob_target_dtype(g, case):
    """A target of another dtype than the input's (float64 of a float32 input, int64 0/1)."""
    other = g.rng.choice([d for d in FLOAT_DTYPES if d != case.dtype("input")] + ["int64"])
    case.tensors["target"] = case.tensors["target"].double().round().to(torch_dtype(other))


def mut_bce_prob_weight(g, case):
    """A weight that does not broadcast, or one that broadcasts past the input (raised after the kernel)."""
    shape = list(case.tensors["input"].shape) or [1]
    bad = [shape[-1] + g.rng.randint(1, 3)] if g.chance(0.5) else [2] + shape
    case.tensors["weight"] = g.floats(g.np.uniform(0.5, 2.0, bad), case.dtype("input"))


BCE_MUTATIONS = [mut_reduction, mut_bce_target_shape, mut_bce_prob_target_dtype, mut_bce_prob_weight]
BCE_WITH_LOGITS_MUTATIONS = [mut_reduction, mut_bce_target_shape, mut_bce_target_shape,
                 mut_bce_target_dtype, mut_bce_target_dtype, mut_bce_broadcast, mut_bce_broadcast]


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
