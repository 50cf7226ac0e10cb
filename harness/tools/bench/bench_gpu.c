/* bench_gpu.c - the loss kernels' speed on large tensors (ci/bench-gpu.sh).
 *
 * For each shape (N, C, d1..dk; class-index targets, reduction mean, as
 * F.cross_entropy's defaults), the median milliseconds of: the guarded
 * forward (validation fused: the loss and the targets' statistics in one
 * pass), the same kernels unguarded (no statistics), the reference forward
 * (PyTorch's structure: log_softmax materialized, then NLL), and a device copy
 * of the input (the bandwidth to compare with). Tensors are made on the host
 * from a seeded generator and copied in once: no JSON (the case model caps at
 * 2^28 elements; 8192 x 128256 is 2^30).
 *
 * Prints a line per shape and path, tab-separated:
 *   shape dtype path ms GB/s loss
 * GB/s counts the bytes a loss must move (the input and the targets, read
 * once); a copy's counts its reads and writes. Exits 77 where the backend has
 * no device, 1 where the paths disagree on a loss or the guard saw a bad label.
 *
 * Usage: bench_gpu [--backend cuda|sim] [--iters N] [--shape 4096x32000:float32]... */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lf_backend.h"
#include "lf_dtype.h"

typedef struct {
    int ndim;
    int64_t dims[LF_MAX_BCAST_DIMS];
    lf_dtype dtype;
    char text[64];
} bench_shape;

typedef struct {
    const lf_backend *be;
    lf_problem p;
    lf_buffers b;
    void *copy_dst, *grad_out, *grad_in;
    size_t in_bytes, tg_bytes;
} bench_call;

static const char *const default_shapes[] = {"4096x32000:float32", "8192x128256:bfloat16", "16x21x512x512:float32",
                                             "64x1000:float32"};

static bool parse_shape(const char *text, bench_shape *s)
{
    char dims[64];
    const char *colon = strchr(text, ':');
    if (!colon || (size_t)(colon - text) >= sizeof dims || !lf_dtype_parse(colon + 1, &s->dtype) ||
        !lf_dtype_is_float(s->dtype))
        return false;
    memcpy(dims, text, (size_t)(colon - text));
    dims[colon - text] = 0;
    s->ndim = 0;
    for (char *tok = strtok(dims, "x"); tok; tok = strtok(NULL, "x")) {
        char *end;
        long long d = strtoll(tok, &end, 10);
        if (*end || d < 1 || s->ndim == LF_MAX_BCAST_DIMS) return false;
        s->dims[s->ndim++] = d;
    }
    snprintf(s->text, sizeof s->text, "%.*s", (int)(colon - text), text);
    return s->ndim >= 2;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* F.cross_entropy's defaults on a contiguous input: the problem the spec would plan. */
static lf_problem problem_of(const bench_shape *s)
{
    lf_problem p;
    memset(&p, 0, sizeof p);
    p.targets = LF_CLASS_TARGETS;
    p.log_softmax = 1;
    p.N = s->dims[0];
    p.C = s->dims[1];
    p.S = 1;
    for (int d = 2; d < s->ndim; d++) p.S *= s->dims[d];
    p.reduction = LF_RED_MEAN;
    p.ignore_index = -100;
    p.in_dtype = p.w_dtype = p.out_dtype = s->dtype;
    p.tgt_dtype = LF_I64;
    p.kernel_id = s->ndim > 2 ? LF_K_NLL2D_REDUCE : LF_K_NLL_REDUCE_2D;
    p.ndim = s->ndim;
    memcpy(p.shape, s->dims, sizeof(int64_t) * (size_t)s->ndim);
    p.in.dense = p.tg.dense = 1;
    p.tg_ndim = s->ndim - 1;
    p.tg_shape[0] = s->dims[0];
    for (int d = 2; d < s->ndim; d++) p.tg_shape[d - 1] = s->dims[d];
    return p;
}

/* Logits in [-4, 4) and labels in [0, C), from a xorshift generator, made in
 * chunks and copied in. */
static bool fill(const lf_backend *be, void *dst, int64_t n, lf_dtype t, int64_t C)
{
    enum { CHUNK = 1 << 20 };
    size_t es = lf_dtype_size(t);
    char *host = malloc(CHUNK * es);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    bool ok = host != NULL;
    for (int64_t i = 0; ok && i < n; i += CHUNK) {
        int64_t k = n - i < CHUNK ? n - i : CHUNK;
        for (int64_t j = 0; j < k; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (t == LF_I64)
                lf_store_i64(host, t, j, (int64_t)((x >> 11) % (uint64_t)C));
            else
                lf_store_f64(host, t, j, (double)(x >> 11) * 0x1p-53 * 8 - 4);
        }
        ok = !be->to_device((char *)dst + (size_t)i * es, host, (size_t)k * es);
    }
    free(host);
    return ok;
}

static bool open_call(const lf_backend *be, const bench_shape *s, bench_call *k)
{
    memset(k, 0, sizeof *k);
    k->be = be;
    k->p = problem_of(s);
    int64_t n = k->p.N * k->p.C * k->p.S, rows = k->p.N * k->p.S;
    k->in_bytes = (size_t)n * lf_dtype_size(s->dtype);
    k->tg_bytes = (size_t)rows * sizeof(int64_t);
    lf_buffers *b = &k->b;
    b->input = be->alloc(k->in_bytes);
    b->target = be->alloc(k->tg_bytes);
    b->out = be->alloc(8);
    b->acc = be->alloc(sizeof(double) * LF_ACC_COUNT);
    b->rec = be->alloc(sizeof *b->rec);
    b->stats = be->alloc(sizeof *b->stats);
    b->scratch = be->alloc(k->in_bytes);
    k->copy_dst = be->alloc(k->in_bytes);
    k->grad_in = be->alloc(k->in_bytes);
    k->grad_out = be->alloc(8);
    char one[8];
    lf_store_f64(one, s->dtype, 0, 1.0); /* loss.backward(): an upstream gradient of 1 */
    return b->input && b->target && b->out && b->acc && b->rec && b->stats && b->scratch && k->copy_dst && k->grad_in &&
           k->grad_out && !be->to_device(k->grad_out, one, (size_t)lf_dtype_size(s->dtype)) &&
           fill(be, (void *)b->input, n, s->dtype, k->p.C) && fill(be, (void *)b->target, rows, LF_I64, k->p.C);
}

static void close_call(bench_call *k)
{
    void *all[] = {(void *)k->b.input, (void *)k->b.target, k->b.out,    k->b.acc,   k->b.rec,
                   k->b.stats,         k->b.scratch,        k->copy_dst, k->grad_in, k->grad_out};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]) k->be->release(all[i]);
}

/* Zeroed accumulators, a clear assert record, fresh statistics: each run's start. */
static bool reset(bench_call *k)
{
    double acc[LF_ACC_COUNT] = {0};
    lf_assert_record rec = {0};
    lf_target_stats st;
    rec.index = INT64_MAX;
    lf_stats_init(&st);
    return !k->be->to_device(k->b.acc, acc, sizeof acc) && !k->be->to_device(k->b.rec, &rec, sizeof rec) &&
           !k->be->to_device(k->b.stats, &st, sizeof st);
}

enum { PATH_COPY, PATH_GUARDED, PATH_UNGUARDED, PATH_REFERENCE, PATH_GUARDED_BWD, PATH_COUNT };
static const char *const path_names[] = {"copy", "guarded", "unguarded", "reference", "guarded+backward"};

/* One run of a path; the milliseconds it took, or a negative number on failure. */
static double run_once(bench_call *k, int path)
{
    const lf_backend *be = k->be;
    lf_buffers b = k->b;
    if (path == PATH_UNGUARDED) b.stats = NULL;
    if (path == PATH_GUARDED_BWD) { /* the loss and d input in one pass (a pass over the targets first) */
        b.grad_out = k->grad_out;
        b.grad_in = k->grad_in;
    }
    if (!reset(k)) return -1;
    double t0 = now_ms();
    int rc = path == PATH_COPY        ? be->copy(k->copy_dst, b.input, k->in_bytes)
             : path == PATH_REFERENCE ? be->reference_forward(&k->p, &b)
                                      : be->guarded_forward(&k->p, &b);
    if (!rc && be->broken && be->broken()) rc = -1; /* also waits for an asynchronous copy */
    double t1 = now_ms();
    return rc ? -1 : t1 - t0;
}

/* The loss the last run left, and whether the guard saw no bad label. */
static bool read_loss(bench_call *k, double *loss)
{
    char out[8];
    lf_target_stats st;
    if (k->be->to_host(out, k->b.out, (size_t)lf_dtype_size(k->p.out_dtype)) ||
        k->be->to_host(&st, k->b.stats, sizeof st))
        return false;
    *loss = lf_load_f64(out, (lf_dtype)k->p.out_dtype, 0);
    return st.n_bad == 0;
}

/* The fused backward's first row (the last run's): each value (softmax -
 * onehot) / rows lies in [-1, 1] / rows, they sum to 0, and the label's is
 * the one below 0. An algebraic check that needs no second implementation. */
static bool grad_row_sane(bench_call *k)
{
    const lf_problem *p = &k->p;
    size_t es = lf_dtype_size((lf_dtype)p->in_dtype);
    char *row = malloc((size_t)p->C * es), label[8];
    bool ok = row && !k->be->to_host(row, k->grad_in, (size_t)p->C * es) && p->S == 1 &&
              !k->be->to_host(label, k->b.target, sizeof(int64_t));
    double sum = 0, rows = (double)(p->N * p->S), eps = p->in_dtype == LF_BF16 || p->in_dtype == LF_F16 ? 1e-2 : 1e-5;
    int64_t t = ok ? lf_load_i64(label, LF_I64, 0) : -1;
    for (int64_t c = 0; ok && c < p->C; c++) {
        double g = lf_load_f64(row, (lf_dtype)p->in_dtype, c) * rows;
        sum += g;
        ok = g >= -1 - eps && g <= 1 + eps && (c == t) == (g < 0);
    }
    free(row);
    return p->S != 1 || (ok && fabs(sum) <= eps * (1 + sqrt((double)p->C)));
}

static int bench(const lf_backend *be, const bench_shape *s, int iters)
{
    bench_call k;
    double loss[PATH_COUNT] = {0};
    int status = 0;
    if (!open_call(be, s, &k)) {
        fprintf(stderr, "bench_gpu: %s %s: cannot allocate or fill the tensors\n", s->text, lf_dtype_name(s->dtype));
        close_call(&k);
        return 1;
    }
    for (int path = 0; path < PATH_COUNT && !status; path++) {
        double *ms = calloc((size_t)iters, sizeof *ms);
        for (int i = -1; ms && i < iters; i++) { /* i = -1: a warm-up run */
            double t = run_once(&k, path);
            if (t < 0) {
                fprintf(stderr, "bench_gpu: %s %s %s: the %s backend failed\n", s->text, lf_dtype_name(s->dtype),
                        path_names[path], be->name);
                status = 1;
                break;
            }
            if (i >= 0) ms[i] = t;
        }
        if (!ms || status) {
            free(ms);
            status = 1;
            break;
        }
        qsort(ms, (size_t)iters, sizeof *ms, compare_doubles);
        /* a loss reads the input and the targets; with backward it also writes d input */
        double med = ms[iters / 2], bytes = path == PATH_COPY ? 2.0 * k.in_bytes : (double)(k.in_bytes + k.tg_bytes);
        if (path == PATH_GUARDED_BWD) bytes += (double)k.in_bytes;
        if (path != PATH_COPY && !read_loss(&k, &loss[path])) {
            fprintf(stderr, "bench_gpu: %s: the guard saw bad labels in valid targets\n", s->text);
            status = 1;
        }
        printf("%s\t%s\t%s\t%.4f\t%.1f\t%.7g\n", s->text, lf_dtype_name(s->dtype), path_names[path], med,
               bytes / (med * 1e6), loss[path]);
        fflush(stdout);
        free(ms);
    }
    if (!status && !grad_row_sane(&k)) {
        fprintf(stderr, "bench_gpu: %s: d input's first row is not softmax minus the label's one-hot\n", s->text);
        status = 1;
    }
    /* The paths compute one loss: float32 accumulation over a row differs by rounding only. */
    double tol = 1e-4 * (1 + fabs(loss[PATH_REFERENCE])) * (s->dtype == LF_BF16 || s->dtype == LF_F16 ? 100 : 1);
    if (!status && !(fabs(loss[PATH_GUARDED] - loss[PATH_REFERENCE]) <= tol &&
                     fabs(loss[PATH_UNGUARDED] - loss[PATH_REFERENCE]) <= tol &&
                     fabs(loss[PATH_GUARDED_BWD] - loss[PATH_REFERENCE]) <= tol)) {
        fprintf(stderr,
                "bench_gpu: %s: the paths disagree: guarded %.9g, unguarded %.9g, reference %.9g, "
                "guarded+backward %.9g\n",
                s->text, loss[PATH_GUARDED], loss[PATH_UNGUARDED], loss[PATH_REFERENCE], loss[PATH_GUARDED_BWD]);
        status = 1;
    }
    close_call(&k);
    return status;
}

int main(int argc, char **argv)
{
    const char *backend = "cuda", *why = NULL;
    int iters = 20, n_shapes = 0;
    bench_shape shapes[16];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--backend") && i + 1 < argc)
            backend = argv[++i];
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--shape") && i + 1 < argc && n_shapes < 16) {
            if (!parse_shape(argv[++i], &shapes[n_shapes++])) {
                fprintf(stderr, "bench_gpu: bad shape %s (want e.g. 4096x32000:float32)\n", argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: bench_gpu [--backend cuda|sim] [--iters N] [--shape 4096x32000:float32]...\n");
            return 2;
        }
    }
    if (iters < 1) iters = 1;
    for (size_t i = 0; n_shapes == 0 && i < sizeof default_shapes / sizeof default_shapes[0]; i++)
        if (!parse_shape(default_shapes[i], &shapes[i])) return 2;
    if (n_shapes == 0) n_shapes = (int)(sizeof default_shapes / sizeof default_shapes[0]);
    const lf_backend *be = lf_backend_find(backend, &why);
    if (!be) {
        printf("SKIP: %s backend: %s\n", backend, why);
        return 77;
    }
    if (!be->copy) {
        fprintf(stderr, "bench_gpu: the %s backend has no device copy\n", backend);
        return 2;
    }
    int status = 0;
    for (int i = 0; i < n_shapes; i++) status |= bench(be, &shapes[i], iters);
    return status;
}
