/* lf_loss_bce_logits.c - binary_cross_entropy_with_logits' home (lf_loss_row.h): its plan
 * (harness/model/spec/lf_spec_plan.c), values and gradients in the shared
 * code, its kernels in kernels/lf_common.inc (the bce_logits set). */
#include "lf_loss_row.h"
#include "lf_spec.h"

const lf_loss_row lf_loss_bce_logits = {
    .plan = lf_spec_plan_bce_logits,
    .run = lf_spec_run_direct,
    .grad = lf_spec_grad_direct,
};
