/* lf_spec_llm.c - the LLM cross-entropy family's options (harness/model/case/lf_options.def;
 * docs/llm-cross-entropy.md) on PyTorch's own composition: the row's logits
 * scaled, then capped; the row's share of the loss (the loss mask); its
 * z-loss; the divisor n_items. lf_spec_eval.c and lf_spec_grad.c compute
 * F.cross_entropy's rows as PyTorch does and read these, so a case with every
 * option off is PyTorch's call by construction: one set of rules. The
 * definitions the public kernels share, read at these commits:
 *   scale, then cap: unsloth kernels/cross_entropy_loss.py (3f7b8d0, `logit_scaling`, `logit_softcapping`);
 *   softcap * tanh(x / softcap): Liger-Kernel ops/cross_entropy.py (v0.5, `softcap`), Gemma 2's final logits;
 *   z-loss = scale * lse^2 per row: flash-attention ops/triton/cross_entropy.py (v2.6, `lse_square_scale`),
 *     Liger `lse_square_scale` (its CE mean over the target weights, its z-loss over the counted rows);
 *   n_items: unsloth `n_items`, transformers loss/loss_utils.py `num_items_in_batch` (sum / count);
 *   the loss mask: Megatron-LM's training loop, sum(loss * mask) / mask.sum().
 * Where the sources disagree the doc says which one is followed. */
#include <math.h>
#include <stdlib.h>

#include "lf_spec.h"

double lf_spec_llm_mask(const lf_case *c, int64_t i)
{
    return c->loss_mask.present ? lf_load_f64(c->loss_mask.data, c->loss_mask.dtype, i) : 1.0;
}

/* the unit of float (float64 for float64 input): what a kernel computes y and lse in */
static double unit_of(const lf_case *c) { return lf_dtype_eps(lf_spec_acc_dtype(c)) / 2; }

void lf_spec_llm_logits(const lf_case *c, const lf_problem *p, int64_t i, int64_t base, double *y, double *dydx,
                        lf_row *row)
{
    double scale = c->logit_scale, cap = c->softcap, max = lf_dtype_max(c->input.dtype);
    bool computed = scale != 1 || cap > 0;
    *row = (lf_row){.r = lf_spec_llm_mask(c, i)};
    for (int64_t k = 0; k < p->C; k++) {
        double v = scale * lf_load_f64(c->input.data, c->input.dtype, base + k * p->S);
        dydx[k] = scale;
        /* scale * x past the input dtype: torch's product there is inf (then NaN), a kernel's in float a number */
        row->made |= isfinite(v) && fabs(v) > max;
        row->nonfinite |= fabs(v) > max;
        if (cap > 0) {
            double t = tanh(v / cap);
            v = cap * t;
            dydx[k] = scale * (1 - t * t);
        }
        y[k] = v;
        row->nonfinite |= !isfinite(v);
        if (computed) row->y_abs = fmax(row->y_abs, fabs(v));
    }
    /* a logit given as inf or NaN is the plain spec's answer; one the options made or passed through (scaled, then
     * capped to a number): torch's composition's inf or NaN where a kernel in float keeps a number */
    row->undecided = row->made || (row->nonfinite && computed);
}

double lf_spec_llm_extra(const lf_case *c, double tol_unit, const lf_row *row)
{
    return 2 * row->y_abs * unit_of(c) / tol_unit;
}

void lf_spec_llm_row(const lf_case *c, const lf_problem *p, bool counted, double tol_unit, lf_row *row)
{
    double zs = c->z_loss_scale;
    row->lse_extra = row->extra + fabs(row->lse) * unit_of(c) / tol_unit; /* and lse's max's rounding */
    row->counted = counted;
    double acc_max = lf_dtype_max(lf_spec_acc_dtype(c));
    double z_max = fmin(lf_dtype_max(p->out_dtype), acc_max);
    if (!counted) { /* ignored: 0 whatever its logits, neither counted nor differentiated - but a z-loss past
                     * float's range there is a kernel's inf times its mask of 0 (NaN) where one that skips the row
                     * has 0: neither is judged */
        row->undecided = zs != 0 && fabs(zs * row->lse * row->lse) > z_max;
        return;
    }
    row->z = zs != 0 ? zs * row->lse * row->lse : 0; /* off: 0, whatever lse is */
    row->z_mag = zs * 2 * fabs(row->lse) * row->lse_extra;
    /* a masked row (0) with a non-finite logit: the definitions' 0 * NaN, or a kernel's 0 for a row it skips */
    row->undecided |= row->nonfinite && row->r == 0;
    /* lse * lse past the output dtype (the definitions' torch composition) or float's (a kernel's sum): inf there,
     * and NaN times a mask of 0, where a kernel in float keeps a number */
    row->undecided |= fabs(row->z) > z_max;
}

double lf_spec_llm_divisor(const lf_case *c, double mean)
{
    double n_items = c->n_items;
    return n_items > 0 ? n_items : mean;
}
