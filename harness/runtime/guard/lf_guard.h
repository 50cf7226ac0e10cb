/* lf_guard.h - the guarded path: validate, then compute. A call PyTorch would
 * reject, or whose targets would trigger a device-side assert, is rejected with
 * a stable error class, the offending elements, and a hint at the likely cause
 * (pytorch-semantics.md section 5); a valid call is computed by the fused
 * guarded kernels. Written independently of the spec, which is its oracle. */
#ifndef LF_GUARD_H
#define LF_GUARD_H

#include "lf_backend.h"

/* A rejection of class `error` into r, with a hint (its id from lf_hints.def or a loss's row, or NULL) and
 * the message; false, for `return lf_guard_reject(...)`. lf_guard_set_hint: a hint alone. */
bool lf_guard_reject(lf_result *r, const char *error, const char *hint_id, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void lf_guard_set_hint(lf_result *r, const char *id, const char *text);
/* The input's, target's and weight's shapes, as messages print them. */
void lf_guard_shapes(const lf_case *c, char is[128], char ts[128], char ws[128]);

/* Host-side validation (shapes, dtypes, options). false: r holds the rejection.
 * `needs_data` is set when the hint depends on the target's values. */
bool lf_guard_check(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data);
/* The class-index checks in PyTorch's order, the losses' default guard_check
 * (lf_loss_row.h), for a loss that smooths its labels by `smoothing` (0: none). */
bool lf_guard_check_class(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data, double smoothing);
bool lf_guard_reject_0d_input(lf_result *r);

/* What PyTorch raises only after its NLL kernels ran (so after any bad label):
 * label smoothing with class weights and reduction mean gathers the weights by
 * target, which needs int64 targets. false: r holds the rejection. */
bool lf_guard_check_after_labels(const lf_case *c, const lf_problem *p, lf_result *r);

/* One device pass over the targets (lf_target_stats). The layout comes from
 * the target's own shape, so it also works on a call the host check rejected.
 * false when it failed; r is then error oob_write if the kernel wrote outside
 * its buffers, else untouched. */
bool lf_guard_target_stats(const lf_case *c, const lf_backend *be, int targets, const lf_problem *p,
                           lf_target_stats *st, lf_result *r);

/* Turns data evidence into a rejection (label_out_of_range) or hints and warnings. */
void lf_guard_diagnose_labels(const lf_case *c, const lf_problem *p, const lf_target_stats *st, lf_result *r);
void lf_guard_hint_from_data(const lf_case *c, const lf_target_stats *st, lf_result *r);
void lf_guard_warn_probs(const lf_problem *p, const lf_target_stats *st, lf_result *r);
/* Every probability row one-hot: PyTorch's probability path, rarely what was
 * meant; the warning gives the class-index loss where the two differ. */
bool lf_guard_all_one_hot(const lf_problem *p, const lf_target_stats *st);
/* The case with target.argmax(dim=1) for its target (eq borrows c's other tensors; free eq->target), and
 * the weights it picks summed, where the two losses differ (a weighted mean); false otherwise. */
bool lf_guard_one_hot_indices(const lf_case *c, const lf_problem *p, lf_case *eq, double *weight_sum);
/* The warning, given q, the guard's run of the class-index case (NULL: the losses are the same). */
void lf_guard_warn_one_hot(const lf_problem *p, const lf_result *q, double weight_sum, lf_result *r);
/* Sets r's warning and its stable id (warning_id), replacing any earlier one. */
/* The hints' and warnings' one list (lf_hints.def): the i-th id (NULL past
 * the end), whether it is a warning, what it means; lf_hint_require aborts on
 * an id the list lacks (the code is wrong, not the case). */
const char *lf_hint_at(int i, bool *warning, const char **what);
void lf_hint_require(const char *id, bool warning);
void lf_guard_warn(lf_result *r, const char *id, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Validation alone (host checks, the device pass, the diagnosis): true when
 * the call is accepted (p is then its problem; r may hold warnings). */
bool lf_guard_validate_case(const lf_case *c, const lf_backend *be, lf_problem *p, lf_result *r);

/* The whole guarded path. */
void lf_guard_run(const lf_case *c, const lf_backend *be, lf_result *r);

#endif
