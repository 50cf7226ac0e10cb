/* lf_loss_nll.c - nll_loss's home (lf_loss_row.h): the class-index losses' shared code
 * (harness/model/spec/lf_spec_plan.c, lf_spec_eval.c, lf_spec_grad.c;
 * kernels/lf_launch.inc's classes set) on log-probabilities as given. */
#include "lf_loss_row.h"
#include "lf_spec.h"

const lf_loss_row lf_loss_nll = {
    .plan = lf_spec_plan_nll_loss,
    .run = lf_spec_run_direct,
    .grad = lf_spec_grad_direct,
};
