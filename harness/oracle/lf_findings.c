/* lf_findings.c - the finding classes' one list (lf_findings.def), looked up. */
#include <string.h>

#include "lf_oracle.h"

enum { SILENT = LF_HARM_SILENT, MEMORY = LF_HARM_MEMORY, CRASH = LF_HARM_CRASH, REJECTION = LF_HARM_REJECTION };
enum { SHARED = 0, OWN = 1 };

static const struct {
    const char *property;
    int harm;
    bool own;
    const char *what;
} findings[] = {
#define LF_FINDING(property, harm, cause, what) {property, harm, cause, what},
#include "lf_findings.def"
#undef LF_FINDING
};
#define N_FINDINGS (int)(sizeof findings / sizeof findings[0])

static const char *const harm_labels[LF_HARM_COUNT] = {
    [LF_HARM_SILENT] = "Silent wrong values or gradients",
    [LF_HARM_MEMORY] = "Corrupted inputs and out-of-bounds access",
    [LF_HARM_CRASH] = "Crashes, asserts and hangs",
    [LF_HARM_REJECTION] = "Rejections of valid calls and wrong diagnoses",
};

const char *lf_harm_label(int harm) { return harm >= 0 && harm < LF_HARM_COUNT ? harm_labels[harm] : "?"; }

int lf_finding_find(const char *cls)
{
    for (int i = 0; i < N_FINDINGS; i++) {
        size_t n = strlen(findings[i].property);
        if (!strncmp(cls, findings[i].property, n) && (cls[n] == '/' || cls[n] == '[' || cls[n] == 0)) return i;
    }
    return -1;
}

bool lf_finding_own_cause(const char *cls)
{
    int i = lf_finding_find(cls);
    return i >= 0 && findings[i].own;
}

const char *lf_finding_at(int i, int *harm, const char **what)
{
    if (i < 0 || i >= N_FINDINGS) return NULL;
    if (harm) *harm = findings[i].harm;
    if (what) *what = findings[i].what;
    return findings[i].property;
}
