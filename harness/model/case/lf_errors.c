/* lf_errors.c - the error classes' one list (lf_errors.def), looked up. */
#include <stddef.h>
#include <string.h>

#include "lf_errors.h"

#define TORCH LF_ERROR_TORCH
#define GUARD LF_ERROR_GUARD
#define HARNESS LF_ERROR_HARNESS
#define KERNEL LF_ERROR_KERNEL

static const struct {
    const char *name;
    lf_error_source source;
    const char *finding, *what;
} errors[] = {
#define LF_ERROR(name, source, finding, what) {name, source, finding, what},
#include "lf_errors.def"
#undef LF_ERROR
};
#define N_ERRORS (int)(sizeof errors / sizeof errors[0])

const char *const lf_error_source_names[LF_ERROR_SOURCES] = {"torch", "guard", "harness", "kernel"};

bool lf_error_listed(const char *name)
{
    for (int i = 0; i < N_ERRORS; i++)
        if (!strcmp(name, errors[i].name)) return true;
    return false;
}

const char *lf_error_at(int i, lf_error_source *source, const char **finding, const char **what)
{
    if (i < 0 || i >= N_ERRORS) return NULL;
    if (source) *source = errors[i].source;
    if (finding) *finding = errors[i].finding;
    if (what) *what = errors[i].what;
    return errors[i].name;
}
