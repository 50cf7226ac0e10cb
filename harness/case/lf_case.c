/* lf_case.c - names, defaults and memory of cases and tensors. */
#include "lf_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const loss_names[LF_LOSS_COUNT] = {
    "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits"};
static const char *const outcome_names[] = {"none", "ok", "host_error", "device_assert"};

int64_t lf_numel_limit = LF_MAX_NUMEL;

/* Measured on the 2-core development machine (`lossfuzz check`, load, spec,
 * reference, guard): [8192, 8192] float32 6 s and 790 MB, [16384, 16384] 39 s
 * and 3.0 GiB. */
#define LF_CHECK_BYTES_PER_ELEMENT 12.0
#define LF_CHECK_SECONDS_PER_ELEMENT 1.5e-7

void lf_format_size_limit(char *err, size_t errlen)
{
    double n = (double)lf_numel_limit;
    snprintf(err, errlen, "shape has more than %lld elements, the limit (checking costs about %.0f bytes and %.0f ns "
             "an element: %.1f GiB and %.0f s at the limit)", (long long)lf_numel_limit, LF_CHECK_BYTES_PER_ELEMENT,
             LF_CHECK_SECONDS_PER_ELEMENT * 1e9, n * LF_CHECK_BYTES_PER_ELEMENT / (1 << 30),
             n * LF_CHECK_SECONDS_PER_ELEMENT);
}

const lf_init_field lf_init_fields[LF_INIT_FIELD_COUNT] = {
    {"mean", offsetof(lf_init, mean), LF_INIT_HAS_MEAN},
    {"std", offsetof(lf_init, std), LF_INIT_HAS_STD},
    {"low", offsetof(lf_init, low), LF_INIT_HAS_LOW},
    {"high", offsetof(lf_init, high), LF_INIT_HAS_HIGH},
    {"value", offsetof(lf_init, value), LF_INIT_HAS_VALUE},
    {"offset", offsetof(lf_init, offset), LF_INIT_HAS_OFFSET},
    {"special_rate", offsetof(lf_init, special_rate), LF_INIT_HAS_SPECIALS}};

const char *lf_loss_name(lf_loss l) { return l < LF_LOSS_COUNT ? loss_names[l] : "?"; }

bool lf_loss_parse(const char *name, lf_loss *out)
{
    for (int l = 0; l < LF_LOSS_COUNT; l++)
        if (strcmp(name, loss_names[l]) == 0) { *out = (lf_loss)l; return true; }
    return false;
}

const char *lf_outcome_name(lf_outcome_kind k) { return outcome_names[k]; }

bool lf_outcome_parse(const char *name, lf_outcome_kind *out)
{
    for (int k = LF_OUTCOME_OK; k <= LF_OUTCOME_DEVICE_ASSERT; k++)
        if (strcmp(name, outcome_names[k]) == 0) { *out = (lf_outcome_kind)k; return true; }
    return false;
}

lf_reduction lf_reduction_parse(const char *name)
{
    if (strcmp(name, "none") == 0) return LF_REDUCTION_NONE;
    if (strcmp(name, "mean") == 0) return LF_REDUCTION_MEAN;
    if (strcmp(name, "sum") == 0) return LF_REDUCTION_SUM;
    return LF_REDUCTION_INVALID; /* a case, not a bad file: PyTorch raises ValueError */
}

void lf_case_init(lf_case *c)
{
    memset(c, 0, sizeof *c);
    c->ignore_index = -100;
    c->reduction = LF_REDUCTION_MEAN;
    strcpy(c->reduction_name, "mean");
}

void lf_case_free(lf_case *c)
{
    lf_tensor_free(&c->input);
    lf_tensor_free(&c->target);
    lf_tensor_free(&c->weight);
    lf_tensor_free(&c->pos_weight);
    free(c->expect_value);
    c->expect_value = NULL;
    c->n_expect_value = 0;
}

bool lf_tensor_alloc(lf_tensor *t, lf_dtype dtype, int ndim, const int64_t *shape,
                     char *err, size_t errlen)
{
    int64_t numel = 1;
    if (ndim < 0 || ndim > LF_MAX_DIMS) {
        snprintf(err, errlen, "%d dimensions: at most %d are supported", ndim, LF_MAX_DIMS);
        return false;
    }
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0) {
            snprintf(err, errlen, "shape[%d] = %lld is negative", d, (long long)shape[d]);
            return false;
        }
        /* Checked before multiplying, so a lying shape cannot overflow int64. */
        if (shape[d] > 0 && numel > lf_numel_limit / shape[d]) {
            lf_format_size_limit(err, errlen);
            return false;
        }
        numel *= shape[d];
    }
    lf_tensor_free(t);
    t->present = true;
    t->dtype = dtype;
    t->ndim = ndim;
    memcpy(t->shape, shape, sizeof(int64_t) * (size_t)ndim);
    t->numel = numel;
    /* One spare element so that an empty tensor still has a valid pointer. */
    t->data = calloc((size_t)numel + 1, lf_dtype_size(dtype));
    if (!t->data) {
        snprintf(err, errlen, "out of memory for %lld elements", (long long)numel);
        t->present = false;
        return false;
    }
    return true;
}

void lf_tensor_free(lf_tensor *t)
{
    if (!t->borrowed) free(t->data);
    memset(t, 0, sizeof *t);
}

bool lf_case_check_options(const lf_case *c, char *err, size_t errlen)
{
    const char *extra = NULL;
    if (c->loss == LF_LOSS_BCE_WITH_LOGITS) extra = c->has_ignore_index ? "ignore_index" : c->has_label_smoothing ? "label_smoothing" : NULL;
    else if (c->pos_weight.present) extra = "pos_weight";
    if (extra) {
        snprintf(err, errlen, "%s: %s takes no %s", extra, lf_loss_name(c->loss), extra);
        return false;
    }
    if (c->loss == LF_LOSS_NLL && c->has_label_smoothing) {
        snprintf(err, errlen, "label_smoothing: nll_loss takes no label_smoothing (cross_entropy does)");
        return false;
    }
    return true;
}
