/* lf_loss_linear.c - linear_cross_entropy's home (lf_loss_row.h): cross_entropy(linear(input,
 * linear_weight, linear_bias), target), its logits made in float64 and judged
 * as cross_entropy's (harness/model/spec/lf_spec_linear.c). */
#include "lf_loss_row.h"
#include "lf_spec.h"

/* PyTorch's checks of cross_entropy, on the logits' shape. */
static bool plan(const lf_case *c, lf_problem *p, lf_result *r)
{
    return lf_loss_row_of(LF_LOSS_CROSS_ENTROPY)->plan(c, p, r);
}

const lf_loss_row lf_loss_linear = {
    .plan = plan,
    .run = lf_spec_linear_run,
    .grad = lf_spec_linear_grad,
};
