/* lf_loss_rows.c - each loss's row (lf_losses.def's ROW: its home's lf_loss_row), by its id, installed for
 * the floors below when the program loads (lf_loss_row.h): they reach a home through it alone. */
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

/* What every program linking the harness asks the linker for (harness/CMakeLists.txt: lf_core), so this
 * file, and with it every home, is in the program although nothing calls it. */
const int lf_losses_linked = 1;

__attribute__((constructor)) static void install_rows(void) { lf_loss_rows_install(rows); }
