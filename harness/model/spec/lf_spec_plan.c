/* lf_spec_plan.c - PyTorch's host-side checks of the class-index losses
 * (nll_loss; cross_entropy after its own, harness/losses/lf_loss_cross_entropy.c),
 * in the order PyTorch runs them (torch/nn/functional.py,
 * aten/src/ATen/native/LossNLL.cpp, LossNLL2d.cpp), and the routing of a
 * valid call to its kernels. */
#include <stdio.h>
#include <string.h>

#include "lf_loss_row.h"
#include "lf_problem.h"
#include "lf_shape.h"
#include "lf_spec.h"

/* The class-index NLL step (nll_loss, nll_loss2d), after log_softmax. */
/* nll_loss's checks: TORCH_META_FUNC(nll_loss_forward), 2.15 order; then its kernel. */
static bool plan_nll(const lf_case *c, lf_problem *p, lf_result *r)
{
    const lf_tensor *tg = &c->target, *w = &c->weight, *in = &c->input;
    char wshape[128];
    lf_format_shape(wshape, sizeof wshape, w->shape, w->ndim);
    if (tg->ndim > 1) {
        lf_result_error(r, "target_shape", "RuntimeError",
                        "0D or 1D target tensor expected, multi-target not supported");
        return false;
    }
    if (tg->dtype != LF_I64 && tg->dtype != LF_U8) {
        lf_result_error(r, "target_dtype", "RuntimeError", "expected target dtype to be Long or Byte, but got %s",
                        lf_torch_type_name(tg->dtype));
        return false;
    }
    if (in->ndim == 1 && tg->ndim == 1 && tg->shape[0] != 1) {
        lf_result_error(r, "target_shape", "ValueError",
                        "For 1D input, 1D target must have size 1, but got target size: %lld", (long long)tg->shape[0]);
        return false;
    }
    if (w->present && (w->ndim != 1 || w->numel != p->C)) {
        lf_result_error(r, "weight_shape", "RuntimeError",
                        "weight tensor should be defined either for all %lld classes or no classes but got weight "
                        "tensor of shape: %s",
                        (long long)p->C, wshape);
        return false;
    }
    p->kernel_id = p->one_d                      ? LF_K_NLL_REDUCE_1D
                   : p->reduction == LF_RED_NONE ? LF_K_NLL_NO_REDUCE
                                                 : LF_K_NLL_REDUCE_2D;
    return true;
}

/* nll_loss2d's, directly (4-D) or after the (N, C, 1, -1) reshape; then its kernel. */
static bool plan_nll2d(const lf_case *c, lf_problem *p, lf_result *r, bool unchecked)
{
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    char ishape[128], tshape[128];
    lf_format_shape(ishape, sizeof ishape, in->shape, in->ndim);
    lf_format_shape(tshape, sizeof tshape, tg->shape, tg->ndim);
    if (in->ndim == 4 && tg->ndim != 3) {
        lf_result_error(r, "target_shape", "RuntimeError",
                        "only batches of spatial targets supported (3D tensors) but got targets of dimension: %d",
                        tg->ndim);
        return false;
    }
    if (in->ndim != 4 &&
        (tg->ndim != in->ndim - 1 || memcmp(tg->shape + 1, in->shape + 2, sizeof(int64_t) * (size_t)(in->ndim - 2)))) {
        char want[128];
        int64_t ws[LF_MAX_DIMS];
        ws[0] = in->shape[0];
        memcpy(ws + 1, in->shape + 2, sizeof(int64_t) * (size_t)(in->ndim - 2));
        lf_format_shape(want, sizeof want, ws, in->ndim - 1);
        lf_result_error(r, "target_shape", "RuntimeError", "Expected target size %s, got %s", want, tshape);
        return false;
    }
    if (w->present && w->numel != p->C) {
        lf_result_error(r, "weight_shape", "RuntimeError",
                        "weight tensor should be defined either for all or no classes");
        return false;
    }
    if (in->ndim == 4 && memcmp(tg->shape + 1, in->shape + 2, 2 * sizeof(int64_t))) {
        lf_result_error(r, "target_shape", "RuntimeError",
                        "input and target batch or spatial sizes don't match: target %s, input %s", tshape, ishape);
        return false;
    }
    /* The reshape views an input without elements as [N, C, 0, 0] and a
     * target with some as [N, 1, -1]: with C = 0 they no longer match. */
    if (in->ndim != 4 && in->numel == 0 && tg->numel > 0) {
        lf_result_error(r, "target_shape", "RuntimeError",
                        "input and target batch or spatial sizes don't match: target [%lld, 1, %lld], "
                        "input [%lld, %lld, 0, 0]",
                        (long long)tg->shape[0], (long long)(tg->numel / tg->shape[0]), (long long)in->shape[0],
                        (long long)in->shape[1]);
        return false;
    }
    if (tg->dtype != LF_I64 && !unchecked) {
        lf_result_error(r, "target_dtype", "RuntimeError", "expected scalar type Long but found %s",
                        lf_torch_type_name(tg->dtype));
        return false;
    }
    p->kernel_id = p->reduction == LF_RED_NONE ? LF_K_NLL2D_NO_REDUCE : LF_K_NLL2D_REDUCE;
    return true;
}

bool lf_spec_plan_class(const lf_case *c, lf_problem *p, lf_result *r, double smoothing)
{
    const lf_tensor *in = &c->input, *tg = &c->target, *w = &c->weight;
    if (in->ndim != 1 && tg->ndim == 0 && in->shape[0] != 0) {
        /* nll_loss_nd reads target.sizes()[0] of a 0-D target: 2.15 reports batch size 0 */
        lf_result_error(r, "batch_size_mismatch", "ValueError",
                        "Expected input batch_size (%lld) to match target batch_size (0).", (long long)in->shape[0]);
        return false;
    }
    if (in->ndim == 2 && tg->ndim == 0 && tg->dtype != LF_I64 && tg->dtype != LF_U8) {
        /* an empty batch passes nll_loss_nd's check; nll_loss's meta function reads the target's dtype first */
        lf_result_error(r, "target_dtype", "RuntimeError", "expected target dtype to be Long or Byte, but got %s",
                        lf_torch_type_name(tg->dtype));
        return false;
    }
    if (in->ndim != 1 && tg->ndim == 0) {
        lf_result_error(r, "target_shape", "IndexError", "dimension specified as 0 but tensor has no dimensions");
        return false;
    }
    if (in->ndim != 1 && in->shape[0] != tg->shape[0]) {
        lf_result_error(r, "batch_size_mismatch", "ValueError",
                        "Expected input batch_size (%lld) to match target batch_size (%lld).", (long long)in->shape[0],
                        (long long)tg->shape[0]);
        return false;
    }
    lf_problem_init(c, p, LF_CLASS_TARGETS);
    lf_problem_layout(in, p);
    p->label_smoothing = smoothing;
    lf_problem_class_out_dtype(c, p);
    bool unchecked = lf_class_dtype_checks_skipped(c);
    if (!(in->ndim <= 2 ? plan_nll(c, p, r) : plan_nll2d(c, p, r, unchecked))) return false;
    if (w->present && w->dtype != in->dtype && !unchecked) {
        lf_result_error(r, "weight_dtype", "RuntimeError", "expected scalar type %s but found %s",
                        lf_torch_type_name(in->dtype), lf_torch_type_name(w->dtype));
        return false;
    }
    return true;
}

bool lf_spec_plan_nll_loss(const lf_case *c, lf_problem *p, lf_result *r)
{
    if (c->input.ndim < 1) {
        lf_result_error(r, "input_dim", "ValueError", "Expected 1 or more dimensions (got 0)");
        return false;
    }
    return lf_spec_plan_class(c, p, r, 0);
}

int64_t lf_plan_out_numel(const lf_problem *p, bool *scalar)
{
    if (lf_kernels_per_row(p->kernels)) { /* [N] for reduction none and a target with a dim */
        *scalar = p->reduction != LF_RED_NONE || p->tg_ndim == 0;
        return *scalar ? 1 : p->N;
    }
    *scalar = p->reduction != LF_RED_NONE || p->one_d || (p->targets == LF_BINARY_TARGETS && p->ndim == 0);
    if (*scalar) return 1;
    return p->targets == LF_BINARY_TARGETS ? p->N : p->N * p->S;
}

int64_t lf_spec_first_assert(const lf_case *c, const lf_problem *p)
{
    if (p->targets != LF_CLASS_TARGETS) return -1; /* probability targets and BCE never assert */
    int64_t rows = p->one_d ? 1 : p->N * p->S;
    for (int64_t i = 0; i < rows; i++) {
        int64_t t = lf_label_read(p->kernel_id, c->target.dtype, lf_load_i64(c->target.data, c->target.dtype, i));
        if (t != c->ignore_index && !(t >= 0 && t < p->C)) return i;
    }
    return -1;
}

int64_t lf_spec_gather_assert(const lf_case *c, const lf_problem *p)
{
    if (!lf_smooth_gathers(p)) return -1;
    int64_t rows = p->one_d ? 1 : p->N * p->S;
    for (int64_t i = 0; i < rows; i++) {
        int64_t raw = lf_load_i64(c->target.data, c->target.dtype, i);
        if (lf_smooth_kept(raw, c->ignore_index, c->target.dtype) && !(raw >= 0 && raw < p->C)) return i;
    }
    return -1;
}

bool lf_spec_error_after_nll(const lf_case *c, const lf_problem *p, lf_result *r)
{
    const lf_tensor *w = &c->weight;
    const lf_loss_row *row = lf_loss_row_of(c->loss);
    if (row->error_after) return row->error_after(c, p, r);
    if (!(p->targets == LF_CLASS_TARGETS && p->label_smoothing > 0)) return false;
    /* The smoothing term views the weight as [1, .., weight.size(0), .., 1]:
     * nll_loss counted its elements only, this needs them along dim 0. */
    if (w->present && w->ndim == 0) {
        lf_result_error(r, "weight_shape", "IndexError", "Dimension specified as 0 but tensor has no dimensions");
        return true;
    }
    if (w->present && w->shape[0] != w->numel) {
        int64_t view[LF_MAX_DIMS];
        char vs[128];
        for (int d = 0; d < c->input.ndim; d++) view[d] = 1;
        view[c->input.ndim == 1 ? 0 : 1] = w->shape[0];
        lf_format_shape(vs, sizeof vs, view, c->input.ndim);
        lf_result_error(r, "weight_shape", "RuntimeError", "shape '%s' is invalid for input of size %lld", vs,
                        (long long)w->numel);
        return true;
    }
    /* The smoothing term of a 1-D input (shape []) masked in place by a [1] target's mask (torch 2.15; composite
     * code, every device) */
    if (c->input.ndim == 1 && c->target.ndim == 1) {
        lf_result_error(r, "broadcast", "RuntimeError", "output with shape [] doesn't match the broadcast shape [1]");
        return true;
    }
    /* Mean divides by weight.gather(0, the targets not ignored), which checks
     * its index only when there is one: int64, and of the weight's dims. */
    if (!w->present || p->reduction != LF_RED_MEAN || !lf_any_target_kept(c)) return false;
    if (w->ndim >= 2) {
        lf_result_error(r, "weight_shape", "RuntimeError",
                        "Index tensor must have the same number of dimensions as input tensor");
        return true;
    }
    if (c->target.dtype == LF_I64) return false;
    lf_result_error(r, "target_dtype", "RuntimeError", "gather(): Expected dtype int64 for index");
    return true;
}
