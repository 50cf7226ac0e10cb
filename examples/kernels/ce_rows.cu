/* ce_rows.cu - an example kernel under test: F.cross_entropy with class
 * indices, forward and backward, written the way people write CUDA CE
 * kernels: one block per row, each thread an online softmax over a strided
 * share of the row, the block combining the threads' states in shared
 * memory. The same file builds for the CPU (ce_rows_cpu.c includes it):
 * there a block's threads run one after another and their states combine in
 * the same tree, so CI fuzzes this kernel's logic without a GPU.
 *
 * Built as (CMakeLists.txt; ce_cuda_* only where nvcc is found):
 *   ce_plain     ce_cuda_plain    unguarded: asserts on a bad label, as PyTorch's kernel does
 *   ce_guarded   ce_cuda_guarded  -DCE_GUARDED: validates the labels first, rejects with a message
 *   ce_buggy     ce_cuda_buggy    -DCE_BUG_NO_BOUNDS_CHECK: the label check forgotten, a bad
 *                                 label reads another row's logits, or past the input
 *   ce_buggy_grad ce_cuda_buggy_grad  -DCE_BUG_FIRST_UPSTREAM: backward scales every row by
 *                                 the first upstream value under reduction none
 *   ce_inplace   ce_cuda_inplace  -DCE_BUG_SOFTMAX_IN_INPUT: forward keeps its softmax in the
 *                                 caller's logits
 *
 * The LLM family (ABI 3, docs/llm-cross-entropy.md): logit_scale and softcap
 * on the logits as they are read, z_loss_scale * lse^2 per counted row (its
 * mean over the counted rows, not the weights), and the outputs z_loss and
 * lse when lossfuzz gives their buffers.
 *
 * Check one: lossfuzz check --kernel build/examples/kernels/ce_buggy.so regressions/
 * Fuzz one:  ci/fuzz.sh fuzz_class 60 --kernel build/examples/kernels/ce_buggy.so */
#include "ce_example.h"

enum { CE_THREADS = 256, CE_MAX_BLOCKS = 65535 };

/* One call's tensors as the kernels read them (strides in elements). */
typedef struct {
    const char *x; /* logits [N, C] or [C] */
    int x_f64;
    int64_t n, c, xs_row, xs_col;
    int batched;
    const int64_t *labels; /* [N], or one label */
    int64_t ts;
    const char *w; /* class weights [C], or NULL */
    int64_t ws;
    int64_t ignore_index;
    double *row_loss, *row_weight; /* scratch, [N] each: a row's weighted loss and weight */
    double *row_z;                 /* scratch, [N]: a row's z-loss (backward: [0] the counted rows) */
    double scale, cap, zs;         /* the LLM family: logit_scale, softcap (0: off), z_loss_scale */
    char *lse, *z_out;             /* its outputs, or NULL: each row's lse, the reduced z-loss */
    int64_t lse_s, z_s;
    const char *g; /* backward: the upstream gradient, [N] (reduction none) or [] */
    int64_t gs;
    int reduction;
    char *grad; /* backward: d input, contiguous like x */
} ce_args;

/* An online softmax: the largest logit seen and the sum of exp relative to it. */
typedef struct {
    double max, sum;
} ce_state;

CE_DEVICE ce_state ce_add(ce_state s, double v)
{
    if (v > s.max) {
        /* exp(-inf) is 0 on the first element; exp(v - v) is 1, or NaN for a
         * +inf logit, as PyTorch's x - max makes it */
        s.sum = s.sum * exp(s.max - v) + exp(v - v);
        s.max = v;
    } else if (v != -INFINITY) { /* exp(-inf - -inf) would be NaN: a masked logit adds 0 */
        s.sum += exp(v - s.max);
    }
    return s;
}

CE_DEVICE ce_state ce_merge(ce_state a, ce_state b)
{
    /* An empty share adds nothing; one that met only NaN keeps max -inf with a NaN sum, and must spread it. */
    if (b.max == -INFINITY && b.sum == 0) return a;
    if (a.max == -INFINITY && a.sum == 0) return b;
    double m = a.max > b.max ? a.max : b.max;
    ce_state s = {m, a.sum * exp(a.max - m) + b.sum * exp(b.max - m)};
    return s;
}

/* Logit j of row i as the loss sees it: scaled, then capped (softcap * tanh(x / softcap)). */
CE_DEVICE double ce_x(const ce_args *a, int64_t i, int64_t j)
{
    double v = a->scale * load(a->x, a->x_f64, i * a->xs_row + j * a->xs_col);
    return a->cap > 0 ? a->cap * tanh(v / a->cap) : v;
}

/* d ce_x / d x at logit j of row i. */
CE_DEVICE double ce_dx(const ce_args *a, int64_t i, int64_t j)
{
    if (!(a->cap > 0)) return a->scale;
    double t = tanh(a->scale * load(a->x, a->x_f64, i * a->xs_row + j * a->xs_col) / a->cap);
    return a->scale * (1 - t * t);
}

/* Thread `tid` of `threads`: its share of row i, columns tid, tid + threads, ... */
CE_DEVICE ce_state ce_thread_part(const ce_args *a, int64_t i, int tid, int threads)
{
    ce_state s = {-INFINITY, 0};
    for (int64_t j = tid; j < a->c; j += threads) s = ce_add(s, ce_x(a, i, j));
    return s;
}

CE_DEVICE int64_t ce_label(const ce_args *a, int64_t i) { return a->labels[i * a->ts]; }

CE_DEVICE void ce_check_label(const ce_args *a, int64_t label)
{
#if !defined(CE_BUG_NO_BOUNDS_CHECK)
    assert(label >= 0 && label < a->c); /* PyTorch's CUDA kernel asserts here too */
#endif
    (void)a;
    (void)label;
}

/* Thread 0, after the block combined the row: its weighted loss and weight. */
CE_DEVICE void ce_finish_row(const ce_args *a, int64_t i, ce_state s)
{
    int64_t label = ce_label(a, i);
    double lse = s.max + log(s.sum);
    if (a->lse) store(a->lse, a->x_f64, i * a->lse_s, lse);
    if (label == a->ignore_index) {
        a->row_loss[i] = a->row_weight[i] = a->row_z[i] = 0;
        return;
    }
    ce_check_label(a, label);
    double w = a->w ? load(a->w, a->x_f64, label * a->ws) : 1;
    /* (max - x[label]) first: max + log(sum) - x[label] loses log(sum) for logits near 1e26 */
    a->row_loss[i] = w * ((s.max - ce_x(a, i, label)) + log(s.sum));
    a->row_weight[i] = w;
    a->row_z[i] = a->zs * lse * lse;
}

/* The bug of -DCE_BUG_SOFTMAX_IN_INPUT (thread tid's share of row i, after
 * the row's loss): the softmax, kept for backward, written over the
 * caller's logits to save memory, as fused kernels do with their gradient. */
CE_DEVICE void ce_thread_keep_softmax(const ce_args *a, int64_t i, int tid, int threads, ce_state s)
{
#if defined(CE_BUG_SOFTMAX_IN_INPUT)
    for (int64_t j = tid; j < a->c; j += threads) {
        int64_t at = i * a->xs_row + j * a->xs_col;
        store((char *)a->x, a->x_f64, at, exp(load(a->x, a->x_f64, at) - s.max) / s.sum);
    }
#else
    (void)a, (void)i, (void)tid, (void)threads, (void)s;
#endif
}

/* The upstream gradient of row i's loss. */
CE_DEVICE double ce_upstream(const ce_args *a, int64_t i)
{
#if defined(CE_BUG_FIRST_UPSTREAM)
    (void)i;
    return load(a->g, a->x_f64, 0); /* the bug: one value for every row */
#else
    return load(a->g, a->x_f64, a->reduction == LOSSFUZZ_NONE && a->batched ? i * a->gs : 0);
#endif
}

/* The upstream gradient row i's loss gets, divided by the total weight under mean. */
CE_DEVICE double ce_row_scale(const ce_args *a, int64_t i)
{
    double up = ce_upstream(a, i);
    return a->reduction == LOSSFUZZ_MEAN ? up / a->row_weight[0] : up;
}

/* Thread `tid`'s share of row i's gradient: scale * w * (softmax - one_hot(label)). */
CE_DEVICE void ce_thread_grad(const ce_args *a, int64_t i, int tid, int threads, ce_state s)
{
    int64_t label = ce_label(a, i);
    int ignored = label == a->ignore_index;
    if (!ignored) ce_check_label(a, label);
    double scale = ignored ? 0 : ce_row_scale(a, i) * (a->w ? load(a->w, a->x_f64, label * a->ws) : 1);
    /* the z-loss's: 2 zs lse p, its mean over the counted rows (row_z[0]) */
    double lse = s.max + log(s.sum), up = ignored ? 0 : ce_upstream(a, i);
    double zscale = a->zs ? 2 * a->zs * lse * (a->reduction == LOSSFUZZ_MEAN ? up / a->row_z[0] : up) : 0;
    for (int64_t j = tid; j < a->c; j += threads) {
        double p = exp(ce_x(a, i, j) - s.max) / s.sum;
        store(a->grad, a->x_f64, i * a->c + j,
              ignored ? 0 : (scale * (p - (j == label)) + zscale * p) * ce_dx(a, i, j));
    }
}

/* Reduces the rows' losses into out; an unbatched call's result is its one row's loss, 0 when ignored. */
CE_DEVICE void ce_reduce(const ce_args *a, char *out, int64_t os)
{
    double total = 0, weights = 0, z = 0, counted = 0;
    for (int64_t i = 0; i < a->n; i++) {
        if (a->reduction == LOSSFUZZ_NONE) store(out, a->x_f64, i * os, a->row_loss[i] + a->row_z[i]);
        if (a->reduction == LOSSFUZZ_NONE && a->z_out) store(a->z_out, a->x_f64, i * a->z_s, a->row_z[i]);
        total += a->row_loss[i];
        weights += a->row_weight[i];
        z += a->row_z[i];
        counted += ce_label(a, i) != a->ignore_index;
    }
    /* the CE part over the weights, the z-loss over the counted rows (Liger's rule) */
    double zmean = a->zs ? z / counted : 0, value = 0;
    int reduced = 1;
    if (!a->batched && a->n == 1 && ce_label(a, 0) == a->ignore_index)
        zmean = 0;
    else if (a->reduction == LOSSFUZZ_MEAN)
        value = total / weights + zmean; /* all ignored: 0/0 = NaN */
    else if (a->reduction == LOSSFUZZ_SUM)
        value = total + z, zmean = z;
    else
        reduced = 0;
    if (reduced) {
        store(out, a->x_f64, 0, value);
        if (a->z_out) store(a->z_out, a->x_f64, 0, zmean);
    }
}

/* The total weight of the kept rows, into row_weight[0] (backward of mean). */
CE_DEVICE void ce_total_weight(ce_args *a)
{
    double weights = 0, counted = 0;
    for (int64_t i = 0; i < a->n; i++) {
        int64_t label = ce_label(a, i);
        if (label != a->ignore_index) weights += a->w ? load(a->w, a->x_f64, label * a->ws) : 1, counted++;
    }
    a->row_weight[0] = weights;
    a->row_z[0] = counted;
}

#ifdef __CUDACC__
/* Combines the block's thread states into part[0], in a tree. */
static __device__ void block_combine(ce_state *part)
{
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] = ce_merge(part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }
}

/* Forward (each row's loss), or backward when a.grad is set (each row's gradient). */
static __global__ void rows_kernel(ce_args a)
{
    __shared__ ce_state part[CE_THREADS];
    for (int64_t i = blockIdx.x; i < a.n; i += gridDim.x) {
        part[threadIdx.x] = ce_thread_part(&a, i, threadIdx.x, blockDim.x);
        block_combine(part);
        ce_state s = part[0];
        if (a.grad)
            ce_thread_grad(&a, i, threadIdx.x, blockDim.x, s);
        else if (threadIdx.x == 0)
            ce_finish_row(&a, i, s);
        __syncthreads();
        if (!a.grad) ce_thread_keep_softmax(&a, i, threadIdx.x, blockDim.x, s);
        __syncthreads();
    }
}

static __global__ void reduce_kernel(ce_args a, char *out, int64_t os) { ce_reduce(&a, out, os); }
static __global__ void total_weight_kernel(ce_args a) { ce_total_weight(&a); }

static unsigned blocks_for(int64_t n) { return (unsigned)(n < (int64_t)CE_MAX_BLOCKS ? n : (int64_t)CE_MAX_BLOCKS); }

static int launch_rows(ce_args *a, void *stream)
{
    if (a->n) rows_kernel<<<blocks_for(a->n), CE_THREADS, 0, (cudaStream_t)stream>>>(*a);
    return 0;
}

static int launch_reduce(ce_args *a, char *out, int64_t os, void *stream)
{
    reduce_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(*a, out, os);
    return 0;
}

static int launch_grad(ce_args *a, void *stream)
{
    total_weight_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(*a);
    return launch_rows(a, stream);
}

#else
/* The CPU build: a block's threads run one after another, combined in the same tree. */
static void block_combine(ce_state *part)
{
    for (int s = CE_THREADS / 2; s > 0; s >>= 1)
        for (int tid = 0; tid < s; tid++) part[tid] = ce_merge(part[tid], part[tid + s]);
}

/* Forward (each row's loss), or backward when a->grad is set (each row's gradient). */
static int launch_rows(ce_args *a, void *stream)
{
    ce_state part[CE_THREADS];
    (void)stream;
    for (int64_t i = 0; i < a->n; i++) {
        for (int tid = 0; tid < CE_THREADS; tid++) part[tid] = ce_thread_part(a, i, tid, CE_THREADS);
        block_combine(part);
        if (!a->grad) ce_finish_row(a, i, part[0]);
        for (int tid = 0; tid < CE_THREADS; tid++)
            if (a->grad)
                ce_thread_grad(a, i, tid, CE_THREADS, part[0]);
            else
                ce_thread_keep_softmax(a, i, tid, CE_THREADS, part[0]);
    }
    return 0;
}

static int launch_reduce(ce_args *a, char *out, int64_t os, void *stream)
{
    (void)stream;
    ce_reduce(a, out, os);
    return 0;
}

static int launch_grad(ce_args *a, void *stream)
{
    ce_total_weight(a);
    return launch_rows(a, stream);
}

#endif

#if defined(CE_GUARDED)
/* The guard reads the labels on the host: on CUDA, a copy back. */
static void copy_to_host(void *dst, const void *src, size_t bytes)
{
#ifdef __CUDACC__
    cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost);
#else
    memcpy(dst, src, bytes);
#endif
}
#endif

/* The call's shapes checked on the host, and its arguments for the kernels. */
static int prepare(const lossfuzz_call *call, ce_args *a, char *error, size_t size)
{
    const DLTensor *x = call->input, *t = call->target, *w = call->weight;
    /* [N, C] with targets [N], or one row [C] with a 0-D target or one of
     * shape [1] (PyTorch 2.x takes both). */
    int batched = x->ndim == 2;
    int one_row_target = x->ndim == 1 && (t->ndim == 0 || (t->ndim == 1 && t->shape[0] == 1));
    if (x->ndim < 1 || x->ndim > 2 || (batched ? t->ndim != 1 || t->shape[0] != x->shape[0] : !one_row_target))
        return reject(error, size, "input must be [N, C] with target [N], or [C] with a target of shape [] or [1]");
    memset(a, 0, sizeof *a);
    a->batched = batched;
    a->n = batched ? x->shape[0] : 1;
    a->c = x->shape[x->ndim - 1];
    a->x = at(x);
    a->x_f64 = x->dtype.bits == 64;
    a->xs_row = batched ? x->strides[0] : 0;
    a->xs_col = x->strides[x->ndim - 1];
    a->labels = (const int64_t *)at(t);
    a->ts = batched ? t->strides[0] : 0;
    a->ignore_index = call->ignore_index;
    a->reduction = call->reduction;
    if (w && (w->ndim != 1 || w->shape[0] != a->c))
        return reject(error, size, "weight must have one element per class");
    /* PyTorch's nll_loss checks the weight's dtype on an empty batch too. */
    if (w && (w->dtype.code != x->dtype.code || w->dtype.bits != x->dtype.bits))
        return reject(error, size, "weight must have the input's dtype");
    if (w) {
        a->w = at(w);
        a->ws = w->strides[0];
    }
#if defined(CE_GUARDED)
    /* Validate, then compute: the labels come to the host once, before any kernel runs. */
    int64_t *labels = (int64_t *)malloc(sizeof(int64_t) * (size_t)(a->n ? a->n : 1)), bad = -1;
    if (!labels) return reject(error, size, "out of host memory for the label check");
    if (a->ts == 1 || a->n <= 1)
        copy_to_host(labels, a->labels, sizeof(int64_t) * (size_t)a->n);
    else
        for (int64_t i = 0; i < a->n; i++) copy_to_host(&labels[i], a->labels + i * a->ts, sizeof(int64_t));
    for (int64_t i = 0; i < a->n && bad < 0; i++)
        if (labels[i] != a->ignore_index && (labels[i] < 0 || labels[i] >= a->c)) bad = i;
    if (bad >= 0)
        snprintf(error, size, "target[%lld] = %lld is not a class index in [0, %lld)", (long long)bad,
                 (long long)labels[bad], (long long)a->c);
    free(labels);
    if (bad >= 0) return LOSSFUZZ_REJECTED;
#endif
    a->scale = call->logit_scale;
    a->cap = call->softcap;
    a->zs = call->z_loss_scale;
    size_t rows = (size_t)(a->n ? a->n : 1); /* three arrays of a double per row, freed by finish through the first */
    if (!(a->row_loss = (double *)scratch_alloc(sizeof(double) * 3 * rows)))
        return reject(error, size, "cannot allocate the rows' scratch");
    a->row_weight = a->row_loss + rows;
    a->row_z = a->row_weight + rows;
    return LOSSFUZZ_OK;
}

static int forward(const lossfuzz_call *call, char *error, size_t size)
{
    ce_args a;
    int rc = prepare(call, &a, error, size);
    if (rc != LOSSFUZZ_OK) return rc;
    DLTensor *out = call->out;
    a.lse = at_out(call->out_lse);
    a.lse_s = call->out_lse && call->out_lse->ndim ? call->out_lse->strides[0] : 0;
    a.z_out = at_out(call->out_z_loss);
    a.z_s = call->out_z_loss && call->out_z_loss->ndim ? call->out_z_loss->strides[0] : 0;
    launch_rows(&a, call->stream);
    launch_reduce(&a, (char *)out->data + out->byte_offset, out->ndim ? out->strides[0] : 0, call->stream);
    return finish(a.row_loss, call->stream, error, size);
}

static int backward(const lossfuzz_call *call, char *error, size_t size)
{
    ce_args a;
    int rc = prepare(call, &a, error, size);
    if (rc != LOSSFUZZ_OK) return rc;
    a.g = at(call->grad_out);
    a.gs = call->grad_out->ndim ? call->grad_out->strides[0] : 0;
    a.grad = (char *)call->grad_input->data + call->grad_input->byte_offset;
    launch_grad(&a, call->stream);
    return finish(a.row_loss, call->stream, error, size);
}

#if defined(CE_GUARDED)
#define CE_NAME "ce_rows (guarded)"
#elif defined(CE_BUG_NO_BOUNDS_CHECK)
#define CE_NAME "ce_rows (buggy: no label bounds check)"
#elif defined(CE_BUG_SOFTMAX_IN_INPUT)
#define CE_NAME "ce_rows (buggy: writes its softmax over the input)"
#elif defined(CE_BUG_FIRST_UPSTREAM)
#define CE_NAME "ce_rows (buggy: backward scales every row by the first upstream value)"
#else
#define CE_NAME "ce_rows"
#endif

static const lossfuzz_kernel table = {
#ifdef CE_WRONG_ABI
    /* .abi = */ LOSSFUZZ_KERNEL_ABI + 1, /* as if built against a newer header (kernel_test.sh) */
#else
    /* .abi = */ LOSSFUZZ_KERNEL_ABI,
#endif
    /* .name = */ CE_NAME,
    /* .device = */ CE_DEVICE_NAME,
#if defined(CE_GUARDED)
    /* .guarded = */ 1,
#else
    /* .guarded = */ 0,
#endif
    /* .losses = */ LOSSFUZZ_CROSS_ENTROPY,
    /* .input_dtypes = */ LOSSFUZZ_F32 | LOSSFUZZ_F64,
    /* .target_dtypes = */ LOSSFUZZ_I64,
    /* .reductions = */ LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_NONE) | LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_MEAN) |
        LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_SUM),
    /* .features = */ LOSSFUZZ_WEIGHT | LOSSFUZZ_IGNORE_INDEX,
    /* .max_spatial_dims = */ 0,
    /* .forward = */ forward,
    /* .backward = */ backward,
    /* .llm_options = */ LOSSFUZZ_LOGIT_SCALE | LOSSFUZZ_SOFTCAP | LOSSFUZZ_Z_LOSS,
    /* .outputs = */ LOSSFUZZ_OUT_Z_LOSS | LOSSFUZZ_OUT_LSE,
};

LOSSFUZZ_KERNEL_ENTRY(table)
