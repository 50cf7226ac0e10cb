/* lf_loss_linear.c - linear_cross_entropy's home (lf_loss_row.h): cross_entropy(linear(input,
 * linear_weight, linear_bias), target), its logits made in float64 and judged
 * as cross_entropy's (harness/model/spec/lf_spec_linear.c). */
#include "lf_loss_row.h"
#include "lf_spec.h"

const lf_loss_row lf_loss_linear = {
    .plan = lf_spec_plan_cross_entropy,
    .run = lf_spec_linear_run,
    .grad = lf_spec_linear_grad,
};
