/* lf_cause.h - what a finding needs. Its minimized case's traits are taken
 * away one at a time (input and target made contiguous, class weight and
 * ignored labels dropped, smoothing 0, float64, an upstream gradient of one
 * value, spatial input as rows, a 1-D input given a batch, an empty input
 * given a row, each reduction, each LLM option off...) and the case is
 * replayed: a trait whose removal leaves no finding of the same harm is part
 * of the cause. A campaign's report folds the findings of one cause and one
 * harm into one entry (lf_campaign_entries.c). */
#ifndef LF_CAUSE_H
#define LF_CAUSE_H

#include "lf_backend.h"
#include "lf_case.h"

typedef struct {
    char key[192];   /* the needed traits' names, in the traits' order: "reduction=mean;row-weights" ("": none) */
    char words[400]; /* for people: "reduction mean; rows weighted unevenly (here: an ignored label)" */
    int replays;     /* oracle runs it took */
    double ms;
} lf_cause;

/* The cause of the finding `signature` that case c shows on be. */
void lf_cause_of(const lf_case *c, const lf_backend *be, const char *signature, lf_cause *out);

#endif
