/* lf_losses.h - the losses' one table (lf_losses.def), as the case model reads it. */
#ifndef LF_LOSSES_H
#define LF_LOSSES_H

#include <stdbool.h>

#include "lf_kernels.h" /* lf_targets_kind */
#include "lf_options.h" /* LF_OPT_* */

#define LF_TAKES(kind) (1u << (kind)) /* a loss's TARGETS bit for an lf_targets_kind */
enum {
    LF_LOSS_LOG_SOFTMAX = 1,
    LF_LOSS_FUSED_LINEAR = 2,
    LF_LOSS_PROB_INPUT = 4,
    LF_LOSS_TARGET_SHAPED = 8
}; /* its FLAGS */

typedef struct {
    const char *name;       /* PyTorch's (or the composition's) name: "cross_entropy" */
    unsigned targets;       /* LF_TAKES(kind) bits */
    bool log_softmax;       /* log_softmax over the classes first */
    bool fused_linear;      /* input is hidden states; classes are linear_weight's rows */
    bool prob_input;        /* input holds probabilities in [0, 1] */
    bool target_shaped;     /* reduction none gives the target's shape, a 1-D input's [1] target too */
    const char *positional; /* the call's tensors before its keywords, space-separated */
    unsigned options;       /* LF_OPT_* bits: the options it takes besides reduction */
    unsigned code;          /* its code in the fuzz format's loss byte (its row's CODE) */
} lf_loss_info;

#define LF_LOSS_CODES 16 /* the loss byte's codes: byte % 16, fixed forever (a saved input keeps its loss) */

typedef enum {
#define LF_LOSS(ID, ...) LF_LOSS_##ID,
#include "lf_losses.def"
#undef LF_LOSS
    LF_LOSS_COUNT
} lf_loss;

const lf_loss_info *lf_loss_of(lf_loss l);
const char *lf_loss_name(lf_loss l);
/* The options it takes besides reduction: LF_OPT_* bits, its row's OPTIONS. */
unsigned lf_loss_options(lf_loss l);
bool lf_loss_parse(const char *name, lf_loss *out);
/* "cross_entropy, nll_loss, ... or multi_margin_loss": every loss's name, from the table, for messages. */
const char *lf_loss_names(void);
/* The loss (not a fused linear) whose CODE is `code` and that takes targets
 * of any of `kinds` (LF_TAKES bits): the byte format's pick; false where no
 * row has both (the input is skipped, never given another loss). */
bool lf_loss_of_code(unsigned code, unsigned kinds, lf_loss *out);
/* Whether the loss takes class-index targets (and so rows, device asserts). */
bool lf_loss_has_classes(lf_loss l);
/* Whether it reads a target of its input's shape as class probabilities (not a fused linear's). */
bool lf_loss_takes_probs(lf_loss l);

#endif
