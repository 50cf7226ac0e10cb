/* lf_npy.c - the .npy format (NEP 1): magic, version, a Python-literal header
 * {'descr': '<f4', 'fortran_order': False, 'shape': (4, 3), }, then the data.
 * Only plain little-endian numeric dtypes and (for 0-d option arrays) '<U'
 * strings; a Fortran-order array is made C-contiguous. Nothing is evaluated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_dump.h"

bool lf_shape_bytes(const int64_t *shape, int ndim, lf_dtype dtype, int64_t *numel, uint64_t *bytes, char *err,
                    size_t errlen)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0) {
            snprintf(err, errlen, "shape[%d] = %lld is negative", d, (long long)shape[d]);
            return false;
        }
        if (shape[d] > 0 && n > LF_MAX_NUMEL / shape[d]) {
            snprintf(err, errlen, "shape has more than %lld elements (the limit)", (long long)LF_MAX_NUMEL);
            return false;
        }
        n *= shape[d];
    }
    *numel = n;
    *bytes = (uint64_t)n * lf_dtype_size(dtype);
    return true;
}

/* The text after `'key':` in the header, or NULL. */
static const char *find_key(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    if (*p != ':') return NULL;
    p++;
    while (*p == ' ') p++;
    return p;
}

static bool parse_descr(const char *p, lf_array *a, int *itemsize, char *err, size_t errlen)
{
    static const struct {
        const char *descr;
        lf_dtype dtype;
    } table[] = {{"<f8", LF_F64}, {"<f4", LF_F32},  {"<f2", LF_F16}, {"<i8", LF_I64}, {"<i4", LF_I32}, {"|u1", LF_U8},
                 {"<u1", LF_U8},  {"|b1", LF_BOOL}, {"=f8", LF_F64}, {"=f4", LF_F32}, {"=i8", LF_I64}};
    char d[16] = "";
    if (*p != '\'' || sscanf(p + 1, "%15[^']", d) != 1) {
        snprintf(err, errlen, "descr: structured or unreadable dtypes are not supported");
        return false;
    }
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(d, table[i].descr)) {
            a->dtype = table[i].dtype;
            *itemsize = (int)lf_dtype_size(a->dtype);
            return true;
        }
    if ((d[0] == '<' || d[0] == '=') && d[1] == 'U' && atoi(d + 2) > 0 && atoi(d + 2) < 64) {
        a->is_text = true;
        *itemsize = 4 * atoi(d + 2);
        return true;
    }
    if (d[0] == '>')
        snprintf(err, errlen, "dtype %s is big-endian: save it little-endian (arr.astype(arr.dtype.newbyteorder('<')))",
                 d);
    else
        snprintf(err, errlen, "dtype %s is not supported (float64, float32, float16, int64, int32, uint8, bool)", d);
    return false;
}

static bool parse_shape(const char *p, lf_array *a, char *err, size_t errlen)
{
    if (*p != '(') {
        snprintf(err, errlen, "shape: expected a tuple");
        return false;
    }
    p++;
    a->ndim = 0;
    while (*p && *p != ')') {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        if (a->ndim == LF_MAX_DIMS) {
            snprintf(err, errlen, "shape: more than %d dims", LF_MAX_DIMS);
            return false;
        }
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0) {
            snprintf(err, errlen, "shape: expected non-negative integers");
            return false;
        }
        a->shape[a->ndim++] = v;
        p = end;
        if (*p == 'L') p++;
    }
    if (*p != ')') {
        snprintf(err, errlen, "shape: unterminated tuple");
        return false;
    }
    return true;
}

/* Fortran order to C order, into owned memory. */
static bool to_c_order(lf_array *a, size_t itemsize)
{
    void *dst = malloc((size_t)a->numel * itemsize + 1);
    if (!dst) return false;
    int64_t idx[LF_MAX_DIMS] = {0};
    for (int64_t i = 0; i < a->numel; i++) { /* i walks C order; src offset is the Fortran one */
        int64_t off = 0, stride = 1;
        for (int d = 0; d < a->ndim; d++) {
            off += idx[d] * stride;
            stride *= a->shape[d];
        }
        memcpy((char *)dst + (size_t)i * itemsize, a->data + (size_t)off * itemsize, itemsize);
        for (int d = a->ndim - 1; d >= 0 && ++idx[d] == a->shape[d]; d--) idx[d] = 0;
    }
    a->owned = dst;
    a->data = dst;
    return true;
}

bool lf_npy_parse(const uint8_t *buf, size_t len, const char *name, lf_array *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    if (len < 10 || memcmp(buf, "\x93NUMPY", 6)) {
        snprintf(err, errlen, "not a .npy file (bad magic)");
        return false;
    }
    int major = buf[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = buf[8] | (size_t)buf[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) {
            snprintf(err, errlen, "truncated .npy header");
            return false;
        }
        hlen = buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
        hstart = 12;
    } else {
        snprintf(err, errlen, ".npy version %d is not supported", major);
        return false;
    }
    if (hlen > LF_DUMP_MAX_HEADER || hstart + hlen > len) {
        snprintf(err, errlen, ".npy header length %zu runs past the end of the file (%zu bytes)", hlen, len);
        return false;
    }
    char *h = malloc(hlen + 1);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    memcpy(h, buf + hstart, hlen);
    h[hlen] = 0;
    const char *descr = find_key(h, "descr"), *fortran = find_key(h, "fortran_order"), *shape = find_key(h, "shape");
    int itemsize = 0;
    bool ok = descr && fortran && shape;
    if (!ok) snprintf(err, errlen, ".npy header lacks descr, fortran_order or shape");
    ok = ok && parse_descr(descr, a, &itemsize, err, errlen) && parse_shape(shape, a, err, errlen);
    bool is_fortran = ok && !strncmp(fortran, "True", 4);
    free(h);
    if (!ok) return false;
    uint64_t bytes;
    if (a->is_text) {
        if (a->ndim != 0) {
            snprintf(err, errlen, "string arrays are supported as 0-d options only");
            return false;
        }
        a->numel = 1;
        bytes = (uint64_t)itemsize;
    } else if (!lf_shape_bytes(a->shape, a->ndim, a->dtype, &a->numel, &bytes, err, errlen)) {
        return false;
    }
    size_t data = hstart + hlen;
    if (bytes > len - data) {
        snprintf(err, errlen, "truncated: the data needs %llu bytes, the file has %zu after the header",
                 (unsigned long long)bytes, len - data);
        return false;
    }
    a->data = buf + data;
    if (a->is_text) { /* UTF-32LE, ASCII kept */
        for (int i = 0, k = 0; i < itemsize / 4 && k + 1 < (int)sizeof a->text; i++)
            if (a->data[4 * i]) a->text[k++] = (char)a->data[4 * i];
        return true;
    }
    if (is_fortran && a->ndim > 1 && !to_c_order(a, (size_t)itemsize)) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    a->column_major = is_fortran && a->ndim > 1;
    return true;
}
