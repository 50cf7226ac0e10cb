/* lf_losses.h - the losses' one table (lf_losses.def), as the case model reads it. */
#ifndef LF_LOSSES_H
#define LF_LOSSES_H

#include <stdbool.h>

#include "lf_kernels.h" /* lf_targets_kind */

#define LF_TAKES(kind) (1u << (kind)) /* a loss's TARGETS bit for an lf_targets_kind */
enum {
    LF_OPT_WEIGHT = 1,
    LF_OPT_IGNORE_INDEX = 2,
    LF_OPT_LABEL_SMOOTHING = 4,
    LF_OPT_POS_WEIGHT = 8,
    LF_OPT_LINEAR_BIAS = 16,
    LF_OPT_P = 32,
    LF_OPT_MARGIN = 64,
    /* the LLM family (lf_llm.def, in its order, then the loss mask): not PyTorch's */
    LF_OPT_LOGIT_SCALE = 128,
    LF_OPT_SOFTCAP = 256,
    LF_OPT_Z_LOSS_SCALE = 512,
    LF_OPT_N_ITEMS = 1024,
    LF_OPT_LOSS_MASK = 2048,
    LF_OPT_COUNT = 12,
    LF_OPT_LLM = LF_OPT_LOGIT_SCALE | LF_OPT_SOFTCAP | LF_OPT_Z_LOSS_SCALE | LF_OPT_N_ITEMS | LF_OPT_LOSS_MASK
};
#define LF_OPT_OF_LLM(k) (LF_OPT_LOGIT_SCALE << (k)) /* an lf_llm_option's bit */
enum { LF_LOSS_LOG_SOFTMAX = 1, LF_LOSS_FUSED_LINEAR = 2 };
extern const char *const lf_option_names[LF_OPT_COUNT]; /* bit order: "weight", "ignore_index", ... */

typedef struct {
    const char *name;       /* PyTorch's (or the composition's) name: "cross_entropy" */
    unsigned targets;       /* LF_TAKES(kind) bits */
    unsigned options;       /* LF_OPT_* */
    bool log_softmax;       /* log_softmax over the classes first */
    bool fused_linear;      /* input is hidden states; classes are linear_weight's rows */
    const char *positional; /* the call's tensors before its keywords, space-separated */
} lf_loss_info;

typedef enum {
#define LF_LOSS(ID, ...) LF_LOSS_##ID,
#include "lf_losses.def"
#undef LF_LOSS
    LF_LOSS_COUNT
} lf_loss;

const lf_loss_info *lf_loss_of(lf_loss l);
const char *lf_loss_name(lf_loss l);
bool lf_loss_parse(const char *name, lf_loss *out);
/* The losses (not fused linears) that take targets of any of `kinds`
 * (LF_TAKES bits), in the table's order, into out[LF_LOSS_COUNT]; their
 * count. The byte format picks a fuzz target's loss from these. */
int lf_losses_taking(unsigned kinds, lf_loss *out);
/* Whether the loss takes class-index targets (and so rows, device asserts). */
bool lf_loss_has_classes(lf_loss l);

#endif
