/* lf_cause.h - what a finding needs. Its minimized case's traits are taken
 * away one at a time (input and target made contiguous, class weight and
 * ignored labels dropped, smoothing 0, float64, an upstream gradient of one
 * value, spatial input as rows, a 1-D input given a batch, an empty input
 * given a row, each LLM option off, each reduction) and the case is
 * replayed, keeping each simpler case where the finding's family stays
 * (wrong numbers are one family, lf_cause.c): a trait whose removal makes
 * it go is part of the cause. A campaign's report folds the findings of one cause and one
 * harm into one entry (lf_campaign_entries.c). */
#ifndef LF_CAUSE_H
#define LF_CAUSE_H

#include "lf_backend.h"
#include "lf_case.h"

typedef struct {
    char key[192];   /* the needed traits' names, in the traits' order: "row-weights;reduction=mean" ("": none) */
    char family[96]; /* the family the case kept: "numbers/kernel", "false-alarm/kernel" */
    char words[400]; /* for people: "reduction mean; rows weighted unevenly (here: an ignored label)" */
    int replays;     /* oracle runs it took */
    int changed;     /* of those, the ones that showed another finding (not none): the ablation changed the bug */
    int not_applied; /* traits of the case that could not be taken away (named in not_applied_names) */
    char not_applied_names[96];
    double ms;
} lf_cause;

/* The cause of the finding `signature` that case c shows on be. */
void lf_cause_of(const lf_case *c, const lf_backend *be, const char *signature, lf_cause *out);

#endif
