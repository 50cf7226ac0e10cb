/* lf_case_check.c - a case's options, against its loss and the ranges lossfuzz
 * takes (lf_case_check_options), and whether it calls the LLM family's. Above
 * lf_case.c (the case and its tensors) and lf_options.c (the options' table). */
#include "lf_case.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

bool lf_case_llm_call(const lf_case *c)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if ((LF_OPT_LLM >> o & 1) && lf_case_given(c, o)) return true;
    return false;
}

bool lf_case_beyond_pytorch(const lf_case *c)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if ((LF_OPT_LLM >> o & 1) && lf_case_option_on(c, o)) return true;
    return c->vocab_last && c->input.ndim >= 3;
}

/* The options' values lossfuzz refuses (lf_options.def's VALID), not PyTorch. */
static bool check_ranges(const lf_case *c, char *err, size_t errlen)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++) {
        const lf_option_info *O = lf_option_of(o);
        double v = O->ranged ? lf_case_option_value(c, o) : 0;
        if (!O->ranged || (v >= O->lo && v <= O->hi)) continue;
        if (O->lo == -DBL_MAX && O->hi == DBL_MAX)
            snprintf(err, errlen, "%s: %g is not finite", O->name, v);
        else if (O->hi == DBL_MAX)
            snprintf(err, errlen, "%s: %g; expected a finite number >= %g", O->name, v, O->lo);
        else
            snprintf(err, errlen, "%s: %g; expected a number from %g to %g", O->name, v, O->lo, O->hi);
        return false;
    }
    return true;
}

/* The LLM family's rules a case file must keep (docs/llm-cross-entropy.md):
 * a batch dim, a mask per row, shards of the classes. */
static bool check_llm(const lf_case *c, char *err, size_t errlen)
{
    if (c->n_items > 0 && c->reduction == LF_REDUCTION_NONE) {
        snprintf(err, errlen, "n_items: divides a sum; reduction \"none\" has none");
        return false;
    }
    bool fused = lf_loss_of(c->loss)->fused_linear;
    if (lf_case_llm_call(c) && (fused ? c->input.ndim != 2 : c->input.ndim < 2)) {
        snprintf(err, errlen, "the LLM options take logits with a batch dim ([N, V], [B, T, V] or [N, V, d1...])");
        return false;
    }
    if (c->loss_mask.present) { /* the logits' shape without its class dim */
        const lf_tensor *m = &c->loss_mask;
        int64_t shape[LF_MAX_DIMS];
        int n = lf_case_row_shape(c, shape);
        if (!(lf_dtype_is_float(m->dtype) || m->dtype == LF_BOOL) || m->ndim != n ||
            memcmp(m->shape, shape, sizeof(int64_t) * (size_t)n)) {
            snprintf(err, errlen,
                     "loss_mask: a float or bool per row of the logits (their shape without the class dim)");
            return false;
        }
    }
    if (c->world_size < 1 || c->world_size > LF_MAX_WORLD || (c->n_shards && c->n_shards != c->world_size)) {
        snprintf(err, errlen, "world_size: 1 to %d, with a shard size per rank when shards are given", LF_MAX_WORLD);
        return false;
    }
    int64_t total = 0;
    for (int r = 0; r < c->n_shards; r++) total += c->shards[r] >= 0 ? c->shards[r] : INT64_MIN / LF_MAX_WORLD;
    if (c->n_shards && total != lf_case_classes(c)) {
        snprintf(err, errlen, "shards: sizes >= 0 that add up to the classes (%lld)", (long long)lf_case_classes(c));
        return false;
    }
    return true;
}

bool lf_case_check_options(const lf_case *c, char *err, size_t errlen)
{
    const lf_loss_info *L = lf_loss_of(c->loss);
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_case_given(c, o) && !(lf_loss_options(c->loss) >> o & 1)) {
            const char *name = lf_option_of(o)->name;
            snprintf(err, errlen, "%s: %s takes no %s", name, L->name, name);
            return false;
        }
    if (c->linear_weight.present && !L->fused_linear) {
        snprintf(err, errlen, "linear_weight: %s takes no linear_weight", L->name);
        return false;
    }
    if (!check_ranges(c, err, errlen) || !check_llm(c, err, errlen)) return false;
    if (L->fused_linear) {
        const lf_tensor *lw = &c->linear_weight, *lb = &c->linear_bias;
        if (!lw->present) {
            snprintf(err, errlen, "linear_weight: linear_cross_entropy needs linear_weight ([V, H] for input [N, H])");
            return false;
        }
        /* F.linear's answers to mixed dtypes depend on the shapes (an empty
         * product skips the check in torch 1.13) and are not cross-entropy's: not
         * modelled. The shapes are torch's to check (lf_spec_linear.c). */
        if (lw->dtype != c->input.dtype || (lb->present && lb->dtype != c->input.dtype)) {
            snprintf(err, errlen,
                     "linear_weight, linear_bias: lossfuzz models linear_cross_entropy with input, "
                     "linear_weight and linear_bias of one dtype");
            return false;
        }
        if (lf_case_llm_call(c) && lw->ndim != 2) {
            snprintf(err, errlen, "linear_weight: the LLM options take a linear weight [V, H]");
            return false;
        }
    }
    return true;
}
