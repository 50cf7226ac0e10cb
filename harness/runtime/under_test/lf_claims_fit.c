/* lf_claims_fit.c - a fuzzed case moved inside a kernel's claims where it
 * is one field away: nll_loss <-> cross_entropy, the input (and the tensors
 * of its dtype) cast to a claimed dtype, integer labels to a claimed dtype, a
 * claimed reduction, an unclaimed weight, bias, ignore_index or smoothing
 * left out. `lossfuzz fuzz` does this before the oracle: without it most
 * cases of a kernel that claims a few dtypes and options were skipped as
 * outside its claims (98% of a three-bug campaign's). Not in the fuzz
 * targets: there a skipped case is cheap, and libFuzzer, weighing inputs by
 * their time, then tried fewer wide rows (a bfloat16-sum bug took 12-60 s,
 * 5 s without). A case given to `lossfuzz check` runs as it is. */
#include <stdio.h>

#include "lf_kernel_claims.h"
#include "lf_layout.h"
#include "lf_tensor_ops.h"

/* The claimed dtype of kernel.h's bits to cast to: the first (lowest bit) one. */
static bool first_claimed(unsigned bits, bool floating, lf_dtype *out)
{
    for (int d = 0; d < LF_DTYPE_COUNT; d++)
        if ((bits & lf_kernel_dtype_bit((lf_dtype)d)) && lf_dtype_is_float((lf_dtype)d) == floating) {
            *out = (lf_dtype)d;
            return true;
        }
    return false;
}

static void cast(lf_tensor *t, lf_dtype to)
{
    lf_tensor out;
    if (!t->present || t->dtype == to || !lf_tensor_cast(t, to, &out)) return;
    out.present = true;
    lf_tensor_free(t);
    *t = out;
}

static void drop(lf_tensor *t)
{
    if (t->present) lf_tensor_free(t);
}

/* An API without ignore_index: each ignored label becomes class 0, a row it counts (a case without classes stays). */
static void label_ignored_rows(lf_case *c)
{
    if (!lf_case_any_ignored(c) || lf_case_classes(c) < 1) return;
    for (int64_t i = 0; i < c->target.numel; i++)
        if (lf_load_i64(c->target.data, c->target.dtype, i) == c->ignore_index)
            lf_store_i64(c->target.data, c->target.dtype, i, 0);
    c->target.generated = false;
    lf_layout_settle(&c->target); /* an expanded target's elements that share memory keep one value */
}

void lf_kernel_claims_fit(const lf_kernel_claims *k, lf_case *c)
{
    unsigned loss = lf_kernel_loss_bit(c, k->losses);
    if (loss == LOSSFUZZ_NLL && !(k->losses & loss) && (k->losses & LOSSFUZZ_CROSS_ENTROPY))
        c->loss = LF_LOSS_CROSS_ENTROPY;
    if (loss == LOSSFUZZ_CROSS_ENTROPY && !(k->losses & loss) && (k->losses & LOSSFUZZ_NLL)) c->loss = LF_LOSS_NLL;
    lf_dtype was = c->input.dtype, to;
    if (!(k->input_dtypes & lf_kernel_dtype_bit(was)) && first_claimed(k->input_dtypes, true, &to)) {
        lf_tensor *same[] = {&c->input, &c->weight, &c->pos_weight, &c->linear_weight, &c->linear_bias, &c->target};
        for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
            if (same[i]->present && same[i]->dtype == was) cast(same[i], to);
    }
    /* integer labels only: a float label cast to an integer is not a label it had */
    if (!lf_dtype_is_float(c->target.dtype) && !(k->target_dtypes & lf_kernel_dtype_bit(c->target.dtype)) &&
        first_claimed(k->target_dtypes, false, &to))
        cast(&c->target, to);
    if (c->reduction == LF_REDUCTION_INVALID || !(k->reductions & LOSSFUZZ_REDUCTION_BIT(c->reduction)))
        for (int r = LF_REDUCTION_NONE; r < LF_REDUCTION_INVALID; r++)
            if (k->reductions & LOSSFUZZ_REDUCTION_BIT(r)) {
                c->reduction = (lf_reduction)r;
                static const char *const names[] = {"none", "mean", "sum"};
                snprintf(c->reduction_name, sizeof c->reduction_name, "%s", names[r]);
                c->has_reduction = true;
                break;
            }
    if (!(k->features & LOSSFUZZ_WEIGHT)) drop(&c->weight);
    if (!(k->features & LOSSFUZZ_POS_WEIGHT)) drop(&c->pos_weight);
    if (!(k->features & LOSSFUZZ_LINEAR_BIAS)) drop(&c->linear_bias);
    if (!(k->features & LOSSFUZZ_IGNORE_INDEX)) lf_case_option_off(c, LF_OPTION_IGNORE_INDEX);
    if (!(k->features & LOSSFUZZ_LABEL_SMOOTHING)) lf_case_option_off(c, LF_OPTION_LABEL_SMOOTHING);
    if (k->deviations.no_ignore_index) label_ignored_rows(c);
    lf_llm_claims_fit(&k->llm, c);
}
