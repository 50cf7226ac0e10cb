/* lf_loss_bce_logits.c - binary_cross_entropy_with_logits' home (lf_loss_row.h): its
 * values and gradients in the shared code (harness/model/spec/lf_spec_eval.c,
 * lf_spec_grad.c), its kernels in kernels/losses/lf_bce_logits.inc. */
#include <string.h>

#include "lf_guard.h"
#include "lf_loss_row.h"
#include "lf_oracle.h"
#include "lf_problem.h"
#include "lf_shape.h"
#include "lf_spec.h"

/* The spec: torch.nn.functional's size check, then Loss.cpp's. */
static bool plan(const lf_case *c, lf_problem *p, lf_result *r)
{
    const lf_tensor *in = &c->input, *tg = &c->target;
    char ishape[128], tshape[128];
    if (!lf_same_shape(in, tg)) {
        lf_format_shape(ishape, sizeof ishape, in->shape, in->ndim);
        lf_format_shape(tshape, sizeof tshape, tg->shape, tg->ndim);
        lf_result_error(r, "bce_target_shape", "ValueError",
                        "Target size (torch.Size(%s)) must be the same as input size (torch.Size(%s))", tshape, ishape);
        return false;
    }
    lf_problem_init(c, p, LF_BINARY_TARGETS);
    p->N = in->numel;
    p->kernels = LF_KERNELS_BCE_LOGITS;
    /* Loss.cpp's order (2.15): log_sigmoid(input).mul_(log_weight) broadcasts pos_weight in place, then
     * (1 - target).mul_(input) casts into the target's dtype, then loss.mul_(weight) */
    const lf_tensor *extra[2] = {&c->pos_weight, &c->weight};
    int64_t *strides[2] = {p->pw_stride, p->w_stride};
    for (int k = 0; k < 2; k++) {
        if (k == 1 && !lf_dtype_is_float(tg->dtype)) {
            lf_result_error(r, "bce_target_dtype", "RuntimeError",
                            "result type %s can't be cast to the desired output type %s", lf_torch_type_name(in->dtype),
                            lf_torch_type_name(tg->dtype));
            return false;
        }
        if (!extra[k]->present || lf_broadcast_strides(extra[k], in, strides[k])) continue;
        char eshape[128];
        lf_format_shape(ishape, sizeof ishape, in->shape, in->ndim);
        lf_format_shape(eshape, sizeof eshape, extra[k]->shape, extra[k]->ndim);
        lf_result_error(r, "broadcast", "RuntimeError", "%s of shape %s does not broadcast to input shape %s",
                        k ? "weight" : "pos_weight", eshape, ishape);
        return false;
    }
    p->out_dtype = tg->dtype; /* (1 - target).mul_(input): the in-place chain keeps the target's dtype */
    return true;
}

/* The guard's own checks (not the spec's: the spec is its oracle). */
static bool guard_check(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data)
{
    (void)needs_data; /* its hints read no target values */
    const lf_tensor *in = &c->input, *tg = &c->target;
    char is[128], ts[128];
    lf_format_shape(is, sizeof is, in->shape, in->ndim);
    lf_format_shape(ts, sizeof ts, tg->shape, tg->ndim);
    if (!lf_same_shape(in, tg)) {
        bool indices = in->ndim == 2 && tg->ndim == 1 && !lf_dtype_is_float(tg->dtype);
        return lf_guard_reject(
            r, "bce_target_shape", indices ? "class_indices_to_bce" : NULL,
            indices ? "these look like class indices: use cross_entropy, or F.one_hot(target, C).float()" : NULL,
            "target of shape %s must have the input's shape %s", ts, is);
    }
    lf_problem_init(c, p, LF_BINARY_TARGETS);
    p->N = in->numel;
    p->kernels = LF_KERNELS_BCE_LOGITS;
    /* pos_weight, the target's dtype, then the weight: the order PyTorch 2.15 applies them in */
    if (c->pos_weight.present && !lf_broadcast_strides(&c->pos_weight, in, p->pw_stride))
        return lf_guard_reject(r, "broadcast", NULL, "pos_weight is per class: shape [C] for input [..., C]",
                               "pos_weight does not broadcast to the input's shape %s", is);
    if (!lf_dtype_is_float(tg->dtype))
        return lf_guard_reject(r, "bce_target_dtype", NULL, "convert the target with target.float()",
                               "binary targets must be floating point, got %s", lf_dtype_name(tg->dtype));
    if (c->weight.present && !lf_broadcast_strides(&c->weight, in, p->w_stride))
        return lf_guard_reject(r, "broadcast", NULL, NULL, "weight does not broadcast to the input's shape %s", is);
    p->out_dtype = tg->dtype;
    return true;
}

/* The known differences only it shows (lf_oracle.h). */
static bool dtype_before_broadcast(const lf_case *c, const lf_result *s, const lf_result *t)
{
    (void)c;
    return lf_known_host_error(s, "broadcast") && lf_known_host_error(t, "bce_target_dtype");
}

static const lf_known_rule known[] = {
    {{"bce_dtype_before_broadcast", "", "", "2.15", "aten/src/ATen/native/Loss.cpp; torch 1.13 and 2.15 measured",
      "torch 1.13's BCE-with-logits raises the result-type error of an integer target before the broadcast "
      "error of a pos_weight larger than its 0-d input; 2.15 the broadcast first"},
     dtype_before_broadcast},
};

const lf_loss_row lf_loss_bce_logits = {
    .plan = plan,
    .run = lf_spec_run_direct,
    .grad = lf_spec_grad_direct,
    .guard_check = guard_check,
    .known = known,
    .n_known = LF_COUNT_OF(known),
};
