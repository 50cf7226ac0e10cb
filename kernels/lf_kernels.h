/* lf_kernels.h - what the kernels compute on, and the launchers both backends
 * (the CPU simulation in kernels/sim, CUDA in kernels/cuda) export.
 *
 * A problem is one routed loss call (the spec's plan): logits of shape
 * (N, C, d1..dk) - N rows of a batch, C classes, S = d1*..*dk positions (S = 1
 * for 1-D/2-D input) - so row r = n*S + s, and targets (N, d1..dk), row r at
 * row-major index r. Input and target lie in memory as PyTorch's strides and
 * storage offset say (lf_view: transposed, sliced, channels-last, expanded);
 * the reference's scratch is contiguous: element (n, c, s) at (n*C + c)*S + s.
 * BCE-with-logits is elementwise over `numel` elements, with weight and
 * pos_weight broadcast by strides. */
#ifndef LF_KERNELS_H
#define LF_KERNELS_H

#include "lf_elem.h"
#include "lf_group.h"
#include "lf_mutants.h"

#define LF_MAX_BCAST_DIMS 8

typedef enum { LF_CLASS_TARGETS, LF_PROB_TARGETS, LF_BINARY_TARGETS } lf_targets_kind;
/* The sets of kernels a problem runs on: their one list is lf_kernels.def. */
typedef enum {
#define LF_KERNEL_SET(ID, NAME, PER_ROW) LF_KERNELS_##ID,
#include "lf_kernels.def"
#undef LF_KERNEL_SET
    LF_KERNELS_COUNT
} lf_kernel_set;
enum { LF_RED_NONE, LF_RED_MEAN, LF_RED_SUM };

/* PyTorch's kernels whose asserts users see, and the asserted conditions:
 * their one list is lf_kernels.def. */
typedef enum {
#define LF_ASSERT_KERNEL(ID, NAME, COND, NARROWS, ERROR) LF_K_##ID,
#define LF_ASSERT_COND(ID, TEXT, OLD_TEXT, KERNEL, NAMES)
#include "lf_kernels.def"
#undef LF_ASSERT_KERNEL
#undef LF_ASSERT_COND
    LF_K_COUNT
} lf_kernel_id;
enum {
#define LF_ASSERT_KERNEL(ID, NAME, COND, NARROWS, ERROR)
#define LF_ASSERT_COND(ID, TEXT, OLD_TEXT, KERNEL, NAMES) LF_COND_##ID,
#include "lf_kernels.def"
#undef LF_ASSERT_KERNEL
#undef LF_ASSERT_COND
    LF_COND_COUNT
};
/* What a condition's failing element is (lf_kernels.def's NAMES). */
enum { LF_NAMES_LABEL, LF_NAMES_INPUT, LF_NAMES_TARGET };

/* The backward kernel of a forward one (lf_kernels.def: in the same order). */
LF_HOST_DEVICE int lf_backward_kernel(int kernel_id)
{
    return kernel_id == LF_K_NONE || kernel_id > LF_K_NLL2D_REDUCE ? kernel_id : kernel_id + LF_K_NLL2D_REDUCE;
}

/* The condition kernel_id asserts on a label of that dtype: an unsigned
 * (uint8) label is only checked against n_classes. */
LF_HOST_DEVICE int lf_assert_cond(int kernel_id, int tgt_dtype)
{
    int cond = LF_COND_NONE;
    switch (kernel_id) {
#define LF_ASSERT_KERNEL(ID, NAME, COND, NARROWS, ERROR)                                                               \
    case LF_K_##ID:                                                                                                    \
        cond = LF_COND_##COND;                                                                                         \
        break;
#define LF_ASSERT_COND(ID, TEXT, OLD_TEXT, KERNEL, NAMES)
#include "lf_kernels.def"
#undef LF_ASSERT_KERNEL
#undef LF_ASSERT_COND
    }
    if (tgt_dtype == LF_U8 && cond == LF_COND_T_RANGE) return LF_COND_T_UPPER;
    if (tgt_dtype == LF_U8 && cond == LF_COND_CUR_RANGE) return LF_COND_CUR_UPPER;
    return cond;
}

/* The label a kernel reads: one that narrows (lf_kernels.def) reads label
 * 2^32+1 as class 1 and asserts nothing: a silently wrong loss. */
LF_DEVICE int64_t lf_label_read(int kernel_id, int tgt_dtype, int64_t t)
{
    int narrows = 0;
    switch (kernel_id) {
#define LF_ASSERT_KERNEL(ID, NAME, COND, NARROWS, ERROR)                                                               \
    case LF_K_##ID:                                                                                                    \
        narrows = NARROWS;                                                                                             \
        break;
#define LF_ASSERT_COND(ID, TEXT, OLD_TEXT, KERNEL, NAMES)
#include "lf_kernels.def"
#undef LF_ASSERT_KERNEL
#undef LF_ASSERT_COND
    }
    return narrows && tgt_dtype == LF_I64 ? (int64_t)(int32_t)t : t;
}

/* Whether a kernel that read label `raw` as `read` computes without an assert
 * but not what the label asks for: a class other than raw, or ignoring a
 * label that is not the ignore_index, or the reverse. (An ignore_index past
 * 2^31 stops matching itself once narrowed: then the kernel asserts.) */
LF_DEVICE int lf_label_narrowed_silently(int64_t raw, int64_t read, int64_t C, int64_t ignore_index)
{
    int asserts = read != ignore_index && !(read >= 0 && read < C);
    return !asserts && ((read == ignore_index) != (raw == ignore_index) || (raw != ignore_index && read != raw));
}

#include "lf_names.h"

/* A tensor in memory: storage offset and strides, in elements (PyTorch's);
 * dense: contiguous from offset 0, so element i is at i (the fast path). */
typedef struct {
    int64_t off, stride[LF_MAX_BCAST_DIMS];
    int dense;
} lf_view;

typedef struct {
    int targets;     /* lf_targets_kind */
    int log_softmax; /* 1: input is logits (cross_entropy); 0: log-probabilities (nll_loss) */
    int one_d;       /* 1-D input: one row, no batch dim, reads only target[0] */
    int64_t N, C, S; /* rows, classes, positions; BCE: N = numel, C = S = 1 */
    int reduction;   /* LF_RED_* */
    int64_t ignore_index;
    double label_smoothing; /* 0 when the path has none */
    int in_dtype, tgt_dtype, w_dtype, pw_dtype, out_dtype;
    int lw_dtype; /* BCE's log_weight, (pos_weight - 1).mul(target): their result type (lf_problem_init) */
    int has_weight, has_pos_weight;
    int kernel_id;        /* lf_kernel_id an out-of-range target asserts in */
    int kernels;          /* lf_kernel_set: the kernels it runs on, as the spec's routing picked */
    int hinge_p;          /* a hinge loss's p (1 or 2) */
    double margin;        /* and its margin, in the input dtype */
    int raises_after_nll; /* PyTorch's host code raises after nll_loss's kernels (label smoothing's
                             * weight view or gather index dtype): its gather kernel never runs */
    /* The input's dims; for BCE the element strides of weight/pos_weight
     * broadcast to them (0 along broadcast dims). */
    int ndim;
    int64_t shape[LF_MAX_BCAST_DIMS], w_stride[LF_MAX_BCAST_DIMS], pw_stride[LF_MAX_BCAST_DIMS];
    lf_view in; /* the input, in its dims */
    lf_view tg; /* the target, in its own dims (tg_ndim, tg_shape) */
    int tg_ndim;
    int64_t tg_shape[LF_MAX_BCAST_DIMS];
    /* The spec only (host memory, never read by a kernel): for a fused
     * linear's logits, what each row's are known to beyond their rounding,
     * in units of the dtype (lf_spec_linear.c); NULL otherwise. */
    const double *logit_extra;
} lf_problem;

/* Label smoothing masks its term and counts its mean's rows by the label as
 * stored (cross_entropy_loss_label_smoothing: target == ignore_index, compared
 * in the target's dtype, so a uint8 target meets ignore_index cast to uint8:
 * -100 as 156), not by the label nll_loss2d_forward_kernel read narrowed. */
LF_HOST_DEVICE int lf_smooth_kept(int64_t raw, int64_t ignore_index, int tgt_dtype)
{
    return raw != (tgt_dtype == LF_U8 ? (int64_t)(uint8_t)ignore_index : ignore_index);
}

/* A probability target as the loss takes it: under label smoothing
 * target * (1 - eps) + eps / C, two ops, each stored in the target's dtype
 * (a float16 target's eps / C may be subnormal there). */
LF_DEVICE double lf_smoothed_prob(const lf_problem *p, double t)
{
    if (!(p->label_smoothing > 0)) return t;
    double kept = lf_round_to(p->tgt_dtype, t * (1 - p->label_smoothing));
    return lf_round_to(p->tgt_dtype, kept + p->label_smoothing / (double)p->C);
}

/* Whether label smoothing's mean gathers the class weights by those labels
 * (weight.gather(0, kept labels), LF_K_GATHER): a kept int64 label outside
 * [0, C) asserts there, though nll_loss read it narrowed into a class. */
LF_HOST_DEVICE int lf_smooth_gathers(const lf_problem *p)
{
    return p->targets == LF_CLASS_TARGETS && p->label_smoothing > 0 && p->has_weight && p->reduction == LF_RED_MEAN &&
           !p->raises_after_nll;
}

/* The rows of a class-index or probability call: a 1-D input is one row (it
 * reads target[0] only). */
LF_HOST_DEVICE int64_t lf_rows(const lf_problem *p) { return p->one_d ? 1 : p->N * p->S; }
/* Whether a kernel set's reduction none gives a value per row (lf_kernels.def's PER_ROW). */
LF_HOST_DEVICE int lf_kernels_per_row(int kernels)
{
    switch (kernels) {
#define LF_KERNEL_SET(ID, NAME, PER_ROW)                                                                               \
    case LF_KERNELS_##ID:                                                                                              \
        return PER_ROW;
#include "lf_kernels.def"
#undef LF_KERNEL_SET
    default: return 0;
    }
}

/* Offset of row-major element i of a tensor of that shape with these strides. */
LF_DEVICE int64_t lf_strided_at(int ndim, const int64_t *shape, const int64_t *stride, int64_t i)
{
    int64_t off = 0; /* 64-bit: offsets may pass 2^31 */
    for (int d = ndim - 1; d >= 0; d--) {
        off += (i % shape[d]) * stride[d];
        i /= shape[d];
    }
    return off;
}

/* Broadcast offset of flat input element i in a tensor with the given strides. */
LF_DEVICE int64_t lf_bcast_offset(const lf_problem *p, const int64_t *stride, int64_t i)
{
    return lf_strided_at(p->ndim, p->shape, stride, i);
}

/* Storage element of input element i (row-major), and of target element i. */
LF_DEVICE int64_t lf_in_at(const lf_problem *p, int64_t i)
{
    return p->in.dense ? i : p->in.off + lf_bcast_offset(p, p->in.stride, i);
}
LF_DEVICE int64_t lf_tg_at(const lf_problem *p, int64_t i)
{
    return p->tg.dense ? i : p->tg.off + lf_strided_at(p->tg_ndim, p->tg_shape, p->tg.stride, i);
}

/* Whether the reference needs its scratch: log_softmax, or a copy of a
 * strided nll_loss input (PyTorch's input.contiguous()). */
LF_HOST_DEVICE int lf_ref_needs_scratch(const lf_problem *p)
{
    return p->targets != LF_BINARY_TARGETS && (p->log_softmax || !p->in.dense);
}

/* Row r's class 0 in the reference's contiguous scratch. */
LF_DEVICE int64_t lf_dense_row(const lf_problem *p, int64_t r) { return (r / p->S) * p->C * p->S + r % p->S; }

/* Storage element of class 0 of row r = n*S + s of a tensor with the input's
 * (N, C, d1..dk) dims (the input, or a probability target); the classes
 * follow lf_class_stride apart. */
LF_DEVICE int64_t lf_row_at(const lf_problem *p, const lf_view *v, int64_t r)
{
    if (v->dense) return lf_dense_row(p, r);
    if (p->one_d) return v->off;
    int64_t off = v->off;
    for (int d = p->ndim - 1; d >= 2; d--) {
        off += (r % p->shape[d]) * v->stride[d];
        r /= p->shape[d];
    }
    return off + r * v->stride[0];
}
LF_HOST_DEVICE int64_t lf_class_stride(const lf_problem *p, const lf_view *v)
{
    return v->dense ? p->S : v->stride[p->one_d ? 0 : 1];
}

/* One pass over the targets on the device: what the guard needs to decide and
 * to explain. Class-index targets: range against C with ignore_index first, as
 * PyTorch's kernels do. Probability targets: per-row sums. */
typedef struct {
    int64_t n_bad, first_bad; /* out of range and not ignored; first_bad (INT64_MAX if none) is the
                                        * first a kernel asserts on, first_narrowed the first it narrows */
    int64_t first_narrowed;
    int64_t first_gathered; /* the first narrowed label that is not the ignore_index as an int64:
                                        * where label smoothing's weight.gather asserts (lf_smooth_gathers) */
    int64_t n_ignored, n_negative, n_eq_c, n_eq_255, n_ge_c, n_non_integer;
    int64_t min_label, max_label;              /* over non-ignored targets */
    int64_t n_rows_off_sum, first_row_off_sum; /* probability rows whose sum is not 1 */
    int64_t n_rows_multi_hot, n_rows_one_hot, n_negative_prob;
    int64_t n_narrowed_silently; /* bad labels a kernel narrowing to int32 would read as valid */
    /* Filled on the host after the pass (the kernels leave them): the labels
     * at first_bad and first_narrowed, read back from the target's buffer. */
    int64_t first_bad_value, first_narrowed_value, first_gathered_value;
} lf_target_stats;

/* No evidence yet: counts 0, no first element, no label seen. */
LF_HOST_DEVICE void lf_stats_init(lf_target_stats *s)
{
    s->n_bad = s->n_ignored = s->n_negative = s->n_eq_c = s->n_eq_255 = s->n_ge_c = s->n_non_integer = 0;
    s->n_rows_off_sum = s->n_rows_multi_hot = s->n_rows_one_hot = s->n_negative_prob = s->n_narrowed_silently = 0;
    s->first_bad = s->first_narrowed = s->first_gathered = s->first_row_off_sum = s->min_label = INT64_MAX;
    s->max_label = INT64_MIN;
    s->first_bad_value = s->first_narrowed_value = s->first_gathered_value = 0;
}

/* a's evidence and b's together (commutative: a group reduction's MERGE). The
 * LAST_BAD_NAMED mutant keeps a plain store's answer: whichever came last. */
LF_HOST_DEVICE void lf_stats_merge(lf_target_stats *a, const lf_target_stats *b)
{
#define LF_MIN_(f) a->f = b->f < a->f ? b->f : a->f
    a->n_bad += b->n_bad;
    a->n_ignored += b->n_ignored;
    a->n_negative += b->n_negative;
    a->n_eq_c += b->n_eq_c;
    a->n_eq_255 += b->n_eq_255;
    a->n_ge_c += b->n_ge_c;
    a->n_non_integer += b->n_non_integer;
    a->n_rows_off_sum += b->n_rows_off_sum;
    a->n_rows_multi_hot += b->n_rows_multi_hot;
    a->n_rows_one_hot += b->n_rows_one_hot;
    a->n_negative_prob += b->n_negative_prob;
    a->n_narrowed_silently += b->n_narrowed_silently;
    if (LF_MUTANT_IS(LAST_BAD_NAMED) && b->first_bad != INT64_MAX)
        a->first_bad = b->first_bad;
    else
        LF_MIN_(first_bad);
    LF_MIN_(first_narrowed);
    LF_MIN_(first_gathered);
    LF_MIN_(first_row_off_sum);
    LF_MIN_(min_label);
    a->max_label = b->max_label > a->max_label ? b->max_label : a->max_label;
#undef LF_MIN_
}

/* Device (or, in the simulation, host) buffers of one launch. */
typedef struct {
    const void *input, *target, *weight, *pos_weight;
    void *out;             /* rows results (reduction none) or one element, out_dtype */
    void *scratch;         /* reference: log-probabilities, N*C*S of in_dtype */
    double *acc;           /* LF_ACC_COUNT accumulators, zeroed by the caller */
    lf_assert_record *rec; /* zeroed by the caller, index = INT64_MAX */
    /* Backward, where asked (NULL: none): the upstream gradient (out_dtype, one
     * per result value) and d input (the input's dtype, contiguous in its
     * (N, C, d1..dk) order, zeroed by the caller). The guarded forward writes
     * d input in its own pass; the reference's backward runs after its forward,
     * on the log-probabilities and total weight the forward left. */
    const void *grad_out;
    void *grad_in;
    lf_target_stats *stats; /* guarded forward: the targets' statistics, gathered in the same pass
                             * (initialized by the caller, lf_stats_init); NULL: none gathered
                             * (the same kernel unguarded, for the benchmark) */
} lf_buffers;

/* Reduction accumulators: loss sum, weight sum (mean's denominator), label
 * smoothing sum, the number of targets that were not ignored, and label
 * smoothing's own mean denominator (the weights, or the count, of the int64
 * labels that are not the ignore_index: lf_smooth_kept) - the rows' sums,
 * LF_ACC_ROWS of them; then, for the guard's fused backward, what a row's
 * gradient needs before the rows run: the mean's denominator and the class
 * weights' sum. */
enum {
    LF_ACC_LOSS,
    LF_ACC_WEIGHT,
    LF_ACC_SMOOTH,
    LF_ACC_VALID,
    LF_ACC_SMOOTH_W,
    LF_ACC_ROWS,
    LF_ACC_DENOM = LF_ACC_ROWS,
    LF_ACC_WSUM,
    LF_ACC_COUNT
};

/* Each backend exports these under its prefix: lf_sim_* (kernels/sim) and
 * lf_cuda_* (kernels/cuda, device pointers). All return 0 or a backend error. */
#define LF_DECLARE_BACKEND(prefix)                                                                                     \
    int prefix##_reference_forward(const lf_problem *p, const lf_buffers *b);                                          \
    int prefix##_reference_backward(const lf_problem *p, const lf_buffers *b);                                         \
    int prefix##_guarded_validate(const lf_problem *p, const void *target, int64_t n, lf_target_stats *stats);         \
    int prefix##_guarded_forward(const lf_problem *p, const lf_buffers *b);

#ifdef __cplusplus
extern "C" {
#endif
LF_DECLARE_BACKEND(lf_sim)
LF_DECLARE_BACKEND(lf_cuda)
LF_DECLARE_BACKEND(lf_cuda_hard) /* real device asserts: only ever run in an executor worker */
const char *lf_kernel_name(int kernel_id);
const char *lf_cond_text(int cond_id);
int lf_kernel_id_of(const char *name); /* LF_K_NONE when unknown */
int lf_cond_id_of(const char *text);   /* LF_COND_NONE when unknown */
/* The kernel of an assertion line's kernel name and condition (two lambdas print operator()). */
int lf_assert_kernel_of(const char *name, int cond_id);
/* The error class of a device assert in kernel_id (lf_kernels.def), and what
 * the failing element of cond_id is (LF_NAMES_*). */
const char *lf_assert_error(int kernel_id);
int lf_cond_names(int cond_id);
/* The simulation's hard mode: a failed kernel assert prints CUDA's assertion
 * line on stderr and aborts the process, as a real assert ends the context. */
void lf_sim_set_hard_asserts(int on);
#ifdef __cplusplus
}
#endif

#endif
