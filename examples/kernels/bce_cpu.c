/* bce_cpu.c - F.binary_cross_entropy as a C kernel under test (kDLCPU; include/lossfuzz/kernel.h, the
 * LOSSFUZZ_BCE claims bit): float32 and float64 probabilities, contiguous, no weight, forward and backward,
 * computed in double and stored once. Guarded: a target of another shape or dtype, and an input or target
 * outside [0, 1] (NaN too), where PyTorch asserts, are LOSSFUZZ_REJECTED. Built with BCE_BUG_CLAMP it clamps
 * such an input into [0, 1] instead (a planted bug lossfuzz must find: PyTorch gives no number there). */
#include <math.h>
#include <stdio.h>

#include "lossfuzz/kernel.h"

static double load(const DLTensor *t, int64_t i)
{
    return t->dtype.bits == 64 ? ((const double *)t->data)[i] : ((const float *)t->data)[i];
}
static void store(DLTensor *t, int64_t i, double v)
{
    if (t->dtype.bits == 64)
        ((double *)t->data)[i] = v;
    else
        ((float *)t->data)[i] = (float)v;
}
static int64_t numel(const DLTensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++) n *= t->shape[d];
    return n;
}

/* The element pair, checked: 0, or a rejection naming it. */
static int probabilities(const lossfuzz_call *c, int64_t i, double *x, double *t, char *error, size_t size)
{
    *x = load(c->input, i);
    *t = load(c->target, i);
#ifdef BCE_BUG_CLAMP
    *x = isnan(*x) ? 0.5 : fmin(1, fmax(0, *x));
#endif
    if (*x >= 0 && *x <= 1 && *t >= 0 && *t <= 1) return 0;
    snprintf(error, size, "%s[%lld] = %g is outside [0, 1]", *x >= 0 && *x <= 1 ? "target" : "input", (long long)i,
             *x >= 0 && *x <= 1 ? *t : *x);
    return 1;
}

/* PyTorch's host checks: a target of the input's size and dtype. 0, or a rejection. */
static int same_call(const lossfuzz_call *c, char *error, size_t size)
{
    int same = c->target->ndim == c->input->ndim && c->target->dtype.code == c->input->dtype.code &&
               c->target->dtype.bits == c->input->dtype.bits;
    for (int d = 0; same && d < c->input->ndim; d++) same = c->target->shape[d] == c->input->shape[d];
    if (same) return 0;
    snprintf(error, size, "the target must have the input's shape and dtype");
    return 1;
}

static int forward(const lossfuzz_call *c, char *error, size_t size)
{
    if (same_call(c, error, size)) return LOSSFUZZ_REJECTED;
    int64_t n = numel(c->input);
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        double x, t;
        if (probabilities(c, i, &x, &t, error, size)) return LOSSFUZZ_REJECTED;
        double loss = -(t * fmax(log(x), -100) + (1 - t) * fmax(log1p(-x), -100));
        if (c->reduction == LOSSFUZZ_NONE)
            store(c->out, i, loss);
        else
            sum += loss;
    }
    if (c->reduction != LOSSFUZZ_NONE) store(c->out, 0, c->reduction == LOSSFUZZ_MEAN ? sum / (double)n : sum);
    return LOSSFUZZ_OK;
}

/* d loss / d x = (x - t) / max((1 - x) x, 1e-12), PyTorch's clamp, times the upstream gradient. */
static int backward(const lossfuzz_call *c, char *error, size_t size)
{
    if (same_call(c, error, size)) return LOSSFUZZ_REJECTED;
    int64_t n = numel(c->input);
    for (int64_t i = 0; i < n; i++) {
        double x, t;
        if (probabilities(c, i, &x, &t, error, size)) return LOSSFUZZ_REJECTED;
        double up = load(c->grad_out, c->reduction == LOSSFUZZ_NONE ? i : 0);
        if (c->reduction == LOSSFUZZ_MEAN) up /= (double)n;
        store(c->grad_input, i, up * (x - t) / fmax((1 - x) * x, (double)1e-12f));
    }
    return LOSSFUZZ_OK;
}

static const lossfuzz_kernel table = {
    LOSSFUZZ_KERNEL_ABI,
#ifdef BCE_BUG_CLAMP
    "bce_clamped (C)",
#else
    "bce_guarded (C)",
#endif
    kDLCPU,
    1,
    LOSSFUZZ_BCE,
    LOSSFUZZ_F32 | LOSSFUZZ_F64,
    LOSSFUZZ_F32 | LOSSFUZZ_F64,
    LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_NONE) | LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_MEAN) |
        LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_SUM),
    LOSSFUZZ_CONTIGUOUS_ONLY,
    0,
    forward,
    backward,
    0,
    0,
};
LOSSFUZZ_KERNEL_ENTRY(table)
