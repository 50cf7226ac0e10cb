/* lf_loss_rows.c - each loss's row (lf_losses.def's ROW: its home's
 * lf_loss_row), by its id: the one way the floors below reach a home. */
#include "lf_loss_row.h"

#define LF_LOSS(ID, NAME, TARGETS, FLAGS, POSITIONAL, OPTIONS, CLAIM, CLAIM_PROB, ROW, ...)                            \
    extern const lf_loss_row ROW;
#include "lf_losses.def"
#undef LF_LOSS

static const lf_loss_row *const rows[LF_LOSS_COUNT] = {
#define LF_LOSS(ID, NAME, TARGETS, FLAGS, POSITIONAL, OPTIONS, CLAIM, CLAIM_PROB, ROW, ...) [LF_LOSS_##ID] = &ROW,
#include "lf_losses.def"
#undef LF_LOSS
};

const lf_loss_row *lf_loss_row_of(lf_loss l) { return rows[l < LF_LOSS_COUNT ? l : 0]; }
