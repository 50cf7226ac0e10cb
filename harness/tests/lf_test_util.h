/* lf_test_util.h - building cases inline for unit tests. */
#ifndef LF_TEST_UTIL_H
#define LF_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "lf_case_json.h"

/* Parses a case from JSON text; the test fails with the parser's message if it cannot. */
static inline void lf_test_case(lf_case *c, const char *json)
{
    char err[512] = "";
    if (!lf_case_parse_json(json, strlen(json), c, err, sizeof err)) fail_msg("case did not parse: %s", err);
}

#endif
