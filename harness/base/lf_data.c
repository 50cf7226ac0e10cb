/* lf_data.c - lossfuzz's own files, in the source tree or installed (lf_data.h). */
#define _XOPEN_SOURCE 700
#include "lf_data.h"

#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The folder of the running lossfuzz executable (<prefix>/bin) into dir; false when unknown. */
static bool exe_dir(char *dir, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return false;
    exe[n] = 0;
    snprintf(dir, len, "%s", dirname(exe));
    return true;
}

bool lf_data_path(const char *rel, char *out, size_t len)
{
    char bin[4096], installed[4096 + 64];
#ifdef LF_SOURCE_DIR /* undefined in a wheel, which runs where the tree it was built from is not */
    snprintf(out, len, "%s/%s", LF_SOURCE_DIR, rel);
    if (access(out, R_OK) == 0) return true;
#else
    snprintf(out, len, "%s", rel);
#endif
    if (!exe_dir(bin, sizeof bin)) return false;
    snprintf(installed, sizeof installed, "%s/../share/lossfuzz/%s", bin, rel);
    if (access(installed, R_OK) != 0) return false;
    snprintf(out, len, "%s", installed);
    return true;
}

bool lf_beside_exe(const char *name, char *out, size_t len)
{
    char bin[4096];
    if (!exe_dir(bin, sizeof bin)) return false;
    snprintf(out, len, "%s/%s", bin, name);
    return access(out, X_OK) == 0;
}
