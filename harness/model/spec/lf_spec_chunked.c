/* lf_spec_chunked.c - torch 2.15's chunked path of F.linear_cross_entropy,
 * taken when the call gives options= (a LinearCrossEntropyOptions, lf_options.def's
 * LF_CHUNKED rows): the options' own checks (its __post_init__, in the
 * caller's line before the call), whether the path applies (else a warning and
 * the reference path), and the chunk size and accumulation dtype it refuses
 * (torch/nn/modules/linear_cross_entropy_options.py, linear_cross_entropy.py).
 * Its values are the reference path's, but for the dtype of the logits: a
 * 16-bit input's are float32 there where the accumulation dtype is (the
 * spec's values computed on them, then narrowed as torch narrows its result). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_spec.h"

bool lf_spec_chunked_given(const lf_case *c)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if ((LF_OPT_CHUNKED >> o & 1) && lf_case_given(c, o)) return true;
    return false;
}

static const char *name_of(const lf_case *c, lf_option o) { return lf_option_choice_name(o, lf_case_option_int(c, o)); }

/* The aspect_ratio factor of a chunking_method name ("aspect_ratio:4"), 0 for another name. */
static long long factor_of(const char *method)
{
    if (strncmp(method, "aspect_ratio", 12)) return 0;
    if (!method[12]) return 1;
    long long f = 0;
    for (const char *s = method + 13; method[12] == ':' && *s >= '0' && *s <= '9'; s++) f = f * 10 + (*s - '0');
    return f;
}

bool lf_spec_chunked_options(const lf_case *c, lf_result *r)
{
    const char *policy = name_of(c, LF_OPTION_ACC_POLICY), *method = name_of(c, LF_OPTION_CHUNKING_METHOD),
               *acc = name_of(c, LF_OPTION_ACC_DTYPE);
    if (!lf_spec_chunked_given(c)) return true;
    if (!strcmp(policy, "fast")) { /* the one name of acc_policy's that is none of torch's */
        lf_result_error(r, "chunk_options", "ValueError",
                        "invalid acc_policy: '%s'; expected one of 'auto', 'accurate', 'compact'", policy);
        return false;
    }
    if (strcmp(method, "None") && strcmp(method, "auto") && factor_of(method) <= 0) {
        lf_result_error(r, "chunk_options", "ValueError", "invalid chunking_method: '%s'", method);
        return false;
    }
    if (lf_case_given(c, LF_OPTION_BATCH_CHUNK_SIZE) && c->batch_chunk_size <= 0) {
        lf_result_error(r, "chunk_options", "ValueError", "batch_chunk_size must be positive int or None, got %lld",
                        (long long)c->batch_chunk_size);
        return false;
    }
    if (!strcmp(acc, "int32")) {
        lf_result_error(r, "chunk_options", "ValueError",
                        "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                        "torch.float64}, got torch.int32. Pass acc_dtype=None to let the op pick automatically.");
        return false;
    }
    return true;
}

bool lf_spec_chunked_applies(const lf_case *c, const int64_t *logits_shape, int logits_ndim)
{
    const lf_tensor *t = &c->target;
    bool prob = t->ndim == logits_ndim && !memcmp(t->shape, logits_shape, sizeof(int64_t) * (size_t)logits_ndim);
    return lf_spec_chunked_given(c) && c->reduction != LF_REDUCTION_INVALID && c->label_smoothing == 0.0 &&
           (t->dtype == LF_I64 || (prob && t->dtype == c->input.dtype)) && c->linear_weight.ndim == 2;
}

bool lf_spec_chunked_taken(const lf_case *c)
{
    int64_t shape[LF_MAX_DIMS];
    int n = lf_case_linear_logits_shape(c, shape);
    return n > 0 && lf_spec_chunked_applies(c, shape, n);
}

/* ceil(a / b) of torch's _ceil_div; b > 0 (the caller's) */
static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

bool lf_spec_chunked_adjust(const lf_case *c, lf_result *r)
{
    const char *method = name_of(c, LF_OPTION_CHUNKING_METHOD), *acc = name_of(c, LF_OPTION_ACC_DTYPE);
    int64_t N = c->input.ndim == 2 ? c->input.shape[0] : 1, H = c->input.shape[c->input.ndim - 1],
            C = c->linear_weight.shape[0];
    long long f = factor_of(method);
    /* an explicit aspect_ratio with a batch_chunk_size: torch's size must be the one given ("auto" gives way) */
    if (f > 0 && lf_case_given(c, LF_OPTION_BATCH_CHUNK_SIZE) && H > 0 && C > 0) {
        int64_t target = ceil_div(N, ceil_div(C, H)), pow2 = 1;
        while (pow2 < target) pow2 *= 2;
        int64_t size = pow2 / f < N ? pow2 / f : N;
        if (size != c->batch_chunk_size) {
            lf_result_error(r, "chunk_options", "ValueError",
                            "batch_chunk_size (=%lld) and chunking_method ('%s') give different chunk sizes (%lld vs "
                            "%lld); pass only one.",
                            (long long)c->batch_chunk_size, method, (long long)c->batch_chunk_size, (long long)size);
            return false;
        }
    }
    /* acc_dtype None is resolved to one it takes; the only widening it has is float16/bfloat16 into float32 */
    lf_dtype in = c->input.dtype, to;
    if (!strcmp(acc, "None") || !lf_dtype_parse(acc, &to) || to == in ||
        ((in == LF_F16 || in == LF_BF16) && to == LF_F32))
        return true;
    lf_result_error(r, "chunk_options", "RuntimeError",
                    "linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got torch.%s "
                    "acc_dtype and torch.%s inputs.",
                    acc, lf_dtype_name(in));
    return false;
}

void lf_spec_chunked_fallback(const lf_case *c, lf_result *r)
{
    snprintf(r->warning_id, sizeof r->warning_id, "chunked_fallback");
    snprintf(r->warning, sizeof r->warning,
             "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in {'mean','sum','none'}, "
             "label_smoothing == 0, target.dtype == int64 (or a probability target with dtype matching input and "
             "requires_grad == False), out_features == () (reduction '%s', label_smoothing %g, target %s)",
             c->reduction_name, c->label_smoothing, lf_dtype_name(c->target.dtype));
}

/* linear_cross_entropy.py's logits_buf_dtype: the accumulation dtype where it differs from the input's (acc_dtype
 * given, or float32 for float16 and bfloat16 input under acc_policy "auto": _resolve_auto_acc_dtype, CPU and CUDA
 * from SM 8.0); but float16 under the compact policy keeps float16 logits, and "auto" is compact on CUDA
 * (_auto_acc_policy). The CPU's "auto" is "accurate", float32 logits for float16 too: closer to the exact loss,
 * within the spec's float16 tolerance (PyTorch's OpInfo inputs: at most 4.2% off, on values of 2.7). */
lf_dtype lf_spec_chunked_logits_dtype(const lf_case *c)
{
    const char *policy = name_of(c, LF_OPTION_ACC_POLICY), *given = name_of(c, LF_OPTION_ACC_DTYPE);
    lf_dtype in = c->input.dtype, acc = in;
    if (!lf_spec_chunked_taken(c)) return in;
    if (strcmp(given, "None"))
        lf_dtype_parse(given, &acc);
    else if ((in == LF_F16 || in == LF_BF16) && !strcmp(policy, "auto"))
        acc = LF_F32;
    if (acc == in || (in == LF_F16 && strcmp(policy, "accurate"))) return in;
    return acc;
}

/* The result torch returns: its dtype the input's; a value off the one on float32 logits by float32's error on
 * its terms, converted into units of the narrower dtype, and by the result's own rounding. A reduced bfloat16
 * result is accumulated in bfloat16 across the chunks (its output buffer: two adds a chunk, each rounding a sum
 * of at most the result's terms), 2 roundings a chunk: N chunks at most on N rows, fewer where batch_chunk_size
 * fixes their size (auto chunking's size depends on the device); float16's accumulates in float32. */
void lf_spec_chunked_narrow(const lf_case *c, lf_dtype logits, lf_result *r)
{
    lf_dtype to = c->input.dtype;
    double wide, narrow, atol;
    if (r->kind != LF_OUTCOME_OK || logits == to) return;
    lf_dtype_tolerance(logits, &wide, &atol);
    lf_dtype_tolerance(to, &narrow, &atol);
    int64_t rows = c->input.ndim == 2 ? c->input.shape[0] : 1, size = 1;
    if (lf_case_given(c, LF_OPTION_BATCH_CHUNK_SIZE) && c->batch_chunk_size > 0)
        size = c->batch_chunk_size; /* its size (an aspect_ratio's must agree with it: lf_spec_chunked_adjust) */
    else if (!strcmp(name_of(c, LF_OPTION_CHUNKING_METHOD), "None"))
        size = rows; /* no chunking: one chunk */
    int64_t chunks = rows > 0 && size > 0 ? ceil_div(rows, size) : 1;
    double adds = to == LF_BF16 && c->reduction != LF_REDUCTION_NONE ? 2.0 * (double)chunks : 0;
    for (int64_t i = 0; i < r->n; i++) {
        double v = r->values[i], sc = r->scales[i];
        r->values[i] = lf_dtype_round(to, v);
        if (sc == LF_SCALE_UNDECIDED || !isfinite(v)) continue;
        /* each rounding of the accumulator: half a unit of the dtype on a sum of at most |v| (the row losses'
         * terms are all of one sign: the max-shifted label logit and log-sum-exp) */
        double terms = isfinite(sc) && sc > fabs(v) ? sc : fabs(v);
        r->scales[i] = fabs(v) + terms * wide / narrow + adds * lf_dtype_eps(to) / 2 / narrow * fabs(v);
    }
    r->out_dtype = r->tol_dtype = to;
}
