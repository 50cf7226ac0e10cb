/* lf_spec_grad.c - the gradient of the loss with respect to the input, in
 * float64, for the backward check of a kernel under test: the derivative of
 * the formulas lf_spec_eval.c computes, through PyTorch's saved log-softmax
 * (p = exp(lp)). Each value carries the magnitude of its terms, which the
 * oracle scales its tolerance by, as for the forward values. */
#include <math.h>
#include <stdlib.h>

#include "lf_spec.h"

/* Where a row's gradient goes and how it is scaled; with label smoothing,
 * the class weights' sum and the sum of their magnitudes (the same for every row). */
typedef struct {
    const lf_case *c;
    const lf_problem *p;
    lf_result *g;
    double *lp, *dydx;
    double W, W_mag;
    /* the LLM family's, per row: the row's terms; the z-loss's coefficient 2 z_loss_scale up r / divisor
     * (d z / d y_k = that times lse p_k); what d y / d x's rounding adds, relatively (the cap's) */
    const lf_row *row;
    double zc, dydx_err;
} grad_ctx;

static void put(lf_result *g, int64_t at, double v, double mag)
{
    g->values[at] = lf_dtype_round(g->out_dtype, v);
    g->scales[at] = mag;
}

/* Whether a finite magnitude passes the range of a dtype the gradient goes
 * through (the input's, and a target's of another dtype): PyTorch's answer
 * is inf, NaN or flushed there, by the order it computes in. */
static bool past_range(const grad_ctx *x, double mag)
{
    double max = fmin(lf_dtype_max(x->g->tol_dtype), lf_dtype_max(x->g->out_dtype)); /* the target's, the input's */
    return isfinite(mag) && mag > max;
}

/* The scale of p[k] * sum(gl) in log_softmax's backward (what p may be off
 * by, over the dtype's unit): lp is known to E, one unit of the dtype times
 * its terms, so p = exp(lp) to a factor exp(E): p E for a small E, else down
 * to exp(lp - E) and up to min(1, exp(lp + E)) (a low-precision dtype's p of
 * 1 is off by 1 - exp(-E); a fused linear's wide logits are known only to
 * several units: float64's p of 0 included). The sum over the C classes
 * adds a rounding per term (PyTorch sums in 8 or 32 lanes: C / 64 units). */
static double sum_scale(const lf_problem *p, double pk, double lp, double extra)
{
    double eps = lf_dtype_eps((lf_dtype)p->in_dtype), terms = 1 + fabs(lp) + extra, E = eps * terms;
    double off = E < 1e-3 ? pk * terms : fmax(fmin(1.0, exp(lp + E)) - pk, pk - exp(lp - E)) / eps;
    return off * (1 + (double)p->C / 64);
}

/* Class k's gradient with respect to the row's logits y, v (its magnitude mag), plus the family's z-loss,
 * times d y / d x: the input's gradient (with every option off, v itself). */
static void put_class(const grad_ctx *x, int64_t base, int64_t k, double v, double mag, double pk, bool undecided)
{
    const lf_problem *p = x->p;
    const lf_row *row = x->row;
    double zb = x->zc * row->lse, d = x->dydx[k];
    if (zb != 0) {
        /* p_k's error (sum_scale), and the p_k of lse's gradient, exp(y_k - lse), with lse rounded (its error,
         * relative in p_k: logsumexp's own backward in float32, 1e4 + 0.69 known to 6e-4); lse's own times p_k */
        v += zb * pk;
        mag += fabs(zb) * (sum_scale(p, pk, x->lp[k], row->extra) + pk * row->lse_extra) +
               fabs(x->zc) * pk * row->lse_extra;
    }
    /* the cap's backward multiplies by softcap before it divides (torch's tanh chain): past the dtype there, its
     * inf where a kernel keeps a number */
    double cap = x->c->softcap;
    undecided |= cap > 0 && past_range(x, fabs(v) * fmax(1, cap) * fmax(1, fabs(x->c->logit_scale)));
    put(x->g, base + k * p->S, v * d, undecided ? LF_SCALE_UNDECIDED : mag * fabs(d) + fabs(v) * x->dydx_err);
}

/* A class-index row, in PyTorch's order: the log-probabilities' gradient
 * gl = -a * onehot(t) - b * w (a = (1 - eps) w_t up, b = eps / C up_s: label
 * smoothing's mean has a denominator of its own), then log_softmax's
 * backward gl - p * sum(gl): an infinite weight gives the NaN and inf
 * PyTorch gives. up_off, up_off_s: what the nll's and the smoothing's
 * quotients of the upstream may be off by (up_rounding). */
/* A mean's upstream over its denominator, as PyTorch's backward kernels
 * divide it: in the input's dtype (grad_output / total_weight, both of it), so a
 * quotient below the dtype's normal range keeps few bits (float16: 0.109 /
 * 60000 is 31 steps of 2^-24, 1.3% off). What it may be off by, in units of
 * the dtype's relative tolerance (the magnitudes' unit): half a step there,
 * nothing beyond what rtol allows above. */
static double up_rounding(lf_dtype t, double q)
{
    double rtol, atol;
    lf_dtype_tolerance(t, &rtol, &atol);
    return fabs(q) < lf_dtype_min_normal(t) ? lf_dtype_min_normal(t) * lf_dtype_eps(t) / 2 / rtol : 0;
}

static void class_row(const grad_ctx *x, int64_t base, int64_t label, double up, double up_s, double up_off,
                      double up_off_s, double extra, bool undecided)
{
    const lf_problem *p = x->p;
    double eps = p->label_smoothing, W = x->W, W_mag = x->W_mag, wt = lf_spec_weight(x->c, label);
    double a = (1 - eps) * wt * up, b = eps / (double)p->C * up_s;
    double gl_sum = -a - (eps > 0 ? b * W : 0);
    double coef = fabs(a) + (eps > 0 ? fabs(b) * W_mag : 0);
    /* an infinite weight: inf * 0 or inf - inf by the order PyTorch computes in */
    undecided |= past_range(x, coef) || !isfinite(wt) || (eps > 0 && !isfinite(W_mag));
    for (int64_t k = 0; k < p->C; k++) {
        double wk = lf_spec_weight(x->c, k);
        double onehot = k == label, gl = (onehot ? -a : 0) - (eps > 0 ? b * wk : 0);
        double pk = p->log_softmax ? exp(x->lp[k]) : 0;
        double v = p->log_softmax ? gl - pk * gl_sum : gl;
        double mag = fabs(a) * (sum_scale(p, pk, x->lp[k], extra) + onehot) +
                     (eps > 0 ? fabs(b) * (W_mag * sum_scale(p, pk, x->lp[k], extra) + fabs(wk)) : 0) +
                     up_off * fabs((1 - eps) * wt) * (onehot + pk) +
                     (up_off_s > 0 ? up_off_s * (fabs(wk) + pk * W_mag) : 0);
        put_class(x, base, k, v, mag, pk, undecided);
    }
}

/* A probability row: up * (p * sum_k w_k t_k - w * t), t smoothed. */
static void prob_row(const grad_ctx *x, int64_t base, double up, double extra)
{
    const lf_problem *p = x->p;
    double wt_sum = 0, wt_mag = 0;
    bool weight_past = false; /* an (integer) weight cast to the dtype is inf there: inf * 0 */
    for (int64_t k = 0; k < p->C; k++) {
        double tk = lf_spec_prob_target(x->c, p, base, k), wk = lf_spec_weight(x->c, k);
        wt_sum += wk * tk;
        wt_mag += fabs(wk * tk);
        weight_past |= isfinite(wk) && past_range(x, fabs(wk));
    }
    /* an infinite target or weight: inf - inf or inf * 0 by the order PyTorch multiplies in */
    bool undecided = !isfinite(wt_mag) || past_range(x, fabs(up) * wt_mag) || weight_past;
    for (int64_t k = 0; k < p->C; k++) {
        double tk = lf_spec_prob_target(x->c, p, base, k);
        double wk = lf_spec_weight(x->c, k), pk = exp(x->lp[k]);
        put_class(x, base, k, up * (pk * wt_sum - wk * tk),
                  fabs(up) * (sum_scale(p, pk, x->lp[k], extra) * wt_mag + fabs(wk * tk)), pk, undecided);
    }
}

/* An element of BCE with logits, in PyTorch's order: up * w * (sigmoid(x) - y),
 * with pos_weight up * w * ((pw y + 1 - y) sigmoid(x) - pw y). */
static void bce_element(const grad_ctx *x, int64_t i, double up)
{
    const lf_case *c = x->c;
    const lf_problem *p = x->p;
    double v = lf_load_f64(c->input.data, c->input.dtype, i), y = lf_load_f64(c->target.data, c->target.dtype, i);
    double pw = p->has_pos_weight
                    ? lf_load_f64(c->pos_weight.data, c->pos_weight.dtype, lf_bcast_offset(p, p->pw_stride, i))
                    : 1;
    double w = p->has_weight ? lf_load_f64(c->weight.data, c->weight.dtype, lf_bcast_offset(p, p->w_stride, i)) : 1;
    double sig = 1 / (1 + exp(-v)), t = pw * y;
    double d = p->has_pos_weight ? (t + 1 - y) * sig - t : sig - y;
    double mag = p->has_pos_weight ? (fabs(t) + 1 + fabs(y)) * sig + fabs(t) : sig + fabs(y);
    /* an infinite weight or pos_weight, or terms past the dtype's range: inf * 0
     * or inf - inf by PyTorch's order */
    bool undecided =
        !isfinite(w) || !isfinite(pw) || past_range(x, fabs(t) + fabs(y)) || past_range(x, fabs(up * w) * mag);
    /* a log_weight past its dtype's range (inf, or inf * 0: NaN) in PyTorch's chain, not in the exact one */
    if (p->has_pos_weight && !isfinite(lf_spec_pos_log_weight(c, p, pw, y))) undecided = true;
    put(x->g, i, d * up * w, undecided ? LF_SCALE_UNDECIDED : fabs(up * w) * mag);
}

/* The mean's divisor of a class-index call: the weights of the targets not
 * ignored; *mag the sum of their magnitudes (float's sum overflows past its range). */
static double class_weight_sum(const lf_case *c, const lf_problem *p, int64_t rows, double *mag)
{
    double d = 0;
    *mag = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t t = lf_label_read(p->kernel_id, c->target.dtype, lf_load_i64(c->target.data, c->target.dtype, i));
        double r = lf_spec_llm_mask(c, i);
        if (t != c->ignore_index && r != 0) d += r * lf_spec_weight(c, t), *mag += fabs(r * lf_spec_weight(c, t));
    }
    return d;
}

/* Label smoothing's mean divisor: the weights (or the count) of the int64
 * labels that are not the ignore_index (lf_smooth_kept). */
static double smooth_weight_sum(const lf_case *c, const lf_problem *p, int64_t rows)
{
    double d = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t raw = lf_load_i64(c->target.data, c->target.dtype, i);
        double r = lf_spec_llm_mask(c, i);
        if (lf_smooth_kept(raw, c->ignore_index, c->target.dtype) && r != 0)
            d += raw >= 0 && raw < p->C ? r * lf_spec_weight(c, raw) : 0;
    }
    return d;
}

void lf_spec_grad_direct(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS])
{
    lf_spec_grad_logits(c, NULL, upstream, &g[LF_GRAD_INPUT]);
}

/* PyTorch's gradient of a label smoothing that dropped a label silently (lf_case_first_wrapped_ignore): the
 * guard rejects the call, and no gradient of it is judged. */
static void wrapped_undecided(const lf_case *c, const lf_problem *p, lf_result *g)
{
    bool wrapped = p->targets == LF_CLASS_TARGETS && g->kind == LF_OUTCOME_OK && lf_case_first_wrapped_ignore(c) >= 0;
    for (int64_t i = 0; wrapped && i < g->n; i++) g->scales[i] = LF_SCALE_UNDECIDED;
}

/* The rows the z-loss's mean counts (the mask's sum over rows not ignored; Liger's), and a probability
 * mean's divisor: the mask's sum over every row. */
static double counted_rows(const lf_case *c, const lf_problem *p, int64_t rows, bool all)
{
    double d = 0;
    for (int64_t i = 0; i < rows; i++) {
        int64_t t =
            all ? 0 : lf_label_read(p->kernel_id, c->target.dtype, lf_load_i64(c->target.data, c->target.dtype, i));
        if (all || t != c->ignore_index) d += lf_spec_llm_mask(c, i);
    }
    return d;
}

/* A row the loss mask leaves out (0): its gradient is 0 by the definitions, 0 * NaN where a term is inf or
 * NaN (a logit, a weight, a target probability; a mean's divisor of 0), and 0 by a kernel that skips the row:
 * that is not judged. */
static void masked_row(const grad_ctx *x, int64_t base, bool undecided)
{
    bool probs = x->p->targets == LF_PROB_TARGETS;
    for (int64_t k = 0; k < x->p->C; k++) {
        undecided |= !isfinite(lf_spec_weight(x->c, k)) || !isfinite(x->lp[k]) ||
                     (probs && !isfinite(lf_spec_prob_target(x->c, x->p, base, k)));
        put(x->g, base + k * x->p->S, 0, 0);
    }
    for (int64_t k = 0; undecided && k < x->p->C; k++) x->g->scales[base + k * x->p->S] = LF_SCALE_UNDECIDED;
}

/* An ignored row: nll and the smoothing term both leave it out, 0 ... through log_softmax's backward,
 * g - p * sum(g): NaN everywhere when smoothing's masked 0 meets an infinite weight (0 * inf), and NaN where
 * p is NaN: there a fused kernel that skips the ignored row writes 0 for the same loss, and neither answer
 * is judged (issue 45: a faithful chunked kernel's 0 was a finding); so where the options made a logit inf
 * (torch's composition's NaN). */
static void ignored_row(const grad_ctx *x, int64_t base)
{
    const lf_problem *p = x->p;
    for (int64_t k = 0; p->log_softmax && k < p->C; k++)
        if ((p->label_smoothing > 0 && !isfinite(x->W_mag)) || isnan(x->lp[k]) || x->row->made || x->row->undecided)
            put(x->g, base + k * p->S, NAN, LF_SCALE_UNDECIDED);
}

void lf_spec_grad_logits(const lf_case *c, const double *logit_extra, const double *upstream, lf_result *g)
{
    lf_problem p;
    lf_result_init(g);
    if (!lf_spec_plan(c, &p, g)) return;
    p.logit_extra = logit_extra;
    if (p.targets == LF_CLASS_TARGETS && c->input.ndim == 1 && c->target.ndim == 1 && p.C != 1) {
        /* forward takes a 1-D input with a [1] target; nll_loss_backward's meta function (no batch dim only for a
         * 0-D target) does not (torch 2.15, CPU: device-independent code) */
        lf_result_error(g, "target_shape", "RuntimeError", "size mismatch (got input: [%lld], target: [1])",
                        (long long)p.C);
        return;
    }
    int64_t rows = p.targets == LF_BINARY_TARGETS ? p.N : p.one_d ? 1 : p.N * p.S;
    /* a row's log-probabilities and d y / d x; an empty batch may name any C, and needs none */
    bool logits = rows > 0 && p.targets != LF_BINARY_TARGETS;
    double *lp = logits ? malloc(sizeof(double) * (size_t)(2 * p.C + 2)) : NULL;
    if (!lf_result_alloc_values(g, c->input.numel, true) || (logits && !lp)) {
        free(lp);
        lf_result_error(g, "internal", "MemoryError", "out of memory");
        return;
    }
    g->kind = LF_OUTCOME_OK;
    g->out_dtype = g->tol_dtype = c->input.dtype;
    /* probability and BCE targets enter the gradient in their own dtype (the forward's rule) */
    if (p.targets != LF_CLASS_TARGETS) g->tol_dtype = lf_dtype_coarsest(g->tol_dtype, c->target.dtype);
    for (int64_t i = 0; i < c->input.numel; i++) put(g, i, 0, 0);
    bool none = p.reduction == LF_RED_NONE, mean = p.reduction == LF_RED_MEAN;
    bool classes = p.targets == LF_CLASS_TARGETS, probs = p.targets == LF_PROB_TARGETS;
    double d_mag = 0, d = classes ? class_weight_sum(c, &p, rows, &d_mag)
                          : probs ? counted_rows(c, &p, rows, true)
                                  : (double)rows;
    double d_s = classes && p.label_smoothing > 0 ? smooth_weight_sum(c, &p, rows) : d;
    /* the reductions' divisors: the mean's, or n_items (lf_spec_llm_divisor); the z-loss's over counted rows */
    double div = none ? 1 : lf_spec_llm_divisor(c, mean ? d : 1),
           div_s = none ? 1 : lf_spec_llm_divisor(c, mean ? d_s : 1);
    double zs = c->z_loss_scale;
    double d_z = zs == 0 || none ? 1 : lf_spec_llm_divisor(c, mean ? counted_rows(c, &p, rows, !classes) : 1);
    /* a kernel's d y / d x = scale (1 - tanh^2) in float: tanh's few units of error, absolute, are a large part of
     * 1 - tanh^2 where the cap saturates (6e-5 of it at tanh(-4)); said in units of the tolerance */
    double rtol, atol, unit = lf_dtype_eps(lf_spec_acc_dtype(c)) / 2;
    lf_dtype_tolerance(g->tol_dtype, &rtol, &atol);
    double cap_err = c->softcap > 0 ? 4 * unit * fabs(c->logit_scale) / rtol : 0;
    lf_row row = {.r = 1};
    grad_ctx x = {c, &p, g, lp, lp ? lp + p.C + 1 : NULL, 0, 0, &row, 0, cap_err};
    for (int64_t k = 0; classes && p.label_smoothing > 0 && k < p.C; k++) {
        x.W += lf_spec_weight(c, k);
        x.W_mag += fabs(lf_spec_weight(c, k));
    }
    /* a mean over a total weight of 0, or one float holds only as a subnormal: PyTorch's w_t * up / d is NaN,
     * inf - inf, or flushed */
    bool bad_div =
        !none && (fabs(div) < lf_dtype_min_normal(lf_spec_acc_dtype(c)) || (mean && div == d && past_range(&x, d_mag)));
    for (int64_t i = 0; i < rows; i++) {
        double up0 = none ? upstream[i] : upstream[0], up = up0 / div;
        int64_t base = (i / p.S) * p.C * p.S + i % p.S;
        if (p.targets == LF_BINARY_TARGETS) {
            bce_element(&x, i, up);
            continue;
        }
        double extra = lf_spec_row_log_softmax(c, &p, i, base, lp, x.dydx, &row);
        int64_t t = classes ? lf_label_read(lf_backward_kernel(p.kernel_id), c->target.dtype,
                                            lf_load_i64(c->target.data, c->target.dtype, i))
                            : 0;
        bool ignored = classes && t == c->ignore_index;
        lf_spec_llm_row(c, &p, !ignored, rtol, &row);
        x.zc = zs != 0 && !ignored ? 2 * zs * up0 * row.r / d_z : 0;
        if (row.r == 0 && !ignored) {
            bool inf_smoothing = classes && p.label_smoothing > 0 && !isfinite(x.W_mag);
            masked_row(&x, base, row.undecided || (mean && bad_div) || inf_smoothing);
            continue;
        }
        up *= row.r;
        if (probs) {
            prob_row(&x, base, up, extra);
            continue;
        }
        /* the backward kernels' label: int64, as label smoothing's mask reads it */
        if (!ignored && !(t >= 0 && t < p.C)) { /* PyTorch's backward asserts (lf_spec_backward_assert) */
            for (int64_t k = 0; k < p.C; k++) put(g, base + k * p.S, 0, LF_SCALE_UNDECIDED);
            continue;
        }
        if (ignored) {
            ignored_row(&x, base);
            continue;
        }
        /* smoothing's quotient is (up * eps / C) / its total weight, smaller than the nll's up / d: subnormal
         * sooner, and its half step multiplies each weight, not eps / C of it */
        double up_s = row.r * up0 / div_s, q_s = p.label_smoothing / (double)p.C * up_s;
        class_row(&x, base, t, up, up_s, mean ? up_rounding(c->input.dtype, up) : 0,
                  mean && p.label_smoothing > 0 ? up_rounding(c->input.dtype, q_s) : 0, extra,
                  bad_div || row.undecided);
    }
    free(lp);
    wrapped_undecided(c, &p, g);
}
