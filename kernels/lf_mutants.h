/* lf_mutants.h - planted bugs: deliberately broken variants of the guard and
 * the kernels, each modeled on a row of shared/docs/bug-classes.md, chosen at
 * build time (cmake -DLF_MUTANT=off_by_one). The fuzzers must find every one;
 * fuzzers/mutants/ holds an input that each must fail on. A normal build has
 * LF_MUTANT == LF_MUTANT_NONE and every LF_MUTANT_IS() is a constant 0. */
#ifndef LF_MUTANTS_H
#define LF_MUTANTS_H

#define LF_MUTANT_NONE 0
#define LF_MUTANT_OFF_BY_ONE 1          /* #1  guard accepts label == C (t <= C) */
#define LF_MUTANT_RANGE_BEFORE_IGNORE 2 /* #3/#4 guard range-checks before the ignore_index test */
#define LF_MUTANT_INT32_LABELS 3        /* #8  guard truncates int64 labels to int32 */
#define LF_MUTANT_SPATIAL_UNCHECKED 4   /* #1  guard skips the spatial path's labels */
#define LF_MUTANT_UINT8_IGNORE 5        /* #2  uint8 label compared with ignore_index cast to uint8 */
#define LF_MUTANT_ALL_IGNORED_ZERO 6    /* #5  mean over zero total weight returns 0, not NaN */
#define LF_MUTANT_NEG_INF_PREFIX_NAN 7  /* #13 online softmax: exp(-inf - -inf) on a masked prefix */
#define LF_MUTANT_READ_BEFORE_IGNORE 8  /* #4  x[label] read before the ignore test (x[-100]) */
#define LF_MUTANT_ROW_OFFSET_10BIT 9    /* #10 narrow row offsets (10 bits: the 32-bit bug, scaled to fuzz sizes) */
#define LF_MUTANT_SMOOTHING_UNMASKED 10 /* #7  label smoothing term kept for ignored rows */
#define LF_MUTANT_PROB_MEAN_BY_BATCH 11 /* #12 probability-target mean divides by N, not N*d1*..*dk */
#define LF_MUTANT_NAN_HIDDEN 12         /* #14 max that skips NaN: a NaN logit is hidden */
#define LF_MUTANT_CONTIGUOUS_INPUT 14   /* #10 class-index kernel indexes logits as if contiguous (ignores strides) */
#define LF_MUTANT_WEIGHT_NUMEL_ONLY                                                                                    \
    15 /* #1  guard checks only weight.numel() == C, as nll_loss2d does, on every path */
#define LF_MUTANT_WEIGHT_CACHE_1024 16   /* #10 class weights read through a 1024-entry cache: weight[t & 1023] */
#define LF_MUTANT_ZERO_WEIGHT_SKIPPED 17 /* #5 rows of weight 0 skipped without reading the logit: 0 * inf is not NaN */
#define LF_MUTANT_GRAD_MEAN_BY_ROWS 18   /* #5 fused backward divides the mean by the rows, not the targets' weights */
#define LF_MUTANT_GRAD_IGNORED_ROWS 19   /* #4 fused backward writes softmax into an ignored row's gradient */
#define LF_MUTANT_GRAD_SMOOTH_UNWEIGHTED 20 /* #7 fused backward's smoothing term leaves out the class weights */
#define LF_MUTANT_BLOCK_LANE_IN_WARP 21     /* #11 a block-per-row kernel strides a row by the lane within its warp */
#define LF_MUTANT_LAST_BAD_NAMED 13 /* #1  guard names the last bad target (a store for atomic min), not the first */

#ifndef LF_MUTANT
#define LF_MUTANT LF_MUTANT_NONE
#endif
#define LF_MUTANT_IS(name) (LF_MUTANT == LF_MUTANT_##name)

#endif
