/* lf_shape.h - shape and target helpers shared by the spec and the guard. */
#ifndef LF_SHAPE_H
#define LF_SHAPE_H

#include <stddef.h>

#include "lf_case.h"

/* "[4, 3]" */
void lf_format_shape(char *buf, size_t len, const int64_t *shape, int ndim);
/* A shape as Python prints a tuple of sizes: "()", "(2,)", "(2, 3)". */
void lf_format_tuple(char *buf, size_t len, const int64_t *shape, int ndim);
bool lf_same_shape(const lf_tensor *a, const lf_tensor *b);
/* Element strides of t broadcast against shape `to` (0 along broadcast dims);
 * false when t does not broadcast to it (as an in-place op requires). */
bool lf_broadcast_strides(const lf_tensor *t, const lf_tensor *to, int64_t *stride);
/* Whether a class target has an element that is not the ignore_index
 * (what label smoothing's mean gathers weights for). */
bool lf_any_target_kept(const lf_case *c);

#endif
