/* lf_spec_losses.c - the spec's entry points, dispatched by the loss table's
 * hook columns (harness/model/case/lf_losses.def). */
#include <string.h>

#include "lf_spec.h"

static const struct {
    bool (*plan)(const lf_case *, lf_problem *, lf_result *);
    void (*run)(const lf_case *, lf_result *);
    void (*grad)(const lf_case *, const double *, lf_result *);
} hooks[LF_LOSS_COUNT] = {
#define LF_LOSS(ID, NAME, TARGETS, OPTIONS, FLAGS, POSITIONAL, CLAIM, CLAIM_PROB, PLAN, RUN, GRAD)                     \
    [LF_LOSS_##ID] = {lf_spec_##PLAN, lf_spec_##RUN, lf_spec_##GRAD},
#include "lf_losses.def"
#undef LF_LOSS
};

bool lf_spec_plan(const lf_case *c, lf_problem *p, lf_result *r)
{
    memset(p, 0, sizeof *p);
    if (c->reduction == LF_REDUCTION_INVALID) { /* Python's _Reduction.get_enum runs first */
        lf_result_error(r, "reduction_invalid", "ValueError", "%s is not a valid value for reduction",
                        c->reduction_name);
        return false;
    }
    return hooks[c->loss].plan(c, p, r);
}

void lf_spec_run(const lf_case *c, lf_result *r) { hooks[c->loss].run(c, r); }

void lf_spec_grad(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS])
{
    for (int k = 0; k < LF_GRAD_PARTS; k++) lf_result_init(&g[k]);
    hooks[c->loss].grad(c, upstream, g);
}
