/* lf_loss_cross_entropy.c - cross_entropy's home (lf_loss_row.h): log_softmax, then nll_loss's
 * kernels with class indices, or the probability path with probabilities, both in
 * the class-index losses' shared code (harness/model/spec/lf_spec_plan.c,
 * lf_spec_eval.c, lf_spec_grad.c; kernels/lf_launch.inc's classes set). */
#include "lf_loss_row.h"
#include "lf_spec.h"

const lf_loss_row lf_loss_cross_entropy = {
    .plan = lf_spec_plan_cross_entropy,
    .run = lf_spec_run_direct,
    .grad = lf_spec_grad_direct,
};
