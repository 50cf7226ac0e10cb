/* lf_junit.h - `lossfuzz check --junit FILE`: the run as a JUnit XML report. */
#ifndef LF_JUNIT_H
#define LF_JUNIT_H

#include <stdbool.h>
#include <stddef.h>

#include "lf_oracle.h"

typedef struct lf_junit lf_junit;

/* Checks that path can be written and starts a report; NULL with the reason in err. */
lf_junit *lf_junit_open(const char *path, char *err, size_t errlen);
/* A checked case (a finding is a <failure>), or a file that could not be used
 * (an <error>). A NULL report takes nothing. */
void lf_junit_case(lf_junit *j, const char *file, double seconds, const lf_case *c, const lf_verdict *v);
void lf_junit_unusable(lf_junit *j, const char *file, const char *error);
/* Writes the report and frees it; false with the reason in err. */
bool lf_junit_close(lf_junit *j, char *err, size_t errlen);

#endif
