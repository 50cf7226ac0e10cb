/* lf_spec.h - a plain C model of PyTorch's cross-entropy semantics
 * (shared/docs/pytorch-semantics.md): for a case, the outcome PyTorch 2.x on CUDA
 * gives - ok, a host error with its class and message, or a device-side assert
 * with kernel, condition and first offending element - and, when ok, the result
 * computed in float64 the way PyTorch computes it. */
#ifndef LF_SPEC_H
#define LF_SPEC_H

/* What CUDA says after a device assert, which the spec's messages end with. */
#define LF_SPEC_THEN "; then: CUDA error: device-side assert triggered"

#include "lf_case.h"
#include "lf_kernels.h"
#include "lf_result.h"

/* PyTorch's host-side checks, in PyTorch's order, then the routing to a kernel
 * family. On a host error fills r and returns false; else fills p. */
bool lf_spec_plan(const lf_case *c, lf_problem *p, lf_result *r);

/* Number of result values for a planned problem, and whether the result is 0-D. */
int64_t lf_plan_out_numel(const lf_problem *p, bool *scalar);

/* The device-assert predicate of the planned kernel: the first target element
 * the kernel reads with t != ignore_index && !(0 <= t < C). Returns its flat
 * index, or -1 when no element asserts. */
int64_t lf_spec_first_assert(const lf_case *c, const lf_problem *p);

/* Label smoothing's weight.gather (reduction mean, class weights) reads the
 * int64 labels that are not the ignore_index: the first it asserts on (one
 * nll_loss2d_forward_kernel read narrowed into a class), or -1. */
int64_t lf_spec_gather_assert(const lf_case *c, const lf_problem *p);

/* A host error PyTorch raises after the loss's kernels ran: its row's
 * (error_after), or in label smoothing with class weights: the weight viewed
 * along the class dim needs its elements along dim 0, and reduction mean's
 * weight.gather(0, target) needs int64 targets. Fills r and returns true when
 * one applies. */
bool lf_spec_error_after_nll(const lf_case *c, const lf_problem *p, lf_result *r);

/* On a call whose forward PyTorch computes (lf_spec_run ok): whether its
 * backward kernels assert (nll_loss2d_backward_kernel reads the int64 labels
 * its forward read narrowed to int32), and where, into r (a device assert). */
bool lf_spec_backward_assert(const lf_case *c, lf_result *r);

/* The device assert of `kernel_id` at target[bad], as CUDA reports it, into r. */
void lf_spec_device_assert(const lf_case *c, const lf_problem *p, int kernel_id, int64_t bad, lf_result *r);

/* On a result the spec computed: marks it silently not the loss asked for
 * (r->silent "label_truncated", the first such target in r->index and
 * r->value) where a kernel read a label narrowed into a class, or into the
 * ignored label, that it is not. */
void lf_spec_mark_narrowed(const lf_case *c, const lf_problem *p, lf_result *r);

/* The whole spec: plan, asserts, then values. */
void lf_spec_run(const lf_case *c, lf_result *r);

/* BCE-with-logits' log_weight = (pos_weight - 1).mul(target).add_(1), each op stored in its dtype (Loss.cpp). */
double lf_spec_pos_log_weight(const lf_case *c, const lf_problem *p, double pw, double y);
/* One row's logits as the loss reads them: as given, or the LLM family's
 * cap(scale * x) (lf_spec_llm.c); and the family's terms of the row. */
typedef struct {
    double r;              /* the row's share of the loss: its loss mask's value (1 without one) */
    double lse, lse_extra; /* log-sum-exp of the row's logits; what it is known to beyond |lse| (units of rtol) */
    double extra;          /* what lp[k]'s terms exceed |lp[k]| by (lf_spec_row_log_softmax) */
    double y_abs;          /* max |y| where the options computed y (each known to a unit of float), else 0 */
    double z, z_mag;       /* z_loss_scale * lse^2 (0 where off or the row is ignored) and its magnitude */
    bool counted;          /* not an ignored row: counted in the z-loss's mean */
    bool nonfinite;        /* a logit of inf or NaN, given or made */
    bool made;             /* one the options made of a finite logit (scale * x past the input dtype) */
    bool undecided;        /* an answer the options leave open: inf or NaN in torch's composition only */
} lf_row;

/* The log-probabilities of row i (at `base`, classes S apart) into lp, as
 * at::log_softmax returns them of the row's logits (nll_loss: the input as
 * it is); d y / d x of each class into dydx; the row's lse and the family's
 * terms into row. Returns what the magnitude of lp[k]'s terms exceeds |lp[k]|
 * by (its rounding error's scale; row->extra too). */
double lf_spec_row_log_softmax(const lf_case *c, const lf_problem *p, int64_t i, int64_t base, double *lp, double *dydx,
                               lf_row *row);
/* The dtype PyTorch sums in, as fused kernels compute: float64 for float64 input, float for every other. */
static inline lf_dtype lf_spec_acc_dtype(const lf_case *c) { return c->input.dtype == LF_F64 ? LF_F64 : LF_F32; }
/* Class k's weight (1 without weights). */
double lf_spec_weight(const lf_case *c, int64_t k);
/* Class k's probability in the row at `base`, label smoothing applied. */
double lf_spec_prob_target(const lf_case *c, const lf_problem *p, int64_t base, int64_t k);

/* The gradients of a call the spec accepts (lf_spec_run ok), given the
 * upstream gradient (the result's count of values, float64), in float64:
 * g[LF_GRAD_INPUT] gets d loss / d input, input.numel values (the input's
 * logical order), their scales and the input's dtype; a fused linear + CE
 * (lf_spec_linear.c) fills g[LF_GRAD_LINEAR_WEIGHT] and [..._BIAS] too.
 * lf_spec_grad.c. */
void lf_spec_grad(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS]);

/* lf_spec_run and d input (into g) of a call whose input holds a fused
 * linear's logits, row r's known to logit_extra[r] units of the dtype
 * beyond their rounding (NULL: exact, the input as given). */
void lf_spec_run_logits(const lf_case *c, const double *logit_extra, lf_result *r);
void lf_spec_grad_logits(const lf_case *c, const double *logit_extra, const double *upstream, lf_result *g);
/* The hooks the losses' rows share (harness/losses/): nll_loss's plan and
 * the class-index checks (lf_spec_plan.c), the run and
 * gradients of a loss computed on its input as given (lf_spec_eval.c,
 * lf_spec_grad.c), and fused linear + cross-entropy's (lf_spec_linear.c). */
bool lf_spec_plan_nll_loss(const lf_case *c, lf_problem *p, lf_result *r);
/* nll_loss's checks and routing after a loss's own (cross_entropy's: after log_softmax, smoothing > 0). */
bool lf_spec_plan_class(const lf_case *c, lf_problem *p, lf_result *r, double smoothing);
void lf_spec_run_direct(const lf_case *c, lf_result *r);
void lf_spec_grad_direct(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS]);
void lf_spec_linear_run(const lf_case *c, lf_result *r);
/* torch 2.15's chunked path (lf_spec_chunked.c): whether the case gives options=; the options' own checks;
 * whether the path applies to the call (else torch warns, lf_spec_chunked_fallback, and takes the reference
 * path); the chunk size and acc_dtype it refuses. The checks: false with r a host error. */
bool lf_spec_chunked_given(const lf_case *c);
bool lf_spec_chunked_options(const lf_case *c, lf_result *r);
bool lf_spec_chunked_applies(const lf_case *c, const int64_t *logits_shape, int logits_ndim);
/* whether torch takes the chunked path with the case's shapes (given and applies), whatever it then refuses */
bool lf_spec_chunked_taken(const lf_case *c);
bool lf_spec_chunked_adjust(const lf_case *c, lf_result *r);
void lf_spec_chunked_fallback(const lf_case *c, lf_result *r);
/* The dtype the chunked path keeps its logits in (the input's, or a wider accumulation dtype), and a result
 * computed on logits of that dtype narrowed into the input's as torch returns it, its tolerance widened by the
 * 16-bit accumulation of a reduced result. */
lf_dtype lf_spec_chunked_logits_dtype(const lf_case *c);
void lf_spec_chunked_narrow(const lf_case *c, lf_dtype logits, lf_result *r);
void lf_spec_linear_grad(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS]);
/* An ok result of the planned problem: its dtypes (the tolerance's: the
 * coarsest the values passed through) and its shape (lf_spec_eval.c). */
void lf_spec_result_ok(const lf_case *c, const lf_problem *p, bool scalar, lf_result *r);
/* A loss's own d input, started: planned (p), input.numel values and scales, ok in the input's dtype; false
 * with d's error (the plan's, or out of memory). lf_spec_eval.c. */
bool lf_spec_grad_input_start(const lf_case *c, lf_problem *p, lf_result *d);
/* The values of a planned problem PyTorch's kernels compute (lf_spec_eval.c): with
 * the LLM family's options, and cross_entropy's outputs (lse, z_loss) - a kernel returns them on any call. */
void lf_spec_values(const lf_case *c, const lf_problem *p, lf_result *r);
/* The LLM family's options on a row (lf_spec_llm.c): the loss mask's value of row i; the row's logits y
 * = cap(scale * x), dy/dx and what the options make of them (the row's r, nonfinite, made, undecided, y_abs);
 * what y's rounding adds to lp's terms (tol_unit: the tolerance's relative unit); the row's z-loss and
 * what it leaves undecided, once lse and extra are known (counted: not an ignored row); a reduction's
 * divisor (n_items where given, else the mean's). */
double lf_spec_llm_mask(const lf_case *c, int64_t i);
void lf_spec_llm_logits(const lf_case *c, const lf_problem *p, int64_t i, int64_t base, double *y, double *dydx,
                        lf_row *row);
double lf_spec_llm_extra(const lf_case *c, double tol_unit, const lf_row *row);
void lf_spec_llm_row(const lf_case *c, const lf_problem *p, bool counted, double tol_unit, lf_row *row);
double lf_spec_llm_divisor(const lf_case *c, double mean);

#endif
