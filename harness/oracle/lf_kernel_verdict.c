/* lf_kernel_verdict.c - the kernel under test against the spec: PyTorch's
 * contract as a guarded or an unguarded kernel promises to keep it
 * (include/lossfuzz/kernel.h; the finding classes are listed in lf_oracle.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_exec.h"
#include "lf_shape.h"
#include "lf_verdict_build.h"

void lf_judge_grad(const lf_case *c, lf_verdict *v, const char *path, const lf_grad *k, lf_grad_part p)
{
    const lf_result *g = &v->spec_grad[p];
    const lf_backward *b = &c->backward;
    const char *name = lf_grad_part_names[p];
    char cls[96];
    if (k->state == LF_GRAD_MISSING && lf_grad_required(c, p)) {
        snprintf(cls, sizeof cls, "grad-missing/%s", path);
        lf_found(v, cls, "the %s requires grad, but the %s's result gives it none%s%s", name, path,
                 k->message[0] ? ": " : "", k->message);
        return;
    }
    if (k->state == LF_GRAD_ERROR) {
        if (g->kind == LF_OUTCOME_HOST_ERROR) return; /* PyTorch's backward raises too */
        snprintf(cls, sizeof cls, "grad-error/%s", path);
        lf_found(v, cls, "backward failed: %s", k->message);
        return;
    }
    if (k->state != LF_GRAD_OK || g->kind != LF_OUTCOME_OK) return;
    const lf_tensor *t = lf_grad_tensor(c, p);
    char got[96], want[96];
    lf_format_shape(want, sizeof want, t->shape, t->ndim);
    lf_format_shape(got, sizeof got, k->dims.shape, k->dims.ndim);
    if (k->n != g->n || (k->dims.known && strcmp(got, want))) {
        snprintf(cls, sizeof cls, "grad-shape-mismatch/%s", path);
        if (k->dims.known)
            lf_found(v, cls, "the %s's gradient has shape %s, the %s %s", name, got, name, want);
        else
            lf_found(v, cls, "the %s's gradient has %lld values, the %s %lld", name, (long long)k->n, name,
                     (long long)g->n);
        return;
    }
    if (k->dtype != g->out_dtype) {
        snprintf(cls, sizeof cls, "grad-dtype-mismatch/%s", path);
        lf_found(v, cls, "the %s's gradient is %s, the %s %s", name, lf_dtype_name(k->dtype), name,
                 lf_dtype_name(g->out_dtype));
        return;
    }
    int64_t i = lf_first_far(g->values, g->scales, k->values, g->n, g->tol_dtype);
    if (i >= 0) {
        snprintf(cls, sizeof cls, "grad-mismatch/%s", path);
        lf_found(v, cls, "d %s[%lld] = %.9g, spec %.9g (%s, tolerance of %s; upstream %s, seed %llu)", name,
                 (long long)i, k->values[i], g->values[i], lf_dtype_name(g->out_dtype), lf_dtype_name(g->tol_dtype),
                 lf_upstream_name(b->upstream), (unsigned long long)b->seed);
    }
}

/* The rest of PyTorch's contract on a valid call: every tensor given left as
 * it was, and each gradient as the spec's (when the kernel claims backward). */
static void judge_backward(const lf_case *c, const lf_kernel_deviations *d, lf_verdict *v)
{
    const lf_result *k = &v->kernel;
    /* a gradient written into the input on purpose: the input's check goes, its gradient is still judged */
    if (d->grad_in_place && c->backward.input_requires_grad && !strncmp(k->changed, "input ", 6))
        lf_accept(v, "input-modified/kernel", "grad_in_place: the kernel writes d input into the input");
    else if (k->changed[0]) {
        lf_found(v, "input-modified/kernel",
                 "the kernel changed its %s; PyTorch leaves every tensor it is given as it was", k->changed);
        return;
    }
    for (int p = 0; p < LF_GRAD_PARTS; p++) lf_judge_grad(c, v, "kernel", &v->kernel.grad[p], (lf_grad_part)p);
    /* (where PyTorch's own backward refuses the call, so does the kernel's through softmax); an exception there
     * is an error, never a gradient mismatch: a refused call, or a backward that failed */
    const char *why = k->through_softmax;
    if (!why[0] || v->spec_grad[LF_GRAD_INPUT].kind == LF_OUTCOME_HOST_ERROR) return;
    if (!strncmp(why, "raised in forward: ", 19))
        lf_found(v, "false-alarm/kernel", "PyTorch accepts the call on softmax(input); the kernel %s", why);
    else if (!strncmp(why, "raised in backward: ", 20))
        lf_found(v, "grad-error/kernel", "backward of the call on softmax(input) failed: %s", why + 20);
    else
        lf_found(v, "upstream-grad-mismatch/kernel",
                 "called on softmax(input), which softmax saved for its backward: %s", why);
}

/* A bfloat16 or float16 call: the spec's tolerance covers any correct
 * kernel's worst case (its terms, rounded several times), so a kernel that
 * sums a wide row in the low-precision dtype itself can pass it. PyTorch's
 * own result on this very call (a Python kernel's worker computes it) says
 * what the dtype costs here: a value may be off the spec by at most 4 times
 * PyTorch's error, or by one unit of the dtype on its terms plus float32's
 * accumulation over the input, whichever is larger, plus a unit in the
 * result's last place. Where PyTorch itself
 * is off the spec's tolerance (a known difference), the spec's rule alone. */
static void judge_low_precision(const lf_case *c, lf_verdict *v)
{
    const lf_result *s = &v->spec, *k = &v->kernel;
    lf_dtype t = s->tol_dtype;
    if ((t != LF_BF16 && t != LF_F16) || !k->reference || k->n_reference != s->n || k->n != s->n) return;
    double unit = lf_dtype_eps(t) + (double)c->input.numel * FLT_EPSILON;
    for (int64_t i = 0; i < s->n; i++) {
        double sp = s->values[i], sc = s->scales[i], ref = k->reference[i], got = k->values[i];
        if (sc == LF_SCALE_UNDECIDED || !isfinite(sp) || !isfinite(ref) || !isfinite(got) ||
            !lf_values_close(sp, sc, ref, t))
            continue;
        /* and both results' last rounding into the dtype: a unit in the last place of the result (a kernel in
         * float32 rounds once, PyTorch's chain at its own points: 62240 and 62176 in float16 are 2 such units) */
        double last = sp != 0 ? lf_dtype_eps(t) * ldexp(1.0, ilogb(sp)) : 0;
        double terms = fmax(isfinite(sc) ? sc : 0, fabs(sp)),
               allowed = fmax(unit * terms, 4 * fabs(ref - sp)) + last + 1e-6;
        if (fabs(got - sp) <= allowed) continue;
        lf_found(v, "value-mismatch/kernel",
                 "kernel value[%lld] = %.9g, spec %.9g: off by %.3g where PyTorch's own %s "
                 "result is off by %.3g (allowed: %.3g, 4 times PyTorch's error or a unit of %s on the terms)",
                 (long long)i, got, sp, fabs(got - sp), lf_dtype_name(t), fabs(ref - sp), allowed, lf_dtype_name(t));
        return;
    }
}

/* A valid call: the spec's result, shape, dtype and numbers, and no rejection. */
static void judge_valid(const lf_case *c, const lf_kernel_deviations *d, lf_verdict *v)
{
    const lf_result *s = &v->spec, *k = &v->kernel;
    /* a float32 result for low-precision input on purpose: its numbers are still judged */
    bool f32 = d->float32_result && k->out_dtype == LF_F32 && (s->out_dtype == LF_BF16 || s->out_dtype == LF_F16);
    char why[256];
    if (k->kind == LF_OUTCOME_DEVICE_ASSERT) {
        lf_found(v, "false-alarm/kernel-assert", "PyTorch accepts the call; the kernel asserted: %s", k->message);
    } else if (k->kind != LF_OUTCOME_OK) {
        /* PyTorch returns a number here but not the loss the labels ask for:
         * rejecting the call is the better answer, never an alarm. */
        if (s->silent[0]) return;
        /* a bug's exception is a crash, not a refusal: its own harm, so a report keeps it apart from the
         * kernel's refusals of the same kind of call */
        if (!strcmp(k->error, "kernel_failed"))
            lf_found(v, "false-alarm/kernel-failed", "PyTorch accepts the call; the kernel failed: %s", k->message);
        else
            lf_found(v, "false-alarm/kernel", "PyTorch accepts the call; the kernel rejected it: %s", k->message);
    } else if (!lf_result_shape_ok(c, s, k, why, sizeof why)) {
        lf_found(v, "shape-mismatch/kernel", "the kernel gave %s", why);
    } else if (k->out_dtype != s->out_dtype && !f32) {
        lf_found(v, "dtype-mismatch/kernel", "the kernel's result is %s, PyTorch's %s", lf_dtype_name(k->out_dtype),
                 lf_dtype_name(s->out_dtype));
    } else {
        if (f32) {
            char sig[LF_SIGNATURE_MAX];
            lf_finding_signature(c, "dtype-mismatch/kernel", sig, sizeof sig);
            lf_accept(v, sig, "float32_result: a float32 result for low-precision input");
        }
        /* PyTorch's number where its labels wrapped or narrowed is not the loss asked for (lf_spec_mark_narrowed):
         * neither it nor the kernel's is judged; a kernel that refuses the call is right */
        if (!s->silent[0]) {
            lf_compare_values(v, "kernel", k);
            judge_low_precision(c, v);
        }
        lf_compare_outputs(v, "kernel", k);
        judge_backward(c, d, v);
    }
}

/* Whether a guarded Python kernel's rejection names PyTorch's reason: its
 * error class where its message is PyTorch's own, else its exception's class
 * (the CPU build's IndexError or CUDA's RuntimeError for a device assert). */
static bool rejection_class_matches(const lf_result *s, const lf_result *k)
{
    if (strcmp(k->error, "kernel_rejected") && strcmp(k->error, "kernel_failed")) return !strcmp(k->error, s->error);
    if (s->kind == LF_OUTCOME_DEVICE_ASSERT)
        return !strcmp(k->exception, "IndexError") || !strcmp(k->exception, "RuntimeError");
    return !strcmp(k->exception, s->exception);
}

/* PyTorch raises or asserts: a number back is what a guarded kernel
 * promised never to give, and silent garbage from an unguarded one. */
static void judge_rejected(bool guarded, bool python, lf_verdict *v)
{
    const lf_result *s = &v->spec, *k = &v->kernel;
    char cls[96];
    if (k->kind == LF_OUTCOME_OK) {
        snprintf(cls, sizeof cls, "%s/%s", guarded ? "kernel-miss" : "kernel-silent", s->error);
        lf_found(v, cls, "PyTorch: %s; the kernel returned %s", s->message,
                 k->scalar   ? "a number"
                 : k->n == 1 ? "1 value"
                             : "values");
    } else if (k->kind == LF_OUTCOME_DEVICE_ASSERT && (guarded || s->kind != LF_OUTCOME_DEVICE_ASSERT)) {
        snprintf(cls, sizeof cls, "kernel-assert/%s", s->error);
        lf_found(v, cls, "%s: %s",
                 guarded ? "a guarded kernel asserted instead of rejecting the call"
                         : "the kernel asserted where PyTorch raises on the host",
                 k->message);
    } else if (guarded && python && k->kind == LF_OUTCOME_HOST_ERROR && !rejection_class_matches(s, k)) {
        lf_found(v, "diagnosis-mismatch/kernel", "PyTorch: %s %s (%s); the guarded kernel: %s %s", s->exception,
                 s->message, s->error, k->exception, k->message);
    }
    /* an unguarded kernel that rejects a call PyTorch rejects, whatever its exception: no finding */
}

void lf_judge_kernel(const lf_case *c, const lf_backend *be, lf_verdict *v)
{
    const lf_result *s = &v->spec, *k = &v->kernel;
    const lf_kernel_claims *claims = lf_exec_kernel_claims(be->kernel);
    bool guarded = claims && claims->guarded;
    if (lf_path_failed(v, "kernel", k)) return;
    /* A Python kernel runs on a PyTorch of its own (the hello names it): where
     * that PyTorch itself differs from the spec by design, so may the kernel. */
    const char *version = lf_exec_torch_version(be->kernel);
    bool python = version[0] != 0; /* a C kernel's rejection is a message without a class: nothing to compare */
    v->torch_known = version[0] ? lf_torch_known_difference(c, s, k, lf_exec_device(be->kernel), version) : NULL;
    if (!v->torch_known) v->torch_known = lf_leniency_of(c, s, k); /* a refusal the documentation backs */
    if (v->torch_known) return;
    static const lf_kernel_deviations none;
    const lf_kernel_deviations *d = claims ? &claims->deviations : &none;
    if (s->kind == LF_OUTCOME_OK)
        judge_valid(c, d, v);
    else
        judge_rejected(guarded, python, v);
    lf_judge_deviations(c, claims, v);
}
