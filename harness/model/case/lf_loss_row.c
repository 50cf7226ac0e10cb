/* lf_loss_row.c - the losses' rows as the floors below their homes reach them (lf_loss_row.h): installed
 * by harness/losses/lf_loss_rows.c when the program loads, so no floor here links to one above. */
#include "lf_loss_row.h"

#include <stdio.h>
#include <stdlib.h>

static const lf_loss_row *const *installed;

void lf_loss_rows_install(const lf_loss_row *const rows[LF_LOSS_COUNT]) { installed = rows; }

const lf_loss_row *lf_loss_row_of(lf_loss l)
{
    if (!installed) { /* a program built without the harness's link options (lf_core's -u lf_losses_linked) */
        fprintf(stderr, "lossfuzz: no loss's home is linked in (harness/losses/lf_loss_rows.c): link lf_core\n");
        abort();
    }
    return installed[l < LF_LOSS_COUNT ? l : 0];
}
