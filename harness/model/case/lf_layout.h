/* lf_layout.h - how a tensor lies in memory for the kernels: PyTorch's strides
 * and storage offset, in elements, beside its logical (row-major) values.
 * A transposed, sliced, channels-last or expanded (stride 0) tensor is the
 * same values in another storage; the spec reads values, the kernels read
 * the storage, so a kernel that assumes contiguity reads the wrong elements
 * (or the poisoned gaps between them) and is caught. */
#ifndef LF_LAYOUT_H
#define LF_LAYOUT_H

#include <stddef.h>

#include "lf_case.h"

/* Row-major strides of a shape. */
void lf_layout_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);

/* t's strides: its own, or the row-major ones. */
void lf_layout_strides(const lf_tensor *t, int64_t *strides);

/* Storage element of logical (row-major) element i. */
int64_t lf_layout_at(const lf_tensor *t, int64_t i);

/* Storage elements from 0 to one past the last element used (0 when empty). */
int64_t lf_layout_extent(const lf_tensor *t);

/* Sets t's layout: strides must be >= 0 and the storage within the element
 * limit; a contiguous layout with offset 0 clears it. false with err. */
bool lf_layout_set(lf_tensor *t, const int64_t *strides, int64_t offset, char *err, size_t errlen);

/* The first logical element whose value differs from another that shares its
 * memory (an expanded tensor whose values are not), or -1. */
int64_t lf_layout_conflict(const lf_tensor *t);
/* Makes such values agree: each takes the value of the first element
 * (row-major) that shares its memory: an expanded tensor repeats its first slice. */
bool lf_layout_settle(lf_tensor *t);

/* The storage the kernels get, malloc'ed: every element at its place, the
 * gaps between them poisoned (lf_poison_fill: NaNs, or bytes 0xFE, a bad
 * label) so a kernel reading a gap shows it. *bytes gets its size. */
void *lf_layout_storage(const lf_tensor *t, size_t *bytes);

/* After an edit made `out` (a slice, a cast) from `from`: out gets the same
 * kind of layout - its dims in from's memory order, from's stride-0 dims
 * still 0, the same offset - packed densely. */
void lf_layout_follow(lf_tensor *out, const lf_tensor *from);

/* The kinds of layout a strided tensor has: dims out of row-major order, a
 * dim of stride 0, gaps in its storage, an offset (a kernel may mishandle
 * one and not another: each is a mechanism of its own). */
typedef struct {
    bool permuted, expanded, gaps, offset;
} lf_layout_kinds;
lf_layout_kinds lf_layout_kinds_of(const lf_tensor *t);
/* "transposed+expanded", "gaps", ... ("" for a contiguous tensor). */
void lf_layout_kinds_name(lf_layout_kinds k, char *out, size_t len);

/* After a reshape made `out` (another rank: spatial rows, a 1-D row given a
 * batch) from `from`: out gets the same kinds of layout - its dims reversed
 * where from's are out of row-major order, a dim of stride 0 where from has
 * one, every other element where from's storage has gaps, the same offset - so a
 * strided tensor stays strided the same way. The values are settled (an
 * expanded tensor repeats its first slice). */
void lf_layout_refit(lf_tensor *out, const lf_tensor *from);
/* The same from kinds alone (offset: the offset's elements, where kinds.offset; at least 1). */
void lf_layout_apply(lf_tensor *out, lf_layout_kinds kinds, int64_t offset);

/* Fills bytes with a dtype's poison: quiet NaNs with payload 0xCA4A..., or
 * bytes 0xFE for integer types (lf_canary.c's guards hold the same). */
void lf_poison_fill(void *dst, size_t bytes, lf_dtype t);

#endif
