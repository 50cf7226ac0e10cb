/* lf_safetensors.c - .safetensors: an 8-byte little-endian header length, a
 * JSON header {"name": {"dtype": "F32", "shape": [...], "data_offsets": [b, e]},
 * "__metadata__": {"key": "value"}}, then the data. Parsed with jansson
 * (duplicate names rejected); every offset and size is checked. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_dump.h"

static bool st_dtype(const char *s, lf_dtype *t)
{
    static const struct { const char *name; lf_dtype dtype; } table[] = {
        {"F64", LF_F64}, {"F32", LF_F32}, {"F16", LF_F16}, {"BF16", LF_BF16},
        {"I64", LF_I64}, {"I32", LF_I32}, {"U8", LF_U8}, {"BOOL", LF_BOOL}};
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(s, table[i].name)) { *t = table[i].dtype; return true; }
    return false;
}

static bool tensor_entry(const char *name, json_t *v, const uint8_t *data, uint64_t data_len, lf_array *a,
                         char *err, size_t errlen)
{
    json_t *dt = json_object_get(v, "dtype"), *sh = json_object_get(v, "shape"), *off = json_object_get(v, "data_offsets");
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    if (!json_is_string(dt) || !st_dtype(json_string_value(dt), &a->dtype)) {
        snprintf(err, errlen, "%s: dtype %s is not supported (F64 F32 F16 BF16 I64 I32 U8 BOOL)", name,
                 json_is_string(dt) ? json_string_value(dt) : "(missing)");
        return false;
    }
    if (!json_is_array(sh) || json_array_size(sh) > LF_MAX_DIMS) { snprintf(err, errlen, "%s: shape must be a list of at most %d sizes", name, LF_MAX_DIMS); return false; }
    a->ndim = (int)json_array_size(sh);
    for (int d = 0; d < a->ndim; d++) {
        json_t *s = json_array_get(sh, (size_t)d);
        if (!json_is_integer(s)) { snprintf(err, errlen, "%s: shape[%d] is not an integer", name, d); return false; }
        a->shape[d] = json_integer_value(s);
    }
    uint64_t bytes;
    char why[160];
    if (!lf_shape_bytes(a->shape, a->ndim, a->dtype, &a->numel, &bytes, why, sizeof why)) { snprintf(err, errlen, "%s: %s", name, why); return false; }
    if (!json_is_array(off) || json_array_size(off) != 2 || !json_is_integer(json_array_get(off, 0)) ||
        !json_is_integer(json_array_get(off, 1))) { snprintf(err, errlen, "%s: data_offsets must be [begin, end]", name); return false; }
    json_int_t b = json_integer_value(json_array_get(off, 0)), e = json_integer_value(json_array_get(off, 1));
    if (b < 0 || e < b || (uint64_t)e > data_len) {
        snprintf(err, errlen, "%s: data_offsets [%lld, %lld] fall outside the %llu data bytes (truncated file?)", name,
                 (long long)b, (long long)e, (unsigned long long)data_len);
        return false;
    }
    if ((uint64_t)(e - b) != bytes) {
        snprintf(err, errlen, "%s: data_offsets span %lld bytes, shape and dtype need %llu", name, (long long)(e - b), (unsigned long long)bytes);
        return false;
    }
    a->data = data + b;
    return true;
}

bool lf_safetensors_parse(const uint8_t *buf, size_t len, lf_dump *d, char *err, size_t errlen)
{
    if (len < 8) { snprintf(err, errlen, "truncated: no header length"); return false; }
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
    json_object_foreach(root, key, v) {
        if (!strcmp(key, "__metadata__")) {
            const char *mk;
            json_t *mv;
            json_object_foreach(v, mk, mv) {
                if (!json_is_string(mv) || d->n_meta == 16) continue;
                snprintf(d->meta_keys[d->n_meta], sizeof d->meta_keys[0], "%s", mk);
                snprintf(d->meta_values[d->n_meta++], sizeof d->meta_values[0], "%s", json_string_value(mv));
            }
            continue;
        }
        if (d->n == LF_DUMP_MAX_ARRAYS) { snprintf(err, errlen, "more than %d tensors", LF_DUMP_MAX_ARRAYS); ok = false; break; }
        if (!json_is_object(v)) { snprintf(err, errlen, "%s: not a tensor entry", key); ok = false; break; }
        if (!(ok = tensor_entry(key, v, buf + 8 + hlen, len - 8 - hlen, &d->arrays[d->n], err, errlen))) break;
        d->n++;
    }
    json_decref(root);
    return ok;
}
