/* lf_case.c - names and memory of cases and tensors (a new case's defaults:
 * lf_options.c; its options checked: lf_case_check.c). */
#include "lf_case.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const lf_case_tensor_names[LF_CASE_TENSORS] = {"input",         "target",      "weight",   "pos_weight",
                                                           "linear_weight", "linear_bias", "loss_mask"};

lf_tensor *lf_case_tensor(lf_case *c, int k)
{
    lf_tensor *const ts[LF_CASE_TENSORS] = {&c->input,         &c->target,      &c->weight,   &c->pos_weight,
                                            &c->linear_weight, &c->linear_bias, &c->loss_mask};
    return ts[k];
}

const lf_tensor *lf_case_tensor_const(const lf_case *c, int k) { return lf_case_tensor((lf_case *)c, k); }
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
    snprintf(err, errlen,
             "shape has more than %lld elements, the limit (checking costs about %.0f bytes and %.0f ns "
             "an element: %.1f GiB and %.0f s at the limit)",
             (long long)lf_numel_limit, LF_CHECK_BYTES_PER_ELEMENT, LF_CHECK_SECONDS_PER_ELEMENT * 1e9,
             n * LF_CHECK_BYTES_PER_ELEMENT / (1 << 30), n * LF_CHECK_SECONDS_PER_ELEMENT);
}

const lf_init_field lf_init_fields[LF_INIT_FIELD_COUNT] = {
    {"mean", offsetof(lf_init, mean), LF_INIT_HAS_MEAN},
    {"std", offsetof(lf_init, std), LF_INIT_HAS_STD},
    {"low", offsetof(lf_init, low), LF_INIT_HAS_LOW},
    {"high", offsetof(lf_init, high), LF_INIT_HAS_HIGH},
    {"value", offsetof(lf_init, value), LF_INIT_HAS_VALUE},
    {"offset", offsetof(lf_init, offset), LF_INIT_HAS_OFFSET},
    {"special_rate", offsetof(lf_init, special_rate), LF_INIT_HAS_SPECIALS}};

const char *lf_outcome_name(lf_outcome_kind k) { return outcome_names[k]; }

bool lf_outcome_parse(const char *name, lf_outcome_kind *out)
{
    for (int k = LF_OUTCOME_OK; k <= LF_OUTCOME_DEVICE_ASSERT; k++)
        if (strcmp(name, outcome_names[k]) == 0) {
            *out = (lf_outcome_kind)k;
            return true;
        }
    return false;
}

lf_reduction lf_reduction_parse(const char *name)
{
    if (strcmp(name, "none") == 0) return LF_REDUCTION_NONE;
    if (strcmp(name, "mean") == 0) return LF_REDUCTION_MEAN;
    if (strcmp(name, "sum") == 0) return LF_REDUCTION_SUM;
    return LF_REDUCTION_INVALID; /* a case, not a bad file: PyTorch raises ValueError */
}

static const char *const upstream_names[LF_UPSTREAM_COUNT] = {"random", "zero_first", "equal"};

const char *lf_upstream_name(lf_upstream u) { return u < LF_UPSTREAM_COUNT ? upstream_names[u] : "?"; }

bool lf_upstream_parse(const char *name, lf_upstream *out)
{
    for (int u = 0; u < LF_UPSTREAM_COUNT; u++)
        if (!strcmp(name, upstream_names[u])) {
            *out = (lf_upstream)u;
            return true;
        }
    return false;
}

/* splitmix64: a few lines, the same numbers everywhere. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void lf_upstream_values(const lf_backward *b, int64_t n, double *out)
{
    uint64_t state = b->seed;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = next_random(&state);
        /* one in eight is 0 (a row whose gradient must vanish), else k/64 in [-2, 2] */
        out[i] = r % 8 == 0 && n > 1 ? 0.0 : (double)((int64_t)((r >> 8) % 257) - 128) / 64.0;
        if (b->upstream == LF_UPSTREAM_EQUAL && i > 0) out[i] = out[0];
    }
    if (b->upstream == LF_UPSTREAM_ZERO_FIRST && n > 0) out[0] = 0;
}

void lf_case_free(lf_case *c)
{
    for (int k = 0; k < LF_CASE_TENSORS; k++) lf_tensor_free(lf_case_tensor(c, k));
    free(c->expect_value);
    c->expect_value = NULL;
    c->n_expect_value = 0;
    c->expect_rtol = 0;
}

bool lf_tensor_alloc(lf_tensor *t, lf_dtype dtype, int ndim, const int64_t *shape, char *err, size_t errlen)
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

int64_t lf_case_ignored_label(const lf_case *c)
{
    return lf_loss_options(c->loss) & LF_OPT_IGNORE_INDEX ? c->ignore_index : INT64_MAX;
}

int64_t lf_case_shard(const lf_case *c, int64_t V, int r, int64_t *first)
{
    int w = c->world_size > 0 ? c->world_size : 1;
    *first = 0;
    if (c->n_shards == w) {
        for (int k = 0; k < r; k++) *first += c->shards[k];
        return c->shards[r];
    }
    /* lossfuzz's even split: ceil(V / w) each, the last the rest (empty shards where V is small: V = 4, w = 3
     * gives [2, 2, 0]); where w divides V it is Megatron's and flash-attention's rank * V / w */
    int64_t even = (V + w - 1) / w;
    *first = even * r < V ? even * r : V;
    return (*first + even < V ? *first + even : V) - *first;
}

int lf_case_class_dim(const lf_case *c)
{
    const lf_tensor *in = &c->input;
    if (in->ndim <= 1) return 0;
    return c->vocab_last && !lf_loss_of(c->loss)->fused_linear ? in->ndim - 1 : 1;
}

int lf_case_linear_logits_shape(const lf_case *c, int64_t shape[LF_MAX_DIMS])
{
    const lf_tensor *in = &c->input, *w = &c->linear_weight;
    int n = 0;
    if (in->ndim < 1 || w->ndim < 2 || in->ndim - 1 + w->ndim - 1 > LF_MAX_DIMS) return -1;
    for (int d = 0; d < in->ndim - 1; d++) shape[n++] = in->shape[d];
    for (int d = 0; d < w->ndim - 1; d++) shape[n++] = w->shape[d];
    return n;
}

int lf_case_row_shape(const lf_case *c, int64_t shape[LF_MAX_DIMS])
{
    const lf_tensor *in = &c->input;
    int n = 0;
    if (lf_loss_of(c->loss)->fused_linear) { /* the logits' shape without C */
        int64_t logits[LF_MAX_DIMS];
        int m = lf_case_linear_logits_shape(c, logits), cls = in->ndim - 1;
        for (int d = 0; d < m; d++)
            if (d != cls) shape[n++] = logits[d];
        return n;
    }
    int cls = lf_case_class_dim(c);
    for (int d = 0; d < in->ndim; d++)
        if (d != cls) shape[n++] = in->shape[d];
    return n;
}

int lf_case_result_shape(const lf_case *c, int64_t shape[LF_MAX_DIMS])
{
    const lf_loss_info *L = lf_loss_of(c->loss);
    bool classes = lf_loss_has_classes(c->loss);
    const lf_tensor *from = classes ? &c->target : &c->input;
    if (c->reduction != LF_REDUCTION_NONE) return 0;
    if (classes && lf_dtype_is_float(c->target.dtype)) return lf_case_row_shape(c, shape);
    if (classes && c->input.ndim == 1 && !L->target_shaped) return 0; /* one row, whatever the target's dims */
    memcpy(shape, from->shape, sizeof from->shape);
    return from->ndim;
}

bool lf_case_any_ignored(const lf_case *c)
{
    if (!lf_loss_has_classes(c->loss) || lf_dtype_is_float(c->target.dtype)) return false;
    for (int64_t i = 0; i < c->target.numel; i++)
        if (lf_load_i64(c->target.data, c->target.dtype, i) == c->ignore_index) return true;
    return false;
}

bool lf_case_has_smoothing(const lf_case *c) { return c->has_label_smoothing && c->label_smoothing != 0; }

int64_t lf_case_first_wrapped_ignore(const lf_case *c)
{
    if (!lf_loss_of(c->loss)->log_softmax || !(c->label_smoothing > 0) || c->target.dtype != LF_U8 ||
        (c->ignore_index >= 0 && c->ignore_index <= 255))
        return -1;
    for (int64_t i = 0; i < c->target.numel; i++)
        if (!lf_smooth_kept(lf_load_i64(c->target.data, c->target.dtype, i), c->ignore_index, c->target.dtype))
            return i;
    return -1;
}

int64_t lf_case_classes(const lf_case *c)
{
    if (lf_loss_of(c->loss)->fused_linear) return c->linear_weight.ndim >= 2 ? c->linear_weight.shape[0] : -1;
    if (c->input.ndim == 0) return -1;
    return c->input.shape[lf_case_class_dim(c)];
}
