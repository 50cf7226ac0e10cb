/* lf_crop.c - a user's batch as a regression: the smallest crop that still
 * shows what the batch shows, minimized without losing it. A single position
 * keeps most diagnoses (one label 255 is a void pixel), but some need more of
 * the batch: an interpolated mask is told from a float mask by its non-integer
 * values, a bilinear void mask by 255 beside blended labels. So a crop is
 * tried wider until its signature matches. */
#include <stdio.h>
#include <string.h>

#include "lf_minimize.h"
#include "lf_tensor_ops.h"

#define WHOLE_BATCH_LIMIT ((int64_t)1 << 16) /* elements a batch may have to be minimized whole */

/* Copies of every tensor c still borrows, so the crop outlives the batch. */
static bool own_tensors(lf_case *c)
{
    for (int k = 0; k < LF_CASE_TENSORS; k++) {
        lf_tensor copy, *t = lf_case_tensor(c, k);
        if (!t->borrowed) continue;
        if (!lf_tensor_copy(t, &copy)) return false;
        *t = copy;
    }
    return true;
}

/* *out: the batch cropped at `focus` (a position, or a whole row), or the batch itself. */
static bool make_crop(const lf_case *c, int step, int64_t focus, lf_case *out)
{
    *out = *c; /* borrows c's tensors until the crop slices them into copies */
    out->expect_value = NULL;
    out->n_expect_value = 0;
    for (int k = 0; k < LF_CASE_TENSORS; k++) lf_case_tensor(out, k)->borrowed = true;
    bool ok = (step == 2 || lf_crop(out, focus, step == 1)) && own_tensors(out);
    if (!ok) lf_case_free(out);
    return ok;
}

bool lf_crop_copy(const lf_case *c, int64_t focus, lf_case *out) { return make_crop(c, 0, focus, out); }

bool lf_crop_keeping(const lf_case *c, const lf_backend *be, const char *signature, int64_t focus, lf_case *out,
                     char *sig, size_t siglen, char *err, size_t errlen)
{
    for (int step = 0; step < 3; step++) {
        if (step == 2 && c->input.numel + c->target.numel > WHOLE_BATCH_LIMIT) break;
        if (!make_crop(c, step, focus, out)) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        lf_signature(out, be, sig, siglen);
        if (!strcmp(sig, signature) || lf_signature_is_finding(sig)) return true;
        lf_case_free(out);
    }
    snprintf(err, errlen,
             "no crop of the batch keeps its diagnosis %s (a crop gives %s), and the batch has more "
             "than %lld elements to minimize whole",
             signature, sig, (long long)WHOLE_BATCH_LIMIT);
    return false;
}

int64_t lf_batch_focus(const lf_result *spec, const lf_result *guard)
{
    return spec->kind == LF_OUTCOME_DEVICE_ASSERT ? spec->index : guard->index;
}

bool lf_batch_crop(const lf_case *batch, const lf_backend *be, const lf_result *spec, const lf_result *guard,
                   lf_case *out, char *sig, size_t siglen, char *err, size_t errlen)
{
    char want[128];
    lf_signature_of(spec, guard, want, sizeof want);
    return lf_crop_keeping(batch, be, want, lf_batch_focus(spec, guard), out, sig, siglen, err, errlen);
}

bool lf_minimize_crop(lf_case *crop, const char *sig, const lf_result *spec, const lf_backend *be,
                      const lf_minimize_opts *limits, lf_minimize_stats *st, char *err, size_t errlen)
{
    if (!lf_signature_is_finding(sig) && spec->kind == LF_OUTCOME_OK) {
        snprintf(err, errlen,
                 "PyTorch accepts this batch and every path agrees on it: nothing to keep as a regression");
        return false;
    }
    lf_minimize_opts opts = {0};
    if (limits) opts = *limits;
    opts.keep = sig;
    opts.keep_layout = true;
    if (lf_minimize(crop, be, &opts, st)) return true;
    snprintf(err, errlen, "out of memory");
    return false;
}

bool lf_minimize_batch(const lf_case *batch, const lf_backend *be, const lf_result *spec, const lf_result *guard,
                       const lf_minimize_opts *limits, lf_case *out, lf_minimize_stats *st, char *err, size_t errlen)
{
    char sig[LF_SIGNATURE_MAX] = "";
    if (!lf_batch_crop(batch, be, spec, guard, out, sig, sizeof sig, err, errlen)) return false;
    if (lf_minimize_crop(out, sig, spec, be, limits, st, err, errlen)) return true;
    lf_case_free(out);
    return false;
}
