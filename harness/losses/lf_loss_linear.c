/* lf_loss_linear.c - linear_cross_entropy's home (lf_loss_row.h): cross_entropy(linear(input,
 * linear_weight, linear_bias), target), its logits made in float64 and judged
 * as cross_entropy's (harness/model/spec/lf_spec_linear.c). */
#include <math.h>
#include <string.h>

#include "lf_loss_row.h"
#include "lf_oracle.h"
#include "lf_spec.h"

/* PyTorch's checks of cross_entropy, on the logits' shape. */
static bool plan(const lf_case *c, lf_problem *p, lf_result *r)
{
    return lf_loss_row_of(LF_LOSS_CROSS_ENTROPY)->plan(c, p, r);
}

/* Before torch 2.15 there is no F.linear_cross_entropy: the worker composes
 * cross_entropy(F.linear(...)), which has F.linear's checks and broadcasting,
 * no K-dimensional weight, and cross_entropy's rule for ignore_index. */
static bool composed(const lf_case *c, const lf_result *s, const lf_result *t)
{
    (void)t;
    return c->linear_weight.ndim != 2 || lf_spec_chunked_given(c) || lf_known_host_error(s, "linear_shape") ||
           lf_known_host_error(s, "prob_ignore_index");
}

/* torch 2.15's chunked path (options= given and taken, lf_spec_chunked.c) against its reference path, on
 * the CPU: what `lossfuzz fuzz --torch --target fuzz_linear` found; each shows in plain torch. */

/* ZeroDivisionError in LinearCrossEntropyOptions' chunk size (ceil(C / H)) for H or C of 0, whatever the call */
static bool chunked_zero_features(const lf_case *c, const lf_result *s, const lf_result *t)
{
    (void)s;
    const lf_tensor *h = &c->input, *w = &c->linear_weight;
    return lf_spec_chunked_taken(c) && !strcmp(t->error, "unmapped:ZeroDivisionError") &&
           (h->shape[h->ndim - 1] == 0 || w->shape[0] == 0);
}

/* a call the reference path refuses fails inside the op, in its own words (gather, index_select, amax) */
static bool chunked_own_errors(const lf_case *c, const lf_result *s, const lf_result *t)
{
    return lf_spec_chunked_taken(c) && (s->kind == LF_OUTCOME_HOST_ERROR || s->kind == LF_OUTCOME_DEVICE_ASSERT) &&
           t->kind == LF_OUTCOME_HOST_ERROR && strcmp(s->error, t->error);
}

/* a call the reference path refuses for its target or class weight runs: a weight of the wrong length (indexed
 * by label) or of an integer dtype, an empty int64 target of another shape, a target longer than the batch */
static bool chunked_unchecked(const lf_case *c, const lf_result *s, const lf_result *t)
{
    return lf_spec_chunked_taken(c) &&
           (lf_known_host_error(s, "weight_shape") || lf_known_host_error(s, "prob_target_dtype") ||
            lf_known_host_error(s, "target_shape") || lf_known_host_error(s, "batch_size_mismatch") ||
            lf_known_host_error(s, "weight_dtype")) &&
           t->kind == LF_OUTCOME_OK;
}

/* hidden states [H] with a target [1]: the reference path reads it as the one row's label, the chunked one fails */
static bool chunked_unbatched_one_target(const lf_case *c, const lf_result *s, const lf_result *t)
{
    return lf_spec_chunked_taken(c) && c->input.ndim == 1 && c->target.ndim == 1 && s->kind == LF_OUTCOME_OK &&
           t->kind == LF_OUTCOME_HOST_ERROR;
}

/* ignored rows multiplied by their weight 0, not masked: an ignored row's non-finite hidden state makes the loss
 * NaN (the reference path leaves it out), and a mean over ignored rows only has NaN gradients, its 1 / 0 total
 * weight made in forward, whatever the upstream (the reference path's 0) */
static bool chunked_ignored_rows(const lf_case *c, const lf_result *s, const lf_result *t)
{
    const lf_tensor *h = &c->input, *tg = &c->target;
    if (!lf_spec_chunked_taken(c) || !lf_known_both_ok(s, t) || !lf_case_any_ignored(c)) return false;
    int64_t H = h->shape[h->ndim - 1], ignored = 0;
    bool rows = H > 0 && tg->numel == h->numel / H; /* a label per row of hidden states */
    for (int64_t n = 0; n < tg->numel; n++) {
        if (lf_load_i64(tg->data, tg->dtype, n) != c->ignore_index) continue;
        ignored++;
        for (int64_t k = 0; rows && k < H; k++)
            if (!isfinite(lf_load_f64(h->data, h->dtype, n * H + k))) return true;
    }
    return c->reduction == LF_REDUCTION_MEAN && ignored == tg->numel;
}

/* a class weight of inf or -inf: the reference path's loss is the infinity, the chunked path's NaN (inf * 0) */
static bool chunked_infinite_weight(const lf_case *c, const lf_result *s, const lf_result *t)
{
    const lf_tensor *w = &c->weight;
    if (!lf_spec_chunked_taken(c) || !lf_known_both_ok(s, t) || !w->present) return false;
    for (int64_t k = 0; k < w->numel; k++)
        if (isinf(lf_load_f64(w->data, w->dtype, k))) return true;
    return false;
}

#define CHUNKED_SOURCE "torch/nn/modules/linear_cross_entropy.py, the chunked path (torch 2.15 on the CPU)"

static const lf_known_rule known[] = {
    {{"linear_cross_entropy_composed", "", "", "2.15", "torch/nn/functional.py: linear_cross_entropy (new in 2.15)",
      "before 2.15 linear_cross_entropy is the composition cross_entropy(linear(...)): F.linear's checks and their "
      "messages, a bias [1] or [] broadcast, no K-dimensional weight, a given ignore_index with probability targets "
      "taken, no options= (LinearCrossEntropyOptions, its checks and warning)"},
     composed},
    {{"chunked_zero_features", "", "2.15", "", CHUNKED_SOURCE,
      "options= with hidden size or classes 0: ZeroDivisionError choosing the chunk size, where the reference path "
      "answers"},
     chunked_zero_features},
    {{"chunked_own_errors", "", "2.15", "", CHUNKED_SOURCE,
      "the chunked path checks neither the target's shape nor the class weight's dtype nor labels: a call the "
      "reference path refuses fails inside the op, in its own words (gather, index_select, amax)"},
     chunked_own_errors},
    {{"chunked_unchecked", "", "2.15", "", CHUNKED_SOURCE,
      "the chunked path runs calls the reference path refuses: a class weight of the wrong length (indexed by "
      "label) or an integer dtype, an empty int64 target of another shape, a target longer than the batch"},
     chunked_unchecked},
    {{"chunked_unbatched_one_target", "", "2.15", "", CHUNKED_SOURCE,
      "hidden states [H] with a target [1]: the reference path takes it, the chunked path's gather refuses it"},
     chunked_unbatched_one_target},
    {{"chunked_ignored_rows", "", "2.15", "", CHUNKED_SOURCE,
      "ignored rows are multiplied by their weight 0, not masked: a non-finite hidden state there makes the chunked "
      "path's loss NaN, and a mean over ignored rows only its gradients, whatever the upstream; the reference path "
      "leaves them out (0)"},
     chunked_ignored_rows},
    {{"chunked_infinite_weight", "", "2.15", "", CHUNKED_SOURCE,
      "a class weight of inf or -inf: the chunked path's loss or gradient is NaN where the reference path's is the "
      "infinity"},
     chunked_infinite_weight},
};

const lf_loss_row lf_loss_linear = {
    .plan = plan,
    .run = lf_spec_linear_run,
    .grad = lf_spec_linear_grad,
    .known = known,
    .n_known = LF_COUNT_OF(known),
};
