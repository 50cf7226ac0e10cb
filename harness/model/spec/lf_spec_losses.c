/* lf_spec_losses.c - the spec's entry points, dispatched by each loss's row
 * (its home, harness/losses/; lf_loss_row.h). */
#include <string.h>

#include "lf_loss_row.h"
#include "lf_spec.h"

bool lf_spec_plan(const lf_case *c, lf_problem *p, lf_result *r)
{
    memset(p, 0, sizeof *p);
    if (c->reduction == LF_REDUCTION_INVALID) { /* Python's _Reduction.get_enum runs first */
        lf_result_error(r, "reduction_invalid", "ValueError", "%s is not a valid value for reduction",
                        c->reduction_name);
        return false;
    }
    return lf_loss_row_of(c->loss)->plan(c, p, r);
}

/* Whether the case's classes run last (logits [B, d.., V]) where PyTorch's run along dim 1. */
static bool classes_last(const lf_case *c)
{
    return c->vocab_last && c->input.ndim >= 3 && !lf_loss_of(c->loss)->fused_linear;
}

/* Moves the last dim of t to dim 1 (to_last false), or dim 1 to the last, into out. */
static bool move_classes(const lf_tensor *t, bool to_last, lf_tensor *out)
{
    char err[160];
    int n = t->ndim;
    int64_t shape[LF_MAX_DIMS], V = t->shape[to_last ? 1 : n - 1], B = t->shape[0], S = 1;
    for (int d = 1; d < n - 1; d++) S *= t->shape[to_last ? d + 1 : d];
    shape[0] = B;
    for (int d = 1; d < n; d++)
        shape[d] = to_last ? t->shape[d == n - 1 ? 1 : d + 1] : t->shape[d == 1 ? n - 1 : d - 1];
    memset(out, 0, sizeof *out);
    if (!lf_tensor_alloc(out, t->dtype, n, shape, err, sizeof err)) return false;
    size_t size = lf_dtype_size(t->dtype);
    for (int64_t b = 0; b < B; b++)
        for (int64_t s = 0; s < S; s++)
            for (int64_t v = 0; v < V; v++) {
                int64_t last = (b * S + s) * V + v, first = (b * V + v) * S + s;
                memcpy((char *)out->data + size * (size_t)(to_last ? last : first),
                       (const char *)t->data + size * (size_t)(to_last ? first : last), size);
            }
    return true;
}

/* The vocab_last case in PyTorch's layout: its input (and probability
 * targets, of the input's shape) moved; the rows keep their order. */
static bool pytorch_layout(const lf_case *c, lf_case *out, lf_result *r)
{
    *out = *c;
    out->vocab_last = false;
    bool prob = c->target.ndim == c->input.ndim &&
                !memcmp(c->target.shape, c->input.shape, sizeof(int64_t) * (size_t)c->input.ndim);
    memset(&out->target, 0, sizeof out->target);
    bool ok =
        move_classes(&c->input, false, &out->input) &&
        (prob ? move_classes(&c->target, false, &out->target) : (out->target = c->target, out->target.borrowed = true));
    if (!ok) {
        lf_tensor_free(&out->input);
        lf_tensor_free(&out->target);
        lf_result_error(r, "internal", "MemoryError", "out of memory moving the classes to dim 1");
    }
    return ok;
}

static void free_layout(lf_case *pc)
{
    lf_tensor_free(&pc->input);
    lf_tensor_free(&pc->target);
}

void lf_spec_run(const lf_case *c, lf_result *r)
{
    lf_case pc;
    if (!classes_last(c)) {
        lf_loss_row_of(c->loss)->run(c, r);
        return;
    }
    lf_result_init(r);
    if (!pytorch_layout(c, &pc, r)) return;
    lf_loss_row_of(c->loss)->run(&pc, r);
    free_layout(&pc);
}

void lf_spec_grad(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS])
{
    lf_case pc;
    for (int k = 0; k < LF_GRAD_PARTS; k++) lf_result_init(&g[k]);
    if (!classes_last(c)) {
        lf_loss_row_of(c->loss)->grad(c, upstream, g);
        return;
    }
    if (!pytorch_layout(c, &pc, &g[LF_GRAD_INPUT])) return;
    lf_loss_row_of(c->loss)->grad(&pc, upstream, g);
    lf_result *gi = &g[LF_GRAD_INPUT];
    if (gi->kind == LF_OUTCOME_OK && gi->n == c->input.numel) { /* d input back to the caller's layout */
        lf_tensor t = pc.input, values, moved;
        double *parts[2] = {gi->values, gi->scales};
        for (int k = 0; k < 2; k++) {
            values = t;
            values.dtype = LF_F64;
            values.data = parts[k];
            if (move_classes(&values, true, &moved)) {
                memcpy(parts[k], moved.data, sizeof(double) * (size_t)gi->n);
                lf_tensor_free(&moved);
            }
        }
    }
    free_layout(&pc);
}
