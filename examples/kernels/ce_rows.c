/* ce_rows.c - an example kernel under test: F.cross_entropy with class
 * indices on the CPU, one row at a time with an online softmax, the way a
 * row-per-block CUDA kernel computes it. Built three ways (CMakeLists.txt):
 *
 *   ce_plain.so    unguarded: checks shapes, and asserts on a bad label as
 *                  PyTorch's CUDA kernel does (assert(), so the process dies)
 *   ce_guarded.so  -DCE_GUARDED: rejects a bad label with a message instead
 *   ce_buggy.so    -DCE_BUG_NO_BOUNDS_CHECK: the label check forgotten, a
 *                  bad label reads another row's logits, or past the input
 *
 * Check one: lossfuzz check --kernel build/examples/kernels/ce_buggy.so regressions/
 * Fuzz one:  ci/fuzz.sh fuzz_class 60 --kernel build/examples/kernels/ce_buggy.so */
#undef NDEBUG /* the label check stays in release builds, as CUDA_KERNEL_ASSERT does */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lossfuzz/kernel.h"

/* Element i of a float32/float64 tensor along its strides (DLPack: in elements). */
static double load(const DLTensor *t, int64_t offset)
{
    const char *base = (const char *)t->data + t->byte_offset;
    return t->dtype.bits == 64 ? ((const double *)base)[offset] : ((const float *)base)[offset];
}

static void store(DLTensor *out, int64_t i, double v)
{
    char *base = (char *)out->data + out->byte_offset;
    int64_t at = out->ndim ? i * out->strides[0] : 0; /* [N] for reduction none, else 0-D */
    if (out->dtype.bits == 64) ((double *)base)[at] = v;
    else ((float *)base)[at] = (float)v;
}

static int reject(char *error, size_t size, const char *what)
{
    snprintf(error, size, "%s", what);
    return LOSSFUZZ_REJECTED;
}

static int forward(const lossfuzz_call *call, char *error, size_t size)
{
    const DLTensor *x = call->input, *t = call->target, *w = call->weight;
    /* [N, C] with targets [N], or one row [C] with a 0-D target or one of
     * shape [1] (PyTorch 2.x takes both). */
    int batched = x->ndim == 2;
    int one_row_target = x->ndim == 1 && (t->ndim == 0 || (t->ndim == 1 && t->shape[0] == 1));
    int64_t n = batched ? x->shape[0] : 1, c = x->shape[x->ndim - 1];
    int64_t xs_row = batched ? x->strides[0] : 0, xs_col = x->strides[x->ndim - 1];
    if (x->ndim < 1 || x->ndim > 2 || (batched ? t->ndim != 1 || t->shape[0] != n : !one_row_target))
        return reject(error, size, "input must be [N, C] with target [N], or [C] with a target of shape [] or [1]");
    if (w && (w->ndim != 1 || w->shape[0] != c))
        return reject(error, size, "weight must have one element per class");
    /* PyTorch returns an empty batch's result before it looks at the weight's dtype. */
    if (w && n > 0 && (w->dtype.code != x->dtype.code || w->dtype.bits != x->dtype.bits))
        return reject(error, size, "weight must have the input's dtype");
    const int64_t *labels = (const int64_t *)((const char *)t->data + t->byte_offset);
    double total = 0, weights = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t label = labels[batched ? i * t->strides[0] : 0];
        if (label == call->ignore_index) {
            /* An unbatched call's result is that one row's loss, 0 when ignored, whatever the reduction. */
            if (call->reduction == LOSSFUZZ_NONE || !batched) store(call->out, i, 0);
            if (!batched) return LOSSFUZZ_OK;
            continue;
        }
#if defined(CE_GUARDED)
        if (label < 0 || label >= c) {
            snprintf(error, size, "target[%lld] = %lld is not a class index in [0, %lld)", (long long)i,
                     (long long)label, (long long)c);
            return LOSSFUZZ_REJECTED;
        }
#elif !defined(CE_BUG_NO_BOUNDS_CHECK)
        assert(label >= 0 && label < c); /* PyTorch's CUDA kernel asserts here too */
#endif
        /* One pass: the running maximum and the sum of exp relative to it. */
        const int64_t row = i * xs_row;
        double max = -INFINITY, sum = 0;
        for (int64_t j = 0; j < c; j++) {
            double v = load(x, row + j * xs_col);
            if (v > max) {
                /* exp(-inf) is 0 on the first element; exp(v - v) is 1, or NaN for a
                 * +inf logit, as PyTorch's x - max makes it */
                sum = sum * exp(max - v) + exp(v - v);
                max = v;
            } else if (v != -INFINITY) { /* exp(-inf - -inf) would be NaN: a masked logit adds 0 */
                sum += exp(v - max);
            }
        }
        double wi = w ? load(w, label * w->strides[0]) : 1;
        /* (max - x[label]) first: max + log(sum) - x[label] loses log(sum) for logits near 1e26 */
        double loss = wi * ((max - load(x, row + label * xs_col)) + log(sum));
        if (call->reduction == LOSSFUZZ_NONE) store(call->out, i, loss);
        total += loss;
        weights += wi;
    }
    if (call->reduction == LOSSFUZZ_MEAN) store(call->out, 0, total / weights); /* all ignored: 0/0 = NaN */
    else if (call->reduction == LOSSFUZZ_SUM) store(call->out, 0, total);
    return LOSSFUZZ_OK;
}

static const lossfuzz_kernel table = {
#ifdef CE_WRONG_ABI
    .abi = LOSSFUZZ_KERNEL_ABI + 1, /* as if built against a newer header (kernel_test.sh) */
#else
    .abi = LOSSFUZZ_KERNEL_ABI,
#endif
#if defined(CE_GUARDED)
    .name = "ce_rows (guarded)", .guarded = 1,
#elif defined(CE_BUG_NO_BOUNDS_CHECK)
    .name = "ce_rows (buggy: no label bounds check)",
#else
    .name = "ce_rows",
#endif
    .device = kDLCPU,
    .losses = LOSSFUZZ_CROSS_ENTROPY,
    .input_dtypes = LOSSFUZZ_F32 | LOSSFUZZ_F64,
    .target_dtypes = LOSSFUZZ_I64,
    .reductions = LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_NONE) | LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_MEAN) |
                  LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_SUM),
    .features = LOSSFUZZ_WEIGHT | LOSSFUZZ_IGNORE_INDEX,
    .max_spatial_dims = 0,
    .forward = forward,
};

LOSSFUZZ_KERNEL_ENTRY(table)
