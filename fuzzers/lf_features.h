/* lf_features.h - a case's structure as coverage for the engines (lf_features.c). */
#ifndef LF_FEATURES_H
#define LF_FEATURES_H

#include "lf_case.h"

/* Reaches one code edge per combination of loss, reduction, layouts,
 * spatial or not, class-count bucket, largest label and weight kinds. */
void lf_fuzz_features(const lf_case *c);

#endif
