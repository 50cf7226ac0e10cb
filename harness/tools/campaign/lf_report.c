/* lf_report.c - verdicts as text and as JSON (jansson), numbers NaN-safe:
 * non-finite values are the strings "nan", "inf", "-inf". */
#include "lf_report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "lf_kernels.h"
#include "lf_shape.h"

static json_t *number(double v)
{
    if (isnan(v)) return json_string("nan");
    if (isinf(v)) return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

static json_t *numbers(const double *v, int64_t n)
{
    json_t *list = json_array();
    for (int64_t i = 0; i < n; i++) json_array_append_new(list, number(v[i]));
    return list;
}

static json_t *value_json(const lf_result *r)
{
    if (r->kind != LF_OUTCOME_OK || !r->values) return json_null();
    return r->scalar ? number(r->values[0]) : numbers(r->values, r->n);
}

static json_t *str_or_null(const char *s) { return s[0] ? json_string(s) : json_null(); }

/* d input (and a fused linear's gradients) where a path gave them: "grad":
 * {"input": {"state": "ok", "dtype": .., "values": [..]}, ..}. */
static json_t *grads_json(const lf_result *r)
{
    json_t *o = json_object();
    for (int p = 0; p < LF_GRAD_PARTS; p++) {
        const lf_grad *g = &r->grad[p];
        if (g->state == LF_GRAD_NONE) continue;
        json_t *gj = json_pack("{s:s}", "state", lf_grad_state_names[g->state]);
        if (g->state == LF_GRAD_OK) {
            json_object_set_new(gj, "dtype", json_string(lf_dtype_name(g->dtype)));
            json_object_set_new(gj, "values", numbers(g->values, g->n));
        } else {
            json_object_set_new(gj, "message", json_string(g->message));
        }
        json_object_set_new(o, lf_grad_part_names[p], gj);
    }
    if (json_object_size(o) == 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *result_json(const lf_result *r, bool is_guard)
{
    json_t *o = json_object();
    const char *outcome = is_guard ? (r->kind == LF_OUTCOME_OK ? "ok" : "rejected") : lf_outcome_name(r->kind);
    json_object_set_new(o, "outcome", json_string(outcome));
    json_object_set_new(o, "value", value_json(r));
    json_object_set_new(o, "error", str_or_null(r->error));
    json_object_set_new(o, "message", str_or_null(r->message));
    if (!is_guard) json_object_set_new(o, "exception", str_or_null(r->exception));
    if (r->kind == LF_OUTCOME_OK) json_object_set_new(o, "dtype", json_string(lf_dtype_name(r->out_dtype)));
    if (r->kind == LF_OUTCOME_OK && r->scales) { /* the spec's term magnitudes, for tolerances */
        json_object_set_new(o, "scale", r->scalar ? number(r->scales[0]) : numbers(r->scales, r->n));
        json_object_set_new(o, "tolerance_dtype", json_string(lf_dtype_name(r->tol_dtype)));
    }
    if (!is_guard && r->silent[0]) json_object_set_new(o, "silent", json_string(r->silent));
    if (r->kind == LF_OUTCOME_DEVICE_ASSERT) {
        json_t *a = json_object();
        json_object_set_new(a, "kernel", json_string(lf_kernel_name(r->kernel_id)));
        json_object_set_new(a, "condition", json_string(lf_cond_text(r->cond_id)));
        json_object_set_new(a, "index", json_integer(r->index));
        json_object_set_new(a, "value", json_integer(r->value));
        json_object_set_new(o, "assert", a);
    }
    json_t *grads = grads_json(r);
    if (grads) json_object_set_new(o, "grad", grads);
    if (is_guard) {
        json_object_set_new(o, "hint", str_or_null(r->hint));
        json_object_set_new(o, "hint_id", str_or_null(r->hint_id));
        json_object_set_new(o, "warning", str_or_null(r->warning));
        json_object_set_new(o, "warning_id", str_or_null(r->warning_id));
        if (r->index >= 0 && r->kind != LF_OUTCOME_OK) {
            json_object_set_new(o, "index", json_integer(r->index));
            json_object_set_new(o, "offending_value", json_integer(r->value));
        }
    }
    return o;
}

void lf_report_json(FILE *out, const char *file, const lf_case *c, const lf_verdict *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(file));
    json_object_set_new(o, "spec", result_json(&v->spec, false));
    if (v->backward_asked && v->spec_backward.kind == LF_OUTCOME_DEVICE_ASSERT)
        json_object_set_new(o, "spec_backward", result_json(&v->spec_backward, false));
    /* the upstream gradient the paths' backward got (or a kernel's would get: lossfuzz export's scripts take it) */
    bool upstream = v->backward_asked || (c->backward.given && v->spec.kind == LF_OUTCOME_OK);
    double *up = upstream ? malloc(sizeof(double) * ((size_t)v->spec.n + 1)) : NULL;
    if (up) { /* another runner (torch) can take the same */
        lf_upstream_values(&c->backward, v->spec.n, up);
        json_object_set_new(o, "upstream", numbers(up, v->spec.n));
        free(up);
    }
    if (v->reference.kind != LF_OUTCOME_NONE) json_object_set_new(o, "reference", result_json(&v->reference, false));
    if (v->guard.kind != LF_OUTCOME_NONE) json_object_set_new(o, "guard", result_json(&v->guard, true));
    if (v->has_torch) json_object_set_new(o, "torch", result_json(&v->torch, false));
    if (v->has_kernel) json_object_set_new(o, "kernel", result_json(&v->kernel, false));
    if (v->spec_grad[LF_GRAD_INPUT].kind ==
        LF_OUTCOME_OK) { /* the spec's d input: what the paths' were judged against */
        const lf_result *g = &v->spec_grad[LF_GRAD_INPUT];
        json_object_set_new(o, "spec_grad",
                            json_pack("{s:s, s:o, s:o, s:s}", "dtype", lf_dtype_name(g->out_dtype), "values",
                                      numbers(g->values, g->n), "scale", numbers(g->scales, g->n), "tolerance_dtype",
                                      lf_dtype_name(g->tol_dtype)));
    }
    if (v->kernel_skip[0]) json_object_set_new(o, "kernel_skipped", json_string(v->kernel_skip));
    if (v->torch_known) {
        json_object_set_new(o, "torch_known_difference", json_string(v->torch_known->what));
        json_object_set_new(o, "torch_known_id", json_string(v->torch_known->id));
    }
    json_object_set_new(o, "verdict", json_string(v->finding ? "finding" : "pass"));
    if (v->guarded_silent) json_object_set_new(o, "guarded_silent", json_string(v->spec.silent));
    json_object_set_new(o, "finding", v->finding ? json_string(v->finding_class) : json_null());
    json_object_set_new(o, "detail", str_or_null(v->detail));
    json_object_set_new(o, "signature", v->finding ? json_string(v->signature) : json_null());
    json_object_set_new(o, "accepted", v->accepted[0] ? json_string(v->accepted) : json_null());
    json_object_set_new(o, "accepted_signature", v->accepted[0] ? json_string(v->accepted_signature) : json_null());
    char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    fprintf(out, "%s\n", text ? text : "{}");
    free(text);
    json_decref(o);
}

static void describe_value(char *buf, size_t len, const lf_result *r)
{
    if (r->n == 1)
        snprintf(buf, len, "%.9g %s", r->values[0], lf_dtype_name(r->out_dtype));
    else if (r->n == 0)
        snprintf(buf, len, "[] %s", lf_dtype_name(r->out_dtype));
    else
        snprintf(buf, len, "[%.6g, ... %lld values] %s", r->values[0], (long long)r->n, lf_dtype_name(r->out_dtype));
}

void lf_result_line(char *buf, size_t len, const lf_result *r)
{
    char val[128];
    if (r->kind == LF_OUTCOME_OK) describe_value(val, sizeof val, r);
    if (r->kind == LF_OUTCOME_OK)
        snprintf(buf, len, "ok %s", val);
    else
        snprintf(buf, len, "%s %s: %s", lf_outcome_name(r->kind), r->error, r->message);
}

static void text_line(FILE *out, const char *path, const lf_result *r, bool is_guard)
{
    char val[128];
    if (r->kind == LF_OUTCOME_OK) {
        describe_value(val, sizeof val, r);
        fprintf(out, "  %-10s ok             %s\n", path, val);
    } else {
        fprintf(out, "  %-10s %-14s %s: %s\n", path, is_guard ? "rejected" : lf_outcome_name(r->kind), r->error,
                r->message);
    }
    if (is_guard && r->hint[0]) fprintf(out, "  %-10s hint           %s\n", "", r->hint);
    if (is_guard && r->warning[0]) fprintf(out, "  %-10s warning        %s\n", "", r->warning);
}

/* A path's backward half, when it ran: each gradient, or why there is none. */
static void grad_line(FILE *out, const lf_case *c, const lf_result *k)
{
    const lf_backward *b = &c->backward;
    for (int p = 0; p < LF_GRAD_PARTS; p++) {
        const lf_grad *g = &k->grad[p];
        const char *name = lf_grad_part_names[p];
        if (g->state == LF_GRAD_NONE) continue;
        fprintf(out, "  %-10s ", "backward");
        if (g->state == LF_GRAD_OK && g->n > 0)
            fprintf(out, "d %s [%.6g, ... %lld values] %s", name, g->values[0], (long long)g->n,
                    lf_dtype_name(g->dtype));
        else if (g->state == LF_GRAD_OK)
            fprintf(out, "d %s [] %s", name, lf_dtype_name(g->dtype));
        else
            fprintf(out, "%s d %s: %s", g->state == LF_GRAD_MISSING ? "no" : "failed,", name, g->message);
        fprintf(out, " (upstream %s, seed %llu)\n", lf_upstream_name(b->upstream), (unsigned long long)b->seed);
    }
}

void lf_report_text(FILE *out, const char *file, const lf_case *c, const lf_verdict *v)
{
    char is[128], ts[128];
    lf_format_shape(is, sizeof is, c->input.shape, c->input.ndim);
    lf_format_shape(ts, sizeof ts, c->target.shape, c->target.ndim);
    fprintf(out, "%s: %s, input %s %s, target %s %s\n", file, lf_loss_name(c->loss), lf_dtype_name(c->input.dtype), is,
            lf_dtype_name(c->target.dtype), ts);
    text_line(out, "spec", &v->spec, false);
    if (v->backward_asked && v->spec_backward.kind == LF_OUTCOME_DEVICE_ASSERT)
        fprintf(out, "  %-10s device_assert  in backward: %s\n", "", v->spec_backward.message);
    if (v->reference.kind != LF_OUTCOME_NONE) text_line(out, "reference", &v->reference, false);
    grad_line(out, c, &v->reference);
    if (v->guard.kind != LF_OUTCOME_NONE) text_line(out, "guard", &v->guard, true);
    grad_line(out, c, &v->guard);
    if (v->has_torch) text_line(out, "torch", &v->torch, false);
    if (v->has_kernel) text_line(out, "kernel", &v->kernel, false);
    if (v->has_kernel) grad_line(out, c, &v->kernel);
    if (v->kernel_skip[0])
        fprintf(out, "  %-10s skipped        it does not claim the case's %s\n", "kernel", v->kernel_skip);
    if (v->torch_known)
        fprintf(out, "  %-10s known          %s (%s; %s)\n", "", v->torch_known->what, v->torch_known->id,
                v->torch_known->source);
    if (v->finding)
        fprintf(out, "  %-10s FINDING        %s: %s\n", "verdict", v->finding_class, v->detail);
    else if (v->accepted[0])
        fprintf(out, "  %-10s accepted       %s: %s\n", "verdict", v->accepted_signature, v->accepted);
    else if (v->guarded_silent)
        fprintf(out, "  %-10s pass           the guard rejects what PyTorch silently miscomputes (%s)\n", "verdict",
                v->spec.silent);
    else
        fprintf(out, "  %-10s pass\n", "verdict");
}

void lf_report_json_unusable(FILE *out, const char *file, const char *error)
{
    json_t *o = json_object();
    json_object_set_new(o, "file", json_string(file));
    json_object_set_new(o, "verdict", json_string("unusable"));
    json_object_set_new(o, "error", json_string(error));
    char *text = json_dumps(o, JSON_COMPACT);
    fprintf(out, "%s\n", text ? text : "{}");
    free(text);
    json_decref(o);
}
