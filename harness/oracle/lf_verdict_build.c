/* lf_verdict_build.c - how the judges (lf_oracle.c, lf_kernel_verdict.c) record findings and compare
 * values (lf_verdict_build.h): below both, so neither calls the other back. */
#include "lf_verdict_build.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_errors.h"
#include "lf_shape.h"

bool lf_values_close(double spec, double scale, double got, lf_dtype out_dtype)
{
    double rtol, atol;
    lf_dtype_tolerance(out_dtype, &rtol, &atol);
    if (scale == LF_SCALE_UNDECIDED) return true;
    if (isnan(spec) || isnan(got)) return isnan(spec) && isnan(got);
    if (isinf(spec) && isinf(got)) return spec == got;
    /* One side overflowed the output dtype at its edge: rounding, not a bug. */
    if (isinf(spec) || isinf(got)) {
        double finite = isinf(spec) ? got : spec, inf = isinf(spec) ? spec : got;
        /* the spec's own uncertainty spans past the dtype's range: inf or any number */
        if (isfinite(scale) && atol + rtol * scale >= lf_dtype_max(out_dtype)) return true;
        return (finite > 0) == (inf > 0) && fabs(finite) >= lf_dtype_max(out_dtype) * (1 - rtol);
    }
    if (!isfinite(scale)) scale = fabs(spec);
    double tol = atol + rtol * (scale > fabs(spec) ? scale : fabs(spec));
    return fabs(spec - got) <= tol;
}

int64_t lf_first_far(const double *want, const double *scales, const double *got, int64_t n, lf_dtype tol_dtype)
{
    for (int64_t i = 0; i < n; i++)
        if (!lf_values_close(want[i], scales[i], got[i], tol_dtype)) return i;
    return -1;
}

void lf_found(lf_verdict *v, const char *cls, const char *fmt, ...)
{
    va_list ap;
    if (v->finding) return;         /* the first violated property names the finding */
    if (lf_finding_find(cls) < 0) { /* a class the list (lf_findings.def) lacks: the code is wrong, not the case */
        fprintf(stderr, "lossfuzz: finding class %s is not in harness/oracle/lf_findings.def\n", cls);
        abort();
    }
    v->finding = true;
    snprintf(v->finding_class, sizeof v->finding_class, "%s", cls);
    va_start(ap, fmt);
    vsnprintf(v->detail, sizeof v->detail, fmt, ap);
    va_end(ap);
}

void lf_compare_values(lf_verdict *v, const char *path, const lf_result *got)
{
    const lf_result *s = &v->spec;
    char cls[96];
    snprintf(cls, sizeof cls, "value-mismatch/%s", path);
    if (got->n != s->n) {
        lf_found(v, cls, "%s gave %lld values, the spec %lld", path, (long long)got->n, (long long)s->n);
        return;
    }
    int64_t i = lf_first_far(s->values, s->scales, got->values, s->n, s->tol_dtype);
    if (i >= 0)
        lf_found(v, cls, "%s value[%lld] = %.9g, spec %.9g (%s, tolerance of %s)", path, (long long)i, got->values[i],
                 s->values[i], lf_dtype_name(s->out_dtype), lf_dtype_name(s->tol_dtype));
}

void lf_compare_outputs(lf_verdict *v, const char *path, const lf_result *got)
{
    const lf_result *s = &v->spec;
    char cls[96];
    for (int o = 0; o < LF_OUT_COUNT; o++) {
        const char *name = lf_llm_output_names[o];
        snprintf(cls, sizeof cls, "output-mismatch/%s/%s", path, name); /* two outputs' bugs are two findings */
        if (!got->outputs[o].values || !s->outputs[o].values) continue;
        if (got->outputs[o].n != s->outputs[o].n) {
            lf_found(v, cls, "%s gave %lld values of %s, the spec %lld", path, (long long)got->outputs[o].n, name,
                     (long long)s->outputs[o].n);
            return;
        }
        int64_t i = lf_first_far(s->outputs[o].values, s->outputs[o].scales, got->outputs[o].values, s->outputs[o].n,
                                 s->tol_dtype);
        if (i >= 0) {
            lf_found(v, cls, "%s %s[%lld] = %.9g, spec %.9g (tolerance of %s)", path, name, (long long)i,
                     got->outputs[o].values[i], s->outputs[o].values[i], lf_dtype_name(s->tol_dtype));
            return;
        }
    }
}

bool lf_result_shape_ok(const lf_case *c, const lf_result *s, const lf_result *got, char *why, size_t len)
{
    int64_t want[LF_MAX_DIMS];
    int nd = lf_case_result_shape(c, want);
    char a[96], b[96];
    lf_format_shape(b, sizeof b, want, nd);
    if (got->dims.known) {
        lf_format_shape(a, sizeof a, got->dims.shape, got->dims.ndim);
        snprintf(why, len, "a result of shape %s, PyTorch's is %s", a, b);
        return !strcmp(a, b);
    }
    snprintf(why, len, "%s of %lld values, PyTorch's is %s of %lld", got->scalar ? "a 0-D result" : "a tensor",
             (long long)got->n, s->scalar ? "a 0-D result" : "a tensor", (long long)s->n);
    return got->scalar == s->scalar && got->n == s->n;
}

/* A path that did not run to an answer: the backend failed, its worker
 * crashed, hung or broke its device, or a kernel wrote outside its buffers. */
bool lf_path_failed(lf_verdict *v, const char *path, const lf_result *r)
{
    const char *name, *finding;
    for (int i = 0; (name = lf_error_at(i, NULL, &finding, NULL)); i++) {
        if (!finding || strcmp(r->error, name)) continue;
        char cls[96];
        snprintf(cls, sizeof cls, "%s/%s", finding, path);
        lf_found(v, cls, "%s: %s", path, r->message);
        return true;
    }
    return false;
}
