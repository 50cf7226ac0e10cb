/* lf_hints.c - the guard's hints and warnings (lf_hints.def), looked up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_guard.h"

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
    if (i < 0 || i >= N_DIAGNOSES) return NULL;
    if (warning) *warning = diagnoses[i].warning;
    if (what) *what = diagnoses[i].what;
    return diagnoses[i].id;
}

void lf_hint_require(const char *id, bool warning)
{
    for (int i = 0; i < N_DIAGNOSES; i++)
        if (diagnoses[i].warning == warning && !strcmp(id, diagnoses[i].id)) return;
    /* an id the list lacks: the code is wrong, not the case */
    fprintf(stderr, "lossfuzz: %s %s is not in harness/runtime/guard/lf_hints.def\n", warning ? "warning" : "hint", id);
    abort();
}
