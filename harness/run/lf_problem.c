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

void lf_problem_init(const lf_case *c, lf_problem *p, int path)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    p->log_softmax = c->loss == LF_LOSS_CROSS_ENTROPY;
    p->reduction = c->reduction == LF_REDUCTION_NONE ? LF_RED_NONE
                 : c->reduction == LF_REDUCTION_SUM  ? LF_RED_SUM : LF_RED_MEAN;
    p->ignore_index = c->ignore_index;
    p->in_dtype = c->input.dtype;
    p->tgt_dtype = c->target.dtype;
    p->out_dtype = c->input.dtype;
    p->has_weight = c->weight.present;
    p->w_dtype = c->weight.present ? c->weight.dtype : LF_F32;
    p->has_pos_weight = c->pos_weight.present;
    p->pw_dtype = c->pos_weight.present ? c->pos_weight.dtype : LF_F32;
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
