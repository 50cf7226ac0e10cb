/* lf_result.h - what one path (spec, reference or guard) says about a case:
 * an outcome, its error or assert details, and the values when it computed. */
#ifndef LF_RESULT_H
#define LF_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#include "lf_case.h"

/* A tensor's shape as a path gave it; known false where the path sent only a count. */
typedef struct {
    bool known;
    int ndim;
    int64_t shape[LF_MAX_DIMS];
} lf_dims;

/* The backward half of a kernel under test (lf_backward), when it was asked
 * for: the gradient of each tensor it was given that requires grad, the
 * input's, and for fused linear + CE the linear weight's and bias's. */
typedef enum { LF_GRAD_NONE, LF_GRAD_OK, LF_GRAD_MISSING, LF_GRAD_ERROR } lf_grad_state;
typedef enum { LF_GRAD_INPUT, LF_GRAD_LINEAR_WEIGHT, LF_GRAD_LINEAR_BIAS, LF_GRAD_PARTS } lf_grad_part;
extern const char *const lf_grad_part_names[LF_GRAD_PARTS]; /* the tensors' names: "input", ... */
extern const char *const lf_grad_state_names[4];            /* "none", "ok", "missing", "error" */
typedef struct {
    lf_grad_state state;
    lf_dtype dtype;
    int64_t n;
    lf_dims dims;      /* its shape, where the path said it */
    double *values;    /* d loss / d tensor, in its logical order */
    char message[256]; /* why it is missing, or what backward raised (last: lf_result_init) */
} lf_grad;

/* The case's tensor a part is the gradient of, and whether it requires grad. */
const lf_tensor *lf_grad_tensor(const lf_case *c, lf_grad_part p);
bool lf_grad_required(const lf_case *c, lf_grad_part p);

typedef struct {
    lf_outcome_kind kind;   /* the guard's rejections are LF_OUTCOME_HOST_ERROR */
    int kernel_id, cond_id; /* device asserts */
    int64_t index, value;   /* first offending target element and its value */
    lf_dtype out_dtype;
    lf_dtype tol_dtype; /* spec only: the coarsest dtype the values passed through */
    bool scalar;        /* a 0-D result */
    int64_t n;          /* number of values */
    lf_dims dims;       /* its shape, where a path said it (the spec's: lf_case_result_shape) */
    double *values;
    double *scales; /* spec only: magnitude of the terms behind each value, or
                                * LF_SCALE_UNDECIDED */
    /* A Python kernel's worker: PyTorch's own result on the same call, the
     * measure of the error a low-precision dtype allows (lf_oracle.h). */
    double *reference;
    int64_t n_reference;
    /* The LLM family's other outputs (lf_llm.def): the spec's, or what a
     * kernel returned; values NULL where there is none. */
    struct {
        int64_t n;
        double *values, *scales; /* scales: the spec's */
    } outputs[LF_OUT_COUNT];
    lf_grad grad[LF_GRAD_PARTS];
    /* The text, last: lf_result_init empties each string rather than zeroing
     * 2.5 KB (a dozen results a case made that a sixth of a small fuzz case). */
    char error[48];     /* stable class, e.g. target_dtype, label_out_of_range */
    char exception[32]; /* PyTorch's exception type: RuntimeError, ValueError, IndexError */
    char message[512];
    char hint[512];            /* guard: what the data suggests the user did wrong */
    char hint_id[32];          /* guard: stable name of that hint */
    char warning[512];         /* guard: accepted, but suspicious (soft targets not summing to 1) */
    char warning_id[32];       /* guard: stable name of that warning */
    char silent[32];           /* spec: ok, but silently not the loss asked for (label_truncated) */
    char changed[96];          /* a tensor the call changed in place, e.g. "input (in forward)" */
    char through_softmax[256]; /* what went wrong when the input was softmax's saved output (lf_backward) */
} lf_result;

/* A spec value PyTorch's float arithmetic does not decide: its terms pass
 * float's range, or an infinite weight meets an lp float may round to 0.
 * PyTorch gives inf, NaN or a number there, by the order it sums in. */
#define LF_SCALE_UNDECIDED (-1.0)

void lf_result_init(lf_result *r);
void lf_result_free(lf_result *r);
bool lf_result_alloc_values(lf_result *r, int64_t n, bool with_scales);
void lf_result_free_values(lf_result *r);
/* Marks r as a host error of class `error` (one of lf_errors.def: abort
 * otherwise, the code is wrong); lf_result_error with an exception and message. */
void lf_result_set_error(lf_result *r, const char *error);
/* Marks r as a host error of class `error`, exception `exception`, printf message. */
void lf_result_error(lf_result *r, const char *error, const char *exception, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* PyTorch's C++ name of a dtype: Long, Int, Byte, Bool, Float, Double, Half, BFloat16. */
const char *lf_torch_type_name(lf_dtype t);
/* A device assert of kernel_id (lf_kernels.def) on cond_id at element `index`
 * of the tensor the condition names, as CUDA reports it: "KERNEL: Assertion
 * `COND` failed (target[i] = v, DETAIL)THEN", DETAIL "" for none (lf_assert_result.c). */
void lf_result_device_assert(lf_result *r, const lf_case *c, int kernel_id, int cond_id, int64_t index,
                             const char *detail, const char *then);

#endif
