/* lf_spec_margin.c - multi_margin_loss's hooks (harness/model/case/lf_losses.def):
 * PyTorch's checks, its device assert, and the values and gradient in float64,
 * as torch.nn.functional.multi_margin_loss and MultiMarginLoss.cu (PyTorch
 * main, 2026) compute them. For row k of N (an input [N, C], or [C] / [] as
 * one row) with t = target[k] read as int32 (static_cast<int>):
 *   loss_k = sum over i != t of max(0, margin - x[t] + x[i])^p * w[t], / C
 * z = margin - x[t] + x[i] is stored in the input dtype (margin too), so is
 * z * z and its product with w[t]; a NaN z is not > 0 and adds nothing. Mean
 * divides each row by N * C, stores it, then sums the rows; sum divides by C.
 * The backward kernel asserts nothing: d x[i] = g * (p == 1 ? 1 : 2z) * w[t]
 * where z > 0, d x[t] = minus their sum, g = 1 / denominator, each stored in
 * the input dtype and then multiplied by the upstream gradient. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lf_problem.h"
#include "lf_shape.h"
#include "lf_spec.h"

static int64_t rows_of(const lf_tensor *in) { return in->ndim <= 1 ? 1 : in->shape[0]; }
static int64_t classes_of(const lf_tensor *in) { return in->ndim == 0 ? 1 : in->shape[in->ndim - 1]; }

bool lf_spec_plan_multi_margin(const lf_case *c, lf_problem *p, lf_result *r)
{
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    char s[128];
    if (c->p != 1 && c->p != 2) { /* torch.nn.functional first */
        lf_result_error(r, "margin_p", "ValueError", "only p == 1 and p == 2 supported");
        return false;
    }
    if (w->present && w->ndim != 1) {
        lf_result_error(r, "weight_shape", "ValueError", "weight must be one-dimensional");
        return false;
    }
    if (!((in->ndim == 2 && in->shape[1] != 0) || (in->ndim == 1 && in->shape[0] != 0) || in->ndim == 0)) {
        lf_format_shape(s, sizeof s, in->shape, in->ndim);
        lf_result_error(r, "input_dim", "RuntimeError",
                        "Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s", s);
        return false;
    }
    int64_t N = rows_of(in), C = classes_of(in);
    if (!(tg->ndim <= 1 && tg->numel == N)) {
        lf_format_shape(s, sizeof s, tg->shape, tg->ndim);
        lf_result_error(r, "target_shape", "RuntimeError", "inconsistent target size, expected %lld but got %s",
                        (long long)N, s);
        return false;
    }
    if (w->present && w->numel != C) {
        lf_format_shape(s, sizeof s, w->shape, w->ndim);
        lf_result_error(r, "weight_shape", "RuntimeError", "inconsistent weight size, expected %lld but got %s",
                        (long long)C, s);
        return false;
    }
    /* an input without elements returns before the kernels read the target as int64, the weight as the input's */
    if (in->numel > 0 && tg->dtype != LF_I64) {
        lf_result_error(r, "target_dtype", "RuntimeError", "expected scalar type Long but found %s",
                        lf_torch_type_name(tg->dtype));
        return false;
    }
    if (in->numel > 0 && w->present && w->dtype != in->dtype) {
        lf_result_error(r, "weight_dtype", "RuntimeError", "expected scalar type %s but found %s",
                        lf_torch_type_name(in->dtype), lf_torch_type_name(w->dtype));
        return false;
    }
    lf_spec_route_multi_margin(c, p);
    return true;
}

void lf_spec_route_multi_margin(const lf_case *c, lf_problem *p)
{
    const lf_tensor *in = &c->input;
    lf_problem_init(c, p, LF_CLASS_TARGETS);
    p->one_d = in->ndim <= 1;
    p->N = rows_of(in);
    p->C = classes_of(in);
    p->S = 1;
    p->kernel_id = LF_K_MULTI_MARGIN;
    p->kernels = LF_KERNELS_MULTI_MARGIN;
    p->margin_p = (int)c->p;
    p->margin = lf_dtype_round(in->dtype, c->margin);
}

/* z of row k, class i, as the kernel stores it, and the magnitude of its terms. */
static double z_at(const lf_case *c, const lf_problem *p, int64_t k, int64_t t, int64_t i, double *mag)
{
    lf_dtype in = c->input.dtype, acc = lf_spec_acc_dtype(c);
    double xt = lf_load_f64(c->input.data, in, k * p->C + t), xi = lf_load_f64(c->input.data, in, k * p->C + i);
    *mag = fabs(p->margin) + fabs(xt) + fabs(xi);
    return lf_dtype_round(in, lf_dtype_round(acc, lf_dtype_round(acc, p->margin - xt) + xi));
}

/* A row's C terms are summed in float (in double for float64 input), in an
 * order the spec does not follow: each term may move the sum by half a unit
 * of float, so a row's scale grows with C (PyTorch 1.13's CPU adds them one
 * by one; CUDA's 128 lanes first, then their sums). */
static double sum_factor(const lf_case *c, const lf_problem *p)
{
    return c->input.dtype == LF_F64 ? 1.0 : 1.0 + (double)p->C / 128.0;
}

/* Whether a term's sign may go either way with rounding: then it counts in the scale. */
static bool may_count(double z, double mag) { return isnan(z) || z > -mag * 0x1p-7; }

/* The first row whose label, read as int32, is not a class; -1 when none. */
static int64_t first_bad(const lf_case *c, const lf_problem *p)
{
    if (c->input.numel == 0) return -1;
    for (int64_t k = 0; k < p->N; k++) {
        int64_t t = lf_label_read(p->kernel_id, c->target.dtype, lf_load_i64(c->target.data, c->target.dtype, k));
        if (!(t >= 0 && t < p->C)) return k;
    }
    return -1;
}

void lf_spec_run_multi_margin(const lf_case *c, lf_result *r)
{
    lf_problem p;
    lf_result_init(r);
    if (!lf_spec_plan(c, &p, r)) return;
    int64_t bad = first_bad(c, &p);
    if (bad >= 0) {
        lf_spec_device_assert(c, &p, p.kernel_id, bad, r);
        return;
    }
    bool scalar;
    int64_t n_out = lf_plan_out_numel(&p, &scalar);
    if (!lf_result_alloc_values(r, n_out, true)) {
        lf_result_error(r, "internal", "MemoryError", "out of memory");
        return;
    }
    lf_dtype in = c->input.dtype;
    r->kind = LF_OUTCOME_OK;
    r->out_dtype = r->tol_dtype = in;
    r->scalar = scalar;
    if (c->input.numel == 0) { /* the kernels never run: an empty [0] is exact, a scalar left uninitialized */
        if (scalar) r->scales[0] = LF_SCALE_UNDECIDED;
        return;
    }
    bool mean = p.reduction == LF_RED_MEAN, none = p.reduction == LF_RED_NONE;
    double denom = (double)(mean ? p.N * p.C : p.C), total = 0, total_mag = 0, terms = 0;
    for (int64_t k = 0; k < p.N; k++) {
        int64_t raw = lf_load_i64(c->target.data, c->target.dtype, k);
        int64_t t = lf_label_read(p.kernel_id, c->target.dtype, raw);
        double w = lf_spec_weight(c, t), sum = 0, mag = 0;
        for (int64_t i = 0; i < p.C; i++) {
            if (i == t) continue;
            double m, z = z_at(c, &p, k, t, i, &m);
            if (may_count(z, m)) mag += pow(m, (double)p.margin_p) * fabs(w);
            if (!(z > 0)) continue;
            double h = p.margin_p == 1 ? z : lf_dtype_round(in, z * z);
            if (c->weight.present) h = lf_dtype_round(in, h * w);
            sum += h;
            if (isfinite(h)) terms += fabs(h); /* an inf term (a product past the dtype) must not hide the others' */
        }
        mag *= sum_factor(c, &p);
        double v = lf_dtype_round(in, sum / denom);
        if (none)
            r->values[k] = v, r->scales[k] = mag / denom;
        else
            total += v, total_mag += mag / denom;
    }
    /* the rows are summed in float for every input but float64 */
    bool overflow = in != LF_F64 && isfinite(terms) && terms > FLT_MAX;
    if (!none) r->values[0] = lf_dtype_round(in, total), r->scales[0] = overflow ? LF_SCALE_UNDECIDED : total_mag;
    for (int64_t k = 0; none && overflow && k < p.N; k++) r->scales[k] = LF_SCALE_UNDECIDED;
    lf_spec_mark_narrowed(c, &p, r); /* a label read as int32 into a class: no assert, another loss */
}

void lf_spec_grad_multi_margin(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS])
{
    lf_problem p;
    lf_result *d = &g[LF_GRAD_INPUT];
    if (!lf_spec_grad_input_start(c, &p, d)) return;
    lf_dtype in = c->input.dtype, acc = lf_spec_acc_dtype(c);
    bool none = p.reduction == LF_RED_NONE;
    double gk = lf_dtype_round(acc, 1.0 / (double)(p.reduction == LF_RED_MEAN ? p.N * p.C : p.C));
    for (int64_t k = 0; k < p.N && c->input.numel > 0; k++) {
        int64_t t = lf_label_read(p.kernel_id, c->target.dtype, lf_load_i64(c->target.data, c->target.dtype, k));
        double go = upstream[none && p.tg_ndim > 0 ? k : 0], w = lf_spec_weight(c, t), sum = 0, sum_mag = 0;
        for (int64_t i = 0; i < p.C; i++) {
            if (i == t) continue;
            double m, z = z_at(c, &p, k, t, i, &m);
            double h = z > 0 ? lf_dtype_round(acc, p.margin_p == 1 ? gk : 2 * gk * z) : 0;
            if (c->weight.present && z > 0) h = lf_dtype_round(acc, h * w); /* only there: no 0 * inf */
            h = lf_dtype_round(in, h);
            double mag = may_count(z, m) ? gk * (p.margin_p == 1 ? 1 : 2 * m) * fabs(w) : 0;
            sum -= h;
            sum_mag += mag;
            d->values[k * p.C + i] = lf_dtype_round(in, h * go);
            d->scales[k * p.C + i] = mag * fabs(go);
        }
        d->values[k * p.C + t] = lf_dtype_round(in, lf_dtype_round(in, sum) * go);
        d->scales[k * p.C + t] = sum_mag * sum_factor(c, &p) * fabs(go);
    }
}
