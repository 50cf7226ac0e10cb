/* lf_assert_result.c - a device assert as a result, from what names it: the
 * kernel, the condition and the failing element. The spec (which works out
 * the condition from the case) and the device call (which reads it from the
 * kernel's record) share this on purpose: only the wording, so either can be
 * caught naming the wrong condition or element. */
#include <stdio.h>

#include "lf_kernels.h"
#include "lf_result.h"

void lf_result_device_assert(lf_result *r, const lf_case *c, int kernel_id, int cond_id, int64_t index,
                             const char *detail, const char *then)
{
    int names = lf_cond_names(cond_id);
    const lf_tensor *t = names == LF_NAMES_INPUT ? &c->input : &c->target;
    char value[64];
    r->kind = LF_OUTCOME_DEVICE_ASSERT;
    r->kernel_id = kernel_id;
    r->cond_id = cond_id;
    r->index = index;
    if (names == LF_NAMES_LABEL) {
        r->value = lf_load_i64(t->data, t->dtype, index);
        snprintf(value, sizeof value, "%lld", (long long)r->value);
    } else {
        r->value = 0; /* a probability: the message gives it */
        snprintf(value, sizeof value, "%.8g, %s", lf_load_f64(t->data, t->dtype, index), lf_dtype_name(t->dtype));
    }
    snprintf(r->error, sizeof r->error, "%s", lf_assert_error(kernel_id));
    snprintf(r->exception, sizeof r->exception, "RuntimeError");
    snprintf(r->message, sizeof r->message, "%s: Assertion `%s` failed (%s[%lld] = %s%s%s)%s",
             lf_kernel_name(kernel_id), lf_cond_text(cond_id), names == LF_NAMES_INPUT ? "input" : "target",
             (long long)index, value, detail[0] ? ", " : "", detail, then);
}
