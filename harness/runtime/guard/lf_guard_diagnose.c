/* lf_guard_diagnose.c - from the device pass over the targets to a verdict a
 * person can act on: which element is wrong, and the likely reason
 * (pytorch-semantics.md section 5: 1-based labels, 255 void pixels, negative
 * labels, more classes than the head, float and interpolated masks, void
 * blended into the classes by a bilinear resize, one-hot targets, soft
 * targets that do not sum to 1, multi-label targets). Warnings: lf_guard_warn.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_guard.h"

void lf_guard_set_hint(lf_result *r, const char *id, const char *text)
{
    lf_hint_require(id, false);
    snprintf(r->hint_id, sizeof r->hint_id, "%s", id);
    snprintf(r->hint, sizeof r->hint, "%s", text);
}

/* Void blended into the classes: a void-255 mask resized with mode='bilinear'
 * and cast to long keeps 255 inside void regions and turns their borders into
 * labels between C and 254, which are neither a class nor void. With 255 not
 * ignored, 255 is the largest label beside them; with ignore_index=255, they
 * are what is left. A head too small for its dataset looks the same, so the
 * hint says that too. */
static bool hint_interpolated_void(const lf_case *c, const lf_problem *p, const lf_target_stats *st, lf_result *r)
{
    char hint[sizeof r->hint];
    long long C = (long long)p->C;
    if (C >= 255 || st->n_negative > 0) return false;
    bool void_ignored = c->ignore_index == 255 && st->n_ignored > 0;
    long long blended = (long long)(st->n_ge_c - st->n_eq_255);
    if (void_ignored ? st->max_label > 254 : !(st->n_eq_255 > 0 && st->max_label == 255 && blended > 0)) return false;
    snprintf(hint, sizeof hint,
             "%s%lld label%s between %lld and 254: a void-255 mask resized with "
             "mode='bilinear' and cast to long blends void into the classes. Resize masks with "
             "mode='nearest'%s. If they are classes of a larger dataset instead, the head is too small",
             void_ignored ? "ignore_index=255 skips the void pixels, but " : "beside the void label 255, ", blended,
             blended == 1 ? " lies" : "s lie", C,
             void_ignored ? ""
                          : " and pass ignore_index=255; ignore_index=255 alone still asserts on the blended labels");
    lf_guard_set_hint(r, "interpolated_void", hint);
    return true;
}

void lf_guard_diagnose_labels(const lf_case *c, const lf_problem *p, const lf_target_stats *st, lf_result *r)
{
    char hint[400];
    long long C = (long long)p->C, lo = (long long)st->min_label, hi = (long long)st->max_label;
    bool ignores = lf_loss_options(c->loss) & LF_OPT_IGNORE_INDEX; /* the hinge has none */
    char ignore[64] = "";
    if (ignores) snprintf(ignore, sizeof ignore, "; ignore_index = %lld", (long long)c->ignore_index);
    if (ignores && c->ignore_index >= 0 && c->ignore_index < p->C && !r->warning[0])
        lf_guard_warn(r, "ignore_index_is_class",
                      "ignore_index = %lld is a real class in [0, %lld): its "
                      "targets are silently dropped",
                      (long long)c->ignore_index, C);
    if (st->n_bad == 0) return;
    /* nll_loss2d_forward_kernel (spatial, mean or sum) reads int64 labels as
     * int32: where that hides every bad label, PyTorch returns a wrong loss
     * instead of asserting. Rejected all the same, under a name of its own;
     * otherwise the target named is the one PyTorch's kernel asserts on. */
    bool truncated = st->n_narrowed_silently == st->n_bad;
    /* ... unless label smoothing's weight.gather reads the int64 label afterwards: it asserts there */
    bool gathered = truncated && lf_smooth_gathers(p) && st->first_gathered != INT64_MAX;
    if (gathered) truncated = false;
    int64_t at = gathered ? st->first_gathered : truncated ? st->first_narrowed : st->first_bad;
    long long first = (long long)at;
    long long value = (long long)(gathered    ? st->first_gathered_value
                                  : truncated ? st->first_narrowed_value
                                              : st->first_bad_value);
    r->kind = LF_OUTCOME_HOST_ERROR;
    snprintf(r->error, sizeof r->error, truncated ? "label_truncated" : "label_out_of_range");
    r->index = at;
    r->value = value;
    if (truncated) {
        snprintf(r->message, sizeof r->message,
                 "target[%lld] = %lld is outside [0, %lld), and %lld of %lld targets lie beyond the int32 range: "
                 "PyTorch's %s reads them as int32 (this one as %lld) and returns a wrong loss without any error",
                 first, value, C, (long long)st->n_bad, (long long)(p->N * p->S), lf_kernel_name(p->kernel_id),
                 (long long)(int32_t)value);
        lf_guard_set_hint(r, "labels_past_int32",
                          "labels this large are corrupt (an overflowed or uninitialized "
                          "buffer, or int32/int64 confusion); PyTorch hides them here, so check the targets before "
                          "the loss: assert 0 <= target.min() and target.max() < C");
        return;
    }
    if (gathered) {
        snprintf(r->message, sizeof r->message,
                 "target[%lld] = %lld is outside [0, %lld): PyTorch's nll_loss2d_forward_kernel reads it as int32 "
                 "(%lld), but label smoothing's mean then gathers the class weights by the int64 label "
                 "(weight.gather) and hits a device-side assert there",
                 first, value, C, (long long)(int32_t)value);
        lf_guard_set_hint(r, "labels_past_int32",
                          "labels this large are corrupt (an overflowed or uninitialized "
                          "buffer, or int32/int64 confusion): check the targets before the loss: "
                          "assert 0 <= target.min() and target.max() < C");
        return;
    }
    snprintf(r->message, sizeof r->message,
             "target[%lld] = %lld is outside [0, %lld); %lld of %lld targets are out of range "
             "(labels seen: min %lld, max %lld%s). PyTorch would hit a "
             "device-side assert here",
             first, value, C, (long long)st->n_bad, (long long)(p->one_d ? 1 : p->N * p->S), lo, hi, ignore);
    if (st->n_eq_255 == st->n_bad) {
        lf_guard_set_hint(r, "void_255",
                          "255 is the 'void' label of segmentation masks (VOC, Cityscapes): "
                          "pass ignore_index=255");
    } else if (st->n_negative == st->n_bad) {
        snprintf(hint, sizeof hint,
                 "labels must be >= 0; if %lld marks padding or unlabeled data, "
                 "pass ignore_index=%lld",
                 value, value);
        lf_guard_set_hint(r, "negative_labels", hint);
    } else if (st->n_negative == 0 && lo >= 1 && hi == C) {
        snprintf(hint, sizeof hint,
                 "labels run from %lld to %lld, not from 0 to %lld: they look "
                 "1-based; use target - 1",
                 lo, hi, C - 1);
        lf_guard_set_hint(r, "one_based_labels", hint);
    } else if (hi >= 2147483648LL || (hi > 1000 && hi > 64 * C)) {
        snprintf(hint, sizeof hint,
                 "label %lld is beyond any vocabulary: the labels are corrupt "
                 "(an overflowed or uninitialized buffer, or int32/int64 confusion)",
                 hi);
        lf_guard_set_hint(r, "corrupt_labels", hint);
    } else if (!hint_interpolated_void(c, p, st, r) && st->n_ge_c > 0) {
        snprintf(hint, sizeof hint,
                 "labels go up to %lld but the model has %lld classes: the "
                 "data has more classes than the head (make the head num_classes >= %lld)",
                 hi, C, hi + 1);
        lf_guard_set_hint(r, "too_many_classes", hint);
    }
}

void lf_guard_hint_from_data(const lf_case *c, const lf_target_stats *st, lf_result *r)
{
    if (!strcmp(r->error, "target_dtype") && lf_dtype_is_float(c->target.dtype)) {
        if (st->n_non_integer > 0)
            lf_guard_set_hint(r, "interpolated_mask",
                              "the float mask has non-integer class ids: it was resized "
                              "with bilinear interpolation; resize masks with mode='nearest', then target.long()");
        else
            lf_guard_set_hint(r, "float_mask",
                              "the target holds class ids as floats (a float mask or float labels): "
                              "convert it with target.long(), and resize masks with mode='nearest'");
    } else if (!strcmp(r->error, "prob_target_dtype")) {
        int64_t rows = c->input.ndim <= 1 ? 1 : c->input.numel / (c->input.shape[1] ? c->input.shape[1] : 1);
        if (rows > 0 && st->n_rows_one_hot == rows)
            lf_guard_set_hint(r, "one_hot_target",
                              "the target is one-hot in an integer tensor: pass class indices "
                              "(target.argmax(dim=1)), or probabilities (target.float())");
        else
            lf_guard_set_hint(r, "wrong_target_dtype",
                              "probability targets must be floating point: target.float(); "
                              "class indices have no class dimension");
    }
}
