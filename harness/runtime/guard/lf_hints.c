/* lf_hints.c - the guard's hints and warnings (lf_hints.def, then the losses'
 * rows' hints), looked up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_guard.h"
#include "lf_loss_row.h"

static const struct {
    const char *id;
    bool warning;
    const char *what;
} diagnoses[] = {
#define LF_HINT(id, what) {id, false, what},
#define LF_WARNING(id, what) {id, true, what},
#include "lf_hints.def"
#undef LF_HINT
#undef LF_WARNING
};
#define N_DIAGNOSES (int)(sizeof diagnoses / sizeof diagnoses[0])

const char *lf_hint_at(int i, bool *warning, const char **what)
{
    if (i < 0) return NULL;
    if (i < N_DIAGNOSES) {
        if (warning) *warning = diagnoses[i].warning;
        if (what) *what = diagnoses[i].what;
        return diagnoses[i].id;
    }
    i -= N_DIAGNOSES;
    for (int l = 0; l < LF_LOSS_COUNT; i -= lf_loss_row_of((lf_loss)l++)->n_hints) {
        const lf_loss_row *row = lf_loss_row_of((lf_loss)l);
        if (i >= row->n_hints) continue;
        if (warning) *warning = false;
        if (what) *what = row->hints[i].what;
        return row->hints[i].id;
    }
    return NULL;
}

void lf_hint_require(const char *id, bool warning)
{
    bool w;
    const char *at;
    for (int i = 0; (at = lf_hint_at(i, &w, NULL)); i++)
        if (w == warning && !strcmp(id, at)) return;
    /* an id the lists lack: the code is wrong, not the case */
    fprintf(stderr, "lossfuzz: %s %s is not in harness/runtime/guard/lf_hints.def or a loss's row\n",
            warning ? "warning" : "hint", id);
    abort();
}
