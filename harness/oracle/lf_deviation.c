/* lf_deviation.c - the findings a kernel's claims explain as deliberate
 * (lf_kernel_deviations): a call smaller than the kernel takes, a number for
 * an out-of-range label where it leaves labels unchecked, a signature it
 * accepts with a reason (its start; '*' for any run of characters). Still reported and counted, as accepted; never a
 * failure. (A gradient written in place and a float32 result for
 * low-precision input are judged where those checks are: lf_kernel_verdict.c,
 * so the gradient and the values are still compared.) */
#include <stdio.h>
#include <string.h>

#include "lf_exec.h"
#include "lf_verdict_build.h"

void lf_accept(lf_verdict *v, const char *signature, const char *reason)
{
    if (v->accepted[0]) return; /* the first deviation names it */
    snprintf(v->accepted_signature, sizeof v->accepted_signature, "%s", signature);
    snprintf(v->accepted, sizeof v->accepted, "%s", reason);
}

/* Whether the signature starts with the pattern, where '*' stands for any
 * run of characters ("false-alarm/kernel[*1-D": every 1-D rejection, whatever
 * the dtype and layout before it). */
static bool starts_like(const char *signature, const char *pattern)
{
    if (!*pattern) return true;
    if (*pattern == '*') {
        for (const char *s = signature;; s++) {
            if (starts_like(s, pattern + 1)) return true;
            if (!*s) return false;
        }
    }
    return *signature == *pattern && starts_like(signature + 1, pattern + 1);
}

/* PyTorch's refusals of a target's shape that a kernel viewing its targets as [-1] replaces by one check, their
 * count against the logits' rows: another shape of the batch or spatial dims, the input's shape where an integer
 * target is read as probabilities, a 1-D input's [1] target. */
static bool shape_refusal(const char *error)
{
    static const char *const refusals[] = {"target_shape", "batch_size_mismatch", "prob_target_dtype", "broadcast",
                                           "prob_ignore_index"};
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
        if (!strcmp(error, refusals[i])) return true;
    return false;
}

/* The logits' rows (a fused linear's: the hidden states' rows), each one label of a flattening kernel. */
static int64_t logit_rows(const lf_case *c)
{
    int64_t shape[LF_MAX_DIMS], rows = 1;
    int n = lf_case_row_shape(c, shape);
    for (int d = 0; d < n; d++) rows *= shape[d];
    return rows;
}

const char *lf_missing_check(const lf_case *c, const lf_kernel_claims *k, const char *error)
{
    bool labels = lf_loss_has_classes(c->loss) && !lf_dtype_is_float(c->target.dtype);
    if (k && k->deviations.targets_flattened && labels && shape_refusal(error)) return "target_count";
    /* a float target of another shape than the input's, sent as probabilities: PyTorch reads it as class indices */
    bool prob = k && lf_kernel_loss_bit(c, k->losses) != lf_kernel_loss_bits(c) && lf_kernel_loss_bits(c) & k->losses;
    if (prob &&
        (!strcmp(error, "target_dtype") || !strcmp(error, "target_shape") || !strcmp(error, "batch_size_mismatch")))
        return "prob_target_shape";
    return error;
}

/* Whether a mean has no row to count: no rows, or every label ignored or of class weight 0 (PyTorch: 0 / 0). */
static bool no_counted_row(const lf_case *c)
{
    if (logit_rows(c) == 0 || c->target.numel == 0) return true;
    if (!lf_loss_has_classes(c->loss) || lf_dtype_is_float(c->target.dtype)) return false;
    int64_t C = lf_case_classes(c);
    for (int64_t i = 0; i < c->target.numel; i++) {
        int64_t t = lf_load_i64(c->target.data, c->target.dtype, i);
        bool weightless = c->weight.present && t >= 0 && t < C && lf_load_f64(c->weight.data, c->weight.dtype, t) == 0;
        if (t != c->ignore_index && !weightless) return false;
    }
    return true;
}

static const char *deviation(const lf_kernel_deviations *d, const lf_case *c, const char *signature,
                             const lf_verdict *v)
{
    static _Thread_local char why[256];
    int64_t rows = c->input.ndim <= 1 ? 1 : c->input.shape[0];
    int64_t classes = lf_case_classes(c) > 0 ? lf_case_classes(c) : 0; /* vocab_last: the last dim; a fused linear's */
    if (rows < d->min_batch) {
        snprintf(why, sizeof why, "min_batch %lld: the kernel takes no batch of %lld rows", (long long)d->min_batch,
                 (long long)rows);
        return why;
    }
    if (classes < d->min_classes) {
        snprintf(why, sizeof why, "min_classes %lld: the kernel takes no call with %lld classes",
                 (long long)d->min_classes, (long long)classes);
        return why;
    }
    bool numbers = !strncmp(signature, "value-mismatch/kernel", 21) || !strncmp(signature, "grad-mismatch/kernel", 20);
    if (d->empty_mean_zero && numbers && c->reduction == LF_REDUCTION_MEAN && v->kernel.n == 1 &&
        v->kernel.values[0] == 0 && no_counted_row(c))
        return "empty_mean_zero: the kernel's mean over no counted row is 0 (PyTorch's 0 / 0 is NaN)";
    if (d->labels_unchecked && !strncmp(signature, "kernel-silent/label_", 20))
        return "labels_unchecked: the kernel leaves labels unchecked and returns numbers for bad ones";
    /* the target's shape refused by PyTorch, but one label per row of the logits all the same (HF's and torchtune's
     * view(-1)); an integer target of the input's rank too, which PyTorch takes for probabilities of the wrong dtype */
    const char *silent = !strncmp(signature, "kernel-silent/", 14) ? signature + 14 : "";
    if (d->targets_flattened && shape_refusal(silent) && lf_loss_has_classes(c->loss) &&
        !lf_dtype_is_float(c->target.dtype) && c->target.numel == logit_rows(c))
        return "targets_flattened: the kernel views its targets as [-1], checked by their element count alone";
    for (int i = 0; i < d->n_accepted; i++)
        if (starts_like(signature, d->accepted[i].prefix)) {
            snprintf(why, sizeof why, "accept %s: %s", d->accepted[i].prefix,
                     d->accepted[i].reason); /* the claim, then why */
            return why;
        }
    return NULL;
}

void lf_judge_deviations(const lf_case *c, const lf_kernel_claims *claims, lf_verdict *v)
{
    char sig[LF_SIGNATURE_MAX];
    if (!v->finding || !claims) return;
    lf_finding_signature(c, v->finding_class, sig, sizeof sig);
    const char *why = deviation(&claims->deviations, c, sig, v);
    if (!why) return;
    v->finding = false;
    v->accepted[0] = 0; /* the finding's own reason, not an earlier note */
    lf_accept(v, sig, why);
}
