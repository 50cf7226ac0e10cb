/* lf_shape.c - shape formatting, comparison and broadcasting. */
#include "lf_shape.h"

#include "lf_kernels.h" /* lf_smooth_kept */

#include <stdio.h>
#include <string.h>

/* Written by hand, not by snprintf: the spec formats every case's shapes for
 * its messages, and snprintf was most of that. */
void lf_format_shape(char *buf, size_t len, const int64_t *shape, int ndim)
{
    if (!len) return;
    char out[LF_MAX_DIMS * 22 + 3], *at = out;
    *at++ = '[';
    for (int d = 0; d < ndim && d < LF_MAX_DIMS; d++) {
        if (d) *at++ = ',', *at++ = ' ';
        char digits[20];
        int n = 0;
        uint64_t u = shape[d] < 0 ? 0 - (uint64_t)shape[d] : (uint64_t)shape[d];
        do digits[n++] = (char)('0' + u % 10);
        while (u /= 10);
        if (shape[d] < 0) *at++ = '-';
        while (n) *at++ = digits[--n];
    }
    *at++ = ']';
    size_t k = (size_t)(at - out) < len - 1 ? (size_t)(at - out) : len - 1;
    memcpy(buf, out, k);
    buf[k] = 0;
}

bool lf_same_shape(const lf_tensor *a, const lf_tensor *b)
{
    return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim);
}

bool lf_broadcast_strides(const lf_tensor *t, const lf_tensor *to, int64_t *stride)
{
    if (t->ndim > to->ndim) return false;
    int64_t step = 1;
    for (int d = to->ndim - 1, k = t->ndim - 1; d >= 0; d--, k--) {
        stride[d] = 0;
        if (k < 0) continue;
        if (t->shape[k] != 1 && t->shape[k] != to->shape[d]) return false;
        stride[d] = t->shape[k] == 1 ? 0 : step;
        step *= t->shape[k];
    }
    return true;
}

bool lf_any_target_kept(const lf_case *c)
{
    for (int64_t i = 0; i < c->target.numel; i++)
        if (lf_smooth_kept(lf_load_i64(c->target.data, c->target.dtype, i), c->ignore_index, c->target.dtype))
            return true;
    return false;
}

void lf_format_tuple(char *buf, size_t len, const int64_t *shape, int ndim)
{
    char list[LF_MAX_DIMS * 22 + 3];
    lf_format_shape(list, sizeof list, shape, ndim);
    size_t n = strlen(list);
    list[n - 1] = 0; /* the closing bracket */
    snprintf(buf, len, "(%s%s)", list + 1, ndim == 1 ? "," : "");
}
