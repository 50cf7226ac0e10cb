"""Names the outcome of a torch loss call the way the lossfuzz spec does: the
host-error class of an exception (from its message, ERROR_TABLE), or a device
assert for the IndexError the CPU raises where CUDA's kernels assert.

Shared by the PyTorch worker (lossfuzz_worker.py) and the CPU conformance run
(ci/conformance/torch_cpu.py), so both name errors alike. Needs no torch.

A case is any object with `loss` (CROSS_ENTROPY, NLL, BCE_WITH_LOGITS, ...), `dtype(name)`, the dtype
name of tensor `name` ("input", "target", "weight", ...) or None when absent,
and `ndim(name)`, its number of dims;
assert_value() also reads its `reduction` name. Each loss's own messages come
from its home's row on the C side (`lossfuzz describe --json`: read_losses)."""
import builtins
import re

# Loss names, as the case files and the worker protocol spell them, each as its row's ID in the one table,
# harness/model/case/lf_losses.def (`lossfuzz describe --json` gives the rest of its facts).
# LINEAR_CROSS_ENTROPY is cross_entropy(linear(input, linear_weight, linear_bias), target, ...).
CROSS_ENTROPY, NLL, LINEAR_CROSS_ENTROPY = "cross_entropy", "nll_loss", "linear_cross_entropy"
BCE_WITH_LOGITS, BCE, MULTI_MARGIN = "binary_cross_entropy_with_logits", "binary_cross_entropy", "multi_margin_loss"


# An IndexError with this message is what CUDA reports as a device-side assert.
# torch 1.13 prints uint8 labels as characters when reduction="none"
# ("Target \x02 is out of bounds."), and labels >= 128 then give an IndexError
# with an empty message (invalid UTF-8); 2.15 cuts label 0's message at its NUL
# ("Target "); is_device_assert() accepts all three.
DEVICE_ASSERT_RE = re.compile(r"Target (-?\d+|[\s\S]) is out of bounds")
# Each loss's own (its row, harness/losses/; read_losses): PyTorch's messages
# only it raises, matched before ERROR_TABLE, and the exception and message of
# the CPU's check where CUDA asserts, with the assert's error class (None: the
# label's, label_out_of_range).
LOSS_MESSAGES = {}  # loss name -> [(pattern, error class)]
CPU_ASSERTS = {}  # loss name -> (exception class, compiled pattern, error class or None)


def read_losses(losses):
    """Takes the "losses" of `lossfuzz describe --json`."""
    for loss in losses:
        LOSS_MESSAGES[loss["name"]] = [(pattern, error, None) for pattern, error in loss["messages"]]
        if loss["cpu_assert"]:
            exc, pattern, error = loss["cpu_assert"]
            CPU_ASSERTS[loss["name"]] = (getattr(builtins, exc), re.compile(pattern), error)


def logits_ndim(c):
    """The rank of the logits cross_entropy gets: a fused linear's
    [*input.shape[:-1], C, d1..dK] for linear_weight [C, d1..dK, H]."""
    if c.loss == LINEAR_CROSS_ENTROPY and c.ndim("input") and c.ndim("linear_weight"):
        return c.ndim("input") - 1 + c.ndim("linear_weight") - 1
    return c.ndim("input") or 0


# Host error message -> error class; ordered, first match wins. The optional
# third item is a condition on the case that must also hold.
ERROR_TABLE = [
    (r"is not a valid value for reduction", "reduction_invalid", None),
    # linear_cross_entropy's own checks (torch 2.15), or F.linear's in the composition before it
    # (torch 1.13 and 2.x word them differently), before cross_entropy runs
    (r"expected input with dimensionality 1 or 2|expected linear_weight with dimensionality at least 2"
     r"|expected equal input and linear_weight last dimensions|expected linear_bias shape"
     r"|K-dimensional loss defined by linear_weight shape"
     r"|mat1 and mat2 shapes cannot be multiplied|size mismatch, got|t\(\) expects a tensor with <= 2"
     r"|The size of tensor a .* must match the size of tensor b", "linear_shape",
     lambda c: c.loss == LINEAR_CROSS_ENTROPY),
    (r"ignore_index cannot be specified when target contains probabilities", "prob_ignore_index",
     lambda c: c.loss == LINEAR_CROSS_ENTROPY),
    # torch 2.15's LinearCrossEntropyOptions (its __post_init__ and _adjust) and its chunked op's acc_dtype
    (r"^invalid acc_policy: |^invalid chunking_method: |^batch_chunk_size must be positive int or None"
     r"|^acc_dtype must be one of |give different chunk sizes .*; pass only one"
     r"|^linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs", "chunk_options",
     lambda c: c.loss == LINEAR_CROSS_ENTROPY),
    (r"Dimension specified as 0 but tensor has no dimensions", "target_shape",  # target.size(0) of a 0-D target
     lambda c: c.ndim("target") == 0 and logits_ndim(c) >= 2),
    (r"Dimension specified as 0 but tensor has no dimensions", "weight_shape",  # label smoothing's view
     lambda c: c.dtype("weight") is not None and c.ndim("weight") == 0),
    (r"ArrayRef: invalid slice", "target_shape",  # nll_loss_nd's view of a spatial input with a 0-D target
     lambda c: c.ndim("target") == 0 and logits_ndim(c) >= 3),
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
    (r"shape '\[[\d, ]*\]' is invalid for input of size"  # label smoothing's weight.view,
     r"|Index tensor must have the same number of dimensions as input tensor",  # then its weight.gather
     "weight_shape", lambda c: c.dtype("weight") is not None),
    (r"expected scalar type (Float|Double|Half|BFloat16) but found", "weight_dtype",
     lambda c: c.dtype("weight") not in (None, c.dtype("input"))),
    (r"Target size .* must be the same as input size", "bce_target_shape", None),
    (r"Using a target size .* that is different to the input size", "bce_target_shape", None),
    (r"result type .* can't be cast to the desired output type", "bce_target_dtype", None),
    (r"Subtraction, the `-` operator, with two bool tensors", "bce_target_dtype",
     lambda c: c.loss == BCE_WITH_LOGITS),
    (r"The size of tensor a .* must match the size of tensor b|Attempting to broadcast a dimension"
     r"|output with shape .* doesn't match the broadcast shape", "broadcast", None),
    (r"not implemented for", "unsupported", None),
]


def is_device_assert(case, exc, message):
    """IndexError for an out-of-bounds label (see DEVICE_ASSERT_RE), or the
    loss's own CPU words where CUDA asserts (CPU_ASSERTS)."""
    own = CPU_ASSERTS.get(case.loss)
    if own:
        return isinstance(exc, own[0]) and bool(own[1].search(message))
    if not isinstance(exc, IndexError):
        return False
    return bool(DEVICE_ASSERT_RE.search(message)) or (
        message in ("", "Target") and case.dtype("target") == "uint8")


def assert_value(case, message):
    """The out-of-bounds label a device-assert message names, or None. With a
    uint8 target and reduction "none", torch 1.13 prints the label as a
    character: a digit there may be either form, so it gives None."""
    m = DEVICE_ASSERT_RE.search(message)
    if not m:
        return None
    text = m.group(1)
    chars = case.dtype("target") == "uint8" and case.reduction == "none"
    if len(text) == 1 and chars:
        return None if text.isdigit() else ord(text)
    return int(text) if text.lstrip("-").isdigit() else None


def classify_error(case, exc):
    """Outcome dict for an exception raised by torch."""
    name, message = type(exc).__name__, str(exc).strip()
    outcome = {"exception": name, "message": message, "value": None, "dtype": None}
    if is_device_assert(case, exc, message):
        own = CPU_ASSERTS.get(case.loss)
        outcome.update(outcome="device_assert", error=own[2] if own else None)
        return outcome
    for pattern, error, condition in LOSS_MESSAGES.get(case.loss, []) + ERROR_TABLE:
        if re.search(pattern, message) and (condition is None or condition(case)):
            break
    else:
        error = "unmapped:" + name
    outcome.update(outcome="unsupported" if error == "unsupported" else "host_error", error=error)
    return outcome
