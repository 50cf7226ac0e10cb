/* lf_spec_bce.c - binary_cross_entropy's hooks (harness/model/case/lf_losses.def):
 * probabilities, not logits. PyTorch main (2026) and 2.15, in its order:
 * torch.nn.functional checks the reduction, then the target's size against
 * the input's (ValueError), then broadcasts the weight with the target
 * (_infer_size, then expand); binary_cross_entropy_out_cuda's TensorIterator
 * wants the target in the input's dtype ("Found dtype"); its lambda asserts
 * input_val >= zero && input_val <= one, then the same of the target (2.1 on:
 * PR 97814; the CPU raises "all elements of input should be between 0 and 1"
 * for the first element, input before target), so a NaN asserts too; then
 * loss.mul_(weight) raises where the weight broadcast past the input. Each
 * element, every op stored in the input dtype:
 *   loss = (t - 1) * max(log(1 - x), -100) - t * max(log(x), -100)
 * times the weight (in their promotion, stored in the input dtype); mean and
 * sum add the stored losses in float (double for float64). The CPU writes
 * log1p(-x) for log(1 - x): within a unit of the dtype. Backward:
 * grad * (x - t) / max((1 - x) * x, 1e-12 in the dtype: 0 in float16), then
 * times the weight, then / numel for mean. Autocast refuses the call
 * (README, "binary_cross_entropy"); cases carry no autocast. */
#include <math.h>
#include <stdio.h>

#include "lf_problem.h"
#include "lf_shape.h"
#include "lf_spec.h"

static bool in_range(double v) { return v >= 0 && v <= 1; }

/* The broadcast shape of a and b (PyTorch's infer_size) into out; false when they do not broadcast. */
static bool infer_size(const lf_tensor *a, const lf_tensor *b, int *ndim, int64_t *out)
{
    *ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int k = 1; k <= *ndim; k++) {
        int64_t x = k <= a->ndim ? a->shape[a->ndim - k] : 1, y = k <= b->ndim ? b->shape[b->ndim - k] : 1;
        if (x != y && x != 1 && y != 1) return false;
        out[*ndim - k] = x == 1 ? y : x;
    }
    return true;
}

bool lf_spec_plan_bce_probs(const lf_case *c, lf_problem *p, lf_result *r)
{
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    char is[128], ts[128], ws[128];
    if (!lf_same_shape(in, tg)) {
        lf_format_shape(is, sizeof is, in->shape, in->ndim);
        lf_format_shape(ts, sizeof ts, tg->shape, tg->ndim);
        lf_result_error(r, "bce_target_shape", "ValueError",
                        "Using a target size (torch.Size(%s)) that is different to the input size (torch.Size(%s)) "
                        "is deprecated. Please ensure they have the same size.",
                        ts, is);
        return false;
    }
    int bndim;
    int64_t bshape[LF_MAX_DIMS];
    if (w->present && !infer_size(tg, w, &bndim, bshape)) {
        lf_format_shape(ts, sizeof ts, tg->shape, tg->ndim);
        lf_format_shape(ws, sizeof ws, w->shape, w->ndim);
        lf_result_error(r, "broadcast", "RuntimeError",
                        "weight of shape %s does not broadcast to the target's shape %s (torch.Size mismatch)", ws, ts);
        return false;
    }
    if (tg->dtype != in->dtype) {
        lf_result_error(r, "bce_target_dtype", "RuntimeError", "Found dtype %s but expected %s",
                        lf_torch_type_name(tg->dtype), lf_torch_type_name(in->dtype));
        return false;
    }
    lf_spec_route_bce_probs(c, p);
    return true;
}

void lf_spec_route_bce_probs(const lf_case *c, lf_problem *p)
{
    const lf_tensor *in = &c->input, *w = &c->weight;
    lf_problem_init(c, p, LF_BINARY_TARGETS);
    p->N = in->numel;
    p->kernels = LF_KERNELS_BCE;
    p->kernel_id = LF_K_BCE;
    /* a weight broadcast past the input: loss.mul_(weight) raises after the kernel (lf_spec_bce_error_after) */
    p->has_weight = w->present && lf_broadcast_strides(w, in, p->w_stride);
    p->lw_dtype = w->present ? lf_dtype_promote(in->dtype, w->dtype) : in->dtype;
    p->out_dtype = in->dtype;
}

/* The first element whose input, or then target, is outside [0, 1] or NaN; -1 when none. */
static int64_t first_bad(const lf_case *c)
{
    for (int64_t i = 0; i < c->input.numel; i++)
        if (!in_range(lf_load_f64(c->input.data, c->input.dtype, i)) ||
            !in_range(lf_load_f64(c->target.data, c->target.dtype, i)))
            return i;
    return -1;
}

/* The lambda's assert at element i: the input's condition first. */
static void device_assert(const lf_case *c, int64_t i, lf_result *r)
{
    int cond = in_range(lf_load_f64(c->input.data, c->input.dtype, i)) ? LF_COND_BCE_TARGET : LF_COND_BCE_INPUT;
    lf_result_device_assert(r, c, LF_K_BCE, cond, i, "", LF_SPEC_THEN);
}

bool lf_spec_bce_error_after(const lf_case *c, lf_result *r)
{
    const lf_tensor *w = &c->weight;
    int64_t stride[LF_MAX_DIMS], bshape[LF_MAX_DIMS];
    int bndim;
    if (!w->present || lf_broadcast_strides(w, &c->input, stride) || !infer_size(&c->target, w, &bndim, bshape))
        return false;
    char is[128], bs[128];
    lf_format_shape(is, sizeof is, c->input.shape, c->input.ndim);
    lf_format_shape(bs, sizeof bs, bshape, bndim);
    lf_result_error(r, "broadcast", "RuntimeError", "output with shape %s doesn't match the broadcast shape %s", is,
                    bs);
    return true;
}

/* Element i's loss as PyTorch stores it, and the magnitude of its terms. */
static double element(const lf_case *c, const lf_problem *p, int64_t i, double *mag, bool *undecided)
{
    lf_dtype d = c->input.dtype;
    double x = lf_load_f64(c->input.data, d, i), t = lf_load_f64(c->target.data, d, i);
    double lx = fmax(lf_dtype_round(d, log(x)), -100.0);
    double l1x = fmax(lf_dtype_round(d, log(lf_dtype_round(d, 1 - x))), -100.0);
    double a = lf_dtype_round(d, lf_dtype_round(d, t - 1) * l1x), b = lf_dtype_round(d, t * lx);
    double loss = lf_dtype_round(d, a - b);
    /* each log known to a unit of the dtype (1 - x rounded; the CPU's log1p), and a subnormal x's log to
     * the clamp (a kernel that flushes it to 0) */
    *mag = fabs(a) + fabs(b) + fabs(t - 1) + fabs(t);
    if (x > 0 && x < lf_dtype_min_normal(LF_F32)) *mag += fabs(t) * fabs(lx + 100);
    if (!p->has_weight) return loss;
    double w = lf_load_f64(c->weight.data, c->weight.dtype, lf_bcast_offset(p, p->w_stride, i));
    if (isinf(w) && fabs(loss) <= *mag * lf_dtype_eps(d)) *undecided = true; /* inf times 0 or a near 0: NaN */
    *mag *= fabs(w);
    /* past the dtype's range only as PyTorch stores it (100 * 1000 in float16): a mean or sum of it is inf there,
     * a number in a kernel that sums in float first (lf_spec_run_bce_probs) */
    if (isfinite(loss * w) && fabs(loss * w) > lf_dtype_max(d)) *undecided = true;
    return lf_dtype_round(d, lf_dtype_round((lf_dtype)p->lw_dtype, loss * w));
}

void lf_spec_run_bce_probs(const lf_case *c, lf_result *r)
{
    lf_problem p;
    lf_result_init(r);
    if (!lf_spec_plan(c, &p, r)) return;
    int64_t bad = first_bad(c);
    if (bad >= 0) {
        device_assert(c, bad, r);
        return;
    }
    if (lf_spec_error_after_nll(c, &p, r)) return;
    bool scalar;
    int64_t n_out = lf_plan_out_numel(&p, &scalar);
    if (!lf_result_alloc_values(r, n_out, true)) {
        lf_result_error(r, "internal", "MemoryError", "out of memory");
        return;
    }
    lf_spec_result_ok(c, &p, scalar, r);
    lf_dtype d = c->input.dtype;
    bool none = p.reduction == LF_RED_NONE, undecided = false;
    double sum = 0, sum_mag = 0;
    for (int64_t i = 0; i < p.N; i++) {
        double mag;
        bool und = false;
        double v = element(c, &p, i, &mag, &und);
        if (none) { /* stored past the range: inf in PyTorch and in any kernel */
            r->values[i] = v;
            r->scales[i] = und && isfinite(v) ? LF_SCALE_UNDECIDED : mag;
            continue;
        }
        sum += v;
        sum_mag += isfinite(mag) ? mag : 0;
        undecided |= und;
    }
    if (none) return;
    /* the stored losses summed in float: past its range, inf or a number by the order */
    if (sum_mag > lf_dtype_max(lf_spec_acc_dtype(c))) undecided = true;
    double div = p.reduction == LF_RED_MEAN ? (double)p.N : 1; /* empty: 0 / 0 */
    r->values[0] = lf_dtype_round(d, sum / div);
    r->scales[0] = undecided ? LF_SCALE_UNDECIDED : sum_mag / (div > 0 ? div : 1);
}

void lf_spec_grad_bce_probs(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS])
{
    lf_problem p;
    lf_result *gi = &g[LF_GRAD_INPUT];
    if (!lf_spec_grad_input_start(c, &p, gi)) return;
    lf_dtype d = c->input.dtype;
    for (int64_t i = 0; i < p.N; i++) {
        double x = lf_load_f64(c->input.data, d, i), t = lf_load_f64(c->target.data, d, i);
        double up = upstream[p.reduction == LF_RED_NONE ? i : 0];
        double product = lf_dtype_round(d, lf_dtype_round(d, 1 - x) * x);
        double denom = fmax(product, lf_dtype_round(d, lf_dtype_round(LF_F32, 1e-12))); /* EPSILON: a float */
        double v = lf_dtype_round(d, lf_dtype_round(d, up * lf_dtype_round(d, x - t)) / denom);
        double mag = fabs(up) * (fabs(x) + fabs(t)) / denom, w = 1;
        if (p.has_weight) {
            w = lf_load_f64(c->weight.data, c->weight.dtype, lf_bcast_offset(&p, p.w_stride, i));
            v = lf_dtype_round(d, lf_dtype_round((lf_dtype)p.lw_dtype, v * w));
        }
        double n = p.reduction == LF_RED_MEAN ? (double)p.N : 1;
        v = lf_dtype_round(d, v / n), mag /= n;
        gi->values[i] = v;
        /* at the epsilon clamp a 16-bit dtype's own epsilon decides (0 in float16: 0 / 0), a kernel in float
         * another: not decided; an infinite weight times a gradient of 0 neither; nor PyTorch's inf of a
         * product past the dtype before the mean's division, where the gradient itself is within it */
        bool lp = d != LF_F32 && d != LF_F64, clamped = lp && product < 1e-12;
        double exact = up * (x - t) / fmax((1 - x) * x, 1e-12) * w / n;
        bool overflowed = !isfinite(v) && isfinite(exact) && fabs(exact) <= lf_dtype_max(d);
        /* a subnormal denominator is known to a unit of its own spacing, not of the dtype's */
        double subnormal = product > 0 && product < lf_dtype_min_normal(d) ? lf_dtype_min_normal(d) / product : 0;
        gi->scales[i] = clamped || overflowed || (isinf(w) && x == t) ? LF_SCALE_UNDECIDED
                                                                      : mag * fabs(w) + fabs(v) * (1 + subnormal);
    }
}
