/* lf_spec_llm.c - the LLM cross-entropy family (harness/model/case/lf_llm.def;
 * docs/llm-cross-entropy.md): cross-entropy with logit scaling, softcapping,
 * z-loss, a loss mask and token-count normalization, its log-sum-exp and
 * z-loss as outputs of their own, and the class dimension last. PyTorch has
 * none of these: the values and gradients are float64 from the definitions
 * the public kernels share, read at these commits:
 *   scale, then cap: unsloth kernels/cross_entropy_loss.py (3f7b8d0, `logit_scaling`, `logit_softcapping`);
 *   softcap * tanh(x / softcap): Liger-Kernel ops/cross_entropy.py (v0.5, `softcap`), Gemma 2's final logits;
 *   z-loss = scale * lse^2 per row: flash-attention ops/triton/cross_entropy.py (v2.6, `lse_square_scale`),
 *     Liger `lse_square_scale` (its CE mean over the target weights, its z-loss over the counted rows);
 *   n_items: unsloth `n_items`, transformers loss/loss_utils.py `num_items_in_batch` (sum / count);
 *   the loss mask: Megatron-LM's training loop, sum(loss * mask) / mask.sum().
 * Everything else composes as PyTorch composes it (weights, ignore_index,
 * label smoothing over the whole vocabulary, probability targets, fused
 * linear): with every option off this is F.cross_entropy's function. Where
 * the sources disagree the doc says which one is followed. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lf_spec.h"

/* One row's float64 terms. */
typedef struct {
    double lse, ce, z, r, w_t; /* r: the row's share (the mask, 0 when ignored); w_t: its class weight (CE's mean) */
    double log_sum, y_abs;     /* lse - max(y); max |y| where y was computed (scaled or capped), else 0 */
    double mag, z_mag;         /* what ce and z are known to, absolutely, in units of the dtype's tolerance */
    bool undecided;            /* a non-finite logit: inf - inf, NaN or a number by a kernel's order */
    bool nonfinite;            /* the row has one (an ignored row's loss is 0 still; its gradient is a kernel's) */
    bool made_nonfinite;       /* one the options made of a finite logit (scale * x past the dtype) */
} llm_row;

typedef struct {
    const lf_case *c;
    const lf_problem *p;
    double scale, cap, zs, *y, *dydx; /* y: the row's scaled, capped logits */
} llm_ctx;

static double mask_at(const lf_case *c, int64_t i)
{
    return c->loss_mask.present ? lf_load_f64(c->loss_mask.data, c->loss_mask.dtype, i) : 1.0;
}

/* y = cap(scale * x) of the row at base, and dy/dx; the row's lse (and t's log_sum and y_abs). */
static double row_logits(const llm_ctx *x, int64_t base, llm_row *row)
{
    const lf_problem *p = x->p;
    bool *nonfinite = &row->nonfinite;
    double mx = -INFINITY, sum = 0;
    for (int64_t k = 0; k < p->C; k++) {
        double v = x->scale * lf_load_f64(x->c->input.data, x->c->input.dtype, base + k * p->S);
        x->dydx[k] = x->scale;
        /* scale * x past the input dtype: torch's product there is inf (then NaN), a kernel's in float a number */
        row->made_nonfinite |= isfinite(v) && fabs(v) > lf_dtype_max(x->c->input.dtype);
        *nonfinite |= fabs(v) > lf_dtype_max(x->c->input.dtype);
        if (x->cap > 0) {
            double t = tanh(v / x->cap);
            v = x->cap * t;
            x->dydx[k] = x->scale * (1 - t * t);
        }
        x->y[k] = v;
        *nonfinite |= !isfinite(v);
        if (v > mx || isnan(v)) mx = v;
        if (x->scale != 1 || x->cap > 0) row->y_abs = fmax(row->y_abs, fabs(v));
    }
    if (!isfinite(mx)) return mx; /* NaN, inf, or -inf for a row without classes */
    for (int64_t k = 0; k < p->C; k++) sum += exp(x->y[k] - mx);
    row->log_sum = log(sum);
    return mx + log(sum);
}

/* What a row's lp[k] = y[k] - lse is known to beyond |lp[k]|, in units of
 * the tolerance - the plain spec's model (lf_spec_row_log_softmax): log(sum)
 * and the sum's rounding, its C terms added in float in any order, a fused
 * linear's matmul error - and the rounding of y itself where a kernel
 * computes it (scaled or capped: each y known to a unit of float, which
 * y[k] - max(y) does not cancel). Logits as given are exact, so a kernel
 * that rounds lse before subtracting the label's logit is judged as it is
 * without the family's options. */
static double lp_extra(const llm_ctx *x, int64_t row, const llm_row *t)
{
    const lf_problem *p = x->p;
    double rtol, atol, unit = x->c->input.dtype == LF_F64 ? DBL_EPSILON / 2 : FLT_EPSILON / 2;
    lf_dtype_tolerance(lf_dtype_coarsest(x->c->input.dtype, p->out_dtype), &rtol, &atol);
    return 2 * t->log_sum + 1 + (double)p->C * unit / rtol + 2 * t->y_abs * unit / rtol +
           (p->logit_extra ? fabs(x->scale) * p->logit_extra[row] : 0);
}

/* What lse itself is known to beyond |lse|: its max's rounding (a unit of float on |lse|) and lp's extra. */
static double lse_extra(const llm_ctx *x, int64_t row, const llm_row *t)
{
    double rtol, atol, unit = x->c->input.dtype == LF_F64 ? DBL_EPSILON / 2 : FLT_EPSILON / 2;
    lf_dtype_tolerance(lf_dtype_coarsest(x->c->input.dtype, x->p->out_dtype), &rtol, &atol);
    return lp_extra(x, row, t) + fabs(t->lse) * unit / rtol;
}

static llm_row row_terms(const llm_ctx *x, int64_t i, int64_t base)
{
    const lf_case *c = x->c;
    const lf_problem *p = x->p;
    llm_row t = {0};
    t.lse = row_logits(x, base, &t);
    /* a logit given as inf or NaN: the plain spec's answer (NaN, or inf where -inf is the label's); one the
     * options made: torch's composition's inf (then NaN) where a kernel in float keeps a number */
    t.undecided = t.made_nonfinite || (t.nonfinite && (x->scale != 1 || x->cap > 0));
    double extra = lp_extra(x, i, &t), eps = p->label_smoothing;
    if (p->targets == LF_CLASS_TARGETS) {
        int64_t raw = lf_load_i64(c->target.data, c->target.dtype, i);
        int64_t label = lf_label_read(p->kernel_id, c->target.dtype, raw);
        if (label == c->ignore_index) { /* r = 0: neither counted nor differentiated, whatever its logits */
            t.undecided = false;
            return t;
        }
        t.w_t = lf_spec_weight(c, label);
        t.ce = (1 - eps) * t.w_t * (t.lse - x->y[label]);
        t.mag = (1 - eps) * fabs(t.w_t) * (fabs(t.lse - x->y[label]) + extra);
        double smooth_terms = 0; /* the smoothing sum before eps / C, in the dtype it is summed in */
        /* F.cross_entropy's row drops its smoothing term where its uint8 mask wraps ignore_index (lf_smooth_kept) */
        bool smoothed = eps > 0 && lf_smooth_kept(raw, c->ignore_index, c->target.dtype);
        for (int64_t k = 0; smoothed && k < p->C; k++) {
            t.ce += eps / (double)p->C * lf_spec_weight(c, k) * (t.lse - x->y[k]);
            t.mag += eps / (double)p->C * fabs(lf_spec_weight(c, k)) * (fabs(t.lse - x->y[k]) + extra);
            smooth_terms += fabs(lf_spec_weight(c, k) * (t.lse - x->y[k]));
        }
        t.undecided |= eps > 0 && smooth_terms > lf_dtype_max(c->input.dtype);
    } else {
        t.w_t = 1; /* probabilities: the mean is over rows */
        for (int64_t k = 0; k < p->C; k++) {
            double wt = lf_spec_weight(c, k) * lf_spec_prob_target(c, p, base, k);
            t.ce += wt * (t.lse - x->y[k]);
            t.mag += fabs(wt) * (fabs(t.lse - x->y[k]) + extra);
        }
    }
    if (t.lse == INFINITY) t.ce = NAN; /* a logit of +inf: log_softmax's x - max is NaN on every class */
    t.r = mask_at(c, i);
    t.z = x->zs != 0 ? x->zs * t.lse * t.lse : 0; /* off: 0, whatever lse is */
    t.z_mag = x->zs * 2 * fabs(t.lse) * lse_extra(x, i, &t);
    /* terms past the accumulating dtype's range (float for all but float64): a kernel's inf, or NaN times a
     * mask of 0 */
    double acc_max = lf_dtype_max(c->input.dtype == LF_F64 ? LF_F64 : LF_F32);
    /* (an infinite mag: past it; a logit given as inf or NaN has one, and the plain spec's answer) */
    bool given_nonfinite = t.nonfinite && !t.made_nonfinite;
    t.undecided |= !isfinite(t.w_t) || fabs(t.z) > acc_max || (!given_nonfinite && t.mag > acc_max);
    /* a masked row (0) with a non-finite logit: the definitions' 0 * NaN, or a kernel's 0 for a row it skips */
    t.undecided |= t.nonfinite && t.r == 0;
    /* lse * lse formed in the output dtype (the definitions' torch composition): inf there, and NaN times a
     * mask of 0, where a kernel in float keeps a number */
    t.undecided |= fabs(t.z) > lf_dtype_max(p->out_dtype);
    return t;
}

/* The sums a reduction needs. */
typedef struct {
    double ce, z, d_ce, d_z, mag, z_mag;
    bool undecided, nonfinite;
} llm_sums;

static bool start(lf_result *r, int64_t n) { return lf_result_alloc_values(r, n, true); }

static double *start_output(lf_result *r, int o, int64_t n)
{
    r->outputs[o].values = calloc((size_t)n + 1, sizeof(double));
    r->outputs[o].scales = calloc((size_t)n + 1, sizeof(double));
    r->outputs[o].n = n;
    return r->outputs[o].values && r->outputs[o].scales ? r->outputs[o].values : NULL;
}

static void put(double *values, double *scales, lf_dtype t, int64_t i, double v, double mag, bool undecided)
{
    values[i] = lf_dtype_round(t, v);
    scales[i] = undecided ? LF_SCALE_UNDECIDED : mag;
}

static bool context(const lf_case *c, const lf_problem *p, llm_ctx *x)
{
    *x = (llm_ctx){c, p, c->llm[LF_LLM_LOGIT_SCALE], c->llm[LF_LLM_SOFTCAP], c->llm[LF_LLM_Z_LOSS_SCALE], NULL, NULL};
    int64_t classes = p->N * p->S > 0 ? p->C : 0; /* a row's logits; an empty batch may name any C, and needs none */
    x->y = malloc(sizeof(double) * (size_t)(classes + 1));
    x->dydx = malloc(sizeof(double) * (size_t)(classes + 1));
    return x->y && x->dydx;
}

static void done(llm_ctx *x)
{
    free(x->y);
    free(x->dydx);
}

/* The divisors: n_items where given, else the mean's (CE: the counted rows'
 * class weights, PyTorch's; z-loss: the counted rows, Liger's), else 1. */
static void divisors(const lf_case *c, const lf_problem *p, const llm_sums *s, double *d_ce, double *d_z)
{
    double n_items = c->llm[LF_LLM_N_ITEMS];
    *d_ce = *d_z = 1;
    if (n_items > 0)
        *d_ce = *d_z = n_items;
    else if (p->reduction == LF_RED_MEAN)
        *d_ce = s->d_ce, *d_z = s->d_z;
}

void lf_spec_llm_values(const lf_case *c, const lf_problem *p, lf_result *r)
{
    bool scalar;
    int64_t n_out = lf_plan_out_numel(p, &scalar), rows = p->N * p->S;
    llm_ctx x;
    bool ok = context(c, p, &x) && start(r, n_out) && start_output(r, LF_OUT_LSE, rows) &&
              start_output(r, LF_OUT_Z_LOSS, n_out);
    if (!ok) {
        done(&x);
        lf_result_error(r, "internal", "MemoryError", "out of memory");
        return;
    }
    lf_spec_result_ok(c, p, scalar, r);
    bool none = p->reduction == LF_RED_NONE;
    llm_sums s = {0};
    double *lse = r->outputs[LF_OUT_LSE].values, *z = r->outputs[LF_OUT_Z_LOSS].values;
    for (int64_t i = 0; i < rows; i++) {
        int64_t base = (i / p->S) * p->C * p->S + i % p->S;
        llm_row t = row_terms(&x, i, base);
        put(lse, r->outputs[LF_OUT_LSE].scales, r->out_dtype, i, t.lse, lse_extra(&x, i, &t), t.nonfinite);
        if (none) {
            put(r->values, r->scales, r->out_dtype, i, t.r * (t.ce + t.z), fabs(t.r) * (t.mag + t.z_mag), t.undecided);
            /* the z-loss off on a row with a non-finite lse: 0, or a kernel's 0 * NaN */
            put(z, r->outputs[LF_OUT_Z_LOSS].scales, r->out_dtype, i, t.r * t.z, fabs(t.r) * t.z_mag,
                t.undecided || (x.zs == 0 && t.nonfinite));
            continue;
        }
        s.ce += t.r * t.ce;
        s.z += t.r * t.z;
        s.d_ce += t.r * t.w_t;
        s.d_z += t.r;
        s.mag += fabs(t.r) * t.mag;
        s.z_mag += fabs(t.r) * t.z_mag;
        s.undecided |= t.undecided;
        s.nonfinite |= t.nonfinite;
    }
    if (!none) {
        double d_ce, d_z, acc_max = lf_dtype_max(c->input.dtype == LF_F64 ? LF_F64 : LF_F32);
        divisors(c, p, &s, &d_ce, &d_z);
        /* sums past the accumulating dtype's range: its inf, where float64's are finite */
        s.undecided |= (isfinite(s.mag) && s.mag > acc_max) || (isfinite(s.z_mag) && fabs(s.z) > acc_max);
        /* the z-loss off (z_loss_scale 0) adds 0 to the loss; returned as a mean over no rows it is 0 / 0, NaN
         * by the definition, 0 by a kernel that skips what is off: either */
        double zv = x.zs != 0 ? s.z / d_z : 0, z_mag = x.zs != 0 ? s.z_mag / fabs(d_z) : 0;
        put(r->values, r->scales, r->out_dtype, 0, s.ce / d_ce + zv, s.mag / fabs(d_ce) + z_mag, s.undecided);
        put(z, r->outputs[LF_OUT_Z_LOSS].scales, r->out_dtype, 0, zv, z_mag,
            s.undecided || (x.zs == 0 && (d_z == 0 || s.nonfinite)));
    }
    done(&x);
}

/* Class k's weight in the row's cross-entropy, -sum_k W_k lp_k: the label's
 * (1 - eps) w_t plus smoothing's eps / C w_k (class indices), w_k t_k
 * (probabilities). */
static double target_weight(const lf_case *c, const lf_problem *p, int64_t base, int64_t label, double w_t, int64_t k)
{
    double eps = p->label_smoothing;
    if (p->targets != LF_CLASS_TARGETS) return lf_spec_weight(c, k) * lf_spec_prob_target(c, p, base, k);
    return (k == label ? (1 - eps) * w_t : 0) + (eps > 0 ? eps / (double)p->C * lf_spec_weight(c, k) : 0);
}

void lf_spec_llm_grad(const lf_case *c, const lf_problem *p, const double *upstream, lf_result *g)
{
    int64_t rows = p->N * p->S;
    llm_ctx x;
    if (!context(c, p, &x) || !start(g, c->input.numel)) {
        done(&x);
        lf_result_error(g, "internal", "MemoryError", "out of memory");
        return;
    }
    g->kind = LF_OUTCOME_OK;
    g->out_dtype = g->tol_dtype = c->input.dtype;
    if (p->targets != LF_CLASS_TARGETS) g->tol_dtype = lf_dtype_coarsest(g->tol_dtype, c->target.dtype);
    bool none = p->reduction == LF_RED_NONE;
    llm_sums s = {0};
    for (int64_t i = 0; !none && i < rows; i++) { /* the divisors first */
        llm_row t = row_terms(&x, i, (i / p->S) * p->C * p->S + i % p->S);
        s.d_ce += t.r * t.w_t;
        s.d_z += t.r;
    }
    double d_ce, d_z;
    divisors(c, p, &s, &d_ce, &d_z);
    /* a kernel's d y / d x = scale (1 - tanh^2) in float: tanh's few units of error, absolute, are a large part of
     * 1 - tanh^2 where the cap saturates (6e-5 of it at tanh(-4)); said in units of the tolerance */
    double rtol, atol, unit = c->input.dtype == LF_F64 ? DBL_EPSILON / 2 : FLT_EPSILON / 2;
    lf_dtype_tolerance(g->tol_dtype, &rtol, &atol);
    double cap_err = x.cap > 0 ? 4 * unit * fabs(x.scale) / rtol : 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t base = (i / p->S) * p->C * p->S + i % p->S;
        llm_row t = row_terms(&x, i, base);
        double up = none ? upstream[i] : upstream[0];
        double a = up * t.r / d_ce, b = x.zs != 0 ? up * t.r / d_z : 0; /* the CE part's, the z-loss's coefficients */
        int64_t label = p->targets == LF_CLASS_TARGETS ? lf_label_read(p->kernel_id, c->target.dtype,
                                                                       lf_load_i64(c->target.data, c->target.dtype, i))
                                                       : -1;
        double extra = lp_extra(&x, i, &t), W = 0, W_mag = 0; /* the targets' weights summed: p's coefficient */
        for (int64_t k = 0; k < p->C; k++) {
            double wk = target_weight(c, p, base, label, t.w_t, k);
            W += wk;
            W_mag += fabs(wk);
        }
        for (int64_t k = 0; k < p->C; k++) {
            double pk = t.r != 0 ? exp(x.y[k] - t.lse) : 0;
            double wk = target_weight(c, p, base, label, t.w_t, k);
            /* d ce / d y_k = p_k sum(w) - w_k; d z / d y_k = 2 zs lse p_k; times d y / d x */
            double v = (a * (pk * W - wk) + b * 2 * x.zs * t.lse * pk) * x.dydx[k];
            double mag = (fabs(a) * (pk * extra * W_mag + fabs(wk)) +
                          fabs(b) * 2 * x.zs * pk * (fabs(t.lse) + extra) * lse_extra(&x, i, &t)) *
                             fabs(x.dydx[k]) * (1 + (double)p->C / 64) +
                         fabs(a * (pk * W - wk) + b * 2 * x.zs * t.lse * pk) * cap_err;
            /* an ignored row with a NaN or inf logit: PyTorch's log_softmax backward gives NaN (0 * NaN), a
             * kernel that skips the row 0; neither is judged */
            put(g->values, g->scales, g->out_dtype, base + k * p->S, t.r != 0 ? v : 0, mag,
                t.r != 0 ? t.undecided : t.nonfinite);
        }
    }
    done(&x);
}

void lf_spec_outputs(const lf_case *c, lf_result *r)
{
    if (r->kind != LF_OUTCOME_OK || r->outputs[LF_OUT_LSE].values || c->loss != LF_LOSS_CROSS_ENTROPY) return;
    lf_problem p;
    lf_result t;
    lf_result_init(&t);
    if (lf_spec_plan(c, &p, &t) && p.log_softmax) lf_spec_llm_values(c, &p, &t);
    for (int o = 0; t.kind == LF_OUTCOME_OK && o < LF_OUT_COUNT; o++) {
        r->outputs[o] = t.outputs[o];
        t.outputs[o].values = t.outputs[o].scales = NULL;
    }
    lf_result_free(&t);
}
