/* lf_data.c - lossfuzz's own files, in the source tree or installed (lf_data.h). */
#define _XOPEN_SOURCE 700
#include "lf_data.h"

#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool lf_data_path(const char *rel, char *out, size_t len)
{
    char exe[4096];
#ifdef LF_SOURCE_DIR /* not in a wheel: it runs where the tree it was built from is not */
    snprintf(out, len, "%s/%s", LF_SOURCE_DIR, rel);
    if (access(out, R_OK) == 0) return true;
#else
    snprintf(out, len, "%s", rel);
#endif
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1); /* <prefix>/bin/lossfuzz */
    if (n <= 0) return false;
    exe[n] = 0;
    char installed[4096 + 64];
    snprintf(installed, sizeof installed, "%s/../share/lossfuzz/%s", dirname(exe), rel);
    if (access(installed, R_OK) != 0) return false;
    snprintf(out, len, "%s", installed);
    return true;
}

bool lf_beside_exe(const char *name, char *out, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = 0;
    snprintf(out, len, "%s/%s", dirname(exe), name);
    return access(out, X_OK) == 0;
}
