/* lf_guard_warn.c - warnings: calls PyTorch accepts, with their values
 * unchanged, whose targets look like a mistake (pytorch-semantics.md section 5).
 * Each has a stable id, as hints do. */
#include <stdarg.h>
#include <stdio.h>

#include "lf_guard.h"

void lf_guard_warn(lf_result *r, const char *id, const char *fmt, ...)
{
    va_list ap;
    lf_hint_require(id, true);
    snprintf(r->warning_id, sizeof r->warning_id, "%s", id);
    va_start(ap, fmt);
    vsnprintf(r->warning, sizeof r->warning, fmt, ap);
    va_end(ap);
}

void lf_guard_warn_probs(const lf_problem *p, const lf_target_stats *st, lf_result *r)
{
    if (st->n_rows_multi_hot > 0)
        lf_guard_warn(r, "multi_label_targets",
                      "%lld target rows have several 1s: multi-label targets "
                      "belong to binary_cross_entropy_with_logits, not cross_entropy",
                      (long long)st->n_rows_multi_hot);
    else if (st->n_rows_off_sum > 0)
        lf_guard_warn(r, "soft_targets_not_normalized",
                      "%lld of %lld probability rows do not sum to 1 "
                      "(first: row %lld); PyTorch accepts them, but soft targets (CutMix/Mixup) should be "
                      "normalized",
                      (long long)st->n_rows_off_sum, (long long)(p->N * p->S), (long long)st->first_row_off_sum);
    else if (st->n_negative_prob > 0)
        lf_guard_warn(r, "negative_probabilities", "%lld target probabilities are negative",
                      (long long)st->n_negative_prob);
}
