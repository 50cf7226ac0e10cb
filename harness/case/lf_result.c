/* lf_result.c - memory and formatting helpers of lf_result. */
#include "lf_result.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lf_result_init(lf_result *r)
{
    memset(r, 0, sizeof *r);
    r->index = -1;
}

void lf_result_free(lf_result *r)
{
    free(r->values);
    free(r->scales);
    free(r->grad);
    lf_result_init(r);
}

void lf_result_free_values(lf_result *r)
{
    free(r->values);
    free(r->scales);
    r->values = r->scales = NULL;
    r->n = 0;
}

bool lf_result_alloc_values(lf_result *r, int64_t n, bool with_scales)
{
    free(r->values);
    free(r->scales);
    r->n = n;
    r->values = calloc((size_t)n + 1, sizeof(double));
    r->scales = with_scales ? calloc((size_t)n + 1, sizeof(double)) : NULL;
    return r->values && (!with_scales || r->scales);
}

void lf_result_error(lf_result *r, const char *error, const char *exception, const char *fmt, ...)
{
    va_list ap;
    r->kind = LF_OUTCOME_HOST_ERROR;
    snprintf(r->error, sizeof r->error, "%s", error);
    snprintf(r->exception, sizeof r->exception, "%s", exception);
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

const char *lf_torch_type_name(lf_dtype t)
{
    static const char *const names[LF_DTYPE_COUNT] = {"Double", "Float", "Half", "BFloat16",
                                                      "Long", "Int", "Byte", "Bool"};
    return t < LF_DTYPE_COUNT ? names[t] : "?";
}
