/* lf_torch_known.c - the rules of the known differences (lf_torch_known.def, and
 * each loss's own in its row): for each entry, whether a case and PyTorch's answer t (or a kernel's, on a PyTorch of
 * its own) are the difference it describes. The entry's device and versions are
 * checked here once; a rule reads only the case and the two answers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_loss_row.h"
#include "lf_oracle.h"
#include "lf_problem.h"

static bool any_non_finite(const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return true;
    return false;
}

/* t has NaN where the spec has a number or an infinity. */
static bool nan_where_number(const lf_result *s, const lf_result *t)
{
    for (int64_t i = 0; i < t->n && i < s->n; i++)
        if (isnan(t->values[i]) && !isnan(s->values[i])) return true;
    return false;
}

/* t has inf or NaN where the spec has a number. */
static bool non_finite_where_finite(const lf_result *s, const lf_result *t)
{
    for (int64_t i = 0; i < t->n && i < s->n; i++)
        if (!isfinite(t->values[i]) && isfinite(s->values[i])) return true;
    return false;
}

/* A spatial mean or sum (nll_loss2d_forward_kernel) with a label past int32's range. */
static bool reads_int32_labels(const lf_case *c)
{
    if (!lf_loss_has_classes(c->loss) || c->input.ndim < 3 || c->reduction == LF_REDUCTION_NONE) return false;
    for (int64_t i = 0; i < c->target.numel; i++) {
        int64_t v = lf_load_i64(c->target.data, c->target.dtype, i);
        if (v != (int32_t)v) return true;
    }
    return false;
}

bool lf_known_both_ok(const lf_result *s, const lf_result *t)
{
    return s->kind == LF_OUTCOME_OK && t->kind == LF_OUTCOME_OK;
}
/* A kernel under test that rejects a call in its own words (kernel_rejected) rejects it
 * as its PyTorch does wherever that PyTorch raises: a listed rejection (a dtype the CPU
 * checks first) is not a false alarm for a kernel that follows it. A missing kernel
 * (unsupported) is PyTorch's own word only. */
bool lf_known_host_error(const lf_result *r, const char *error)
{
    return r->kind == LF_OUTCOME_HOST_ERROR && (!error || !strcmp(r->error, error) ||
                                                (!strcmp(r->error, "kernel_rejected") && strcmp(error, "unsupported")));
}
static bool class_loss(const lf_case *c) /* nll_loss's family: the losses ignore_index is for */
{
    return lf_loss_has_classes(c->loss) && (lf_loss_options(c->loss) & LF_OPT_IGNORE_INDEX);
}

#define RULE(id) static bool id(const lf_case *c, const lf_result *s, const lf_result *t)

RULE(nll_1d_ignored_mean)
{
    return lf_known_both_ok(s, t) && class_loss(c) && c->input.ndim == 1 && c->target.numel == 1 &&
           lf_load_i64(c->target.data, c->target.dtype, 0) == c->ignore_index && c->reduction == LF_REDUCTION_MEAN &&
           t->n == 1 && isnan(t->values[0]);
}
RULE(nll2d_cpu_order)
{
    if (!class_loss(c) || c->input.ndim < 3 || s->kind != LF_OUTCOME_HOST_ERROR) return false;
    bool u8_refused = !strcmp(s->error, "target_dtype") && c->target.dtype == LF_U8;
    return (lf_known_host_error(t, "target_dtype") && strcmp(s->error, "target_dtype")) ||
           (u8_refused && (t->kind == LF_OUTCOME_OK || lf_known_host_error(t, "weight_dtype") ||
                           lf_known_host_error(t, "weight_shape") || t->kind == LF_OUTCOME_DEVICE_ASSERT));
}
RULE(nll2d_empty_dtype)
{
    return s->kind == LF_OUTCOME_OK && lf_class_dtype_checks_skipped(c) &&
           (lf_known_host_error(t, "target_dtype") || lf_known_host_error(t, "weight_dtype"));
}
RULE(nll2d_int32_labels)
{
    return class_loss(c) && t->kind == LF_OUTCOME_DEVICE_ASSERT &&
           ((s->kind == LF_OUTCOME_OK && !strcmp(s->silent, "label_truncated")) ||
            (s->kind == LF_OUTCOME_HOST_ERROR && reads_int32_labels(c))); /* CUDA reaches a later host error */
}
RULE(nll2d_narrowed_ignore) { return class_loss(c) && lf_known_both_ok(s, t) && !strcmp(s->silent, "label_truncated"); }
RULE(nll2d_wide_ignore_asserts)
{
    return s->kind == LF_OUTCOME_DEVICE_ASSERT && s->kernel_id == LF_K_NLL2D_REDUCE &&
           (t->kind == LF_OUTCOME_OK || t->kind == LF_OUTCOME_HOST_ERROR) && /* (a later check, label smoothing's) */
           c->ignore_index != (int32_t)c->ignore_index;
}
RULE(f16_sum_in_f16)
{
    return lf_known_both_ok(s, t) && t->out_dtype == LF_F16 && c->reduction != LF_REDUCTION_NONE && t->n >= 1 &&
           isinf(t->values[0]);
}
RULE(no_kernel)
{
    (void)c, (void)s;
    return lf_known_host_error(t, "unsupported");
}
RULE(meta_target_dtype_on_empty)
{
    return lf_known_host_error(s, "target_dtype") && c->input.ndim <= 2 && c->target.numel == 0 &&
           t->kind == LF_OUTCOME_OK;
}
RULE(target_dtype_checked_later)
{
    return class_loss(c) && lf_known_host_error(s, "target_dtype") && t->kind == LF_OUTCOME_HOST_ERROR &&
           (!strncmp(t->error, "weight_", 7) || (!strcmp(t->error, "target_shape") && c->target.ndim == 0));
}
RULE(one_d_target_1_13)
{
    return !lf_known_both_ok(s, t) && class_loss(c) && c->input.ndim == 1 && c->target.ndim == 1 &&
           (!lf_loss_takes_probs(c->loss) || c->target.shape[0] != c->input.shape[0]); /* else probabilities */
}
RULE(bf16_spatial_log_softmax)
{
    return lf_known_both_ok(s, t) && c->input.dtype == LF_BF16 && c->input.ndim >= 3 &&
           (non_finite_where_finite(s, t) || any_non_finite(t->grad[LF_GRAD_INPUT].values, t->grad[LF_GRAD_INPUT].n));
}
/* t differs from the spec where either is not finite: the dtype's range decides there, by the chain's order */
static bool differs_past_range(const lf_result *s, const lf_result *t)
{
    for (int64_t i = 0; i < t->n && i < s->n; i++)
        if ((!isfinite(s->values[i]) || !isfinite(t->values[i])) && s->values[i] != t->values[i]) return true;
    return false;
}
RULE(bce_nan_past_range)
{
    return lf_known_both_ok(s, t) && !lf_loss_has_classes(c->loss) &&
           (nan_where_number(s, t) || differs_past_range(s, t));
}
RULE(nll2d_grad_contiguous)
{
    (void)s;
    return t->kind == LF_OUTCOME_OK && t->grad[LF_GRAD_INPUT].state == LF_GRAD_ERROR && c->input.strided &&
           strstr(t->grad[LF_GRAD_INPUT].message, "grad_input must be contiguous");
}

RULE(prob_row_sum_16bit_cpu)
{
    lf_dtype d = c->input.dtype;
    if (!lf_loss_has_classes(c->loss) || !lf_dtype_is_float(c->target.dtype) || (d != LF_F16 && d != LF_BF16) ||
        !lf_known_both_ok(s, t))
        return false;
    double units = ceil(log2((double)(lf_case_classes(c) > 1 ? lf_case_classes(c) : 2))) * lf_dtype_eps(d);
    bool off = false;
    for (int64_t i = 0; i < t->n && i < s->n; i++) {
        double terms = fmax(fabs(s->values[i]), isfinite(s->scales[i]) ? s->scales[i] : 0);
        if (!isfinite(s->values[i]) || !isfinite(t->values[i]) || fabs(t->values[i] - s->values[i]) > units * terms)
            return false;
        off |= t->values[i] != s->values[i];
    }
    return off;
}

static const lf_known_rule known[] = {
#define LF_KNOWN(id, device, since, until, source, what) {{#id, device, since, until, source, what}, id},
#include "lf_torch_known.def"
#undef LF_KNOWN
};
#define N_SHARED LF_COUNT_OF(known)

/* "MAJOR.MINOR..." as MAJOR * 1000 + MINOR; -1 when it is not a version. */
static int version_number(const char *v)
{
    int a, b;
    return v && sscanf(v, "%d.%d", &a, &b) == 2 ? a * 1000 + b : -1;
}

static bool holds_for(const lf_known_difference *e, const char *device, const char *version)
{
    if (e->device[0] && strncmp(device, e->device, strlen(e->device))) return false;
    int v = version_number(version);
    if (v < 0) return !e->since[0] && !e->until[0]; /* an unknown version: only what holds for all */
    return (!e->since[0] || v >= version_number(e->since)) && (!e->until[0] || v < version_number(e->until));
}

/* The i-th entry: the shared ones, then each loss's own in the losses' order, then the leniencies. */
const lf_known_difference *lf_known_difference_at(int i)
{
    if (i >= 0 && i < N_SHARED) return &known[i].entry;
    i -= N_SHARED;
    for (int l = 0; i >= 0 && l < LF_LOSS_COUNT; i -= lf_loss_row_of((lf_loss)l++)->n_known)
        if (i < lf_loss_row_of((lf_loss)l)->n_known) return &lf_loss_row_of((lf_loss)l)->known[i].entry;
    return lf_leniency_at(i);
}

const lf_known_difference *lf_torch_known_difference(const lf_case *c, const lf_result *s, const lf_result *t,
                                                     const char *device, const char *version)
{
    /* A fused linear + CE: its own differences (its row's), then
     * cross_entropy's on its logits, judged on their shape. */
    const lf_loss_row *own = lf_loss_row_of(c->loss);
    for (int i = 0; lf_loss_of(c->loss)->fused_linear && i < own->n_known; i++)
        if (holds_for(&own->known[i].entry, device, version) && own->known[i].rule(c, s, t))
            return &own->known[i].entry;
    lf_case logits;
    int64_t shape[LF_MAX_DIMS];
    int ndim = lf_loss_of(c->loss)->fused_linear ? lf_case_linear_logits_shape(c, shape) : -1;
    if (ndim > 0) {
        logits = *c;
        logits.loss = LF_LOSS_CROSS_ENTROPY;
        logits.input.strided = false;
        logits.input.ndim = ndim;
        memcpy(logits.input.shape, shape, sizeof(int64_t) * (size_t)ndim);
        c = &logits;
    }
    for (int i = 0; i < N_SHARED; i++)
        if (holds_for(&known[i].entry, device, version) && known[i].rule(c, s, t)) return &known[i].entry;
    const lf_loss_row *row = lf_loss_row_of(c->loss);
    for (int i = 0; i < row->n_known; i++)
        if (holds_for(&row->known[i].entry, device, version) && row->known[i].rule(c, s, t))
            return &row->known[i].entry;
    return NULL;
}
