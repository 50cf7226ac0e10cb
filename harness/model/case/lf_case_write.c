/* lf_case_write.c - a case back to JSON text: top-level keys one per line,
 * each tensor on one line, numbers in their shortest exact form. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_case_json.h"

typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} strbuf;

static void put(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->oom || n < 0) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *grown = realloc(b->s, cap);
        if (!grown) {
            b->oom = true;
            return;
        }
        b->s = grown;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void lf_json_number(char *buf, size_t len, double v, lf_dtype t)
{
    if (isnan(v)) {
        snprintf(buf, len, "\"nan\"");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, len, v > 0 ? "\"inf\"" : "\"-inf\"");
        return;
    }
    if (!lf_dtype_is_float(t) || (v == floor(v) && fabs(v) < 1e15)) {
        snprintf(buf, len, "%.0f", v);
        if (lf_dtype_is_float(t)) strncat(buf, ".0", len - strlen(buf) - 1);
        return;
    }
    for (int p = 1; p <= 17; p++) { /* shortest text that reads back to the same value */
        snprintf(buf, len, "%.*g", p, v);
        if (lf_dtype_round(t, strtod(buf, NULL)) == v) return;
    }
}

static void put_string(strbuf *b, const char *s)
{
    json_t *j = json_string(s);
    char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    put(b, "%s", text ? text : "\"\"");
    free(text);
    json_decref(j);
}

static void put_init(strbuf *b, const lf_init *in)
{
    char num[40];
    put(b, "{\"init\": ");
    put_string(b, in->kind);
    put(b, ", \"seed\": %llu", (unsigned long long)in->seed);
    for (size_t i = 0; i < LF_INIT_FIELD_COUNT; i++) {
        if (!(in->given & lf_init_fields[i].bit)) continue;
        lf_json_number(num, sizeof num, *(const double *)((const char *)in + lf_init_fields[i].offset), LF_F64);
        put(b, ", \"%s\": %s", lf_init_fields[i].key, num);
    }
    if (in->n_specials) {
        put(b, ", \"specials\": [");
        for (int i = 0; i < in->n_specials; i++) {
            lf_json_number(num, sizeof num, in->specials[i], LF_F64);
            put(b, "%s%s", i ? ", " : "", num);
        }
        put(b, "]");
    }
    put(b, "}");
}

static void put_tensor(strbuf *b, const char *key, const lf_tensor *t)
{
    char num[40];
    put(b, ",\n \"%s\": {\"dtype\": \"%s\", \"shape\": [", key, lf_dtype_name(t->dtype));
    for (int d = 0; d < t->ndim; d++) put(b, "%s%lld", d ? ", " : "", (long long)t->shape[d]);
    put(b, "], \"values\": ");
    if (t->generated) {
        put_init(b, &t->init);
    } else {
        put(b, "[");
        for (int64_t i = 0; i < t->numel; i++) {
            if (lf_dtype_is_float(t->dtype))
                lf_json_number(num, sizeof num, lf_load_f64(t->data, t->dtype, i), t->dtype);
            else
                snprintf(num, sizeof num, "%lld", (long long)lf_load_i64(t->data, t->dtype, i));
            put(b, "%s%s", i ? ", " : "", num);
        }
        put(b, "]");
    }
    if (t->strided) {
        put(b, ", \"strides\": [");
        for (int d = 0; d < t->ndim; d++) put(b, "%s%lld", d ? ", " : "", (long long)t->strides[d]);
        put(b, "], \"offset\": %lld", (long long)t->offset);
    }
    put(b, "}");
}

char *lf_case_to_json(const lf_case *c)
{
    strbuf b = {0};
    char num[40];
    put(&b, "{\"loss\": \"%s\"", lf_loss_name(c->loss));
    if (c->note[0]) {
        put(&b, ",\n \"note\": ");
        put_string(&b, c->note);
    }
    put_tensor(&b, "input", &c->input);
    put_tensor(&b, "target", &c->target);
    for (int k = LF_T_WEIGHT; k < LF_CASE_TENSORS; k++) /* the optional ones */
        if (lf_case_tensor_const(c, k)->present) put_tensor(&b, lf_case_tensor_names[k], lf_case_tensor_const(c, k));
    for (int o = 0; o < LF_OPTION_COUNT; o++) { /* the scalar options given, in lf_options.def's order */
        if (o == LF_OPTION_LABEL_SMOOTHING && c->has_reduction) { /* reduction's place in the files written so far */
            put(&b, ",\n \"reduction\": ");
            put_string(&b, c->reduction_name);
        }
        if (!lf_option_is_scalar(o) || !lf_case_given(c, o)) continue;
        const char *choice = lf_option_choice_value(o, lf_case_option_int(c, o));
        if (lf_option_of(o)->type == LF_TYPE_lf_choice)
            snprintf(num, sizeof num, choice ? "\"%s\"" : "null", choice);
        else if (lf_option_of(o)->type == LF_TYPE_int64_t)
            snprintf(num, sizeof num, "%lld", (long long)lf_case_option_int(c, o));
        else
            lf_json_number(num, sizeof num, lf_case_option_value(c, o), LF_F64);
        put(&b, ",\n \"%s\": %s", lf_option_of(o)->name, num);
    }
    if (c->vocab_last) put(&b, ",\n \"vocab_last\": true");
    if (c->world_size != 1) put(&b, ",\n \"world_size\": %d", c->world_size);
    for (int r = 0; r < c->n_shards; r++) put(&b, "%s%lld", r ? ", " : ",\n \"shards\": [", (long long)c->shards[r]);
    if (c->n_shards) put(&b, "]");
    if (c->backward.given) {
        const lf_backward *bw = &c->backward;
        put(&b, ",\n \"backward\": {\"seed\": %llu, \"upstream\": \"%s\", \"input_requires_grad\": %s",
            (unsigned long long)bw->seed, lf_upstream_name(bw->upstream), bw->input_requires_grad ? "true" : "false");
        if (lf_loss_of(c->loss)->fused_linear)
            put(&b, ", \"linear_weight_requires_grad\": %s, \"linear_bias_requires_grad\": %s",
                bw->linear_weight_requires_grad ? "true" : "false", bw->linear_bias_requires_grad ? "true" : "false");
        if (bw->through_softmax) put(&b, ", \"through_softmax\": true");
        put(&b, "}");
    }
    if (c->expect) put(&b, ",\n \"expect\": \"%s\"", lf_outcome_name(c->expect));
    if (c->expect_error[0]) {
        put(&b, ",\n \"expect_error\": ");
        put_string(&b, c->expect_error);
    }
    if (c->expect_hint[0]) {
        put(&b, ",\n \"expect_hint\": ");
        put_string(&b, c->expect_hint);
    }
    if (c->expect_value) {
        put(&b, ",\n \"expect_value\": %s", c->expect_value_scalar ? "" : "[");
        for (int64_t i = 0; i < c->n_expect_value; i++) {
            lf_json_number(num, sizeof num, c->expect_value[i], LF_F64);
            put(&b, "%s%s", i ? ", " : "", num);
        }
        if (!c->expect_value_scalar) put(&b, "]");
    }
    if (c->expect_rtol > 0) {
        lf_json_number(num, sizeof num, c->expect_rtol, LF_F64);
        put(&b, ",\n \"expect_rtol\": %s", num);
    }
    put(&b, "}\n");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}
