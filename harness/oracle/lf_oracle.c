/* lf_oracle.c - judging the three paths of a case against each other. */
#include "lf_oracle.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_errors.h"
#include "lf_exec.h"
#include "lf_guard.h"
#include "lf_shape.h"
#include "lf_run.h"
#include "lf_spec.h"
#include "lf_verdict_build.h"

/* The case's recorded numbers (PyTorch's, when the case was made) against the spec. */
static void expect_values(const lf_case *c, lf_verdict *v)
{
    const lf_result *s = &v->spec;
    if (c->n_expect_value != s->n) {
        lf_found(v, "expect-mismatch/value", "the case expects %lld values, the spec gives %lld",
                 (long long)c->n_expect_value, (long long)s->n);
        return;
    }
    int64_t i = lf_first_far(c->expect_value, s->scales, s->values, s->n, s->tol_dtype);
    if (i >= 0) {
        lf_found(v, "expect-mismatch/value", "value[%lld]: the case expects %.9g, the spec gives %.9g", (long long)i,
                 c->expect_value[i], s->values[i]);
        return;
    }
    double rtol, atol; /* the case's own bound: a spec tolerance grown too wide cannot hide the numbers drifting */
    lf_dtype_tolerance(s->tol_dtype, &rtol, &atol);
    for (i = 0; c->expect_rtol > 0 && i < s->n; i++) {
        double want = c->expect_value[i], got = s->values[i];
        if (isfinite(want) && !(fabs(got - want) <= c->expect_rtol * fabs(want) + atol)) {
            lf_found(v, "expect-mismatch/value",
                     "value[%lld]: the case expects %.9g within %g of it (expect_rtol), the spec gives %.9g",
                     (long long)i, want, c->expect_rtol, got);
            return;
        }
    }
}

/* The tensor whose element a condition names (lf_kernels.def). */
static const char *element_of(int cond_id) { return lf_cond_names(cond_id) == LF_NAMES_INPUT ? "input" : "target"; }

/* The same assert as the spec's: kernel and condition, and the element when
 * the path knows it. A real assert's line names a block and thread only, so
 * of a kernel whose conditions name values (an input's, a target's) whichever
 * thread failed first may print: then any of its conditions will do. */
static bool same_assert(const lf_result *got, const lf_result *s)
{
    bool values = lf_cond_names(got->cond_id) != LF_NAMES_LABEL && lf_cond_names(s->cond_id) != LF_NAMES_LABEL;
    if (got->kernel_id != s->kernel_id) return false;
    if (got->index < 0) return got->cond_id == s->cond_id || values;
    return got->cond_id == s->cond_id && got->index == s->index;
}

/* Both reject: the guard must say what PyTorch says - the same error class,
 * and the same first offending element where PyTorch names one (an assert's
 * target). The hint is a heuristic and is not compared. */
static void compare_diagnosis(lf_verdict *v)
{
    const lf_result *s = &v->spec, *g = &v->guard;
    const char *want = s->kind == LF_OUTCOME_OK ? s->silent : s->error;
    char cls[96];
    if (g->kind != LF_OUTCOME_HOST_ERROR || !want[0]) return;
    snprintf(cls, sizeof cls, "diagnosis-mismatch/%s", want);
    if (strcmp(g->error, want))
        lf_found(v, cls, "PyTorch: %s (%s); the guard rejected it as %s: %s", want, s->message, g->error, g->message);
    else if (s->index >= 0 && (g->index != s->index || g->value != s->value))
        lf_found(v, cls, "the first offending target is target[%lld] = %lld; the guard names target[%lld] = %lld",
                 (long long)s->index, (long long)s->value, (long long)g->index, (long long)g->value);
}

/* A built-in path asked for backward: its d input, there and as the spec's. */
static void judge_builtin_grad(const lf_case *c, lf_verdict *v, const char *path, const lf_result *r)
{
    char cls[96];
    if (r->grad[LF_GRAD_INPUT].state == LF_GRAD_NONE) {
        snprintf(cls, sizeof cls, "grad-missing/%s", path);
        lf_found(v, cls, "the %s path computed the loss but gave no d input", path);
        return;
    }
    lf_judge_grad(c, v, path, &r->grad[LF_GRAD_INPUT], LF_GRAD_INPUT);
}

/* What the reference must give: the spec's forward answer, or, where it was
 * asked for backward and PyTorch's backward kernels assert, that assert. */
static const lf_result *expected_reference(const lf_verdict *v)
{
    return v->backward_asked && v->spec_backward.kind == LF_OUTCOME_DEVICE_ASSERT ? &v->spec_backward : &v->spec;
}

static void judge(const lf_case *c, lf_verdict *v)
{
    const lf_result *s = &v->spec, *ref = &v->reference, *g = &v->guard, *rs = expected_reference(v);
    char cls[96];
    bool pytorch_rejects = s->kind != LF_OUTCOME_OK;
    lf_path_failed(v, "reference", ref);
    lf_path_failed(v, "guard", g);
    /* The guard rejects on the host: a device assert on its path kills the
     * user's context as surely as PyTorch's own. */
    if (g->kind == LF_OUTCOME_DEVICE_ASSERT)
        lf_found(v, "guard-miss/device_assert", "the guard's path device-asserted: %s", g->message);
    if (pytorch_rejects && g->kind == LF_OUTCOME_OK) {
        snprintf(cls, sizeof cls, "guard-miss/%s", s->error);
        lf_found(v, cls, "PyTorch: %s; the guard accepted the call", s->message);
    }
    /* PyTorch returns a number here, but not the loss the labels ask for: the
     * guard must reject it under that name, and that is a pass of its own. */
    if (s->silent[0] && strcmp(g->error, s->silent)) {
        snprintf(cls, sizeof cls, "guard-miss/%s", s->silent);
        lf_found(v, cls, "PyTorch silently miscomputes this call (%s at target[%lld] = %lld); the guard %s", s->silent,
                 (long long)s->index, (long long)s->value, g->kind == LF_OUTCOME_OK ? "accepted it" : g->error);
    } else if (s->silent[0]) {
        v->guarded_silent = true;
    } else if (!pytorch_rejects && g->kind != LF_OUTCOME_OK) {
        snprintf(cls, sizeof cls, "false-alarm/%s", g->error);
        lf_found(v, cls, "PyTorch accepts the call; the guard rejected it: %s", g->message);
    }
    if (ref->kind != rs->kind) {
        snprintf(cls, sizeof cls, "reference-mismatch/%s-vs-%s", lf_outcome_name(ref->kind), lf_outcome_name(rs->kind));
        lf_found(v, cls, "reference: %s; spec: %s", ref->kind == LF_OUTCOME_OK ? "ok" : ref->message, rs->message);
    } else if (rs->kind == LF_OUTCOME_DEVICE_ASSERT && !same_assert(ref, rs)) {
        lf_found(v, "reference-mismatch/assert-site",
                 "reference asserted in %s (`%s`) at %s[%lld], spec in %s (`%s`) at %s[%lld]",
                 lf_kernel_name(ref->kernel_id), lf_cond_text(ref->cond_id), element_of(ref->cond_id),
                 (long long)ref->index, lf_kernel_name(rs->kernel_id), lf_cond_text(rs->cond_id),
                 element_of(rs->cond_id), (long long)rs->index);
    }
    compare_diagnosis(v);
    if (rs->kind == LF_OUTCOME_OK && ref->kind == LF_OUTCOME_OK) lf_compare_values(v, "reference", ref);
    if (s->kind == LF_OUTCOME_OK && g->kind == LF_OUTCOME_OK) lf_compare_values(v, "guard", g);
    /* backward: each path that computed the loss gives d input */
    if (v->backward_asked && rs->kind == LF_OUTCOME_OK && ref->kind == LF_OUTCOME_OK)
        judge_builtin_grad(c, v, "reference", ref);
    if (v->backward_asked && s->kind == LF_OUTCOME_OK && g->kind == LF_OUTCOME_OK) judge_builtin_grad(c, v, "guard", g);
}

/* A case's recorded expectations (its outcome, error, the guard's hint, PyTorch's numbers) against the spec. */
static void judge_expect(const lf_case *c, lf_verdict *v)
{
    const lf_result *s = &v->spec, *g = &v->guard;
    char cls[96];
    if (c->expect != LF_OUTCOME_NONE && c->expect != s->kind) {
        snprintf(cls, sizeof cls, "expect-mismatch/%s", lf_outcome_name(c->expect));
        lf_found(v, cls, "the case expects %s, the spec says %s", lf_outcome_name(c->expect), lf_outcome_name(s->kind));
    } else if (c->expect_error[0] && strcmp(c->expect_error, s->error)) {
        snprintf(cls, sizeof cls, "expect-mismatch/%s", c->expect_error);
        lf_found(v, cls, "the case expects error %s, the spec says %s", c->expect_error,
                 s->error[0] ? s->error : "none");
    } else if (c->expect_hint[0] && g->kind != LF_OUTCOME_NONE && strcmp(c->expect_hint, g->hint_id)) {
        snprintf(cls, sizeof cls, "expect-mismatch/hint-%s", c->expect_hint);
        lf_found(v, cls, "the case expects the guard's hint %s, the guard gives %s", c->expect_hint,
                 g->hint_id[0] ? g->hint_id : "none");
    } else if (c->expect_value && s->kind == LF_OUTCOME_OK) {
        expect_values(c, v);
    }
}

/* PyTorch itself against the spec, unless a documented difference explains it. */
static void judge_torch(const lf_case *c, const lf_backend *be, lf_verdict *v)
{
    const lf_result *s = &v->spec, *t = &v->torch;
    char cls[96], why[256];
    if (lf_path_failed(v, "torch", t)) return;
    v->torch_known = lf_torch_known_difference(c, s, t, lf_exec_device(be->torch), lf_exec_torch_version(be->torch));
    if (v->torch_known) return;
    if (t->kind != s->kind) {
        snprintf(cls, sizeof cls, "torch-mismatch/%s-vs-%s", lf_outcome_name(t->kind), lf_outcome_name(s->kind));
        lf_found(v, cls, "PyTorch: %s; spec: %s", t->kind == LF_OUTCOME_OK ? "ok" : t->message,
                 s->kind == LF_OUTCOME_OK ? "ok" : s->message);
    } else if (s->kind == LF_OUTCOME_HOST_ERROR && strcmp(t->error, s->error)) {
        snprintf(cls, sizeof cls, "torch-mismatch/error-%s", s->error);
        lf_found(v, cls, "PyTorch raised %s (%s: %s); the spec says %s", t->error, t->exception, t->message, s->error);
    } else if (s->kind == LF_OUTCOME_DEVICE_ASSERT && t->kernel_id != LF_K_NONE && !same_assert(t, s)) {
        lf_found(v, "torch-mismatch/assert-site", "PyTorch asserted in %s (`%s`), the spec in %s (`%s`)",
                 lf_kernel_name(t->kernel_id), lf_cond_text(t->cond_id), lf_kernel_name(s->kernel_id),
                 lf_cond_text(s->cond_id));
    } else if (s->kind == LF_OUTCOME_OK && strcmp(s->warning_id, t->warning_id)) {
        /* the spec's warning is torch's own (a fused linear's options= ignored, lf_spec_chunked.c) */
        lf_found(v, "torch-mismatch/warning", "PyTorch warned: %s; the spec: %s",
                 t->warning_id[0] ? t->warning : "none", s->warning_id[0] ? s->warning : "no warning");
    } else if (s->kind == LF_OUTCOME_OK && !lf_result_shape_ok(c, s, t, why, sizeof why)) {
        lf_found(v, "torch-mismatch/shape", "PyTorch gave %s", why);
    } else if (s->kind == LF_OUTCOME_OK && !(s->silent[0] && lf_case_beyond_pytorch(c))) {
        /* (the family's torch path is lossfuzz's composition, which reads labels as int64: PyTorch's number where
         * its labels wrapped or narrowed is not the family's to reproduce, as it is not a kernel's) */
        lf_compare_values(v, "torch", t);
        lf_compare_outputs(v, "torch", t);
        for (int p = 0; !v->finding && p < LF_GRAD_PARTS; p++)
            lf_judge_grad(c, v, "torch", &t->grad[p], (lf_grad_part)p);
    }
}

/* The kernel paths: in this process, or both in one request to a worker. */
static void run_kernel_paths(const lf_case *c, const lf_backend *be, lf_verdict *v, lf_progress_fn progress, void *ctx)
{
    if (be->exec) {
        static const lf_wire_path paths[2] = {LF_WIRE_REFERENCE, LF_WIRE_GUARD};
        lf_result r[2];
        if (progress) progress(ctx, "reference+guard (worker)");
        lf_exec_run(be->exec, paths, 2, c, r);
        v->reference = r[0];
        v->guard = r[1];
        return;
    }
    if (progress) progress(ctx, "reference");
    lf_reference_run(c, be, &v->reference);
    if (progress) progress(ctx, "guard");
    lf_guard_run(c, be, &v->guard);
}

/* The kernel under test, when the case is within its claims. */
static void run_kernel_under_test(const lf_case *c, const lf_backend *be, lf_verdict *v, lf_progress_fn progress,
                                  void *ctx)
{
    static const lf_wire_path kernel_path = LF_WIRE_KERNEL;
    const lf_kernel_claims *claims = lf_exec_kernel_claims(be->kernel);
    const char *skip = claims ? lf_kernel_claims_skip(claims, c) : NULL;
    if (skip) {
        snprintf(v->kernel_skip, sizeof v->kernel_skip, "%s", skip);
        return;
    }
    if (progress) progress(ctx, "kernel (worker)");
    lf_exec_run(be->kernel, &kernel_path, 1, c, &v->kernel);
    v->has_kernel = true;
}

/* Backward too, on a call PyTorch computes, where it is asked for - by the
 * case for lossfuzz's own paths (its "backward" key; the fuzzers' cases), by
 * its claims for a kernel under test: the upstream gradient goes with the
 * case, borrowed for this run (NULL where there is none to give). An empty
 * input has no gradient to check (and PyTorch's own backward then checks the
 * dtypes its forward let pass). */
/* The torch path's gradients are judged for a fused linear + CE (torch 2.15's op, whose chunked path computes
 * them in its forward): the other losses' torch path answers values alone. */
static bool torch_grads(const lf_case *c, const lf_backend *be)
{
    return be->torch && c->backward.given && lf_loss_of(c->loss)->fused_linear;
}

static double *upstream_for(const lf_case *c, const lf_backend *be, bool own_paths, const lf_verdict *v)
{
    const lf_kernel_claims *claims = be->kernel ? lf_exec_kernel_claims(be->kernel) : NULL;
    bool asked = own_paths ? c->backward.given : claims && claims->backward;
    asked |= torch_grads(c, be); /* torch's own fused linear: its gradients judged too */
    if (!asked || v->spec.kind != LF_OUTCOME_OK || !lf_dtype_is_float(c->input.dtype) || c->input.numel == 0)
        return NULL;
    double *up = malloc(sizeof(double) * ((size_t)v->spec.n + 1));
    if (up) lf_upstream_values(&c->backward, v->spec.n, up);
    return up;
}

/* The spec's gradients, where a path gave one to judge (or failed to). */
static void spec_gradients(const lf_case *c, lf_verdict *v, const double *upstream)
{
    const lf_result *paths[] = {&v->reference, &v->guard, &v->kernel, &v->torch};
    bool any = false;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        for (int p = 0; p < LF_GRAD_PARTS; p++) /* (a failed backward too: PyTorch's may fail as well) */
            any |= paths[i]->grad[p].state == LF_GRAD_OK || paths[i]->grad[p].state == LF_GRAD_ERROR;
    /* the call on softmax's output differentiates the input, frozen or not: whether PyTorch's backward takes it */
    any |= v->kernel.through_softmax[0] != 0;
    if (upstream && any) lf_spec_grad(c, upstream, v->spec_grad);
}

/* The verdict's results, one list for its init and its free. */
enum { VERDICT_RESULTS = 6 + LF_GRAD_PARTS };
static void verdict_results(lf_verdict *v, lf_result *out[VERDICT_RESULTS])
{
    lf_result *named[] = {&v->spec, &v->reference, &v->guard, &v->torch, &v->kernel, &v->spec_backward};
    memcpy(out, named, sizeof named);
    for (int p = 0; p < LF_GRAD_PARTS; p++) out[6 + p] = &v->spec_grad[p];
}

/* Each result initialized, the rest zeroed: a memset of all 30 KB was a
 * tenth of a small fuzz case. */
static void verdict_init(lf_verdict *v)
{
    lf_result *results[VERDICT_RESULTS];
    verdict_results(v, results);
    for (int i = 0; i < VERDICT_RESULTS; i++) lf_result_init(results[i]);
    memset(&v->backward_asked, 0, sizeof *v - offsetof(lf_verdict, backward_asked));
}

void lf_oracle_check_progress(const lf_case *c, const lf_backend *be, lf_verdict *v, lf_progress_fn progress, void *ctx)
{
    verdict_init(v);
    if (progress) progress(ctx, "spec");
    lf_spec_run(c, &v->spec);
    /* A kernel under test is judged against the spec alone: lossfuzz's own
     * kernels have their own campaigns, and would only slow this one. */
    /* lossfuzz's own kernels have no fused linear and none of the LLM family's
     * options: those cases judge a kernel under test, or torch */
    bool own_paths = !be->kernel && !lf_loss_of(c->loss)->fused_linear && !lf_case_beyond_pytorch(c);
    lf_case run = *c;
    double *upstream = upstream_for(c, be, own_paths, v);
    run.backward.values = upstream;
    run.backward.n_values = upstream ? v->spec.n : 0;
    if (own_paths) {
        v->backward_asked = lf_device_call_wants_grad(&run);
        if (v->backward_asked) lf_spec_backward_assert(c, &v->spec_backward);
        run_kernel_paths(&run, be, v, progress, ctx);
    }
    if (be->torch) {
        static const lf_wire_path torch_path = LF_WIRE_TORCH;
        if (progress) progress(ctx, "torch (worker)");
        lf_exec_run(be->torch, &torch_path, 1, torch_grads(c, be) ? &run : c, &v->torch);
        v->has_torch = true;
    }
    if (be->kernel) run_kernel_under_test(&run, be, v, progress, ctx);
    if (progress) progress(ctx, NULL);
    spec_gradients(c, v, upstream);
    free(upstream);
    if (own_paths) judge(c, v);
    judge_expect(c, v);
    if (v->has_torch) judge_torch(c, be, v);
    if (v->has_kernel) lf_judge_kernel(c, be, v);
    if (v->finding) lf_finding_signature(c, v->finding_class, v->signature, sizeof v->signature);
}

void lf_oracle_check(const lf_case *c, const lf_backend *be, lf_verdict *v)
{
    lf_oracle_check_progress(c, be, v, NULL, NULL);
}

void lf_verdict_free(lf_verdict *v)
{
    lf_result *results[VERDICT_RESULTS];
    verdict_results(v, results);
    for (int i = 0; i < VERDICT_RESULTS; i++) lf_result_free(results[i]);
}
