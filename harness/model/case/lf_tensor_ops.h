/* lf_tensor_ops.h - structural edits of tensors and cases, for the minimizer. */
#ifndef LF_TENSOR_OPS_H
#define LF_TENSOR_OPS_H

#include "lf_case.h"

/* Deep copies. false when out of memory. */
bool lf_tensor_copy(const lf_tensor *t, lf_tensor *out);
bool lf_case_copy(const lf_case *c, lf_case *out);

/* t without the slices [lo, hi) along `dim`. */
bool lf_tensor_remove_range(const lf_tensor *t, int dim, int64_t lo, int64_t hi, lf_tensor *out);
/* t without dimension `dim`, keeping slice 0 along it. */
bool lf_tensor_drop_dim(const lf_tensor *t, int dim, lf_tensor *out);
/* t with only slice `index` along `dim` (that dim becomes 1). */
bool lf_tensor_slice(const lf_tensor *t, int dim, int64_t index, lf_tensor *out);
/* t converted to another dtype (values rounded as a store would). */
bool lf_tensor_cast(const lf_tensor *t, lf_dtype dtype, lf_tensor *out);

/* t as rows of its dim `dim`: [N, C, d..] with dim 1 is [N * d.., C], row
 * (n, position) holding that position's C values; contiguous. */
bool lf_tensor_rows(const lf_tensor *t, int dim, lf_tensor *out);
/* t as one dim of its numel values, contiguous. */
bool lf_tensor_flat(const lf_tensor *t, lf_tensor *out);

#endif
