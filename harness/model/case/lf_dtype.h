/* lf_dtype.h - the tensor element types lossfuzz models, named as PyTorch names
 * them, with loads and stores through double so every path shares one rounding. */
#ifndef LF_DTYPE_H
#define LF_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lf_elem.h" /* the enum, shared with the kernels */

const char *lf_dtype_name(lf_dtype t);
bool lf_dtype_parse(const char *name, lf_dtype *out);
size_t lf_dtype_size(lf_dtype t);
static inline bool lf_dtype_is_float(lf_dtype t) { return t <= LF_BF16; }

/* The nearest value of type t to v (round-to-nearest-even; integers truncate
 * toward zero and wrap like a C cast, which is what a narrowing kernel does). */
double lf_dtype_round(lf_dtype t, double v);
/* Largest finite value of a floating type. */
double lf_dtype_max(lf_dtype t);
/* The gap between 1 and the next value of a floating type (machine epsilon). */
double lf_dtype_eps(lf_dtype t);
/* The smallest normal value of a float dtype: below it a value keeps fewer bits. */
double lf_dtype_min_normal(lf_dtype t);
/* The oracle's tolerance for values of a dtype: relative to the magnitude
 * of the terms behind a value, and an absolute floor. */
void lf_dtype_tolerance(lf_dtype t, double *rtol, double *atol);
/* The less precise of two floating types (bfloat16 < float16 < float32 < float64). */
lf_dtype lf_dtype_coarsest(lf_dtype a, lf_dtype b);
/* PyTorch's type promotion between two floating types. */
lf_dtype lf_dtype_promote(lf_dtype a, lf_dtype b);

double lf_load_f64(const void *data, lf_dtype t, int64_t i);
int64_t lf_load_i64(const void *data, lf_dtype t, int64_t i);
void lf_store_f64(void *data, lf_dtype t, int64_t i, double v);
void lf_store_i64(void *data, lf_dtype t, int64_t i, int64_t v);

#endif
