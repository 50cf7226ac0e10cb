/* lf_guard_one_hot.c - a float one-hot target of the input's shape. PyTorch
 * reads it as class probabilities (the probability path), which is legal and
 * rarely meant. The loss equals the class-index loss except for a weighted
 * mean: the probability path divides by the number of targets, the
 * class-index path by the sum of the target classes' weights. There the
 * warning gives the class-index loss, computed by the guard itself (lf_guard_run.c)
 * on the argmax'd target, so the user can see which one they are training with. */
#include <string.h>

#include "lf_guard.h"

bool lf_guard_all_one_hot(const lf_problem *p, const lf_target_stats *st)
{
    return p->targets == LF_PROB_TARGETS && p->N * p->S > 0 && st->n_rows_one_hot == p->N * p->S;
}

/* target.argmax(dim=1) as an int64 tensor (0-D for a 1-D input), and the sum
 * of the weights of the classes it picks. */
static bool argmax_target(const lf_case *c, const lf_problem *p, lf_tensor *out, double *weight_sum)
{
    const lf_tensor *in = &c->input;
    int64_t shape[LF_MAX_DIMS];
    int ndim = 0;
    char err[128];
    for (int d = 0; d < in->ndim; d++)
        if (d != (p->one_d ? 0 : 1)) shape[ndim++] = in->shape[d]; /* the class dim goes */
    memset(out, 0, sizeof *out);
    if (!lf_tensor_alloc(out, LF_I64, ndim, shape, err, sizeof err)) return false;
    *weight_sum = 0;
    for (int64_t r = 0; r < p->N * p->S; r++) {
        int64_t base = (r / p->S) * p->C * p->S + r % p->S, hot = 0;
        for (int64_t k = 0; k < p->C; k++)
            if (lf_load_f64(c->target.data, c->target.dtype, base + k * p->S) == 1.0) hot = k;
        lf_store_i64(out->data, LF_I64, r, hot);
        *weight_sum += c->weight.present ? lf_load_f64(c->weight.data, c->weight.dtype, hot) : 1.0;
    }
    return true;
}

bool lf_guard_one_hot_indices(const lf_case *c, const lf_problem *p, lf_case *eq, double *weight_sum)
{
    if (!(p->has_weight && p->reduction == LF_RED_MEAN)) return false;
    *eq = *c; /* borrows c's tensors but the target */
    eq->expect_value = NULL;
    return argmax_target(c, p, &eq->target, weight_sum);
}

void lf_guard_warn_one_hot(const lf_problem *p, const lf_result *q, double weight_sum, lf_result *r)
{
    const char *argmax = p->one_d ? "target.argmax()" : "target.argmax(dim=1)";
    const char *why = "every target row is one-hot, but the target has the input's shape, so PyTorch takes the "
                      "probability path, not class indices";
    if (!q)
        lf_guard_warn(r, "one_hot_probabilities",
                      "%s; the loss is the same here, but if class indices were "
                      "meant, pass %s",
                      why, argmax);
    else if (!strcmp(q->error, "oob_write")) /* the class-index kernels of this run wrote out of bounds */
        lf_result_error(r, q->error, q->exception, "%s", q->message);
    else if (q->kind == LF_OUTCOME_OK && q->n == 1)
        lf_guard_warn(r, "one_hot_probabilities",
                      "%s: with weight and reduction='mean' its mean divides by "
                      "the %lld targets, not by the sum of the target classes' weights (%.6g), so class "
                      "indices (%s) would give %.6g",
                      why, (long long)(p->N * p->S), weight_sum, argmax, q->values[0]);
    else
        lf_guard_warn(r, "one_hot_probabilities",
                      "%s: with weight and reduction='mean' its mean divides by "
                      "the %lld targets, not by the sum of the target classes' weights (%.6g); class indices "
                      "(%s) would be rejected as they are: %s",
                      why, (long long)(p->N * p->S), weight_sum, argmax, q->message);
}
