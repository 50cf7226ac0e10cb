/* lf_problem.h - building the kernels' problem description from a case. The
 * spec and the guard each decide the path and the sizes (N, C, S) themselves. */
#ifndef LF_PROBLEM_H
#define LF_PROBLEM_H

#include "lf_case.h"
#include "lf_kernels.h"

/* Zeroes p, sets `path`, and copies reduction, ignore_index and the dtypes of
 * the case; N = C = S = 1 and the output dtype is the input's. */
void lf_problem_init(const lf_case *c, lf_problem *p, int path);

#endif
