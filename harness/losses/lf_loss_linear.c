/* lf_loss_linear.c - linear_cross_entropy's home (lf_loss_row.h): cross_entropy(linear(input,
 * linear_weight, linear_bias), target), its logits made in float64 and judged
 * as cross_entropy's (harness/model/spec/lf_spec_linear.c). */
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
    return c->linear_weight.ndim != 2 || lf_known_host_error(s, "linear_shape") ||
           lf_known_host_error(s, "prob_ignore_index");
}

static const lf_known_rule known[] = {
    {{"linear_cross_entropy_composed", "", "", "2.15", "torch/nn/functional.py: linear_cross_entropy (new in 2.15)",
      "before 2.15 linear_cross_entropy is the composition cross_entropy(linear(...)): F.linear's checks and their "
      "messages, a bias [1] or [] broadcast, no K-dimensional weight, a given ignore_index with probability targets "
      "taken"},
     composed},
};

const lf_loss_row lf_loss_linear = {
    .plan = plan,
    .run = lf_spec_linear_run,
    .grad = lf_spec_linear_grad,
    .known = known,
    .n_known = LF_COUNT_OF(known),
};
