/* lf_features.h - a case's structure as coverage for the engines, and as a
 * campaign's statistics (lf_features.c). */
#ifndef LF_FEATURES_H
#define LF_FEATURES_H

#include "lf_case.h"

/* Reaches one code edge per combination of loss, reduction, layouts,
 * spatial or not, class-count bucket, largest label and weight kinds. */
void lf_fuzz_features(const lf_case *c);

/* A case's class count: the input's class dim, a fused linear's vocabulary. */
int64_t lf_fuzz_classes(const lf_case *c);

/* Around a decoded case (decoding and the oracle): with $LOSSFUZZ_STATS=1,
 * the process prints at its end how many cases had rows past LF_BLOCK_ROW
 * classes (the block path) and their share of the time (ci/fuzz.sh sums them). */
void lf_fuzz_stats_begin(void);
void lf_fuzz_stats_end(const lf_case *c);

#endif
