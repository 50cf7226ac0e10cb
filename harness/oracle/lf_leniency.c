/* lf_leniency.c - the rules of lf_leniency.def: a kernel's refusal of a call
 * PyTorch accepts though its documentation excludes it. */
#include <string.h>

#include "lf_verdict_build.h"

/* A rejection in the kernel's words or PyTorch's; a crash (kernel_failed) is a bug, not a refusal. */
static bool refused(const lf_result *k)
{
    return k->kind == LF_OUTCOME_HOST_ERROR && strcmp(k->error, "kernel_failed");
}

static bool unbatched_target_1(const lf_case *c)
{
    return lf_loss_has_classes(c->loss) && !lf_dtype_is_float(c->target.dtype) && c->input.ndim == 1 &&
           c->target.ndim == 1 && c->target.shape[0] == 1;
}

static const struct {
    lf_known_difference entry;
    bool (*rule)(const lf_case *c);
} lenient[] = {
#define LF_LENIENCY(id, doc, what) {{#id, "", "", "", doc, what}, id},
#include "lf_leniency.def"
#undef LF_LENIENCY
};

const lf_known_difference *lf_leniency_at(int i)
{
    return i >= 0 && i < (int)(sizeof lenient / sizeof lenient[0]) ? &lenient[i].entry : NULL;
}

const lf_known_difference *lf_leniency_of(const lf_case *c, const lf_result *s, const lf_result *k)
{
    if (s->kind != LF_OUTCOME_OK || !refused(k)) return NULL;
    for (size_t i = 0; i < sizeof lenient / sizeof lenient[0]; i++)
        if (lenient[i].rule(c)) return &lenient[i].entry;
    return NULL;
}
