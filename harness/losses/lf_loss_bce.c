/* lf_loss_bce.c - binary_cross_entropy's home (lf_loss_row.h): probabilities,
 * not logits; its device file is kernels/losses/lf_bce.inc. The spec: PyTorch main (2026) and 2.15, in its order:
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

#include "lf_guard.h"
#include "lf_loss_row.h"
#include "lf_oracle.h"
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

static void route(const lf_case *c, lf_problem *p);

static bool plan(const lf_case *c, lf_problem *p, lf_result *r)
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
    route(c, p);
    return true;
}

/* The problem its kernels run: the spec's plan and the guard's checks end with it, on purpose - which
 * kernels run on what is a fact of PyTorch's, not a check. */
static void route(const lf_case *c, lf_problem *p)
{
    const lf_tensor *in = &c->input, *w = &c->weight;
    lf_problem_init(c, p, LF_BINARY_TARGETS);
    p->N = in->numel;
    p->kernels = LF_KERNELS_BCE;
    p->kernel_id = LF_K_BCE;
    /* a weight broadcast past the input: loss.mul_(weight) raises after the kernel (error_after) */
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

static bool error_after(const lf_case *c, const lf_problem *p, lf_result *r)
{
    (void)p;
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
     * a number in a kernel that sums in float first (run) */
    if (isfinite(loss * w) && fabs(loss * w) > lf_dtype_max(d)) *undecided = true;
    return lf_dtype_round(d, lf_dtype_round((lf_dtype)p->lw_dtype, loss * w));
}

static void run(const lf_case *c, lf_result *r)
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

static void grad(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS])
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

/* The guard's own code, written apart from the spec above so that the oracle
 * can catch either wrong; it shares the routing alone (route). */

static bool guard_check(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data)
{
    (void)needs_data; /* its hints read no target values */
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    char is[128], ts[128], ws[128];
    lf_guard_shapes(c, is, ts, ws);
    if (!lf_same_shape(in, tg)) {
        bool indices = in->ndim == 2 && tg->ndim == 1 && !lf_dtype_is_float(tg->dtype);
        return lf_guard_reject(r, "bce_target_shape", indices ? "class_indices_to_bce" : NULL,
                               indices
                                   ? "these look like class indices: use cross_entropy, or F.one_hot(target, C).float()"
                                   : "PyTorch no longer broadcasts BCE's target: give it the input's shape",
                               "target of shape %s must have the input's shape %s", ts, is);
    }
    for (int k = 1; w->present && k <= w->ndim; k++) { /* the weight is expanded to the target's shape */
        int64_t wk = w->shape[w->ndim - k], tk = k <= tg->ndim ? tg->shape[tg->ndim - k] : 1;
        if (wk != tk && wk != 1 && tk != 1)
            return lf_guard_reject(r, "broadcast", NULL, "a weight per element, or one that broadcasts to the target",
                                   "weight of shape %s does not broadcast to the target's shape %s", ws, ts);
    }
    if (tg->dtype != in->dtype)
        return lf_guard_reject(r, "bce_target_dtype", NULL, "convert the target with target.to(input.dtype)",
                               "the target is %s, the input %s: binary_cross_entropy wants them alike",
                               lf_dtype_name(tg->dtype), lf_dtype_name(in->dtype));
    route(c, p);
    return true;
}

/* A weight that broadcasts to the target but past the input: the loss keeps the input's shape (PyTorch's
 * loss.mul_ raises after the kernel). */
static bool weight_past_input(const lf_case *c, lf_result *r)
{
    int64_t stride[LF_MAX_DIMS];
    char is[128], ts[128], ws[128];
    if (!c->weight.present || lf_broadcast_strides(&c->weight, &c->input, stride)) return false;
    lf_guard_shapes(c, is, ts, ws);
    lf_guard_reject(r, "broadcast", NULL, "a weight per element, or one that broadcasts to the input's shape",
                    "weight of shape %s broadcasts past the input's shape %s: the loss keeps the input's shape", ws,
                    is);
    return true;
}

static void reject_element(const lf_case *c, const lf_problem *p, int64_t i, int64_t n_bad, double x, double t,
                           lf_result *r)
{
    bool input = !(x >= 0 && x <= 1);
    double v = input ? x : t;
    lf_dtype d = input ? c->input.dtype : (lf_dtype)p->tgt_dtype;
    r->kind = LF_OUTCOME_HOST_ERROR;
    snprintf(r->error, sizeof r->error, "bce_out_of_range");
    snprintf(r->exception, sizeof r->exception, "RuntimeError");
    r->index = i;
    r->value = 0;
    const char *why = "";
    if (!input) {
        lf_guard_set_hint(r, "target_not_probability",
                          isnan(t)   ? "a NaN target: check how the targets were made"
                          : t == 255 ? "255 looks like a mask's foreground or void value: use mask / 255 (or mask > 0)"
                                     : "targets of binary_cross_entropy are probabilities in [0, 1]; class ids go to "
                                       "cross_entropy");
    } else if (isnan(x)) {
        why = ": a NaN from a layer before (an overflow or 0/0)";
        lf_guard_set_hint(r, "nan_probability",
                          "find the NaN upstream (torch.autograd.set_detect_anomaly); binary_cross_entropy_with_logits "
                          "on the logits avoids the sigmoid's own");
    } else if (fabs(x - (x > 1 ? 1 : 0)) <= 2 * lf_dtype_eps(d)) {
        why = x > 1 ? ": a sigmoid rounded past 1" : ": a probability rounded below 0";
        lf_guard_set_hint(r, "sigmoid_past_one",
                          "use binary_cross_entropy_with_logits on the logits (or clamp to [0, 1])");
    } else {
        why = ": logits, not probabilities";
        lf_guard_set_hint(r, "logits_not_probabilities",
                          "apply sigmoid first, or use binary_cross_entropy_with_logits on the logits");
    }
    snprintf(r->message, sizeof r->message,
             "%s[%lld] = %.8g (%s)%s; %lld of %lld elements are outside [0, 1] or NaN. PyTorch would hit a "
             "device-side assert here",
             input ? "input" : "target", (long long)i, v, lf_dtype_name(d), why, (long long)n_bad, (long long)p->N);
}

static bool guard_verdict(const lf_case *c, const lf_backend *be, const lf_problem *p, const lf_buffers *b,
                          const lf_target_stats *st, lf_result *r)
{
    lf_result verdict;
    lf_result_init(&verdict);
    if (st->n_bad > 0) {
        char x[8], t[8];
        size_t xs = lf_dtype_size((lf_dtype)p->in_dtype), ts = lf_dtype_size((lf_dtype)p->tgt_dtype);
        if (be->to_host(x, (const char *)b->input + (size_t)lf_in_at(p, st->first_bad) * xs, xs) ||
            be->to_host(t, (const char *)b->target + (size_t)lf_tg_at(p, st->first_bad) * ts, ts))
            return false;
        reject_element(c, p, st->first_bad, st->n_bad, lf_load_f64(x, (lf_dtype)p->in_dtype, 0),
                       lf_load_f64(t, (lf_dtype)p->tgt_dtype, 0), &verdict);
    } else if (!weight_past_input(c, &verdict)) {
        return true;
    }
    lf_result_free(r); /* its loss was computed without the elements it rejects */
    *r = verdict;
    return true;
}

static const lf_hint_row hints[] = {
    {"sigmoid_past_one", "binary_cross_entropy: a probability a unit or two of a 16-bit dtype past [0, 1] (a sigmoid "
                         "rounded past 1, or a probability made by hand): use `binary_cross_entropy_with_logits` on "
                         "the logits."},
    {"logits_not_probabilities", "binary_cross_entropy: an input well outside [0, 1]: logits, not probabilities; "
                                 "apply `sigmoid` or use `binary_cross_entropy_with_logits`."},
    {"nan_probability", "binary_cross_entropy: a NaN input (an overflow or 0/0 in a layer before): find it upstream; "
                        "`binary_cross_entropy_with_logits` avoids the sigmoid's own."},
    {"target_not_probability", "binary_cross_entropy: a target outside [0, 1] or NaN (class ids, or a 0/255 mask): "
                               "targets are probabilities (`mask / 255`; class ids go to cross_entropy)."},
};

/* PyTorch's messages only binary_cross_entropy raises (python/lossfuzz_torch.py matches them first). */
static const lf_torch_message messages[] = {
    {"Found dtype .* but expected", "bce_target_dtype"},
};

/* The known differences only it shows (lf_oracle.h). */
static bool target_unchecked(const lf_case *c, const lf_result *s, const lf_result *t)
{
    (void)c;
    return s->kind == LF_OUTCOME_DEVICE_ASSERT && s->cond_id == LF_COND_BCE_TARGET &&
           t->kind != LF_OUTCOME_DEVICE_ASSERT;
}
static bool log1p_cpu(const lf_case *c, const lf_result *s, const lf_result *t)
{
    bool inf_weight = false;
    for (int64_t i = 0; c->weight.present && i < c->weight.numel; i++)
        inf_weight |= isinf(lf_load_f64(c->weight.data, c->weight.dtype, i));
    if (!lf_known_both_ok(s, t) || !inf_weight) return false;
    for (int64_t i = 0; i < t->n && i < s->n; i++)
        if (isnan(s->values[i]) && isinf(t->values[i])) return true;
    return false;
}

static const lf_known_rule known[] = {
    {{"bce_target_unchecked", "", "", "2.1", "PyTorch PR 97814 (Loss.cpp, cuda/Loss.cu); torch 1.13 measured",
      "before 2.1, binary_cross_entropy checks its input's range only: a target outside [0, 1] or NaN gives a "
      "number (negative, NaN) where 2.1 on raises on the CPU and asserts on CUDA"},
     target_unchecked},
    {{"bce_log1p_cpu", "cpu", "", "",
      "aten/src/ATen/native/Loss.cpp (CPU: log1p(-x)) against cuda/Loss.cu (log(1 - x)); torch 2.15 measured",
      "the CPU's binary_cross_entropy takes log1p(-x), CUDA's log(1 - x), which is 0 for an input below the "
      "dtype's unit: an infinite weight times it is inf on the CPU, NaN (inf * 0) on CUDA and in the spec "
      "(input 5.4e-20, target 0, weight -inf: CPU -inf)"},
     log1p_cpu},
};

const lf_loss_row lf_loss_bce = {
    .plan = plan,
    .run = run,
    .grad = grad,
    .error_after = error_after,
    .guard_check = guard_check,
    .guard_verdict = guard_verdict,
    .hints = hints,
    .n_hints = LF_COUNT_OF(hints),
    .messages = messages,
    .n_messages = LF_COUNT_OF(messages),
    /* the CPU's loop raises where CUDA's lambda asserts (the input, then since 2.1 the target) */
    .cpu_assert_exception = "RuntimeError",
    .cpu_assert_pattern = "^all elements of (input|target) should be between 0 and 1",
    .cpu_assert_error = "bce_out_of_range",
    .known = known,
    .n_known = LF_COUNT_OF(known),
};
