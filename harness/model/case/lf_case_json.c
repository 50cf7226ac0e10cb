/* lf_case_json.c - reading and writing case files, with jansson for the JSON. */
#include "lf_case_json.h"
#include "lf_layout.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *msg;
    size_t len;
} errbuf;

static bool fail(errbuf *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, e->len, fmt, ap);
    va_end(ap);
    return false;
}

/* A JSON number, or one of the strings "nan", "inf", "+inf", "-inf". */
static bool get_number(json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return true;
    }
    if (!json_is_string(v)) return false;
    const char *s = json_string_value(v);
    if (!strcmp(s, "nan"))
        *out = NAN;
    else if (!strcmp(s, "inf") || !strcmp(s, "+inf"))
        *out = INFINITY;
    else if (!strcmp(s, "-inf"))
        *out = -INFINITY;
    else
        return false;
    return true;
}

static bool check_keys(json_t *obj, const char *where, const char *const *allowed, errbuf *e)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        bool ok = false;
        for (const char *const *a = allowed; *a; a++) ok |= !strcmp(key, *a);
        if (!ok) return fail(e, "%s: unknown key \"%s\"", where, key);
    }
    return true;
}

static bool parse_init(json_t *o, const char *where, lf_init *in, errbuf *e)
{
    static const char *const keys[] = {"init",  "seed",   "mean",         "std",      "low", "high",
                                       "value", "offset", "special_rate", "specials", NULL};
    if (!check_keys(o, where, keys, e)) return false;
    json_t *kind = json_object_get(o, "init"), *seed = json_object_get(o, "seed");
    if (!json_is_string(kind) || strlen(json_string_value(kind)) >= sizeof in->kind)
        return fail(e, "%s.init: expected the name of a distribution", where);
    memset(in, 0, sizeof *in);
    strcpy(in->kind, json_string_value(kind));
    in->std = 1;
    in->high = !strcmp(in->kind, "randint") ? 2 : 1;
    if (seed && !(json_is_integer(seed) && json_integer_value(seed) >= 0))
        return fail(e, "%s.seed: expected a non-negative integer", where);
    in->seed = seed ? (uint64_t)json_integer_value(seed) : 0;
    for (size_t i = 0; i < LF_INIT_FIELD_COUNT; i++) {
        json_t *v = json_object_get(o, lf_init_fields[i].key);
        if (!v) continue;
        if (!get_number(v, (double *)((char *)in + lf_init_fields[i].offset)))
            return fail(e, "%s.%s: expected a number", where, lf_init_fields[i].key);
        in->given |= lf_init_fields[i].bit;
    }
    json_t *sp = json_object_get(o, "specials");
    if (sp) {
        if (!json_is_array(sp) || json_array_size(sp) > LF_MAX_SPECIALS)
            return fail(e, "%s.specials: expected a list of at most %d numbers", where, LF_MAX_SPECIALS);
        for (size_t i = 0; i < json_array_size(sp); i++)
            if (!get_number(json_array_get(sp, i), &in->specials[in->n_specials++]))
                return fail(e, "%s.specials[%zu]: expected a number", where, i);
        in->given |= LF_INIT_HAS_SPECIALS;
        if (!json_object_get(o, "special_rate")) in->special_rate = 0.1;
    }
    return true;
}

static bool parse_value_list(json_t *list, lf_tensor *t, const char *where, errbuf *e)
{
    if ((int64_t)json_array_size(list) != t->numel)
        return fail(e, "%s.values: has %zu numbers, the shape needs %lld", where, json_array_size(list),
                    (long long)t->numel);
    for (int64_t i = 0; i < t->numel; i++) {
        json_t *v = json_array_get(list, (size_t)i);
        if (!lf_dtype_is_float(t->dtype)) {
            double d;
            int64_t x;
            if (json_is_integer(v))
                x = json_integer_value(v);
            else if (json_is_boolean(v))
                x = json_is_true(v);
            else if (json_is_real(v) && get_number(v, &d) && d == floor(d) && fabs(d) < 9e18)
                x = (int64_t)d;
            else
                return fail(e, "%s.values[%lld]: %s needs integers", where, (long long)i, lf_dtype_name(t->dtype));
            if ((double)x != lf_dtype_round(t->dtype, (double)x))
                return fail(e, "%s.values[%lld]: %lld does not fit %s", where, (long long)i, (long long)x,
                            lf_dtype_name(t->dtype));
            lf_store_i64(t->data, t->dtype, i, x);
        } else {
            double d;
            if (!get_number(v, &d))
                return fail(e, "%s.values[%lld]: expected a number or \"nan\", \"inf\", \"-inf\"", where, (long long)i);
            lf_store_f64(t->data, t->dtype, i, d);
        }
    }
    return true;
}

/* "strides" and "offset" (PyTorch's, in elements): the memory the kernels get.
 * An expanded tensor's values must agree where they share memory. */
static bool parse_layout(json_t *o, const char *where, lf_tensor *t, errbuf *e)
{
    json_t *st = json_object_get(o, "strides"), *off = json_object_get(o, "offset");
    int64_t strides[LF_MAX_DIMS], offset = 0;
    char why[160];
    if (!st && !off) return true;
    lf_layout_contiguous_strides(t->ndim, t->shape, strides);
    if (st && (!json_is_array(st) || (int)json_array_size(st) != t->ndim))
        return fail(e, "%s.strides: expected a list of %d integers, one per dim", where, t->ndim);
    for (int d = 0; st && d < t->ndim; d++) {
        json_t *s = json_array_get(st, (size_t)d);
        if (!json_is_integer(s)) return fail(e, "%s.strides[%d]: expected an integer", where, d);
        strides[d] = json_integer_value(s);
    }
    if (off && !json_is_integer(off)) return fail(e, "%s.offset: expected an integer", where);
    if (off) offset = json_integer_value(off);
    if (!lf_layout_set(t, strides, offset, why, sizeof why)) return fail(e, "%s.strides: %s", where, why);
    if (t->generated) return lf_layout_settle(t) || fail(e, "%s: out of memory", where); /* generated: made to repeat */
    int64_t bad = lf_layout_conflict(t);
    if (bad >= 0)
        return fail(e,
                    "%s.values[%lld] differs from an element that shares its memory (the strides expand the "
                    "tensor: its values must repeat along the stride-0 dims)",
                    where, (long long)bad);
    return true;
}

static bool parse_tensor(json_t *o, const char *where, lf_tensor *t, errbuf *e)
{
    static const char *const keys[] = {"dtype", "shape", "values", "strides", "offset", NULL};
    if (!json_is_object(o)) return fail(e, "%s: expected an object with dtype, shape, values", where);
    if (!check_keys(o, where, keys, e)) return false;
    json_t *dt = json_object_get(o, "dtype"), *sh = json_object_get(o, "shape"), *vals = json_object_get(o, "values");
    lf_dtype dtype;
    if (!json_is_string(dt) || !lf_dtype_parse(json_string_value(dt), &dtype))
        return fail(e,
                    "%s.dtype: expected one of float64, float32, float16, bfloat16, int64, "
                    "int32, uint8, bool",
                    where);
    if (!json_is_array(sh) || json_array_size(sh) > LF_MAX_DIMS)
        return fail(e, "%s.shape: expected a list of at most %d sizes", where, LF_MAX_DIMS);
    int64_t shape[LF_MAX_DIMS];
    for (size_t d = 0; d < json_array_size(sh); d++) {
        json_t *s = json_array_get(sh, d);
        if (!json_is_integer(s) || json_integer_value(s) < 0)
            return fail(e, "%s.shape[%zu]: expected a non-negative integer", where, d);
        shape[d] = json_integer_value(s);
    }
    char why[160];
    if (!lf_tensor_alloc(t, dtype, (int)json_array_size(sh), shape, why, sizeof why))
        return fail(e, "%s.shape: %s", where, why);
    if (json_is_array(vals)) {
        if (!parse_value_list(vals, t, where, e)) return false;
    } else {
        if (!json_is_object(vals)) return fail(e, "%s.values: expected a list of numbers or an init object", where);
        char at[64];
        snprintf(at, sizeof at, "%s.values", where);
        if (!parse_init(vals, at, &t->init, e)) return false;
        t->generated = true;
        if (!lf_init_fill(t, why, sizeof why)) return fail(e, "%s: %s", at, why);
    }
    return parse_layout(o, where, t, e);
}

/* Options the loss function does not take would be a TypeError in Python: the
 * file is wrong, not the case. */
static bool check_options_fit_loss(const lf_case *c, errbuf *e)
{
    char why[160];
    return lf_case_check_options(c, why, sizeof why) || fail(e, "%s", why);
}

/* A number, or a list of them (reduction none), as "value" prints them. */
static bool parse_expect_value(json_t *v, lf_case *c, errbuf *e)
{
    size_t n = json_is_array(v) ? json_array_size(v) : 1;
    if (n > (size_t)LF_MAX_NUMEL) return fail(e, "expect_value: too many values");
    c->expect_value = calloc(n + 1, sizeof(double));
    if (!c->expect_value) return fail(e, "expect_value: out of memory");
    c->n_expect_value = (int64_t)n;
    c->expect_value_scalar = !json_is_array(v);
    for (size_t i = 0; i < n; i++)
        if (!get_number(json_is_array(v) ? json_array_get(v, i) : v, &c->expect_value[i]))
            return fail(e, "expect_value%s: expected a number or \"nan\", \"inf\", \"-inf\"",
                        json_is_array(v) ? "[]" : "");
    return true;
}

/* "backward": {"seed": 7, "upstream": "random", "input_requires_grad": true} */
static bool parse_backward(json_t *o, lf_backward *b, errbuf *e)
{
    static const char *const keys[] = {"seed",
                                       "upstream",
                                       "input_requires_grad",
                                       "linear_weight_requires_grad",
                                       "linear_bias_requires_grad",
                                       "through_softmax",
                                       NULL};
    if (!json_is_object(o)) return fail(e, "backward: expected an object");
    if (!check_keys(o, "backward", keys, e)) return false;
    json_t *v;
    b->given = true;
    if ((v = json_object_get(o, "seed"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0) return fail(e, "backward.seed: expected an integer >= 0");
        b->seed = (uint64_t)json_integer_value(v);
    }
    if ((v = json_object_get(o, "upstream")) &&
        (!json_is_string(v) || !lf_upstream_parse(json_string_value(v), &b->upstream)))
        return fail(e, "backward.upstream: expected random, zero_first or equal");
    static const char *const flags[] = {"input_requires_grad", "linear_weight_requires_grad",
                                        "linear_bias_requires_grad", "through_softmax"};
    bool *const to[] = {&b->input_requires_grad, &b->linear_weight_requires_grad, &b->linear_bias_requires_grad,
                        &b->through_softmax};
    for (int k = 0; k < 4; k++) {
        if (!(v = json_object_get(o, flags[k]))) continue;
        if (!json_is_boolean(v)) return fail(e, "backward.%s: expected true or false", flags[k]);
        *to[k] = json_is_true(v);
    }
    return true;
}

/* The scalar options (lf_options.def), each where its key is. */
static bool parse_options(json_t *root, lf_case *c, errbuf *e)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++) {
        const lf_option_info *O = lf_option_of(o);
        json_t *v = lf_option_is_scalar(o) ? json_object_get(root, O->name) : NULL;
        double r;
        if (!v) continue;
        if (O->type == LF_TYPE_lf_choice) {
            int64_t k;
            char names[256];
            if ((json_is_string(v) || json_is_null(v)) && lf_option_choice_parse(o, json_string_value(v), &k)) {
                lf_case_set_option_int(c, o, k);
                continue;
            }
            lf_option_choice_list(o, names, sizeof names);
            return fail(e, "%s: expected one of %s (null for 'None'): %s", O->name, names, O->meaning);
        }
        if (O->type == LF_TYPE_int64_t && !json_is_integer(v))
            return fail(e, "%s: expected an integer (%s)", O->name, O->meaning);
        if (O->type == LF_TYPE_int64_t)
            lf_case_set_option_int(c, o, json_integer_value(v));
        else if (get_number(v, &r))
            lf_case_set_option(c, o, r);
        else
            return fail(e, "%s: expected a number", O->name);
    }
    return true;
}

/* The LLM family's keys besides its options (vocab_last, world_size, shards). */
static bool parse_llm(json_t *root, lf_case *c, errbuf *e)
{
    json_t *v;
    if ((v = json_object_get(root, "vocab_last"))) {
        if (!json_is_boolean(v)) return fail(e, "vocab_last: expected true or false");
        c->vocab_last = json_is_true(v);
    }
    if ((v = json_object_get(root, "world_size"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > LF_MAX_WORLD)
            return fail(e, "world_size: expected an integer from 1 to %d", LF_MAX_WORLD);
        c->world_size = (int)json_integer_value(v);
    }
    if ((v = json_object_get(root, "shards"))) {
        if (!json_is_array(v) || json_array_size(v) > LF_MAX_WORLD)
            return fail(e, "shards: expected a list of up to %d shard sizes", LF_MAX_WORLD);
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *s = json_array_get(v, i);
            if (!json_is_integer(s) || json_integer_value(s) < 0)
                return fail(e, "shards[%zu]: expected a size >= 0", i);
            c->shards[c->n_shards++] = json_integer_value(s);
        }
    }
    return true;
}

static bool parse_case(json_t *root, lf_case *c, errbuf *e)
{
    static const char *const keys[] = {"loss",         "note",          "input",        "target",      "weight",
                                       "pos_weight",   "linear_weight", "linear_bias",  "reduction",   "expect",
                                       "expect_error", "expect_hint",   "expect_value", "backward",    "loss_mask",
                                       "vocab_last",   "world_size",    "shards",       "expect_rtol", NULL};
    enum { N_KEYS = sizeof keys / sizeof *keys - 1 };
    const char *all[N_KEYS + LF_OPTION_COUNT + 1]; /* and the scalar options' names (lf_options.def) */
    int n = N_KEYS;
    memcpy(all, keys, sizeof(char *) * N_KEYS);
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_option_is_scalar(o)) all[n++] = lf_option_of(o)->name;
    all[n] = NULL;
    if (!json_is_object(root)) return fail(e, "a case must be a JSON object");
    if (!check_keys(root, "case", all, e)) return false;
    json_t *v = json_object_get(root, "loss");
    if (!json_is_string(v) || !lf_loss_parse(json_string_value(v), &c->loss))
        return fail(e, "loss: expected %s", lf_loss_names());
    if ((v = json_object_get(root, "note"))) {
        if (!json_is_string(v)) return fail(e, "note: expected a string");
        snprintf(c->note, sizeof c->note, "%s", json_string_value(v));
    }
    if (!json_object_get(root, "input")) return fail(e, "input: missing");
    if (!json_object_get(root, "target")) return fail(e, "target: missing");
    if (!parse_tensor(json_object_get(root, "input"), "input", &c->input, e)) return false;
    if (!lf_dtype_is_float(c->input.dtype))
        return fail(e, "input.dtype: %s logits are not supported (use a floating dtype)",
                    lf_dtype_name(c->input.dtype));
    if (!parse_tensor(json_object_get(root, "target"), "target", &c->target, e)) return false;
    for (int k = LF_T_WEIGHT; k < LF_CASE_TENSORS; k++) /* the optional ones */
        if ((v = json_object_get(root, lf_case_tensor_names[k])) && !json_is_null(v) &&
            !parse_tensor(v, lf_case_tensor_names[k], lf_case_tensor(c, k), e))
            return false;
    if ((v = json_object_get(root, "reduction"))) {
        if (!json_is_string(v) || strlen(json_string_value(v)) >= sizeof c->reduction_name)
            return fail(e, "reduction: expected \"none\", \"mean\" or \"sum\"");
        strcpy(c->reduction_name, json_string_value(v));
        c->reduction = lf_reduction_parse(c->reduction_name);
        c->has_reduction = true;
    }
    if (!parse_options(root, c, e) || !parse_llm(root, c, e)) return false;
    if ((v = json_object_get(root, "expect")) &&
        !(json_is_string(v) && lf_outcome_parse(json_string_value(v), &c->expect)))
        return fail(e, "expect: expected \"ok\", \"host_error\" or \"device_assert\"");
    if ((v = json_object_get(root, "expect_error"))) {
        if (!json_is_string(v) || strlen(json_string_value(v)) >= sizeof c->expect_error)
            return fail(e, "expect_error: expected an error class name");
        strcpy(c->expect_error, json_string_value(v));
    }
    if ((v = json_object_get(root, "backward")) && !parse_backward(v, &c->backward, e)) return false;
    if ((v = json_object_get(root, "expect_hint"))) {
        if (!json_is_string(v) || strlen(json_string_value(v)) >= sizeof c->expect_hint)
            return fail(e, "expect_hint: expected a hint id");
        strcpy(c->expect_hint, json_string_value(v));
    }
    if ((v = json_object_get(root, "expect_value")) && !parse_expect_value(v, c, e)) return false;
    if ((v = json_object_get(root, "expect_rtol")) &&
        (!json_is_number(v) || !(json_number_value(v) > 0) || !c->expect_value))
        return fail(e, "expect_rtol: a fraction > 0, with an expect_value");
    if (v) c->expect_rtol = json_number_value(v);
    return check_options_fit_loss(c, e);
}

bool lf_case_parse_json(const char *text, size_t len, lf_case *c, char *err, size_t errlen)
{
    errbuf e = {err, errlen};
    json_error_t jerr;
    lf_case_init(c);
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) return fail(&e, "line %d, column %d: %s", jerr.line, jerr.column, jerr.text);
    bool ok = parse_case(root, c, &e);
    json_decref(root);
    if (!ok) lf_case_free(c);
    return ok;
}
