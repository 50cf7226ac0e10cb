/* lf_problem.h - building the kernels' problem description from a case. The
 * spec and the guard each decide the path and the sizes (N, C, S) themselves. */
#ifndef LF_PROBLEM_H
#define LF_PROBLEM_H

#include "lf_case.h"
#include "lf_kernels.h"

/* Zeroes p, sets `path`, and copies reduction, ignore_index, the dtypes and
 * the memory layout (lf_problem_views) of the case; N = C = S = 1 and the
 * output dtype is the input's. */
void lf_problem_init(const lf_case *c, lf_problem *p, int targets);

/* The input's dims and the views of input and target (strides, offsets). */
void lf_problem_views(const lf_case *c, lf_problem *p);

/* The (N, C, S) layout of a class-dimension input of rank >= 1: class dim 0 for
 * a 1-D input (one_d, N = 1), else 1; S is the product of the dims after it. */
void lf_problem_layout(const lf_tensor *input, lf_problem *p);

/* Whether PyTorch skips a class-index call's target and weight dtype checks
 * (the spec and the guard both ask): only nll_loss2d's, on a target without
 * elements. lf_problem.c says where each check lives. */
bool lf_class_dtype_checks_skipped(const lf_case *c);

/* A class-index call's result dtype, once p->label_smoothing is set: the
 * input's, promoted with a weight of another dtype by label smoothing. */
void lf_problem_class_out_dtype(const lf_case *c, lf_problem *p);

#endif
