/* lf_losses.c - the losses' table (lf_losses.def) for the case model. */
#include "lf_losses.h"

#include <stdio.h>
#include <string.h>

/* The columns other floors read are not expanded here. */
#define HAS(FLAGS, FLAG) (((FLAGS) & (FLAG)) != 0)
static const lf_loss_info losses[LF_LOSS_COUNT] = {
#define LF_LOSS(ID, NAME, TARGETS, FLAGS, POSITIONAL, OPTIONS, CLAIM, CLAIM_PROB, ROW, CODE)                           \
    [LF_LOSS_##ID] = {NAME,                                                                                            \
                      TARGETS,                                                                                         \
                      HAS(FLAGS, LF_LOSS_LOG_SOFTMAX),                                                                 \
                      HAS(FLAGS, LF_LOSS_FUSED_LINEAR),                                                                \
                      HAS(FLAGS, LF_LOSS_PROB_INPUT),                                                                  \
                      HAS(FLAGS, LF_LOSS_TARGET_SHAPED),                                                               \
                      POSITIONAL,                                                                                      \
                      OPTIONS,                                                                                         \
                      CODE},
#include "lf_losses.def"
#undef LF_LOSS
};

const lf_loss_info *lf_loss_of(lf_loss l) { return &losses[l < LF_LOSS_COUNT ? l : 0]; }
const char *lf_loss_name(lf_loss l) { return l < LF_LOSS_COUNT ? losses[l].name : "?"; }
unsigned lf_loss_options(lf_loss l) { return lf_loss_of(l)->options; }

const char *lf_loss_names(void)
{
    static char names[64 * LF_LOSS_COUNT];
    if (!names[0])
        for (int l = 0, at = 0; l < LF_LOSS_COUNT; l++)
            at += snprintf(names + at, sizeof names - (size_t)at, "%s%s",
                           l == 0                  ? ""
                           : l + 1 < LF_LOSS_COUNT ? ", "
                                                   : " or ",
                           losses[l].name);
    return names;
}

bool lf_loss_has_classes(lf_loss l) { return (lf_loss_of(l)->targets & LF_TAKES(LF_CLASS_TARGETS)) != 0; }

bool lf_loss_parse(const char *name, lf_loss *out)
{
    for (int l = 0; l < LF_LOSS_COUNT; l++)
        if (!strcmp(name, losses[l].name)) {
            *out = (lf_loss)l;
            return true;
        }
    return false;
}

bool lf_loss_of_code(unsigned code, unsigned kinds, lf_loss *out)
{
    for (int l = 0; l < LF_LOSS_COUNT; l++)
        if (losses[l].code == code && (losses[l].targets & kinds) && !losses[l].fused_linear) {
            *out = (lf_loss)l;
            return true;
        }
    return false;
}

bool lf_loss_takes_probs(lf_loss l)
{
    const lf_loss_info *info = lf_loss_of(l);
    return (info->targets & LF_TAKES(LF_PROB_TARGETS)) && !info->fused_linear;
}
