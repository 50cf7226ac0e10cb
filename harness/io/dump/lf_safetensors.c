/* lf_safetensors.c - .safetensors: an 8-byte little-endian header length, a
 * JSON header {"name": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]},
 * "__metadata__": {"key": "value"}}, then the data. Parsed with jansson
 * (duplicate names rejected); every offset and size is checked, and the
 * tensors must tile the data exactly, as the format and its reference reader
 * require: overlapping tensors would read one tensor's bytes as another's. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_dump.h"

static bool st_dtype(const char *s, lf_dtype *t)
{
    static const struct {
        const char *name;
        lf_dtype dtype;
    } table[] = {{"F64", LF_F64}, {"F32", LF_F32}, {"F16", LF_F16}, {"BF16", LF_BF16},
                 {"I64", LF_I64}, {"I32", LF_I32}, {"U8", LF_U8},   {"BOOL", LF_BOOL}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(s, table[i].name)) {
            *t = table[i].dtype;
            return true;
        }
    return false;
}

/* Where a tensor's bytes are in the data. */
typedef struct {
    uint64_t begin, end;
    int index;
} span;

static bool tensor_entry(const char *name, json_t *v, const uint8_t *data, uint64_t data_len, lf_array *a, span *at,
                         char *err, size_t errlen)
{
    json_t *dt = json_object_get(v, "dtype"), *sh = json_object_get(v, "shape"),
           *off = json_object_get(v, "data_offsets");
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    if (!json_is_string(dt) || !st_dtype(json_string_value(dt), &a->dtype)) {
        snprintf(err, errlen, "%s: dtype %s is not supported (F64 F32 F16 BF16 I64 I32 U8 BOOL)", name,
                 json_is_string(dt) ? json_string_value(dt) : "(missing)");
        return false;
    }
    if (!json_is_array(sh) || json_array_size(sh) > LF_MAX_DIMS) {
        snprintf(err, errlen, "%s: shape must be a list of at most %d sizes", name, LF_MAX_DIMS);
        return false;
    }
    a->ndim = (int)json_array_size(sh);
    for (int d = 0; d < a->ndim; d++) {
        json_t *s = json_array_get(sh, (size_t)d);
        if (!json_is_integer(s)) {
            snprintf(err, errlen, "%s: shape[%d] is not an integer", name, d);
            return false;
        }
        a->shape[d] = json_integer_value(s);
    }
    uint64_t bytes;
    char why[160];
    if (!lf_shape_bytes(a->shape, a->ndim, a->dtype, &a->numel, &bytes, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", name, why);
        return false;
    }
    if (!json_is_array(off) || json_array_size(off) != 2 || !json_is_integer(json_array_get(off, 0)) ||
        !json_is_integer(json_array_get(off, 1))) {
        snprintf(err, errlen, "%s: data_offsets must be [begin, end]", name);
        return false;
    }
    json_int_t b = json_integer_value(json_array_get(off, 0)), e = json_integer_value(json_array_get(off, 1));
    if (b < 0 || e < b || (uint64_t)e > data_len) {
        snprintf(err, errlen, "%s: data_offsets [%lld, %lld] fall outside the %llu data bytes (truncated file?)", name,
                 (long long)b, (long long)e, (unsigned long long)data_len);
        return false;
    }
    if ((uint64_t)(e - b) != bytes) {
        snprintf(err, errlen, "%s: data_offsets span %lld bytes, shape and dtype need %llu", name, (long long)(e - b),
                 (unsigned long long)bytes);
        return false;
    }
    a->data = data + b;
    at->begin = (uint64_t)b, at->end = (uint64_t)e;
    return true;
}

static int by_offset(const void *x, const void *y)
{
    const span *a = x, *b = y;
    if (a->begin != b->begin) return a->begin < b->begin ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return a->index - b->index; /* header order, so the message is the same every run */
}

/* Sorted by offset, each tensor must begin where the previous one ended, from
 * 0 to the end of the data: no overlap, no gap, no trailing bytes. */
static bool tiles_data(span *s, int n, const lf_dump *d, uint64_t data_len, char *err, size_t errlen)
{
    qsort(s, (size_t)n, sizeof *s, by_offset);
    uint64_t at = 0;
    for (int i = 0; i < n; i++) {
        const char *name = d->arrays[s[i].index].name;
        if (s[i].begin < at) {
            snprintf(err, errlen,
                     "%s: data_offsets [%llu, %llu] overlap %s's [%llu, %llu] (tensors may not share bytes)", name,
                     (unsigned long long)s[i].begin, (unsigned long long)s[i].end, d->arrays[s[i - 1].index].name,
                     (unsigned long long)s[i - 1].begin, (unsigned long long)s[i - 1].end);
            return false;
        }
        if (s[i].begin > at) {
            if (i == 0)
                snprintf(err, errlen, "%llu bytes before the first tensor (%s begins at %llu) belong to no tensor",
                         (unsigned long long)s[i].begin, name, (unsigned long long)s[i].begin);
            else
                snprintf(err, errlen,
                         "%llu bytes between %s (ends at %llu) and %s (begins at %llu) belong to no tensor",
                         (unsigned long long)(s[i].begin - at), d->arrays[s[i - 1].index].name, (unsigned long long)at,
                         name, (unsigned long long)s[i].begin);
            return false;
        }
        at = s[i].end;
    }
    if (at != data_len) {
        snprintf(err, errlen, "%llu bytes after the last tensor%s%s (the data has %llu bytes, the tensors end at %llu)",
                 (unsigned long long)(data_len - at), n ? ", " : "", n ? d->arrays[s[n - 1].index].name : "",
                 (unsigned long long)data_len, (unsigned long long)at);
        return false;
    }
    return true;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    case JSON_STRING: return "a string";
    default: return "a number";
    }
}

/* A number as the shortest text that reads back as it. */
static void number_text(double x, char *out, size_t len)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(out, len, "%.*g", digits, x);
        if (strtod(out, NULL) == x) return;
    }
}

/* __metadata__: an object of known keys whose values are strings, as the
 * format says, or plain numbers (ignore_index 255: nothing else it could
 * mean); an array, object, bool or null is refused, not skipped. */
static bool metadata(json_t *obj, lf_dump *d, char *err, size_t errlen)
{
    const char *k;
    json_t *v;
    if (!json_is_object(obj)) {
        snprintf(err, errlen, "__metadata__ is %s: it must be an object of strings", json_kind(obj));
        return false;
    }
    json_object_foreach(obj, k, v)
    {
        if (!lf_dump_check_meta_key(k, err, errlen)) return false;
        if (d->n_meta == LF_DUMP_MAX_META) {
            snprintf(err, errlen, "__metadata__ has more than %d keys", LF_DUMP_MAX_META);
            return false;
        }
        lf_meta *m = &d->meta[d->n_meta++];
        snprintf(m->key, sizeof m->key, "%s", k);
        m->is_number = json_is_number(v), m->is_integer = json_is_integer(v);
        if (json_is_integer(v))
            snprintf(m->value, sizeof m->value, "%lld", (long long)json_integer_value(v));
        else if (json_is_real(v))
            number_text(json_real_value(v), m->value, sizeof m->value);
        else if (!json_is_string(v)) {
            snprintf(err, errlen, "__metadata__ %s is %s: expected a string (or a plain number)", k, json_kind(v));
            return false;
        } else if (strlen(json_string_value(v)) >= sizeof m->value) {
            snprintf(err, errlen, "__metadata__ %s: the value is longer than %zu characters", k, sizeof m->value - 1);
            return false;
        } else
            snprintf(m->value, sizeof m->value, "%s", json_string_value(v));
    }
    return true;
}

bool lf_safetensors_parse(const uint8_t *buf, size_t len, lf_dump *d, char *err, size_t errlen)
{
    if (len < 8) {
        snprintf(err, errlen, "truncated: no header length");
        return false;
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | buf[i];
    if (hlen > LF_DUMP_MAX_HEADER || hlen > len - 8) {
        snprintf(err, errlen, "header length %llu runs past the end of the file (%zu bytes) or over the limit",
                 (unsigned long long)hlen, len);
        return false;
    }
    json_error_t jerr;
    json_t *root = json_loadb((const char *)buf + 8, (size_t)hlen, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(root)) {
        snprintf(err, errlen, "header is not a JSON object: %s", root ? "wrong type" : jerr.text);
        json_decref(root);
        return false;
    }
    const char *key;
    json_t *v;
    bool ok = true;
    span spans[LF_DUMP_MAX_ARRAYS];
    json_object_foreach(root, key, v)
    {
        if (!strcmp(key, "__metadata__")) {
            if (!(ok = metadata(v, d, err, errlen))) break;
            continue;
        }
        if (d->n == LF_DUMP_MAX_ARRAYS) {
            snprintf(err, errlen, "more than %d tensors", LF_DUMP_MAX_ARRAYS);
            ok = false;
            break;
        }
        if (!json_is_object(v)) {
            snprintf(err, errlen, "%s: not a tensor entry", key);
            ok = false;
            break;
        }
        spans[d->n].index = d->n;
        if (!(ok = tensor_entry(key, v, buf + 8 + hlen, len - 8 - hlen, &d->arrays[d->n], &spans[d->n], err, errlen)))
            break;
        d->n++;
    }
    if (ok) ok = tiles_data(spans, d->n, d, len - 8 - hlen, err, errlen);
    json_decref(root);
    return ok;
}
