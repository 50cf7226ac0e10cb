/* lf_errors.h - the error classes' one list (lf_errors.def), looked up. */
#ifndef LF_ERRORS_H
#define LF_ERRORS_H

#include <stdbool.h>

typedef enum { LF_ERROR_TORCH, LF_ERROR_GUARD, LF_ERROR_HARNESS, LF_ERROR_KERNEL, LF_ERROR_SOURCES } lf_error_source;
extern const char *const lf_error_source_names[LF_ERROR_SOURCES]; /* "torch", "guard", "harness", "kernel" */

bool lf_error_listed(const char *name);
/* The i-th class (NULL past the end); its source, finding (NULL: none) and meaning. */
const char *lf_error_at(int i, lf_error_source *source, const char **finding, const char **what);

#endif
