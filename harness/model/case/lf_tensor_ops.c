/* lf_tensor_ops.c - copies, slices and casts of tensors (their values are
 * row-major; an edit keeps the kind of memory layout, lf_layout_follow). */
#include "lf_tensor_ops.h"

#include "lf_layout.h"

#include <stdlib.h>
#include <string.h>

bool lf_tensor_copy(const lf_tensor *t, lf_tensor *out)
{
    char err[160];
    memset(out, 0, sizeof *out);
    if (!t->present) return true;
    if (!lf_tensor_alloc(out, t->dtype, t->ndim, t->shape, err, sizeof err)) return false;
    memcpy(out->data, t->data, (size_t)t->numel * lf_dtype_size(t->dtype));
    out->strided = t->strided;
    memcpy(out->strides, t->strides, sizeof out->strides);
    out->offset = t->offset;
    out->generated = t->generated;
    out->init = t->init;
    return true;
}

bool lf_case_copy(const lf_case *c, lf_case *out)
{
    *out = *c;
    out->expect_value = NULL;
    out->n_expect_value = 0;
    bool ok = true;
    for (int k = 0; k < LF_CASE_TENSORS; k++) /* none aliases c's when a copy fails half way */
        memset(lf_case_tensor(out, k), 0, sizeof(lf_tensor));
    for (int k = 0; k < LF_CASE_TENSORS && ok; k++)
        ok = lf_tensor_copy(lf_case_tensor_const(c, k), lf_case_tensor(out, k));
    if (ok && c->expect_value) {
        out->expect_value = malloc(sizeof(double) * (size_t)c->n_expect_value);
        ok = out->expect_value != NULL;
        if (ok) {
            memcpy(out->expect_value, c->expect_value, sizeof(double) * (size_t)c->n_expect_value);
            out->n_expect_value = c->n_expect_value;
        }
    }
    if (!ok) lf_case_free(out);
    return ok;
}

/* Copies t into out (already shaped): the slices [lo, hi) along `dim`, or
 * all the others when !keep. */
static void copy_slices(const lf_tensor *t, int dim, int64_t lo, int64_t hi, bool keep, lf_tensor *out)
{
    int64_t outer = 1, inner = 1, n = t->shape[dim];
    for (int d = 0; d < dim; d++) outer *= t->shape[d];
    for (int d = dim + 1; d < t->ndim; d++) inner *= t->shape[d];
    size_t es = lf_dtype_size(t->dtype), block = (size_t)inner * es;
    char *dst = out->data;
    for (int64_t o = 0; o < outer; o++) {
        const char *src = (const char *)t->data + (size_t)(o * n) * block;
        if (keep) {
            memcpy(dst, src + (size_t)lo * block, (size_t)(hi - lo) * block);
            dst += (size_t)(hi - lo) * block;
            continue;
        }
        memcpy(dst, src, (size_t)lo * block);
        dst += (size_t)lo * block;
        memcpy(dst, src + (size_t)hi * block, (size_t)(n - hi) * block);
        dst += (size_t)(n - hi) * block;
    }
}

/* The three slicing edits share one path: allocate the new shape, copy the kept slices. */
typedef enum { EDIT_REMOVE, EDIT_KEEP, EDIT_DROP } slice_edit;

static bool edit(const lf_tensor *t, int dim, int64_t lo, int64_t hi, slice_edit how, lf_tensor *out)
{
    char err[160];
    int64_t shape[LF_MAX_DIMS];
    int ndim = t->ndim;
    memset(out, 0, sizeof *out);
    if (dim < 0 || dim >= t->ndim || lo < 0 || hi <= lo || hi > t->shape[dim]) return false;
    memcpy(shape, t->shape, sizeof shape);
    if (how == EDIT_REMOVE)
        shape[dim] -= hi - lo;
    else if (how == EDIT_KEEP)
        shape[dim] = hi - lo;
    else
        memmove(shape + dim, shape + dim + 1, sizeof(int64_t) * (size_t)(--ndim - dim));
    if (!lf_tensor_alloc(out, t->dtype, ndim, shape, err, sizeof err)) return false;
    copy_slices(t, dim, lo, hi, how != EDIT_REMOVE, out);
    lf_tensor from = *t; /* the layout without the dropped dim */
    if (how == EDIT_DROP) {
        from.ndim = ndim;
        memmove(from.strides + dim, from.strides + dim + 1, sizeof(int64_t) * (size_t)(ndim - dim));
        memcpy(from.shape, shape, sizeof(int64_t) * (size_t)ndim);
    }
    lf_layout_follow(out, &from);
    return true;
}

bool lf_tensor_remove_range(const lf_tensor *t, int dim, int64_t lo, int64_t hi, lf_tensor *out)
{
    return edit(t, dim, lo, hi, EDIT_REMOVE, out);
}

bool lf_tensor_drop_dim(const lf_tensor *t, int dim, lf_tensor *out) { return edit(t, dim, 0, 1, EDIT_DROP, out); }

bool lf_tensor_slice(const lf_tensor *t, int dim, int64_t index, lf_tensor *out)
{
    return edit(t, dim, index, index + 1, EDIT_KEEP, out);
}

bool lf_tensor_cast(const lf_tensor *t, lf_dtype dtype, lf_tensor *out)
{
    char err[160];
    memset(out, 0, sizeof *out);
    if (!lf_tensor_alloc(out, dtype, t->ndim, t->shape, err, sizeof err)) return false;
    bool ints = !lf_dtype_is_float(t->dtype) && !lf_dtype_is_float(dtype); /* exact beyond 2^53 */
    for (int64_t i = 0; i < t->numel; i++) {
        if (ints)
            lf_store_i64(out->data, dtype, i, lf_load_i64(t->data, t->dtype, i));
        else
            lf_store_f64(out->data, dtype, i, lf_load_f64(t->data, t->dtype, i));
    }
    lf_layout_follow(out, t);
    return true;
}

bool lf_tensor_rows(const lf_tensor *t, int dim, lf_tensor *out)
{
    char err[160];
    int64_t width = t->ndim ? t->shape[dim] : 1, rows = 1, after = 1;
    for (int d = 0; d < t->ndim; d++) rows *= d == dim ? 1 : t->shape[d]; /* [N, 0, d] is N * d rows of none */
    int64_t shape[2] = {rows, width};
    for (int d = dim + 1; d < t->ndim; d++) after *= t->shape[d];
    memset(out, 0, sizeof *out);
    if (!lf_tensor_alloc(out, t->dtype, 2, shape, err, sizeof err)) return false;
    size_t size = lf_dtype_size(t->dtype);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = 0; k < width; k++) { /* row r: the (before, after) position r, the dim's slice k */
            int64_t before = r / after, at = r % after, from = (before * width + k) * after + at;
            memcpy((char *)out->data + size * (size_t)(r * width + k), (const char *)t->data + size * (size_t)from,
                   size);
        }
    return true;
}

bool lf_tensor_flat(const lf_tensor *t, lf_tensor *out)
{
    if (!lf_tensor_copy(t, out)) return false;
    out->ndim = 1;
    out->shape[0] = t->numel;
    out->strided = false;
    out->generated = false;
    return true;
}
