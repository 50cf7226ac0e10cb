/* lf_spec_linear.c - fused linear + cross-entropy, the spec of torch 2.15's
 * F.linear_cross_entropy: its checks, then cross_entropy(linear(input,
 * linear_weight, linear_bias).reshape(logits' shape), target, ...); the logits in float64 from the
 * dtype's values, handed to the cross-entropy spec as linear returns them
 * (rounded to the dtype), each row known only to its matmul's error (a
 * fused kernel accumulates in chunks, in another order, and may keep the
 * logits in float32); then the gradients of the hidden states, the weight
 * and the bias from the logits' gradient, each with the scale of its sum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_shape.h"
#include "lf_spec.h"
#include "lf_tensor_ops.h"

/* The logits as a cross-entropy case, and what each row is known to. */
typedef struct {
    lf_case lc;
    double *extra;   /* per batch row, in units of the dtype */
    bool overflows;  /* a dot product's terms pass the dtype's range: PyTorch's inf or NaN depends on its order */
    bool fallback;   /* options given that torch ignores, with a warning (lf_spec_chunked.c) */
    int64_t N, H, V; /* N = 1 for hidden states [H]; V = C * d1 * .. * dK, the weight's rows as linear sees them */
    lf_dtype dtype;  /* the logits': the input's, or the chunked path's wider one */
    bool own_weight, own_target; /* cast into that wider dtype: the logits case's own copies */
} logits;

/* torch 2.15's linear_cross_entropy checks, in its order (torch/nn/functional.py),
 * before cross_entropy's on the logits, the options'= first and the chunked
 * path's last (lf_spec_chunked.c): false with r a host error; *fallback where
 * torch ignores the options given, with its warning. One dtype for all three is
 * a case file's rule (lf_case.c). */
static bool check_linear(const lf_case *c, lf_result *r, bool *fallback)
{
    const lf_tensor *h = &c->input, *w = &c->linear_weight, *b = &c->linear_bias;
    char want[LF_MAX_DIMS * 22 + 4], got[LF_MAX_DIMS * 22 + 4];
    *fallback = false;
    if (!lf_spec_chunked_options(c, r)) return false;
    if (h->ndim < 1 || h->ndim > 2) {
        lf_result_error(r, "linear_shape", "RuntimeError", "expected input with dimensionality 1 or 2, got %d",
                        h->ndim);
        return false;
    }
    if (w->ndim < 2) {
        lf_result_error(r, "linear_shape", "RuntimeError",
                        "expected linear_weight with dimensionality at least 2, got %d", w->ndim);
        return false;
    }
    int64_t H = h->shape[h->ndim - 1];
    if (w->shape[w->ndim - 1] != H) {
        lf_result_error(r, "linear_shape", "RuntimeError",
                        "expected equal input and linear_weight last dimensions (in_features), got %lld and %lld, "
                        "respectively",
                        (long long)H, (long long)w->shape[w->ndim - 1]);
        return false;
    }
    if (b->present && (b->ndim != w->ndim - 1 || memcmp(b->shape, w->shape, sizeof(int64_t) * (size_t)b->ndim))) {
        lf_format_tuple(want, sizeof want, w->shape, w->ndim - 1);
        lf_format_tuple(got, sizeof got, b->shape, b->ndim);
        lf_result_error(r, "linear_shape", "RuntimeError", "expected linear_bias shape %s, got %s", want, got);
        return false;
    }
    if (w->ndim > 2 && h->ndim == 1) {
        lf_format_tuple(want, sizeof want, w->shape, w->ndim);
        lf_format_tuple(got, sizeof got, h->shape, h->ndim);
        lf_result_error(r, "linear_shape", "RuntimeError",
                        "K-dimensional loss defined by linear_weight shape %s requires batched input, (N, %lld), got "
                        "unbatched input with shape %s",
                        want, (long long)H, got);
        return false;
    }
    int64_t shape[LF_MAX_DIMS];
    int n = lf_case_linear_logits_shape(c, shape);
    if (lf_case_given(c, LF_OPTION_IGNORE_INDEX) && n == c->target.ndim &&
        !memcmp(shape, c->target.shape, sizeof(int64_t) * (size_t)n)) {
        lf_result_error(r, "prob_ignore_index", "RuntimeError",
                        "ignore_index cannot be specified when target contains probabilities");
        return false;
    }
    if (!lf_spec_chunked_given(c)) return true;
    if (lf_spec_chunked_applies(c, shape, n)) return lf_spec_chunked_adjust(c, r);
    *fallback = true;
    return true;
}

/* The bias [C, d1..dK] is exactly the logits' row of V (check_linear). */
static double bias_at(const lf_case *c, int64_t v)
{
    const lf_tensor *b = &c->linear_bias;
    return b->present ? lf_load_f64(b->data, b->dtype, v) : 0;
}

/* The logits case: the call's options, the logits [*batch, C, d1..dK] as input
 * (linear's [N, V] in memory, as PyTorch reshapes them). */
static bool make_logits(const lf_case *c, logits *L, lf_result *r)
{
    const lf_tensor *h = &c->input, *w = &c->linear_weight;
    char err[256];
    memset(L, 0, sizeof *L);
    if (!check_linear(c, r, &L->fallback)) return false;
    int64_t shape[LF_MAX_DIMS];
    int ndim = lf_case_linear_logits_shape(c, shape);
    L->N = h->ndim == 2 ? h->shape[0] : 1;
    L->H = h->shape[h->ndim - 1];
    L->V = 1;
    for (int d = 0; d < w->ndim - 1; d++) L->V *= w->shape[d];
    L->lc = *c; /* borrows the target and class weight; the logits are its own */
    L->lc.loss = LF_LOSS_CROSS_ENTROPY;
    L->lc.has_ignore_index = true; /* None is -100 from here on */
    memset(&L->lc.input, 0, sizeof L->lc.input);
    memset(&L->lc.linear_weight, 0, sizeof L->lc.linear_weight);
    memset(&L->lc.linear_bias, 0, sizeof L->lc.linear_bias);
    L->lc.pos_weight.present = false;
    L->lc.expect_value = NULL;
    /* (the chunked path may keep a 16-bit input's logits in float32: lf_spec_chunked_logits_dtype) */
    L->dtype = lf_spec_chunked_logits_dtype(c);
    bool ok = ndim > 0 && lf_tensor_alloc(&L->lc.input, L->dtype, ndim, shape, err, sizeof err);
    /* there the class weight and a probability target are read in the logits' dtype too (its weight_row,
     * prob_target_buf) */
    if (ok && L->dtype != h->dtype) {
        lf_tensor cast;
        if (c->weight.present && c->weight.dtype == h->dtype && (ok = lf_tensor_cast(&c->weight, L->dtype, &cast))) {
            L->lc.weight = cast;
            L->lc.weight.present = L->own_weight = true;
        }
        if (ok && c->target.dtype == h->dtype && (ok = lf_tensor_cast(&c->target, L->dtype, &cast))) {
            L->lc.target = cast;
            L->lc.target.present = L->own_target = true;
        }
        if (!ok) snprintf(err, sizeof err, "cannot cast the class weight or target");
    }
    L->extra = malloc(sizeof(double) * (size_t)(L->N + 1));
    if (!ok || !L->extra) {
        lf_result_error(r, "internal", "MemoryError", "the logits: %s", ok ? "out of memory" : err);
        return false;
    }
    /* a dot product of H terms: float32 accumulation, in blocks, errs by up to about H / 64 units of its terms */
    double acc = 1 + (double)L->H / 64;
    for (int64_t n = 0; n < L->N; n++) {
        double worst = 0;
        for (int64_t v = 0; v < L->V; v++) {
            double dot = 0, mag = 0, b = bias_at(c, v);
            for (int64_t k = 0; k < L->H; k++) {
                double x = lf_load_f64(h->data, h->dtype, n * L->H + k),
                       y = lf_load_f64(w->data, w->dtype, v * L->H + k);
                dot += x * y;
                mag += fabs(x * y);
            }
            dot += b;
            mag += fabs(b);
            lf_store_f64(L->lc.input.data, L->dtype, n * L->V + v, dot);
            L->overflows |= isfinite(mag) && mag * acc >= lf_dtype_max(L->dtype) / 2;
            if (mag > worst || isnan(mag)) worst = mag;
        }
        /* lp = x - logsumexp(x): the label's logit's error and the logsumexp's, each up to the row's worst */
        L->extra[n] = 2 * worst * acc;
    }
    return true;
}

static void free_logits(logits *L)
{
    lf_tensor_free(&L->lc.input);
    if (L->own_weight) lf_tensor_free(&L->lc.weight);
    if (L->own_target) lf_tensor_free(&L->lc.target);
    free(L->extra);
}

/* Every value undecided: PyTorch's linear overflows, and its answer is its order's. */
static void undecided(lf_result *r)
{
    for (int64_t i = 0; r->kind == LF_OUTCOME_OK && r->scales && i < r->n; i++) r->scales[i] = LF_SCALE_UNDECIDED;
}

void lf_spec_linear_run(const lf_case *c, lf_result *r)
{
    logits L;
    lf_result_init(r);
    if (make_logits(c, &L, r)) {
        lf_spec_run_logits(&L.lc, L.extra, r);
        lf_spec_chunked_narrow(c, L.dtype, r);
        if (L.overflows) undecided(r);
        if (L.fallback && r->kind == LF_OUTCOME_OK) lf_spec_chunked_fallback(c, r);
    }
    free_logits(&L);
}

/* One gradient of the linear, out[i] = sum_j a(i, j) d(j): its value, and
 * as its scale the error the logits' gradient brings (its scales times |a|)
 * plus the sum's own rounding (j terms, blocked). */
typedef struct {
    lf_result *g;
    const lf_result *dl; /* d logits [N, V], with scales */
    int64_t at;          /* the element being summed */
    double sum, mag, terms;
    bool undecided;
} grad_sum;

static void add(grad_sum *s, int64_t j, double a)
{
    double d = s->dl->values[j], sc = s->dl->scales[j];
    if (sc == LF_SCALE_UNDECIDED) s->undecided = true;
    s->sum += d * a;
    if (a != 0) s->mag += (sc + fabs(d)) * fabs(a); /* an unknowable d times 0 is known: 0 */
    s->terms += fabs(d * a);
}

static void put_sum(grad_sum *s, int64_t terms)
{
    /* terms past the dtype's range: PyTorch's inf, NaN or number is its order's */
    bool past = isfinite(s->terms) && s->terms > lf_dtype_max(s->g->out_dtype);
    s->g->values[s->at] = lf_dtype_round(s->g->out_dtype, s->sum);
    s->g->scales[s->at] = s->undecided || past ? LF_SCALE_UNDECIDED : s->mag * (1 + (double)terms / 64);
}

static bool start(lf_result *g, const lf_tensor *t)
{
    if (!lf_result_alloc_values(g, t->numel, true)) return false;
    g->kind = LF_OUTCOME_OK;
    g->out_dtype = g->tol_dtype = t->dtype;
    return true;
}

void lf_spec_linear_grad(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS])
{
    logits L;
    lf_result dl;
    lf_result_init(&dl);
    if (!make_logits(c, &L, &g[LF_GRAD_INPUT])) {
        free_logits(&L);
        return;
    }
    lf_spec_grad_logits(&L.lc, L.extra, upstream, &dl);
    const lf_tensor *h = &c->input, *w = &c->linear_weight, *b = &c->linear_bias;
    int64_t N = L.N, H = L.H, V = L.V;
    if (dl.kind != LF_OUTCOME_OK) {
        /* the spec's error, as it is, for every part (PyTorch's backward fails for all: 1-D logits, a [1] target) */
        for (int p = LF_GRAD_INPUT + 1; dl.kind == LF_OUTCOME_HOST_ERROR && p < LF_GRAD_PARTS; p++)
            lf_result_error(&g[p], dl.error, dl.exception, "%s", dl.message);
        g[LF_GRAD_INPUT] = dl;
        free_logits(&L);
        return;
    }
    bool ok = start(&g[LF_GRAD_INPUT], h) && start(&g[LF_GRAD_LINEAR_WEIGHT], w) &&
              (!b->present || start(&g[LF_GRAD_LINEAR_BIAS], b));
    for (int64_t n = 0; ok && n < N; n++) /* d hidden = d logits . W */
        for (int64_t k = 0; k < H; k++) {
            grad_sum s = {&g[LF_GRAD_INPUT], &dl, n * H + k, 0, 0, 0, false};
            for (int64_t v = 0; v < V; v++) add(&s, n * V + v, lf_load_f64(w->data, w->dtype, v * H + k));
            put_sum(&s, V);
        }
    for (int64_t v = 0; ok && v < V; v++) /* d W = d logits^T . hidden */
        for (int64_t k = 0; k < H; k++) {
            grad_sum s = {&g[LF_GRAD_LINEAR_WEIGHT], &dl, v * H + k, 0, 0, 0, false};
            for (int64_t n = 0; n < N; n++) add(&s, n * V + v, lf_load_f64(h->data, h->dtype, n * H + k));
            put_sum(&s, N);
        }
    for (int64_t v = 0; ok && b->present && v < V; v++) { /* d b = d logits summed over rows */
        grad_sum s = {&g[LF_GRAD_LINEAR_BIAS], &dl, v, 0, 0, 0, false};
        for (int64_t n = 0; n < N; n++) add(&s, n * V + v, 1);
        put_sum(&s, N);
    }
    if (!ok)
        for (int p = 0; p < LF_GRAD_PARTS; p++) lf_result_error(&g[p], "internal", "MemoryError", "out of memory");
    for (int p = 0; L.overflows && p < LF_GRAD_PARTS; p++) undecided(&g[p]);
    lf_result_free(&dl);
    free_logits(&L);
}
