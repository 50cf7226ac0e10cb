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

static const char *deviation(const lf_kernel_deviations *d, const lf_case *c, const char *signature)
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
    if (d->labels_unchecked && !strncmp(signature, "kernel-silent/label_", 20))
        return "labels_unchecked: the kernel leaves labels unchecked and returns numbers for bad ones";
    /* the target's shape refused by PyTorch, but one label per row all the same (HF's and torchtune's view(-1));
     * an integer target of the input's rank too, which PyTorch takes for probabilities of the wrong dtype */
    bool shape_refused = !strcmp(signature, "kernel-silent/target_shape") ||
                         !strcmp(signature, "kernel-silent/batch_size_mismatch") ||
                         !strcmp(signature, "kernel-silent/prob_target_dtype");
    if (d->targets_flattened && shape_refused && !lf_dtype_is_float(c->target.dtype) && classes > 0 &&
        c->target.numel * classes == c->input.numel)
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
    const char *why = deviation(&claims->deviations, c, sig);
    if (!why) return;
    v->finding = false;
    v->accepted[0] = 0; /* the finding's own reason, not an earlier note */
    lf_accept(v, sig, why);
}
