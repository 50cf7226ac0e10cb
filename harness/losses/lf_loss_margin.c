/* lf_loss_margin.c - multi_margin_loss's home (lf_loss_row.h; its device file:
 * kernels/losses/lf_margin.inc). The spec: PyTorch's checks, its device assert, and the values and gradient in float64,
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

#include "lf_guard.h"
#include "lf_loss_row.h"
#include "lf_oracle.h"
#include "lf_problem.h"
#include "lf_shape.h"
#include "lf_spec.h"

static int64_t rows_of(const lf_tensor *in) { return in->ndim <= 1 ? 1 : in->shape[0]; }
static int64_t classes_of(const lf_tensor *in) { return in->ndim == 0 ? 1 : in->shape[in->ndim - 1]; }

static void route(const lf_case *c, lf_problem *p);

static bool plan(const lf_case *c, lf_problem *p, lf_result *r)
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
    if (!(tg->ndim <= 1 && tg->numel == N)) { /* torch 2.15's words (1.13: "inconsistent target size, got: ...") */
        char got_in[LF_MAX_DIMS * 22 + 4];
        lf_format_shape(s, sizeof s, tg->shape, tg->ndim);
        lf_format_shape(got_in, sizeof got_in, in->shape, in->ndim);
        lf_result_error(r, "target_shape", "RuntimeError",
                        "multi_margin_loss: target tensor should be 1-D with size equal to the number of input samples "
                        "(batch size). Expected target size [%lld], but got %s. Input has shape %s.",
                        (long long)N, s, got_in);
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
    route(c, p);
    return true;
}

/* The problem its kernels run: the spec's plan and the guard's checks end with it, on purpose - which
 * kernels run on what is a fact of PyTorch's, not a check. */
static void route(const lf_case *c, lf_problem *p)
{
    const lf_tensor *in = &c->input;
    lf_problem_init(c, p, LF_CLASS_TARGETS);
    p->one_d = in->ndim <= 1;
    p->N = rows_of(in);
    p->C = classes_of(in);
    p->S = 1;
    p->kernel_id = LF_K_MULTI_MARGIN;
    p->kernels = LF_KERNELS_MULTI_MARGIN;
    p->hinge_p = (int)c->p;
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

static void run(const lf_case *c, lf_result *r)
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
            if (may_count(z, m)) mag += pow(m, (double)p.hinge_p) * fabs(w);
            if (!(z > 0)) continue;
            double h = p.hinge_p == 1 ? z : lf_dtype_round(in, z * z);
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

static void grad(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS])
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
            double h = z > 0 ? lf_dtype_round(acc, p.hinge_p == 1 ? gk : 2 * gk * z) : 0;
            if (c->weight.present && z > 0) h = lf_dtype_round(acc, h * w); /* only there: no 0 * inf */
            h = lf_dtype_round(in, h);
            double mag = may_count(z, m) ? gk * (p.hinge_p == 1 ? 1 : 2 * m) * fabs(w) : 0;
            sum -= h;
            sum_mag += mag;
            d->values[k * p.C + i] = lf_dtype_round(in, h * go);
            d->scales[k * p.C + i] = mag * fabs(go);
        }
        d->values[k * p.C + t] = lf_dtype_round(in, lf_dtype_round(in, sum) * go);
        d->scales[k * p.C + t] = sum_mag * sum_factor(c, &p) * fabs(go);
    }
}

/* The guard's host checks, its own code, written apart from the spec's plan so that the oracle can catch
 * either wrong (PyTorch's order): rows of
 * [N, C], [C] or a scalar, one int64 label a row; the labels on the device next. */
static bool guard_check(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data)
{
    (void)needs_data; /* its hints read no target values */
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    char is[128], ts[128], ws[128];
    lf_guard_shapes(c, is, ts, ws);
    if (c->p != 1 && c->p != 2)
        return lf_guard_reject(r, "margin_p", NULL, "use p=1 (the hinge) or p=2 (its square)",
                               "p = %lld: multi_margin_loss takes p of 1 or 2", (long long)c->p);
    if (w->present && w->ndim != 1)
        return lf_guard_reject(r, "weight_shape", NULL, "pass one weight per class, shape [C]",
                               "weight of shape %s: it must be 1-D", ws);
    bool rows = (in->ndim == 2 && in->shape[1] > 0) || (in->ndim == 1 && in->shape[0] > 0) || in->ndim == 0;
    if (!rows)
        return lf_guard_reject(r, "input_dim", NULL, "pass scores of shape [N, C] or [C], with C > 0",
                               "input of shape %s: multi_margin_loss takes [N, C], [C] or a scalar, with classes", is);
    int64_t n = in->ndim <= 1 ? 1 : in->shape[0], classes = in->ndim == 0 ? 1 : in->shape[in->ndim - 1];
    if (tg->ndim > 1 || tg->numel != n)
        return lf_guard_reject(r, "target_shape", NULL, "one class index per row: shape [N], or [] / [1] for one row",
                               "target of shape %s for %lld row(s) of input %s", ts, (long long)n, is);
    if (w->present && w->numel != classes)
        return lf_guard_reject(r, "weight_shape", NULL, "pass one weight per class, shape [C]",
                               "weight of shape %s for %lld classes", ws, (long long)classes);
    if (in->numel > 0 && tg->dtype != LF_I64) /* (an input without elements reads neither) */
        return lf_guard_reject(r, "target_dtype", "wrong_target_dtype", "convert the target with target.long()",
                               "class indices must be int64, got %s", lf_dtype_name(tg->dtype));
    if (in->numel > 0 && w->present && w->dtype != in->dtype)
        return lf_guard_reject(r, "weight_dtype", NULL, "convert the weight with weight.to(input.dtype)",
                               "the weight is %s, the input %s: multi_margin_loss wants them alike",
                               lf_dtype_name(w->dtype), lf_dtype_name(in->dtype));
    route(c, p);
    return true;
}

/* PyTorch's messages only it raises (python/lossfuzz_torch.py matches them first). */
static const lf_torch_message messages[] = {
    {"only p == 1 and p == 2 supported", "margin_p"},
    {"weight must be one-dimensional|inconsistent weight size", "weight_shape"},
    {"inconsistent target size|target tensor should be 1-D with size equal to the number of input", "target_shape"},
    {"Expected non-empty vector or matrix", "input_dim"},
};

/* The known differences only it shows (lf_oracle.h). */
static bool int_label(const lf_case *c, const lf_result *s, const lf_result *t)
{
    (void)c;
    return t->kind == LF_OUTCOME_DEVICE_ASSERT && s->kind == LF_OUTCOME_OK && !strcmp(s->silent, "label_truncated");
}
static bool weight_size_1_13(const lf_case *c, const lf_result *s, const lf_result *t)
{
    (void)c;
    /* it goes on to what comes next: a result, the label's range, the target's dtype */
    return lf_known_host_error(s, "weight_shape") && !lf_known_host_error(t, "weight_shape");
}

static const lf_known_rule known[] = {
    {{"margin_int_label", "cpu", "", "", "aten/src/ATen/native/cuda/MultiMarginCriterion.cu: static_cast<int>",
      "CUDA's MultiMarginLoss_forward_kernel reads the label as int, so 2^32+k is class k, no assert; the CPU "
      "raises"},
     int_label},
    {{"margin_weight_size_1_13", "", "", "2.0",
      "aten/src/ATen/native/LossMultiMargin.cpp: multi_margin_loss_shape_check",
      "torch 1.13's multi_margin_loss does not check the weight's size (it returns, or fails a later check); 2.x "
      "does"},
     weight_size_1_13},
};

const lf_loss_row lf_loss_margin = {
    .plan = plan,
    .run = run,
    .grad = grad,
    .guard_check = guard_check,
    .messages = messages,
    .n_messages = LF_COUNT_OF(messages),
    /* its CPU kernel raises this where CUDA's asserts, naming no label */
    .cpu_assert_exception = "RuntimeError",
    .cpu_assert_pattern = "^target out of range$",
    .known = known,
    .n_known = LF_COUNT_OF(known),
};
