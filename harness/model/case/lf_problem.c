/* lf_problem.c - the options, dtypes and memory layout of a case, copied into a kernel problem. */
#include <string.h>

#include "lf_layout.h"
#include "lf_problem.h"

void lf_problem_views(const lf_case *c, lf_problem *p)
{
    const lf_tensor *in = &c->input, *tg = &c->target;
    p->ndim = in->ndim;
    memcpy(p->shape, in->shape, sizeof(int64_t) * (size_t)in->ndim);
    lf_layout_strides(in, p->in.stride);
    p->in.off = in->strided ? in->offset : 0;
    p->in.dense = !in->strided;
    p->tg_ndim = tg->ndim;
    memcpy(p->tg_shape, tg->shape, sizeof(int64_t) * (size_t)tg->ndim);
    lf_layout_strides(tg, p->tg.stride);
    p->tg.off = tg->strided ? tg->offset : 0;
    p->tg.dense = !tg->strided;
}

void lf_problem_init(const lf_case *c, lf_problem *p, int targets)
{
    memset(p, 0, sizeof *p);
    p->targets = targets;
    p->kernels = LF_KERNELS_CLASSES; /* the class-index losses'; another loss's routing picks its own */
    const lf_loss_info *L = lf_loss_of(c->loss);
    p->log_softmax = L->log_softmax && !L->fused_linear; /* a fused linear's input is hidden states, not logits */
    p->reduction = c->reduction == LF_REDUCTION_NONE  ? LF_RED_NONE
                   : c->reduction == LF_REDUCTION_SUM ? LF_RED_SUM
                                                      : LF_RED_MEAN;
    p->ignore_index = lf_case_ignored_label(c);
    p->in_dtype = c->input.dtype;
    p->tgt_dtype = c->target.dtype;
    p->out_dtype = c->input.dtype;
    p->has_weight = c->weight.present;
    p->w_dtype = c->weight.present ? c->weight.dtype : LF_F32;
    p->has_pos_weight = c->pos_weight.present;
    p->pw_dtype = c->pos_weight.present ? c->pos_weight.dtype : LF_F32;
    /* torch's result_type: a 0-d pos_weight does not raise a float target with dims of its own (float32 1e30
     * times a float16 target is float16: inf, and NaN for a target of 0; torch 2.15 on the CPU, composite code) */
    bool zero_d = c->pos_weight.ndim == 0 && c->target.ndim > 0 && lf_dtype_is_float(c->target.dtype);
    p->lw_dtype = !c->pos_weight.present ? LF_F32
                  : zero_d               ? c->target.dtype
                                         : lf_dtype_promote(c->pos_weight.dtype, c->target.dtype);
    p->N = p->C = p->S = 1;
    lf_problem_views(c, p);
}

void lf_problem_layout(const lf_tensor *in, lf_problem *p)
{
    p->one_d = in->ndim == 1;
    p->C = in->shape[p->one_d ? 0 : 1];
    p->N = p->one_d ? 1 : in->shape[0];
    p->S = 1;
    for (int d = 2; d < in->ndim; d++) p->S *= in->shape[d];
}

/* Read in PyTorch's source (main, 2026): nll_loss (1-D/2-D input) checks the
 * target's dtype in its meta function and the weight's at the top of its CUDA
 * forward, before either returns for an empty batch (PRs 175151 and 172018,
 * CPU/CUDA parity: test_modules.py's NLLLoss error input); nll_loss2d (4-D
 * input, and 3-D or 5-D+ after nll_loss_nd's reshape) returns for a target
 * without elements before it reads either tensor, forward and backward. */
bool lf_class_dtype_checks_skipped(const lf_case *c) { return c->input.ndim > 2 && c->target.numel == 0; }

/* cross_entropy_loss_label_smoothing adds -(input * weight).sum(class_dim) to
 * nll_loss's result: type promotion, no dtype check. A weight of another
 * dtype gets there only past a skipped check (an empty spatial batch). */
void lf_problem_class_out_dtype(const lf_case *c, lf_problem *p)
{
    if (p->label_smoothing > 0 && c->weight.present) p->out_dtype = lf_dtype_promote(c->input.dtype, c->weight.dtype);
}
