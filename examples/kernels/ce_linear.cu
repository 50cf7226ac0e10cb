/* ce_linear.cu - an example fused linear + cross-entropy kernel under test
 * (LOSSFUZZ_LINEAR_CROSS_ENTROPY), forward and backward: the logits never
 * stored, each row's made one vocabulary entry at a time (a dot product of
 * its hidden state with that entry's weights) and folded into an online
 * softmax; backward makes them again, writes d hidden for its row and adds
 * its share of d weight and d bias atomically. One thread per row: the
 * shape of the simplest fused LM-head kernels. The same file builds for the
 * CPU (ce_linear_cpu.c includes it), rows one after another.
 *
 * Built as (CMakeLists.txt; ce_cuda_* only where nvcc is found):
 *   ce_linear        ce_cuda_linear        correct
 *   ce_linear_buggy  ce_cuda_linear_buggy  -DCE_BUG_BIAS_ONCE: d bias takes only the
 *                                          first row's share, as a kernel that adds
 *                                          it from row 0's thread alone
 *
 * Fuzz one: ci/fuzz.sh fuzz_linear 60 --kernel build/examples/kernels/ce_linear_buggy.so */
#include "ce_example.h"

typedef struct {
    const char *h, *w, *b; /* hidden [N, H] (strided), weight [V, H] (strided), bias [V] or NULL */
    int f64;
    int64_t n, hdim, v, hs_row, hs_col, ws_row, ws_col, bs;
    const int64_t *labels;
    int64_t ts, ignore_index;
    int reduction, batched;
    double *row_loss, *kept; /* scratch [N] each */
    const char *g;           /* backward: the upstream gradient, and its stride */
    int64_t gs;
    char *gh, *gw, *gb; /* backward: d hidden [N, H], d weight [V, H], d bias [V] (contiguous), or NULL */
} lin_args;

CE_DEVICE void add(char *base, int f64, int64_t i, double v)
{
#ifdef __CUDA_ARCH__
    if (f64)
        atomicAdd((double *)base + i, v);
    else
        atomicAdd((float *)base + i, (float)v);
#else
    store(base, f64, i, load(base, f64, i) + v);
#endif
}

CE_DEVICE double logit(const lin_args *a, int64_t i, int64_t v)
{
    double dot = a->b ? load(a->b, a->f64, v * a->bs) : 0;
    for (int64_t k = 0; k < a->hdim; k++)
        dot += load(a->h, a->f64, i * a->hs_row + k * a->hs_col) * load(a->w, a->f64, v * a->ws_row + k * a->ws_col);
    return dot;
}

/* Row i's online softmax over the vocabulary: its largest logit and the sum of exp relative to it. */
CE_DEVICE void row_softmax(const lin_args *a, int64_t i, double *max, double *sum)
{
    double m = -INFINITY, s = 0;
    for (int64_t v = 0; v < a->v; v++) {
        double x = logit(a, i, v);
        if (x > m) {
            s = s * exp(m - x) + exp(x - x);
            m = x;
        } else if (x != -INFINITY) {
            s += exp(x - m);
        }
    }
    *max = m;
    *sum = s;
}

/* Row i's loss into the scratch (forward), or its gradients (backward, when a->g is set). */
CE_DEVICE void row(const lin_args *a, int64_t i)
{
    int64_t label = a->labels[i * a->ts];
    if (label == a->ignore_index) {
        if (!a->g) a->row_loss[i] = a->kept[i] = 0; /* backward: kept[0] holds the count */
        for (int64_t k = 0; a->g && a->gh && k < a->hdim; k++) store(a->gh, a->f64, i * a->hdim + k, 0);
        return;
    }
    assert(label >= 0 && label < a->v); /* PyTorch's kernel asserts here too */
    double m, s;
    row_softmax(a, i, &m, &s);
    if (!a->g) {
        a->row_loss[i] = (m - logit(a, i, label)) + log(s);
        a->kept[i] = 1;
        return;
    }
    double up = load(a->g, a->f64, a->reduction == LOSSFUZZ_NONE && a->batched ? i * a->gs : 0);
    if (a->reduction == LOSSFUZZ_MEAN) up /= a->kept[0]; /* the kept rows' count, made before */
    for (int64_t k = 0; a->gh && k < a->hdim; k++) store(a->gh, a->f64, i * a->hdim + k, 0);
    for (int64_t v = 0; v < a->v; v++) {
        double d = up * (exp(logit(a, i, v) - m) / s - (v == label));
        for (int64_t k = 0; k < a->hdim; k++) {
            if (a->gh) add(a->gh, a->f64, i * a->hdim + k, d * load(a->w, a->f64, v * a->ws_row + k * a->ws_col));
            if (a->gw) add(a->gw, a->f64, v * a->hdim + k, d * load(a->h, a->f64, i * a->hs_row + k * a->hs_col));
        }
#if defined(CE_BUG_BIAS_ONCE)
        if (a->gb && i == 0) add(a->gb, a->f64, v, d); /* the bug: only the first row's share */
#else
        if (a->gb) add(a->gb, a->f64, v, d);
#endif
    }
}

/* One thread: the result from the rows' losses (forward), or the kept rows' count into kept[0] (backward). */
CE_DEVICE void totals(lin_args *a, char *out, int64_t os)
{
    double total = 0, kept = 0;
    for (int64_t i = 0; i < a->n; i++) {
        if (a->g) {
            kept += a->labels[i * a->ts] != a->ignore_index;
            continue;
        }
        if (a->reduction == LOSSFUZZ_NONE) store(out, a->f64, i * os, a->row_loss[i]);
        total += a->row_loss[i];
        kept += a->kept[i];
    }
    if (a->g)
        a->kept[0] = kept;
    else if (!a->batched && a->n == 1 && kept == 0)
        store(out, a->f64, 0, 0); /* one ignored row: 0 */
    else if (a->reduction == LOSSFUZZ_MEAN)
        store(out, a->f64, 0, total / kept);
    else if (a->reduction == LOSSFUZZ_SUM)
        store(out, a->f64, 0, total);
}

/* Zeroes a gradient buffer of n elements before the rows add into it. */
CE_DEVICE void zero(char *p, int f64, int64_t n, int64_t from, int64_t step)
{
    for (int64_t i = from; p && i < n; i += step) store(p, f64, i, 0);
}

#ifdef __CUDACC__
static __global__ void rows_kernel(lin_args a)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += (int64_t)gridDim.x * blockDim.x)
        row(&a, i);
}
static __global__ void totals_kernel(lin_args a, char *out, int64_t os) { totals(&a, out, os); }
static __global__ void zero_kernel(char *p, int f64, int64_t n)
{
    zero(p, f64, n, (int64_t)blockIdx.x * blockDim.x + threadIdx.x, (int64_t)gridDim.x * blockDim.x);
}

static void run(lin_args *a, char *out, int64_t os, void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (a->g) { /* backward: the kept count first, the gradients zeroed */
        totals_kernel<<<1, 1, 0, st>>>(*a, NULL, 0);
        zero_kernel<<<64, 256, 0, st>>>(a->gw, a->f64, a->v * a->hdim);
        zero_kernel<<<64, 256, 0, st>>>(a->gb, a->f64, a->v);
    }
    if (a->n) rows_kernel<<<(unsigned)((a->n + 127) / 128 < 65535 ? (a->n + 127) / 128 : 65535), 128, 0, st>>>(*a);
    if (!a->g) totals_kernel<<<1, 1, 0, st>>>(*a, out, os);
}

#else
static void run(lin_args *a, char *out, int64_t os, void *stream)
{
    (void)stream;
    if (a->g) {
        totals(a, NULL, 0);
        zero(a->gw, a->f64, a->v * a->hdim, 0, 1);
        zero(a->gb, a->f64, a->v, 0, 1);
    }
    for (int64_t i = 0; i < a->n; i++) row(a, i);
    if (!a->g) totals(a, out, os);
}

#endif

/* The call's shapes checked on the host, and its arguments for the kernels. */
static int prepare(const lossfuzz_call *call, lin_args *a, char *error, size_t size)
{
    const DLTensor *h = call->input, *t = call->target, *w = call->linear_weight, *b = call->linear_bias;
    int batched = h->ndim == 2;
    if (h->ndim < 1 || h->ndim > 2 || !w || w->ndim != 2)
        return reject(error, size, "hidden states [N, H] or [H], linear_weight [V, H]");
    if (w->shape[1] != h->shape[h->ndim - 1])
        return reject(error, size, "expected equal input and linear_weight last dimensions (in_features)");
    if (batched ? t->ndim != 1 || t->shape[0] != h->shape[0] : !(t->ndim == 0 || (t->ndim == 1 && t->shape[0] == 1)))
        return reject(error, size, "targets [N] for hidden states [N, H], [] or [1] for [H]");
    if (!batched && t->ndim == 1 && w->shape[0] == 1) /* cross_entropy reads it as probabilities */
        return reject(error, size, "Expected floating point type for target with class probabilities, got Long");
    /* torch 2.15's linear_cross_entropy wants the bias exactly [V]: no broadcast of [1] or [] */
    if (b && (b->ndim != 1 || b->shape[0] != w->shape[0]))
        return reject(error, size, "expected linear_bias shape (V,)");
    memset(a, 0, sizeof *a);
    a->h = at(h);
    a->w = at(w);
    a->b = b ? at(b) : NULL;
    a->f64 = h->dtype.bits == 64;
    a->batched = batched;
    a->n = batched ? h->shape[0] : 1;
    a->hdim = w->shape[1];
    a->v = w->shape[0];
    a->hs_row = batched ? h->strides[0] : 0;
    a->hs_col = h->strides[h->ndim - 1];
    a->ws_row = w->strides[0];
    a->ws_col = w->strides[1];
    a->bs = b ? b->strides[0] : 0;
    a->labels = (const int64_t *)at(t);
    a->ts = batched ? t->strides[0] : 0;
    a->ignore_index = call->ignore_index;
    a->reduction = call->reduction;
    return scratch_rows(a->n, &a->row_loss, &a->kept, error, size);
}

static int forward(const lossfuzz_call *call, char *error, size_t size)
{
    lin_args a;
    int rc = prepare(call, &a, error, size);
    if (rc != LOSSFUZZ_OK) return rc;
    run(&a, at_out(call->out), call->out->ndim ? call->out->strides[0] : 0, call->stream);
    return finish(a.row_loss, call->stream, error, size);
}

static int backward(const lossfuzz_call *call, char *error, size_t size)
{
    lin_args a;
    int rc = prepare(call, &a, error, size);
    if (rc != LOSSFUZZ_OK) return rc;
    a.g = at(call->grad_out);
    a.gs = call->grad_out->ndim ? call->grad_out->strides[0] : 0;
    a.gh = at_out(call->grad_input);
    a.gw = at_out(call->grad_linear_weight);
    a.gb = at_out(call->grad_linear_bias);
    run(&a, NULL, 0, call->stream);
    return finish(a.row_loss, call->stream, error, size);
}

static const lossfuzz_kernel table = {
    /* .abi = */ LOSSFUZZ_KERNEL_ABI,
#if defined(CE_BUG_BIAS_ONCE)
    /* .name = */ "ce_linear (buggy: d bias from the first row only)",
#else
    /* .name = */ "ce_linear",
#endif
    /* .device = */ CE_DEVICE_NAME,
    /* .guarded = */ 0,
    /* .losses = */ LOSSFUZZ_LINEAR_CROSS_ENTROPY,
    /* .input_dtypes = */ LOSSFUZZ_F32 | LOSSFUZZ_F64,
    /* .target_dtypes = */ LOSSFUZZ_I64,
    /* .reductions = */ LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_NONE) | LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_MEAN) |
        LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_SUM),
    /* .features = */ LOSSFUZZ_IGNORE_INDEX | LOSSFUZZ_LINEAR_BIAS,
    /* .max_spatial_dims = */ 0,
    /* .forward = */ forward,
    /* .backward = */ backward,
    /* .llm_options = */ 0, /* (ABI 3: none of the LLM family's options) */
    /* .outputs = */ 0,
};

LOSSFUZZ_KERNEL_ENTRY(table)
