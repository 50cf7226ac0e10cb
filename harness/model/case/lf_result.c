/* lf_result.c - memory and formatting helpers of lf_result. */
#include "lf_result.h"

#include "lf_errors.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const lf_grad_part_names[LF_GRAD_PARTS] = {"input", "linear_weight", "linear_bias"};
const char *const lf_grad_state_names[4] = {"none", "ok", "missing", "error"};

const lf_tensor *lf_grad_tensor(const lf_case *c, lf_grad_part p)
{
    return p == LF_GRAD_INPUT ? &c->input : p == LF_GRAD_LINEAR_WEIGHT ? &c->linear_weight : &c->linear_bias;
}

bool lf_grad_required(const lf_case *c, lf_grad_part p)
{
    const lf_backward *b = &c->backward;
    bool flag = p == LF_GRAD_INPUT           ? b->input_requires_grad
                : p == LF_GRAD_LINEAR_WEIGHT ? b->linear_weight_requires_grad
                                             : b->linear_bias_requires_grad;
    const lf_tensor *t = lf_grad_tensor(c, p);
    return flag && t->present && lf_dtype_is_float(t->dtype);
}

/* Numbers and pointers zeroed, every string emptied: the bytes past a
 * string's end are never read. */
void lf_result_init(lf_result *r)
{
    memset(r, 0, offsetof(lf_result, grad));
    for (int p = 0; p < LF_GRAD_PARTS; p++) {
        memset(&r->grad[p], 0, offsetof(lf_grad, message));
        r->grad[p].message[0] = 0;
    }
    char *text[] = {r->error,   r->exception,  r->message, r->hint,    r->hint_id,
                    r->warning, r->warning_id, r->silent,  r->changed, r->through_softmax};
    for (size_t k = 0; k < sizeof text / sizeof text[0]; k++) text[k][0] = 0;
    r->index = -1;
}
/* Every field after grad is one of those strings: a number added there would not be zeroed. */
#define LF_SIZE_(f) sizeof(((lf_result *)0)->f)
_Static_assert(sizeof(lf_result) - offsetof(lf_result, error) ==
                   LF_SIZE_(error) + LF_SIZE_(exception) + LF_SIZE_(message) + LF_SIZE_(hint) + LF_SIZE_(hint_id) +
                       LF_SIZE_(warning) + LF_SIZE_(warning_id) + LF_SIZE_(silent) + LF_SIZE_(changed) +
                       LF_SIZE_(through_softmax),
               "lf_result: the fields after `error` are the strings lf_result_init empties");
#undef LF_SIZE_

void lf_result_free(lf_result *r)
{
    free(r->values);
    free(r->scales);
    for (int p = 0; p < LF_GRAD_PARTS; p++) free(r->grad[p].values);
    free(r->reference);
    for (int o = 0; o < LF_OUT_COUNT; o++) free(r->outputs[o].values), free(r->outputs[o].scales);
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

void lf_result_set_error(lf_result *r, const char *error)
{
    if (!lf_error_listed(error)) { /* a class the list (lf_errors.def) lacks: the code is wrong, not the case */
        fprintf(stderr, "lossfuzz: error class %s is not in harness/model/case/lf_errors.def\n", error);
        abort();
    }
    r->kind = LF_OUTCOME_HOST_ERROR;
    snprintf(r->error, sizeof r->error, "%s", error);
}

void lf_result_error(lf_result *r, const char *error, const char *exception, const char *fmt, ...)
{
    va_list ap;
    lf_result_set_error(r, error);
    snprintf(r->exception, sizeof r->exception, "%s", exception);
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

const char *lf_torch_type_name(lf_dtype t)
{
    static const char *const names[LF_DTYPE_COUNT] = {"Double", "Float", "Half", "BFloat16",
                                                      "Long",   "Int",   "Byte", "Bool"};
    return t < LF_DTYPE_COUNT ? names[t] : "?";
}
