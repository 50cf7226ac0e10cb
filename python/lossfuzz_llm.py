"""The LLM cross-entropy family (docs/llm-cross-entropy.md) on the Python side:
its definitions composed of torch ops, which the worker's "torch" path runs
(the conformance run checks lossfuzz's spec against it on Debian's torch, and
a kernel's low-precision reference is its numbers); and what a kernel's claims
say about its call: the keyword each option goes by, the outputs it returns.

The option names and defaults are the C side's (harness/model/case/lf_options.def,
handed over by `lossfuzz describe --json`): LLM_OPTIONS is filled from it."""

LLM_OPTIONS = ()  # the family's scalar options' names, in lf_options.def's order (read_describe)
OUTPUTS = ("z_loss", "lse")  # what a kernel may return besides the loss, lf_llm.def's order
LAYOUT_KEYS = ("vocab_last",)  # the case's layout, a keyword of the composition only


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0,
                  logit_scale=1.0, softcap=0.0, z_loss_scale=0.0, n_items=0.0, loss_mask=None, vocab_last=False,
                  linear_weight=None, linear_bias=None):
    """(loss, {"z_loss": ..., "lse": ...}) as the definitions give them:
    F.cross_entropy's rows on cap(scale * x), z_loss_scale * lse^2 added to
    each counted row, the rows times the mask, then the sum over n_items or
    the mean (CE over the counted rows' class weights, z-loss over the
    counted rows). With every option off, F.cross_entropy's answer. A fused
    linear's logits are F.linear(input, linear_weight, linear_bias)."""
    import torch
    import torch.nn.functional as F
    x = input if linear_weight is None else F.linear(input, linear_weight, linear_bias)
    prob = target.is_floating_point()
    if vocab_last and x.dim() >= 3:  # probabilities have the logits' shape, and move with them
        target = target.movedim(-1, 1) if target.shape == x.shape else target
        x = x.movedim(-1, 1)
    if reduction not in ("none", "mean", "sum"):  # Python's check, first, as F.cross_entropy's
        raise ValueError("%s is not a valid value for reduction" % reduction)
    # PyTorch's own call first: its errors and asserts, in its order; its result's dtype is the loss's
    dtype = F.cross_entropy(x, target, weight=weight, ignore_index=ignore_index, reduction=reduction,
                            label_smoothing=label_smoothing).dtype
    # torch 1.13's CPU build has no float16 tanh or logsumexp: float32, then rounded (llm-ce.md, point 4); and
    # lse in float where a kernel keeps it: a bfloat16 lse of 9984.69 is 9984, and its gradient's exp(x - lse) 1
    low = x.dtype in (torch.float16, torch.bfloat16)
    wide = (lambda t: t.float()) if low else (lambda t: t)
    if low and (logit_scale != 1.0 or softcap > 0):
        # the options' y in float, where a kernel keeps it and PyTorch's log_softmax computes: each op rounded
        # to the 16-bit dtype is a kernel's error, not the definitions' (a bfloat16 cap of -0.998 is -1, its
        # gradient 0), and the low-precision reference must not forgive it (issue 38, item 4)
        x = x.float()
        weight = weight.float() if weight is not None and weight.is_floating_point() else weight
    if logit_scale != 1.0:
        x = x * logit_scale
    if softcap > 0:
        x = (softcap * torch.tanh(wide(x) / softcap)).to(x.dtype)
    rows = F.cross_entropy(x, target, weight=weight, ignore_index=ignore_index, reduction="none",
                           label_smoothing=label_smoothing)
    lse_wide = torch.logsumexp(wide(x), dim=1 if x.dim() > 1 else 0)
    lse = lse_wide.to(rows.dtype)
    labels = target if prob else target.long()  # uint8 labels: no wrapping of ignore_index into their range
    counted = torch.ones_like(rows) if prob else (labels != ignore_index).to(rows.dtype)
    r = counted if loss_mask is None else counted * loss_mask.to(rows.dtype).reshape(rows.shape)
    if prob or weight is None:
        w_t = torch.ones_like(rows)
    else:
        w = weight.to(rows.dtype).reshape(-1)  # no classes: every row ignored, no weight to read
        w_t = w[torch.where(labels == ignore_index, torch.zeros_like(labels), labels)] if w.numel() else rows * 0
    # an ignored row has no z-loss (its lse may be inf: C = 0)
    z = torch.where(counted != 0, (z_loss_scale * lse_wide * lse_wide).to(rows.dtype), torch.zeros_like(lse))
    # an ignored row adds 0 whatever its terms (NaN ones: C = 0 with smoothing); a masked one r times them
    kept = counted != 0
    row_loss = torch.where(kept, r * (rows + z), torch.zeros_like(rows))
    row_z = torch.where(kept, r * z, torch.zeros_like(z))
    if reduction == "none":
        return row_loss.to(dtype), {"z_loss": row_z.to(dtype), "lse": lse.to(dtype)}
    ce_sum, z_sum = torch.where(kept, r * rows, torch.zeros_like(rows)).sum(), row_z.sum()
    if n_items > 0:
        d_ce = d_z = n_items
    elif reduction == "mean":
        # an ignored row's weight is not read (an infinite one times its 0 would be NaN)
        d_ce, d_z = torch.where(kept, r * w_t, torch.zeros_like(rows)).sum(), r.sum()
    else:
        d_ce = d_z = 1
    z_mean = z_sum / d_z if z_loss_scale != 0 else z_sum * 0  # off: 0, not a mean over no rows' 0 / 0
    ce = ce_sum / d_ce
    if reduction == "mean" and not prob and n_items <= 0:  # PyTorch's nll part over a total weight of 0: NaN,
        ce = torch.where(d_ce == 0, torch.full_like(ce, float("nan")), ce)  # whatever smoothing adds
    return (ce + z_mean).to(dtype), {"z_loss": z_mean.to(dtype), "lse": lse.to(dtype)}


def uses_llm(case_doc):
    """Whether a wire case asks for more than F.cross_entropy's function."""
    return any(k in case_doc for k in LLM_OPTIONS) or "loss_mask" in case_doc or case_doc.get("vocab_last")


def keyword_map(claims):
    """lossfuzz's option name -> the kernel's keyword (its claims' "options")."""
    return dict(claims.get("options") or {})


def unpack(result, names):
    """(loss, {output: tensor}) from a kernel's return value: a tensor, or a
    tuple (or list) in the order of its claims' "outputs" (loss first or
    anywhere), or a dict by those names."""
    if isinstance(result, dict):
        return result["loss"], {k: v for k, v in result.items() if k in OUTPUTS}
    if isinstance(result, (tuple, list)):
        if len(result) != len(names):
            raise TypeError("the kernel returned %d values; its claims' outputs name %d (%s)"
                            % (len(result), len(names), ", ".join(names)))
        got = dict(zip(names, result))
        return got["loss"], {k: v for k, v in got.items() if k in OUTPUTS}
    return result, {}
