/* lf_reference_run.c - a case through the reference kernels, as PyTorch runs
 * it: the host checks (the same ones PyTorch's host code makes, lf_spec_plan),
 * then the kernels, whose device asserts are read back from the assert record;
 * where the case asks for backward, PyTorch's backward kernels after a
 * forward that did not assert (their own asserts land in the same record). */
#include <stdio.h>

#include "lf_run.h"
#include "lf_spec.h"

/* Whether the forward's kernels asserted: then backward never runs, as in PyTorch. */
static bool forward_asserted(const lf_backend *be, const lf_device_call *call, int *rc)
{
    lf_assert_record rec;
    *rc = be->to_host(&rec, call->b.rec, sizeof rec);
    return *rc || rec.fired;
}

void lf_reference_run(const lf_case *c, const lf_backend *be, lf_result *r)
{
    lf_problem p;
    lf_device_call call;
    char err[160];
    lf_result_init(r);
    if (!lf_spec_plan(c, &p, r)) return;
    lf_result after; /* a host error after nll_loss's kernels stops PyTorch before label smoothing's gather */
    lf_result_init(&after);
    p.raises_after_nll = lf_spec_error_after_nll(c, &p, &after);
    if (!lf_device_call_open(be, c, &p, lf_ref_needs_scratch(&p), &call, err, sizeof err)) {
        lf_result_error(r, "backend_error", "RuntimeError", "%s", err);
        return;
    }
    int rc = be->reference_forward(&p, &call.b);
    if (!rc && call.b.grad_in && !forward_asserted(be, &call, &rc)) rc = be->reference_backward(&p, &call.b);
    if (rc || !lf_device_call_collect(be, c, &p, &call, r))
        lf_result_error(r, "backend_error", "RuntimeError", "%s backend failed (code %d)", be->name, rc);
    else if (r->kind == LF_OUTCOME_OK && lf_spec_error_after_nll(c, &p, r))
        lf_result_free_values(r);
    lf_device_call_close(be, &call);
}
