/* lf_layout.c - strides and storage offsets of tensors (lf_layout.h). */
#include "lf_layout.h"

#include "lf_kernels.h" /* lf_strided_at */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lf_layout_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d] > 1 ? shape[d] : 1;
    }
}

void lf_layout_strides(const lf_tensor *t, int64_t *strides)
{
    if (t->strided)
        memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    else
        lf_layout_contiguous_strides(t->ndim, t->shape, strides);
}

int64_t lf_layout_at(const lf_tensor *t, int64_t i)
{
    return t->strided ? t->offset + lf_strided_at(t->ndim, t->shape, t->strides, i) : i; /* the kernels' own */
}

int64_t lf_layout_extent(const lf_tensor *t)
{
    if (!t->strided) return t->numel;
    if (t->numel == 0) return 0;
    int64_t last = t->offset;
    for (int d = 0; d < t->ndim; d++) last += (t->shape[d] - 1) * t->strides[d];
    return last + 1;
}

bool lf_layout_set(lf_tensor *t, const int64_t *strides, int64_t offset, char *err, size_t errlen)
{
    int64_t dense[LF_MAX_DIMS], limit = lf_numel_limit, last = offset;
    if (offset < 0 || offset > limit) {
        snprintf(err, errlen, "offset %lld is outside [0, %lld]", (long long)offset, (long long)limit);
        return false;
    }
    for (int d = 0; d < t->ndim; d++) {
        if (strides[d] < 0 || strides[d] > limit) {
            snprintf(err, errlen, "strides[%d] = %lld is outside [0, %lld] (PyTorch has no negative strides)", d,
                     (long long)strides[d], (long long)limit);
            return false;
        }
        if (t->shape[d] > 0) last += (t->shape[d] - 1) * strides[d]; /* no overflow: each term < 2^56 */
    }
    if (t->numel > 0 && last >= limit) {
        snprintf(err, errlen, "the strides reach storage element %lld, past the limit of %lld", (long long)last,
                 (long long)limit);
        return false;
    }
    lf_layout_contiguous_strides(t->ndim, t->shape, dense);
    bool contiguous = offset == 0;
    for (int d = 0; d < t->ndim; d++) contiguous &= t->shape[d] <= 1 || strides[d] == dense[d];
    t->strided = !contiguous;
    memcpy(t->strides, strides, sizeof(int64_t) * (size_t)t->ndim);
    t->offset = offset;
    return true;
}

/* Whether two elements may share memory: false when, dims taken by
 * increasing stride, each stride passes everything the inner dims reach. */
static bool may_overlap(const lf_tensor *t)
{
    int64_t reach = 0; /* the largest offset the dims taken so far reach */
    bool used[LF_MAX_DIMS] = {false};
    for (int k = 0; k < t->ndim; k++) {
        int d = -1;
        for (int e = 0; e < t->ndim; e++)
            if (!used[e] && t->shape[e] > 1 && (d < 0 || t->strides[e] < t->strides[d])) d = e;
        if (d < 0) break;
        used[d] = true;
        if (t->strides[d] <= reach) return true;
        reach += (t->shape[d] - 1) * t->strides[d];
    }
    return false;
}

/* Where each logical element's memory ends up. Where elements share memory
 * (an expanded tensor) backwards, so the first wins; else forwards, the
 * offset kept by an odometer instead of a division per dim. */
void *lf_layout_storage(const lf_tensor *t, size_t *bytes)
{
    size_t es = lf_dtype_size(t->dtype);
    *bytes = (size_t)lf_layout_extent(t) * es;
    char *s = malloc(*bytes ? *bytes : 1);
    if (!s) return NULL;
    lf_poison_fill(s, *bytes, t->dtype);
    if (!t->strided || may_overlap(t)) {
        for (int64_t i = t->numel - 1; i >= 0; i--)
            memcpy(s + (size_t)lf_layout_at(t, i) * es, (const char *)t->data + (size_t)i * es, es);
        return s;
    }
    int64_t idx[LF_MAX_DIMS] = {0}, at = t->offset;
    for (int64_t i = 0; i < t->numel; i++) {
        memcpy(s + (size_t)at * es, (const char *)t->data + (size_t)i * es, es);
        for (int d = t->ndim - 1; d >= 0; d--) { /* the next index: carry into outer dims */
            at += t->strides[d];
            if (++idx[d] < t->shape[d]) break;
            at -= t->strides[d] * t->shape[d];
            idx[d] = 0;
        }
    }
    return s;
}

int64_t lf_layout_conflict(const lf_tensor *t)
{
    size_t bytes, es = lf_dtype_size(t->dtype);
    if (!t->strided || !may_overlap(t)) return -1;
    char *s = lf_layout_storage(t, &bytes);
    int64_t bad = -1;
    for (int64_t i = 0; s && bad < 0 && i < t->numel; i++)
        if (memcmp(s + (size_t)lf_layout_at(t, i) * es, (const char *)t->data + (size_t)i * es, es)) bad = i;
    free(s);
    return bad;
}

bool lf_layout_settle(lf_tensor *t)
{
    size_t bytes, es = lf_dtype_size(t->dtype);
    if (!t->strided || !may_overlap(t)) return true;
    char *s = lf_layout_storage(t, &bytes);
    if (!s) return false;
    for (int64_t i = 0; i < t->numel; i++)
        memcpy((char *)t->data + (size_t)i * es, s + (size_t)lf_layout_at(t, i) * es, es);
    free(s);
    return true;
}

void lf_layout_follow(lf_tensor *out, const lf_tensor *from)
{
    int order[LF_MAX_DIMS], n = 0;
    int64_t strides[LF_MAX_DIMS], s = 1;
    char err[160];
    out->strided = false;
    if (!from->strided || out->ndim != from->ndim) return;
    if (!memcmp(out->shape, from->shape, sizeof(int64_t) * (size_t)out->ndim)) { /* a cast: the very layout */
        out->strided = true;
        memcpy(out->strides, from->strides, sizeof out->strides);
        out->offset = from->offset;
        return;
    }
    /* dims by decreasing stride (ties: the later dim inner, as row-major) */
    for (int d = 0; d < out->ndim; d++) {
        int k = n++;
        while (k > 0 && from->strides[order[k - 1]] < from->strides[d]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = d;
    }
    for (int k = out->ndim - 1; k >= 0; k--) {
        int d = order[k];
        strides[d] = from->strides[d] == 0 && from->shape[d] > 1 ? 0 : s;
        if (strides[d]) s *= out->shape[d] > 1 ? out->shape[d] : 1;
    }
    if (!lf_layout_set(out, strides, from->offset, err, sizeof err))
        out->strided = false;
    else
        lf_layout_settle(out);
}

lf_layout_kinds lf_layout_kinds_of(const lf_tensor *t)
{
    lf_layout_kinds k = {false, false, false, t->strided && t->offset > 0};
    int64_t dense = 1;
    if (!t->strided) return k;
    for (int d = 0; d < t->ndim; d++) {
        k.expanded |= t->strides[d] == 0 && t->shape[d] > 1;
        if (t->strides[d] || t->shape[d] <= 1) dense *= t->shape[d] > 1 ? t->shape[d] : 1;
        for (int e = d + 1; e < t->ndim; e++)
            k.permuted |= t->shape[d] > 1 && t->shape[e] > 1 && t->strides[d] && t->strides[d] < t->strides[e];
    }
    k.gaps = lf_layout_extent(t) - t->offset > dense;
    return k;
}

void lf_layout_kinds_name(lf_layout_kinds k, char *out, size_t len)
{
    snprintf(out, len, "%s%s%s%s", k.permuted ? "+transposed" : "", k.expanded ? "+expanded" : "",
             k.gaps ? "+gaps" : "", k.offset ? "+offset" : "");
    if (out[0] == '+') memmove(out, out + 1, strlen(out));
}

void lf_layout_refit(lf_tensor *out, const lf_tensor *from)
{
    lf_layout_apply(out, lf_layout_kinds_of(from), from->offset);
}

void lf_layout_apply(lf_tensor *out, lf_layout_kinds kinds, int64_t offset)
{
    int n = out->ndim;
    int64_t strides[LF_MAX_DIMS], s = 1;
    char err[160];
    out->strided = false;
    if (n == 0 || !(kinds.permuted || kinds.expanded || kinds.gaps || kinds.offset)) return;
    bool expanded = kinds.expanded, permuted = kinds.permuted, gaps = kinds.gaps;
    int wide = 0; /* the dim expanded: the first of more than one element */
    while (wide < n - 1 && out->shape[wide] <= 1) wide++;
    for (int k = n - 1; k >= 0; k--) { /* innermost first */
        int d = permuted ? n - 1 - k : k;
        if (expanded && d == wide) {
            strides[d] = 0;
            continue;
        }
        int64_t step = gaps && k == n - 1 ? 2 : 1; /* gaps: every other element of the innermost dim */
        strides[d] = s * step;
        s *= (out->shape[d] > 1 ? out->shape[d] : 1) * step;
    }
    if (lf_layout_set(out, strides, kinds.offset ? (offset > 0 ? offset : 1) : 0, err, sizeof err))
        lf_layout_settle(out);
}

void lf_poison_fill(void *dst, size_t bytes, lf_dtype t)
{
    uint64_t e = t == LF_F64    ? 0x7FFACA4ACA4ACA4Aull
                 : t == LF_F32  ? 0x7FCACA4Au
                 : t == LF_F16  ? 0x7E4Au
                 : t == LF_BF16 ? 0x7FCAu
                                : 0xFEFEFEFEFEFEFEFEull;
    size_t esz = lf_dtype_is_float(t) ? lf_dtype_size(t) : sizeof e;
    unsigned char *g = dst;
    for (size_t i = 0; i < bytes; i += esz) memcpy(g + i, &e, bytes - i < esz ? bytes - i : esz);
}
