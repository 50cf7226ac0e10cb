/* lf_finding_harm.c - how much a finding hurts the kernel's users, for the
 * order of a campaign report (architecture.md, "A finding's life"): silent
 * wrong numbers first, then corrupted inputs and out-of-bounds access, then
 * crashes and hangs, then rejections of valid calls: each class's rank is in
 * the finding classes' one list (oracle/lf_findings.def). */
#include <string.h>

#include "lf_campaign.h"

int lf_finding_harm(const char *signature, const char **label)
{
    int i = lf_finding_find(signature), harm = LF_HARM_CRASH; /* an unknown class: as a crash, never last */
    if (i >= 0) lf_finding_at(i, &harm, NULL);
    if (label) *label = lf_harm_label(harm);
    return harm;
}
