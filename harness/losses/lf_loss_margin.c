/* lf_loss_margin.c - multi_margin_loss's home (lf_loss_row.h). */
#include "lf_loss_row.h"
#include "lf_spec.h"

const lf_loss_row lf_loss_margin = {
    .plan = lf_spec_plan_multi_margin,
    .run = lf_spec_run_multi_margin,
    .grad = lf_spec_grad_multi_margin,
};
