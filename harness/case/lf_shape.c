/* lf_shape.c - shape formatting, comparison and broadcasting. */
#include "lf_shape.h"

#include <stdio.h>
#include <string.h>

void lf_format_shape(char *buf, size_t len, const int64_t *shape, int ndim)
{
    size_t at = (size_t)snprintf(buf, len, "[");
    for (int d = 0; d < ndim && at < len; d++)
        at += (size_t)snprintf(buf + at, len - at, "%s%lld", d ? ", " : "", (long long)shape[d]);
    if (at < len) snprintf(buf + at, len - at, "]");
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
        if (lf_load_i64(c->target.data, c->target.dtype, i) != c->ignore_index) return true;
    return false;
}
