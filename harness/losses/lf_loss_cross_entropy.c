/* lf_loss_cross_entropy.c - cross_entropy's home (lf_loss_row.h): log_softmax, then
 * nll_loss's kernels with class indices (the class-index losses' shared code:
 * harness/model/spec/lf_spec_plan.c, lf_spec_eval.c, lf_spec_grad.c,
 * lf_guard_check.c; kernels/lf_launch.inc's classes set), or the probability
 * path with a target of the input's shape; label_smoothing on either. */
#include "lf_guard.h"
#include "lf_loss_row.h"
#include "lf_problem.h"
#include "lf_shape.h"
#include "lf_spec.h"

/* The spec: PyTorch's checks of the probability path, in its order (aten LossNLL.cpp, cross_entropy). */
static bool plan_probs(const lf_case *c, lf_problem *p, lf_result *r)
{
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    if (!lf_dtype_is_float(tg->dtype)) {
        lf_result_error(r, "prob_target_dtype", "RuntimeError",
                        "Expected floating point type for target with class probabilities, got %s",
                        lf_torch_type_name(tg->dtype));
        return false;
    }
    if (c->ignore_index >= 0) {
        lf_result_error(r, "prob_ignore_index", "RuntimeError",
                        "ignore_index is not supported for floating point target");
        return false;
    }
    if (in->ndim == 0) {
        lf_result_error(r, "input_dim", "IndexError",
                        "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
        return false;
    }
    lf_problem_init(c, p, LF_PROB_TARGETS);
    lf_problem_layout(in, p);
    if (w->present && (w->ndim != 1 || w->numel != p->C)) {
        char wshape[128];
        lf_format_shape(wshape, sizeof wshape, w->shape, w->ndim);
        lf_result_error(r, "weight_shape", "RuntimeError",
                        "cross_entropy: weight tensor should be defined either for all %lld classes or no classes but "
                        "got weight tensor of shape: %s",
                        (long long)p->C, wshape);
        return false;
    }
    if (c->label_smoothing > 1.0) { /* checked only inside `if (label_smoothing > 0.0)` */
        lf_result_error(r, "label_smoothing_range", "RuntimeError",
                        "label_smoothing must be between 0.0 and 1.0. Got: %g", c->label_smoothing);
        return false;
    }
    p->label_smoothing = c->label_smoothing > 0.0 ? c->label_smoothing : 0; /* negative, NaN: none */
    p->out_dtype = lf_dtype_promote(in->dtype, tg->dtype);
    if (w->present) p->out_dtype = lf_dtype_promote(p->out_dtype, w->dtype);
    return true;
}

static bool plan(const lf_case *c, lf_problem *p, lf_result *r)
{
    if (lf_same_shape(&c->input, &c->target)) return plan_probs(c, p, r);
    if (c->label_smoothing > 1.0) { /* checked only inside `if (label_smoothing > 0.0)` */
        lf_result_error(r, "label_smoothing_range", "RuntimeError",
                        "label_smoothing must be between 0.0 and 1.0. Got: %g", c->label_smoothing);
        return false;
    }
    if (c->input.ndim == 0) { /* log_softmax(input, dim=1) on a 0-D tensor */
        lf_result_error(r, "input_dim", "IndexError",
                        "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
        return false;
    }
    return lf_spec_plan_class(c, p, r, c->label_smoothing > 0.0 ? c->label_smoothing : 0);
}

/* The guard's own checks (not the spec's: the spec is its oracle). */
static bool reject_smoothing_range(const lf_case *c, lf_result *r)
{
    return lf_guard_reject(r, "label_smoothing_range", NULL,
                           "label_smoothing is a probability mass: use a value in [0, 1]",
                           "label_smoothing = %g is greater than 1", c->label_smoothing);
}

static bool guard_check_probs(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data)
{
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    if (!lf_dtype_is_float(tg->dtype)) {
        *needs_data = true;
        return lf_guard_reject(r, "prob_target_dtype", NULL, NULL,
                               "target has the input's shape, so it is read as class probabilities, which must be "
                               "floating point; got %s",
                               lf_dtype_name(tg->dtype));
    }
    if (c->ignore_index >= 0)
        return lf_guard_reject(r, "prob_ignore_index", NULL,
                               "leave ignore_index at its default (-100) with probability targets",
                               "ignore_index = %lld cannot apply to probability targets", (long long)c->ignore_index);
    if (in->ndim == 0) return lf_guard_reject_0d_input(r);
    int64_t C = in->shape[in->ndim == 1 ? 0 : 1];
    if (w->present && (w->ndim != 1 || w->numel != C))
        return lf_guard_reject(r, "weight_shape", NULL, "pass one weight per class, shape [C]",
                               "weight with %lld elements for %lld classes", (long long)w->numel, (long long)C);
    if (c->label_smoothing > 1) return reject_smoothing_range(c, r);
    lf_problem_init(c, p, LF_PROB_TARGETS);
    lf_problem_layout(in, p);
    p->label_smoothing = c->label_smoothing > 0 ? c->label_smoothing : 0;
    p->out_dtype = lf_dtype_promote(in->dtype, tg->dtype);
    if (w->present) p->out_dtype = lf_dtype_promote(p->out_dtype, w->dtype);
    return true;
}

static bool guard_check(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data)
{
    if (!(c->label_smoothing >= 0))
        lf_guard_warn(r, "label_smoothing_ignored",
                      "label_smoothing = %g is ignored: PyTorch applies it only when it is > 0", c->label_smoothing);
    if (lf_same_shape(&c->input, &c->target)) return guard_check_probs(c, p, r, needs_data);
    if (c->label_smoothing > 1.0) return reject_smoothing_range(c, r);
    return lf_guard_check_class(c, p, r, needs_data, c->label_smoothing > 0 ? c->label_smoothing : 0);
}

const lf_loss_row lf_loss_cross_entropy = {
    .plan = plan,
    .run = lf_spec_run_direct,
    .grad = lf_spec_grad_direct,
    .guard_check = guard_check,
};
