/* lf_finding_harm.c - how much a finding hurts the kernel's users, for the
 * order of a campaign report (architecture.md, "A finding's life"): silent
 * wrong numbers first, then corrupted inputs and out-of-bounds access, then
 * crashes and hangs, then rejections of valid calls. One table. */
#include <string.h>

#include "lf_campaign.h"

static const char *const labels[] = {
    "Silent wrong values or gradients",
    "Corrupted inputs and out-of-bounds access",
    "Crashes, asserts and hangs",
    "Rejections of valid calls and wrong diagnoses",
};

/* Longest prefixes first where one is another's start. */
static const struct { const char *prefix; int harm; } table[] = {
    {"false-alarm/kernel-assert", 2}, /* PyTorch accepts the call; the kernel asserted */
    {"value-mismatch/", 0}, {"grad-mismatch/", 0}, {"upstream-grad-mismatch/", 0}, {"kernel-silent/", 0},
    {"kernel-miss/", 0}, {"guard-miss/", 0}, {"shape-mismatch/", 0}, {"dtype-mismatch/", 0},
    {"grad-missing/", 0}, {"grad-shape-mismatch/", 0}, {"grad-dtype-mismatch/", 0},
    {"reference-mismatch/", 0}, {"torch-mismatch/", 0}, {"expect-mismatch/", 0},
    {"input-modified/", 1}, {"oob-read/", 1}, {"oob-write/", 1}, {"sanitizer/", 1},
    {"crash/", 2}, {"hang/", 2}, {"cuda-error/", 2}, {"kernel-assert/", 2}, {"grad-error/", 2},
    {"false-alarm/", 3}, {"diagnosis-mismatch/", 3},
};

int lf_finding_harm(const char *signature, const char **label)
{
    int harm = 2; /* an unknown class: as a crash, never last */
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strncmp(signature, table[i].prefix, strlen(table[i].prefix))) {
            harm = table[i].harm;
            break;
        }
    if (label) *label = labels[harm];
    return harm;
}
