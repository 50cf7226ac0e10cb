/* lf_verdict_build.h - how the oracle's judges (lf_oracle.c for the built-in
 * paths, lf_kernel_verdict.c for a kernel under test) record findings: one
 * finding per case, the first violated property's. Internal to the oracle. */
#ifndef LF_VERDICT_BUILD_H
#define LF_VERDICT_BUILD_H

#include "lf_kernel_claims.h"
#include "lf_oracle.h"

/* Records the finding `cls` unless the case already has one. */
void lf_found(lf_verdict *v, const char *cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The first i where got[i] is not close to want[i] (lf_values_close, with the
 * spec's scales), or -1: the one comparison of every path, expectation and gradient. */
int64_t lf_first_far(const double *want, const double *scales, const double *got, int64_t n, lf_dtype tol_dtype);
/* value-mismatch/<path> when a path's values are not the spec's (NaN-safe, dtype tolerance). */
void lf_compare_values(lf_verdict *v, const char *path, const lf_result *got);
/* The LLM family's other outputs a path gave (z_loss, lse) against the spec's (computed on every
 * cross_entropy call): output-mismatch/PATH/OUTPUT. */
void lf_compare_outputs(lf_verdict *v, const char *path, const lf_result *got);
/* Whether an ok result's shape is PyTorch's (lf_case_result_shape): its dims
 * where the path said them (a Python callable's [N, 1] for [N] is wrong), else
 * its count and 0-D-ness; false with both shapes in words. */
bool lf_result_shape_ok(const lf_case *c, const lf_result *s, const lf_result *got, char *why, size_t len);
/* A path that did not run to an answer (backend error, a worker's crash,
 * hang or broken device, an out-of-bounds access): its finding; true then. */
bool lf_path_failed(lf_verdict *v, const char *path, const lf_result *r);

/* One gradient a path gave (k: the input's, or a fused linear's weight's or
 * bias's) against the spec's: given where the tensor requires grad, of its
 * shape and dtype, within tolerance; else grad-missing/<path>,
 * grad-error/<path>, grad-shape-mismatch/<path>, grad-dtype-mismatch/<path>
 * or grad-mismatch/<path> (lf_kernel_verdict.c). */
void lf_judge_grad(const lf_case *c, lf_verdict *v, const char *path, const lf_grad *k, lf_grad_part p);

/* The kernel under test against the spec (lf_kernel_verdict.c). */
void lf_judge_kernel(const lf_case *c, const lf_backend *be, lf_verdict *v);

/* Notes a deviation the kernel's claims explain (lf_deviation.c): reported
 * as accepted under `signature`; the first one noted stays. */
void lf_accept(lf_verdict *v, const char *signature, const char *reason);
/* A finding the kernel's claims explain as deliberate becomes accepted. */
void lf_judge_deviations(const lf_case *c, const lf_kernel_claims *claims, lf_verdict *v);

#endif
