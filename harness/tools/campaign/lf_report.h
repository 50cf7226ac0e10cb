/* lf_report.h - printing verdicts: for people, and as JSON lines for tools. */
#ifndef LF_REPORT_H
#define LF_REPORT_H

#include <stdio.h>

#include "lf_oracle.h"

/* One line: {"file", "spec", "reference", "guard", "verdict", "finding", "detail"}. */
void lf_report_json(FILE *out, const char *file, const lf_case *c, const lf_verdict *v);
/* A file that could not be used: {"file", "verdict": "unusable", "error"}. */
void lf_report_json_unusable(FILE *out, const char *file, const char *error);
/* A path's answer in one line: "ok 1.25 float32", "host_error target_shape: MESSAGE". */
void lf_result_line(char *buf, size_t len, const lf_result *r);
/* A few aligned lines per case. */
void lf_report_text(FILE *out, const char *file, const lf_case *c, const lf_verdict *v);

#endif
