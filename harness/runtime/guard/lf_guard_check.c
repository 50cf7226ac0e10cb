/* lf_guard_check.c - the guard's host-side validation: every shape, dtype and
 * option problem PyTorch raises for, phrased for the person who has to fix it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lf_guard.h"
#include "lf_loss_row.h"
#include "lf_problem.h"
#include "lf_shape.h"
#include "lf_spec.h"

bool lf_guard_reject(lf_result *r, const char *error, const char *hint_id, const char *hint, const char *fmt, ...)
{
    va_list ap;
    lf_result_set_error(r, error);
    if (hint_id) lf_hint_require(hint_id, false);
    snprintf(r->hint_id, sizeof r->hint_id, "%s", hint_id ? hint_id : "");
    snprintf(r->hint, sizeof r->hint, "%s", hint ? hint : "");
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
    return false;
}

void lf_guard_shapes(const lf_case *c, char is[128], char ts[128], char ws[128])
{
    lf_format_shape(is, 128, c->input.shape, c->input.ndim);
    lf_format_shape(ts, 128, c->target.shape, c->target.ndim);
    lf_format_shape(ws, 128, c->weight.shape, c->weight.ndim);
}

bool lf_guard_reject_0d_input(lf_result *r)
{
    return lf_guard_reject(r, "input_dim", NULL, "for a single sample pass input of shape [C] and a 0-D target",
                           "input is 0-D: it needs a class dimension");
}

/* Why a target has the wrong rank: the hint for the common mistakes. */
static bool reject_target_rank(const lf_case *c, int want_ndim, lf_result *r)
{
    const lf_tensor *in = &c->input, *tg = &c->target;
    char ts[128], is[128];
    lf_format_shape(ts, sizeof ts, tg->shape, tg->ndim);
    lf_format_shape(is, sizeof is, in->shape, in->ndim);
    if (tg->ndim == want_ndim + 1 && tg->shape[tg->ndim - 1] == 1)
        return lf_guard_reject(r, "target_shape", "extra_channel_dim",
                               "the mask has a trailing channel dimension of size 1: use target.squeeze(-1)",
                               "target of shape %s has one dimension too many for input of shape %s", ts, is);
    if (tg->ndim == want_ndim + 1 && tg->ndim >= 2 && tg->shape[1] == 1)
        return lf_guard_reject(r, "target_shape", "extra_channel_dim",
                               "the mask has a channel dimension of size 1: use target.squeeze(1)",
                               "target of shape %s has one dimension too many for input of shape %s", ts, is);
    if (tg->ndim == in->ndim && in->ndim >= 2 && tg->shape[1] == in->shape[1])
        return lf_guard_reject(r, "target_shape", "one_hot_target",
                               "the target looks one-hot encoded: pass class indices (target.argmax(dim=1))",
                               "target of shape %s has a class dimension; class-index targets have shape [N, d1, ...]",
                               ts);
    return lf_guard_reject(r, "target_shape", NULL, NULL,
                           "target of shape %s does not match input of shape %s: "
                           "expected [N] for [N, C], [N, d1, ...] for [N, C, d1, ...], or [] for [C]",
                           ts, is);
}

static bool reject_target_dtype(const lf_case *c, bool *needs_data, lf_result *r)
{
    const lf_tensor *tg = &c->target;
    bool spatial = c->input.ndim >= 3;
    *needs_data = lf_dtype_is_float(tg->dtype);
    return lf_guard_reject(r, "target_dtype", "wrong_target_dtype", "convert the target with target.long()",
                           "target dtype %s: class-index targets must be int64%s", lf_dtype_name(tg->dtype),
                           spatial ? " on the spatial path" : " (or uint8)");
}

/* The checks in PyTorch's order (pytorch-semantics.md section 2), so that a
 * call with several problems is rejected for the one PyTorch names first. */
static bool check_class(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data, double smoothing)
{
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    bool spatial = in->ndim >= 3;
    int64_t C = in->shape[in->ndim == 1 ? 0 : 1];
    int want_ndim = in->ndim == 1 ? 0 : in->ndim - 1;
    if (in->ndim >= 2 && tg->ndim == 0 && in->shape[0] != 0)
        return lf_guard_reject(r, "batch_size_mismatch", NULL, "class-index targets have shape [N]",
                               "input has batch size %lld but the target is 0-D", (long long)in->shape[0]);
    /* an empty batch passes nll_loss_nd; nll_loss's meta function reads the target's dtype first */
    if (in->ndim == 2 && tg->ndim == 0 && tg->dtype != LF_I64 && tg->dtype != LF_U8)
        return reject_target_dtype(c, needs_data, r);
    if (in->ndim >= 2 && tg->ndim == 0) return reject_target_rank(c, want_ndim, r);
    if (in->ndim >= 2 && tg->shape[0] != in->shape[0])
        return lf_guard_reject(r, "batch_size_mismatch", NULL, NULL, "input has batch size %lld but target has %lld",
                               (long long)in->shape[0], (long long)tg->shape[0]);
    bool shape_ok = in->ndim == 1 ? tg->ndim == 0 || (tg->ndim == 1 && tg->shape[0] == 1)
                                  : tg->ndim == want_ndim &&
                                        !memcmp(tg->shape + 1, in->shape + 2, sizeof(int64_t) * (size_t)(in->ndim - 2));
    bool weight_ok =
        !w->present || ((spatial || LF_MUTANT_IS(WEIGHT_NUMEL_ONLY)) ? w->numel == C : (w->ndim == 1 && w->numel == C));
    bool unchecked = lf_class_dtype_checks_skipped(c);
    bool dtype_ok = tg->dtype == LF_I64 || (tg->dtype == LF_U8 && !spatial) || unchecked;
    /* nll_loss checks the target's rank, its dtype, then its size and the weight; nll_loss2d
     * the target's shape, the weight, then the dtype (a 4-D input's spatial sizes after the weight) */
    bool rank_ok = spatial ? (in->ndim == 4 ? tg->ndim == 3 : shape_ok) : tg->ndim <= 1;
    if (!rank_ok) return reject_target_rank(c, want_ndim, r);
    if (!spatial && !dtype_ok) return reject_target_dtype(c, needs_data, r);
    if (!spatial && !shape_ok) return reject_target_rank(c, want_ndim, r);
    if (!weight_ok) {
        char ws[128];
        lf_format_shape(ws, sizeof ws, w->shape, w->ndim);
        return lf_guard_reject(r, "weight_shape", NULL, "pass one weight per class, shape [C]",
                               "weight of shape %s for %lld classes", ws, (long long)C);
    }
    if (!shape_ok) return reject_target_rank(c, want_ndim, r);
    /* nll_loss_nd views an input without elements as [N, C, 0, 0]: a target with some no longer fits */
    if (spatial && in->ndim != 4 && in->numel == 0 && tg->numel > 0) {
        char is[128];
        lf_format_shape(is, sizeof is, in->shape, in->ndim);
        return lf_guard_reject(r, "target_shape", NULL,
                               "an input with no classes (C = 0) takes only a target without elements",
                               "input of shape %s has no elements but the target has %lld", is, (long long)tg->numel);
    }
    if (!dtype_ok) return reject_target_dtype(c, needs_data, r);
    if (w->present && w->dtype != in->dtype && !unchecked)
        return lf_guard_reject(r, "weight_dtype", NULL, "use weight.to(input.dtype)",
                               "weight dtype %s differs from input dtype %s", lf_dtype_name(w->dtype),
                               lf_dtype_name(in->dtype));
    lf_problem_init(c, p, LF_CLASS_TARGETS);
    lf_problem_layout(in, p);
    /* which kernel reads the labels decides how: nll_loss2d's mean/sum narrows them to int32 */
    p->kernel_id = !spatial ? LF_K_NONE : c->reduction == LF_REDUCTION_NONE ? LF_K_NLL2D_NO_REDUCE : LF_K_NLL2D_REDUCE;
    p->label_smoothing = smoothing;
    lf_problem_class_out_dtype(c, p);
    return true;
}

static bool smoothing_weight_checks(const lf_case *c, const lf_problem *p, lf_result *r)
{
    const lf_tensor *w = &c->weight;
    if (!(p->targets == LF_CLASS_TARGETS && p->label_smoothing > 0)) return true;
    if (w->present && (w->ndim == 0 || w->shape[0] != w->numel)) {
        char ws[128];
        lf_format_shape(ws, sizeof ws, w->shape, w->ndim);
        return lf_guard_reject(r, "weight_shape", NULL, "pass one weight per class, shape [C]",
                               "label smoothing views the weight along the class dim, so its %lld elements must lie "
                               "along its first dim; got shape %s",
                               (long long)w->numel, ws);
    }
    /* the smoothing term of a 1-D input (shape []) masked in place by a [1] target's mask: after nll_loss */
    if (c->input.ndim == 1 && c->target.ndim == 1)
        return lf_guard_reject(
            r, "broadcast", NULL, "give a 1-D input a 0-D target: target.squeeze(0)",
            "label smoothing of a 1-D input needs a 0-D target; a [1] target does not broadcast to its "
            "[] loss");
    /* gather checks its index only when some target is kept */
    if (!w->present || c->reduction != LF_REDUCTION_MEAN || !lf_any_target_kept(c)) return true;
    if (w->ndim >= 2) {
        char ws[128];
        lf_format_shape(ws, sizeof ws, w->shape, w->ndim);
        return lf_guard_reject(r, "weight_shape", NULL, "pass one weight per class, shape [C]",
                               "label smoothing with class weights and reduction='mean' gathers the weights by target, "
                               "which needs a 1-D weight; got shape %s",
                               ws);
    }
    if (c->target.dtype == LF_I64) return true;
    return lf_guard_reject(r, "target_dtype", "wrong_target_dtype", "convert the target with target.long()",
                           "label smoothing with class weights and reduction='mean' gathers the weights by "
                           "target, which needs int64 targets; got %s",
                           lf_dtype_name(c->target.dtype));
}

bool lf_guard_check_after_labels(const lf_case *c, const lf_problem *p, lf_result *r)
{
    if (!smoothing_weight_checks(c, p, r)) return false;
    int64_t at = p->label_smoothing > 0 ? lf_case_first_wrapped_ignore(c) : -1;
    if (at < 0) return true;
    lf_guard_reject(
        r, "ignore_index_wrapped", "wrapped_ignore_index",
        "pass an ignore_index in [0, 255] with uint8 targets, or use target.long()",
        "target[%lld] = %lld: label smoothing compares a uint8 target with ignore_index = %lld cast to uint8 (%d), "
        "so PyTorch drops this label's smoothing term while nll_loss keeps it: a wrong loss without an error",
        (long long)at, (long long)lf_load_i64(c->target.data, c->target.dtype, at), (long long)c->ignore_index,
        (int)(uint8_t)c->ignore_index);
    r->index = at;
    r->value = lf_load_i64(c->target.data, c->target.dtype, at);
    return false;
}

bool lf_guard_check_class(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data, double smoothing)
{
    if (c->input.ndim == 0) return lf_guard_reject_0d_input(r);
    return check_class(c, p, r, needs_data, smoothing);
}

bool lf_guard_check(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data)
{
    *needs_data = false;
    memset(p, 0, sizeof *p);
    if (c->reduction == LF_REDUCTION_INVALID)
        return lf_guard_reject(r, "reduction_invalid", NULL, "use \"none\", \"mean\" or \"sum\"",
                               "reduction \"%s\" is not one of none, mean, sum", c->reduction_name);
    const lf_loss_row *row = lf_loss_row_of(c->loss);
    if (row->guard_check) return row->guard_check(c, p, r, needs_data);
    return lf_guard_check_class(c, p, r, needs_data, 0);
}
