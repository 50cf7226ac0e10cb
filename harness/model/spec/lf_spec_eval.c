/* lf_spec_eval.c - the spec's outcome for a case: a host error (lf_spec_plan),
 * a device-side assert (the kernels' predicate), or the result in float64,
 * computed the way PyTorch computes it: log_softmax rounded to the input dtype,
 * then the NLL / probability / BCE formulas of pytorch-semantics.md section 4,
 * the result rounded to the output dtype. Each value comes with the magnitude of
 * the terms behind it, which the oracle scales its tolerance by. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lf_shape.h"
#include "lf_spec.h"

typedef struct {
    double loss, mag, smooth, smooth_mag, w, w_mag, valid, smooth_w;
    double fin_mag; /* a probability row's finite terms' magnitude, when an infinite one makes mag inf */
    bool undecided;
} row_terms;

double lf_spec_weight(const lf_case *c, int64_t k)
{
    return c->weight.present ? lf_load_f64(c->weight.data, c->weight.dtype, k) : 1.0;
}

/* v stored in dtype t: a finite v past t's range is t's inf there, PyTorch's and not the loss's (a kernel that
 * keeps the number in float is right too): *undecided then. */
static double stored(lf_dtype t, double v, bool *undecided)
{
    double s = lf_dtype_round(t, v);
    if (isfinite(v) && !isfinite(s)) *undecided = true;
    return s;
}

/* The relative unit the tolerance of a row's values is counted in. */
static double tol_unit(const lf_case *c, const lf_problem *p)
{
    double rtol, atol;
    lf_dtype_tolerance(lf_dtype_coarsest(c->input.dtype, p->out_dtype), &rtol, &atol);
    return rtol;
}

/* lp[c] of one row, as at::log_softmax returns it (rounded to the input
 * dtype), of the row's logits (lf_spec_llm_logits: as given with every LLM
 * option off). Returns what the magnitude of lp[k]'s terms exceeds |lp[k]|
 * by: lp[k] = (y[k] - max) - log(sum), and log(sum) is off by about one unit
 * of the dtype however small it is (the sum, >= 1, is rounded), so a label's
 * lp of -1e-13 is known to within 1e-7 in float32, not to 1e-20. */
double lf_spec_row_log_softmax(const lf_case *c, const lf_problem *p, int64_t i, int64_t base, double *lp, double *dydx,
                               lf_row *row)
{
    double mx = -INFINITY, sum = 0;
    lf_spec_llm_logits(c, p, i, base, lp, dydx, row);
    for (int64_t k = 0; k < p->C; k++) mx = (lp[k] > mx || isnan(lp[k])) ? lp[k] : mx;
    if (!p->log_softmax) return row->extra = 0; /* nll_loss takes log-probabilities as they are: exact */
    for (int64_t k = 0; k < p->C; k++) sum += exp(lp[k] - mx);
    row->lse = isfinite(mx) ? mx + log(sum) : mx; /* NaN, inf, or -inf for a row without classes */
    for (int64_t k = 0; k < p->C; k++) lp[k] = lf_dtype_round(c->input.dtype, lp[k] - mx - log(sum));
    /* |y[k] - max| <= |lp[k]| + log(sum), plus log(sum) and the sum's rounding; a fused linear's matmul error
     * (times the logit scale); the rounding of y where the options compute it, which y[k] - max does not cancel;
     * and the sum of C terms itself, accumulated in float below float64 (PyTorch's acc type): a kernel that
     * adds in order is off by up to C units of float in log(sum) (2.5e-4 for 19,938 classes on torch's CPU
     * spatial path), said here as the magnitude the oracle's tolerance needs to allow it */
    double rtol = tol_unit(c, p), unit = lf_dtype_eps(lf_spec_acc_dtype(c)) / 2;
    double fused = p->logit_extra ? fabs(c->logit_scale) * p->logit_extra[p->C ? base / (p->C * p->S) : 0] : 0;
    row->extra = 2 * log(sum) + 1 + (double)p->C * unit / rtol + fused + lf_spec_llm_extra(c, rtol, row);
    return row->extra;
}

/* A class-index row: nll_loss's term by the label its kernel reads (narrowed
 * by nll_loss2d_forward_kernel), label smoothing's by the int64 label
 * (lf_smooth_kept), with its mean's weight gathered by it. */
static row_terms class_row(const lf_case *c, const lf_problem *p, int64_t r, int64_t base, const double *lp,
                           double lp_extra)
{
    row_terms t = {0};
    int64_t raw = lf_load_i64(c->target.data, c->target.dtype, r);
    int64_t label = lf_label_read(p->kernel_id, c->target.dtype, raw);
    if (label != c->ignore_index) {
        t.valid = 1;
        t.w = lf_spec_weight(c, label);
        /* input * weight in the input dtype (scalar_t * scalar_t in every nll kernel, Loss.cu and NLLLoss2d.cu):
         * a float16 product past 65504 is inf before the float32 sum (measured on an H200, PyTorch 2.11) */
        t.loss = -lf_dtype_round(c->input.dtype, t.w * lp[label]);
        /* ... PyTorch's inf there is its dtype's, not the loss's: a kernel that multiplies in float keeps the
         * number (a float16 weighted mean of 1.1 where torch says inf), and neither is a bug */
        if (isinf(t.loss) && isfinite(t.w * lp[label])) t.undecided = true;
        t.mag = fabs(t.w) * (fabs(lp[label]) + lp_extra);
        t.w_mag = fabs(t.w);
        /* An infinite weight times an lp that float may round to 0: inf or NaN. */
        if (isinf(t.w) && fabs(lp[label]) <= lp_extra * lf_dtype_eps(c->input.dtype)) t.undecided = true;
        /* A finite logit whose x - max overflows the dtype (-1.75e38 - 1.77e38 in float32): PyTorch's -inf,
         * or the finite value of a kernel that orders it otherwise - neither is a bug (a logit of -inf is
         * decided: its lp is -inf on every path) */
        if (isinf(lp[label]) && isfinite(lf_load_f64(c->input.data, c->input.dtype, base + label * p->S)))
            t.undecided = true;
    }
    if (!(p->label_smoothing > 0 && lf_smooth_kept(raw, c->ignore_index, c->target.dtype))) return t;
    /* (a raw label past the weight asserts in the gather first: lf_spec_gather_assert) */
    t.smooth_w = !c->weight.present ? 1 : raw >= 0 && raw < p->C ? lf_spec_weight(c, raw) : 0;
    /* -(input * weight).sum(class_dim): each product, then the row sum, stored in the input dtype */
    double finite = 0; /* the finite products' magnitude: past the dtype's range, float's sum overflows by its order */
    for (int64_t k = 0; k < p->C; k++) {
        double term = c->weight.present ? lf_dtype_round(c->input.dtype, lf_spec_weight(c, k) * lp[k]) : lp[k];
        if (isfinite(term))
            finite += fabs(term);
        else if (isfinite(lf_spec_weight(c, k) * lp[k]))
            t.undecided = true; /* the dtype's inf, as above */
        t.smooth -= term;
        t.smooth_mag += fabs(lf_spec_weight(c, k)) * (fabs(lp[k]) + lp_extra);
        if (isinf(lf_spec_weight(c, k)) && fabs(lp[k]) <= lp_extra * lf_dtype_eps(c->input.dtype)) t.undecided = true;
        /* a finite logit whose x - max overflows the dtype, as for the label's above: float16 [65504, -65504]
         * under smoothing, PyTorch's inf, a kernel in float32 6552 */
        if (isinf(lp[k]) && isfinite(lf_load_f64(c->input.data, c->input.dtype, base + k * p->S))) t.undecided = true;
    }
    if (finite > lf_dtype_max(c->input.dtype)) t.undecided = true; /* inf, NaN or a number */
    /* the row's sum stored in the input dtype (float16's inf of log(4000) * 4000 classes) */
    t.smooth = stored(c->input.dtype, t.smooth, &t.undecided);
    return t;
}

/* Under smoothing, target * (1 - eps) + eps / C: two ops, each stored in the
 * target's dtype (a float16 target's eps / C may be subnormal there). */
double lf_spec_prob_target(const lf_case *c, const lf_problem *p, int64_t base, int64_t k)
{
    lf_dtype d = c->target.dtype;
    double eps = p->label_smoothing, tk = lf_load_f64(c->target.data, d, base + k * p->S);
    return eps > 0 ? lf_dtype_round(d, lf_dtype_round(d, tk * (1 - eps)) + eps / (double)p->C) : tk;
}

static row_terms prob_row(const lf_case *c, const lf_problem *p, int64_t base, const double *lp, double lp_extra)
{
    row_terms t = {0};
    for (int64_t k = 0; k < p->C; k++) {
        double tk = lf_spec_prob_target(c, p, base, k);
        double term = -lp[k] * tk * lf_spec_weight(c, k);
        t.loss += term;
        double term_mag = fabs(tk * lf_spec_weight(c, k)) * (fabs(lp[k]) + lp_extra);
        t.mag += term_mag;
        t.fin_mag += isfinite(term_mag) ? term_mag : 0;
        /* an infinite target or weight times an lp the dtype may round to 0,
         * or lp * target past the dtype's range (then times a weight of 0): inf or NaN */
        double lp_t = fabs(lp[k] * tk), max = lf_dtype_max(p->out_dtype);
        /* input * target is formed in the input dtype, and an integer weight is cast to the result's: their inf
         * there (then inf - inf, or 0 * inf) is PyTorch's, not the loss's */
        if (isfinite(lp_t) && lp_t > lf_dtype_max(c->input.dtype)) t.undecided = true;
        double wk = lf_spec_weight(c, k);
        if (isfinite(wk) && fabs(wk) > lf_dtype_max(p->out_dtype)) t.undecided = true;
        if ((isinf(tk * lf_spec_weight(c, k)) && fabs(lp[k]) <= lp_extra * lf_dtype_eps(c->input.dtype)) ||
            (isfinite(lp_t) && lp_t > max) || (isfinite(term) && fabs(term) > max))
            t.undecided = true;
    }
    return t;
}

double lf_spec_pos_log_weight(const lf_case *c, const lf_problem *p, double pw, double y)
{
    lf_dtype lw = (lf_dtype)p->lw_dtype;
    /* .mul casts both operands to the result type first: a 0-d float32 1e30 is inf in float16 */
    double pw_1 = lf_dtype_round(lw, lf_dtype_round(c->pos_weight.dtype, pw - 1));
    return lf_dtype_round(lw, lf_dtype_round(lw, pw_1 * y) + 1);
}

/* Loss.cpp's chain, each op storing (so rounding) in its dtype: log_sigmoid(x)
 * (input dtype); log_weight = (pw - 1) (pos_weight's), .mul(t), .add_(1) (their
 * promotion); log_sigmoid times it in place (input dtype); (1 - t) (target's),
 * .mul_(x), .sub_(log_sigmoid) in place (target dtype); times weight in place. */
static row_terms bce_element(const lf_case *c, const lf_problem *p, int64_t i)
{
    row_terms t = {0};
    lf_dtype in = c->input.dtype, tg = c->target.dtype;
    double x = lf_load_f64(c->input.data, in, i);
    double y = lf_load_f64(c->target.data, tg, i);
    double pw = p->has_pos_weight
                    ? lf_load_f64(c->pos_weight.data, c->pos_weight.dtype, lf_bcast_offset(p, p->pw_stride, i))
                    : 1;
    double w = p->has_weight ? lf_load_f64(c->weight.data, c->weight.dtype, lf_bcast_offset(p, p->w_stride, i)) : 1;
    double log_sig = lf_dtype_round(in, fmin(0.0, x) - log1p(exp(-fabs(x)))), log_weight = 1;
    bool sig_may_be_0 = fabs(log_sig) <= lf_dtype_eps(in); /* log(1 + e^-x) formed in the dtype is 0 */
    if (p->has_pos_weight) {
        log_weight = lf_spec_pos_log_weight(c, p, pw, y);
        /* inf or NaN in its dtype only (a 0-d pos_weight of 1e30 cast to float16): PyTorch's, not the loss's */
        if (!isfinite(log_weight) && isfinite((pw - 1) * y + 1)) t.undecided = true;
        log_sig = lf_dtype_round(in, log_sig * log_weight);
    }
    double a = lf_dtype_round(tg, lf_dtype_round(tg, 1 - y) * x);
    t.loss = lf_dtype_round(tg, a - log_sig);
    /* an infinite weight or pos_weight times a term the dtype may round to 0: inf or NaN */
    if ((isinf(w) && fabs(t.loss) <= (fabs(a) + fabs(log_weight)) * lf_dtype_eps(in)) ||
        (isinf(log_weight) && sig_may_be_0))
        t.undecided = true;
    if (p->has_weight) t.loss = lf_dtype_round(tg, t.loss * w);
    /* log_sigmoid is known to one unit absolute (log(1 + e^-x) formed in the
     * dtype, as torch 1.x does; 2.x's log1p is closer): times log_weight */
    t.mag = (fabs(a) + fabs(log_sig) + fabs(log_weight)) * fabs(w);
    return t;
}

/* cross_entropy_loss_label_smoothing stores nll, the smoothing term and each
 * product in the output dtype: (1 - eps) * nll + smooth * (eps / C). An
 * intermediate past the dtype's range (float16's sum of 2 * 33176) is
 * PyTorch's inf, not the loss's: *undecided then. */
static double smoothed(lf_dtype t, double eps, int64_t C, double nll, double smooth, bool *undecided)
{
    double a = lf_dtype_round(t, (1 - eps) * lf_dtype_round(t, nll));
    double b = lf_dtype_round(t, lf_dtype_round(t, smooth) * (eps / (double)C));
    if (isfinite(nll) && isfinite(smooth) && !(isfinite(a) && isfinite(b) && isfinite(lf_dtype_round(t, a + b))))
        *undecided = true;
    return lf_dtype_round(t, a + b);
}

static void put(lf_result *r, int64_t i, double v, double mag)
{
    r->values[i] = lf_dtype_round(r->out_dtype, v);
    r->scales[i] = mag;
}

void lf_spec_result_ok(const lf_case *c, const lf_problem *p, bool scalar, lf_result *r)
{
    r->kind = LF_OUTCOME_OK;
    r->out_dtype = p->out_dtype;
    /* Values are as exact as the coarsest dtype they passed through. */
    r->tol_dtype = lf_dtype_coarsest(c->input.dtype, p->out_dtype);
    if (p->targets != LF_CLASS_TARGETS) r->tol_dtype = lf_dtype_coarsest(r->tol_dtype, c->target.dtype);
    r->scalar = scalar;
}

bool lf_spec_grad_input_start(const lf_case *c, lf_problem *p, lf_result *d)
{
    if (!lf_spec_plan(c, p, d)) return false;
    if (!lf_result_alloc_values(d, c->input.numel, true)) {
        lf_result_error(d, "internal", "MemoryError", "out of memory");
        return false;
    }
    d->kind = LF_OUTCOME_OK;
    d->out_dtype = d->tol_dtype = c->input.dtype;
    return true;
}

/* Room for an output of n values (lf_llm.def). */
static bool start_output(lf_result *r, int o, int64_t n)
{
    r->outputs[o].values = calloc((size_t)n + 1, sizeof(double));
    r->outputs[o].scales = calloc((size_t)n + 1, sizeof(double));
    r->outputs[o].n = n;
    return r->outputs[o].values && r->outputs[o].scales;
}

static void put_output(lf_result *r, int o, int64_t i, double v, double mag, bool undecided)
{
    r->outputs[o].values[i] = lf_dtype_round(r->out_dtype, v);
    r->outputs[o].scales[i] = undecided ? LF_SCALE_UNDECIDED : mag;
}

/* A row's terms in a reduction; with the LLM family's mask (r), z-loss and counted rows. */
typedef struct {
    row_terms t;
    double rows, z, z_mag, counted;
    bool nonfinite;
} sums;

/* A row the loss mask leaves out (0) whose terms are inf or NaN (an infinite class weight, a logit): the
 * definitions' 0 * inf is NaN (Megatron-LM multiplies the losses by the mask), a kernel that selects the
 * row out (as a -100 label does) has 0. Real trainers do both: neither is judged (docs/llm-cross-entropy.md). */
static bool masked_nonfinite(const row_terms *t, const lf_row *row)
{
    return row->r == 0 && !isfinite(t->mag + t->smooth_mag + t->w_mag + t->smooth_w);
}

static void add_row(sums *s, const row_terms *t, const lf_row *row)
{
    double r = row->r;
    s->t.undecided |= t->undecided || row->undecided;
    s->nonfinite |= row->nonfinite;
    if (r == 0) { /* adds nothing */
        s->t.undecided |= masked_nonfinite(t, row);
        return;
    }
    s->t.loss += r * t->loss;
    s->t.mag += fabs(r) * t->mag;
    s->t.fin_mag += fabs(r) * (isfinite(t->mag) ? t->mag : t->fin_mag);
    s->t.smooth += r * t->smooth;
    s->t.smooth_mag += fabs(r) * t->smooth_mag;
    s->t.w += r * t->w;
    s->t.w_mag += fabs(r) * t->w_mag;
    s->t.valid += t->valid;
    s->t.smooth_w += r * t->smooth_w;
    s->rows += r;
    s->z += r * row->z;
    s->z_mag += fabs(r) * row->z_mag;
    s->counted += row->counted ? r : 0;
}

void lf_spec_values(const lf_case *c, const lf_problem *p, lf_result *r)
{
    bool scalar;
    int64_t n_out = lf_plan_out_numel(p, &scalar);
    int64_t rows = p->targets == LF_BINARY_TARGETS ? p->N : p->one_d ? 1 : p->N * p->S;
    bool logits = p->targets != LF_BINARY_TARGETS, outputs = logits && p->log_softmax;
    /* One row of log-probabilities and its d y / d x; an empty batch may name any C, and needs none. */
    double *lp = rows > 0 && logits ? malloc(sizeof(double) * (size_t)(2 * p->C + 2)) : NULL;
    if (!lf_result_alloc_values(r, n_out, true) || (rows > 0 && logits && !lp) ||
        (outputs && !(start_output(r, LF_OUT_LSE, rows) && start_output(r, LF_OUT_Z_LOSS, n_out)))) {
        free(lp);
        lf_result_error(r, "internal", "MemoryError", "out of memory");
        return;
    }
    lf_spec_result_ok(c, p, scalar, r);
    double eps = p->targets == LF_CLASS_TARGETS ? p->label_smoothing : 0, unit = tol_unit(c, p);
    double zs = c->z_loss_scale;
    bool none = p->reduction == LF_RED_NONE;
    sums sum = {0};
    for (int64_t i = 0; i < rows; i++) {
        row_terms t;
        lf_row row = {.r = 1};
        int64_t base = (i / p->S) * p->C * p->S + i % p->S;
        if (p->targets == LF_BINARY_TARGETS)
            t = bce_element(c, p, i);
        else {
            double extra = lf_spec_row_log_softmax(c, p, i, base, lp, lp + p->C + 1, &row);
            t = p->targets == LF_CLASS_TARGETS ? class_row(c, p, i, base, lp, extra) : prob_row(c, p, base, lp, extra);
            lf_spec_llm_row(c, p, p->targets != LF_CLASS_TARGETS || t.valid, unit, &row);
        }
        if (outputs) put_output(r, LF_OUT_LSE, i, row.lse, row.lse_extra, row.nonfinite);
        if (!none) {
            add_row(&sum, &t, &row);
            continue;
        }
        bool undecided = t.undecided || row.undecided || masked_nonfinite(&t, &row);
        double loss = eps > 0 ? smoothed(r->out_dtype, eps, p->C, t.loss, t.smooth, &undecided) : t.loss;
        double mag = eps > 0 ? (1 - eps) * t.mag + eps / (double)p->C * t.smooth_mag : t.mag;
        put(r, i, row.r * loss + row.r * row.z, undecided ? LF_SCALE_UNDECIDED : fabs(row.r) * (mag + row.z_mag));
        /* the z-loss off on a row with a non-finite lse: 0, or a kernel's 0 * NaN */
        if (outputs)
            put_output(r, LF_OUT_Z_LOSS, i, row.r * row.z, fabs(row.r) * row.z_mag,
                       row.undecided || (zs == 0 && row.nonfinite));
    }
    free(lp);
    if (none) return;
    double v = sum.t.loss, mag = sum.t.mag, div = 1;
    bool mean = p->reduction == LF_RED_MEAN, undecided = sum.t.undecided;
    /* empty: 0/0 = NaN; probabilities divide by input.numel() / C (the rows' mask where given), and return
     * NaN for an input without elements (C = 0 too) */
    if (p->targets != LF_CLASS_TARGETS)
        div = mean ? (p->targets == LF_PROB_TARGETS && p->C == 0 ? 0 : sum.rows) : 1;
    else if (mean && p->one_d) { /* the 1-D reduce kernel: ignored gives 0, zero weight NaN */
        v = sum.t.valid == 0 ? 0.0 : sum.t.w == 0 ? NAN : sum.t.loss / sum.t.w;
        mag = sum.t.w == 0 ? 0 : mag / fabs(sum.t.w);
    } else if (mean)
        div = sum.t.w;
    div = lf_spec_llm_divisor(c, div);
    if (div != 1) {
        v /= div;
        mag /= fabs(div);
    }
    if (eps > 0) {
        double sdiv = lf_spec_llm_divisor(c, mean ? lf_dtype_round(r->out_dtype, sum.t.smooth_w) : 1);
        v = smoothed(r->out_dtype, eps, p->C, v, stored(r->out_dtype, sum.t.smooth, &undecided) / sdiv, &undecided);
        mag = (1 - eps) * mag + eps / (double)p->C * sum.t.smooth_mag / fabs(sdiv);
    }
    /* the z-loss: a mean over the counted rows (Liger's), or n_items; off, it adds 0 - returned as a mean over
     * no rows it is 0 / 0, NaN by the definition, 0 by a kernel that skips what is off: either */
    double d_z = lf_spec_llm_divisor(c, mean ? sum.counted : 1);
    double zv = zs != 0 ? sum.z / d_z : 0, z_mag = zs != 0 ? sum.z_mag / fabs(d_z) : 0;
    /* PyTorch sums losses and weights in float for every input but float64:
     * terms past float's range overflow its sums (inf, or a mean of 0 over a
     * total weight of -inf) where float64's do not. */
    double acc_max = lf_dtype_max(lf_spec_acc_dtype(c));
    /* an infinite term (a -inf logit) is PyTorch's inf too, unless finite terms past float's range meet it
     * (an inf, and a sum that overflows to -inf: NaN) */
    double terms = isfinite(sum.t.mag) ? sum.t.mag + sum.t.smooth_mag : sum.t.fin_mag;
    /* ... and a mean over a total weight float holds only as a subnormal is flushed or not */
    double acc_min = lf_dtype_min_normal(lf_spec_acc_dtype(c));
    bool subnormal_w =
        mean && div == sum.t.w && p->targets == LF_CLASS_TARGETS && sum.t.w != 0 && fabs(sum.t.w) < acc_min;
    undecided |= subnormal_w || (isfinite(terms) && terms > acc_max) ||
                 (isfinite(sum.t.w_mag) && sum.t.w_mag > acc_max) || (isfinite(sum.z_mag) && fabs(sum.z) > acc_max);
    put(r, 0, v + zv, undecided ? LF_SCALE_UNDECIDED : mag + z_mag);
    if (outputs) put_output(r, LF_OUT_Z_LOSS, 0, zv, z_mag, undecided || (zs == 0 && (d_z == 0 || sum.nonfinite)));
}

void lf_spec_mark_narrowed(const lf_case *c, const lf_problem *p, lf_result *r)
{
    if (r->kind != LF_OUTCOME_OK || p->targets != LF_CLASS_TARGETS) return;
    int64_t rows = p->one_d ? 1 : p->N * p->S;
    for (int64_t i = 0; i < rows; i++) {
        int64_t raw = lf_load_i64(c->target.data, c->target.dtype, i);
        if (lf_label_narrowed_silently(raw, lf_label_read(p->kernel_id, c->target.dtype, raw), p->C, p->ignore_index)) {
            snprintf(r->silent, sizeof r->silent, "label_truncated");
            r->index = i;
            r->value = raw;
            return;
        }
    }
    int64_t at = lf_case_first_wrapped_ignore(c); /* smoothing's mask drops a label nll_loss keeps */
    if (at >= 0 && p->label_smoothing > 0) {
        snprintf(r->silent, sizeof r->silent, "ignore_index_wrapped");
        r->index = at;
        r->value = lf_load_i64(c->target.data, c->target.dtype, at);
    }
}

void lf_spec_run_direct(const lf_case *c, lf_result *r) { lf_spec_run_logits(c, NULL, r); }

/* The device assert of `kernel_id` at label target[bad], as CUDA reports it. */
void lf_spec_device_assert(const lf_case *c, const lf_problem *p, int kernel_id, int64_t bad, lf_result *r)
{
    char detail[48];
    snprintf(detail, sizeof detail, "n_classes = %lld", (long long)p->C);
    lf_result_device_assert(r, c, kernel_id, lf_assert_cond(kernel_id, c->target.dtype), bad, detail, LF_SPEC_THEN);
}

void lf_spec_run_logits(const lf_case *c, const double *logit_extra, lf_result *r)
{
    lf_problem p;
    lf_result_init(r);
    if (!lf_spec_plan(c, &p, r)) return;
    p.logit_extra = logit_extra;
    int64_t bad = lf_spec_first_assert(c, &p);
    if (bad < 0) {
        if (lf_spec_error_after_nll(c, &p, r)) return;
        int64_t gathered = lf_spec_gather_assert(c, &p);
        if (gathered >= 0) {
            lf_spec_device_assert(c, &p, LF_K_GATHER, gathered, r);
            return;
        }
        lf_spec_values(c, &p, r);
        lf_spec_mark_narrowed(c, &p, r);
        return;
    }
    lf_spec_device_assert(c, &p, p.kernel_id, bad, r);
}

bool lf_spec_backward_assert(const lf_case *c, lf_result *r)
{
    lf_problem p;
    lf_result_init(r);
    if (!lf_spec_plan(c, &p, r)) {
        lf_result_init(r);
        return false;
    }
    p.kernel_id = lf_backward_kernel(p.kernel_id);
    int64_t bad = lf_spec_first_assert(c, &p);
    if (bad >= 0) lf_spec_device_assert(c, &p, p.kernel_id, bad, r);
    return bad >= 0;
}
