/* lf_backend.c - choosing a backend by name. */
#include <string.h>

#include "lf_backend.h"

const lf_backend *lf_backend_find(const char *name, const char **why)
{
    return lf_backend_find_asserts(name, false, why);
}

const lf_backend *lf_backend_find_asserts(const char *name, bool hard_asserts, const char **why)
{
    *why = NULL;
    if (!name || !strcmp(name, "sim")) {
        lf_sim_set_hard_asserts(hard_asserts);
        return lf_sim_backend();
    }
    if (strcmp(name, "cuda")) {
        *why = "unknown backend (expected sim or cuda)";
        return NULL;
    }
#ifdef LF_HAVE_CUDA
    const lf_backend *be = lf_cuda_backend(hard_asserts);
    if (!be) *why = "no CUDA device is available";
    return be;
#else
    (void)hard_asserts;
    *why = "this build has no CUDA (built without: nvcc not found, or CUDA turned off; with the CUDA Toolkit "
           "installed, build again, or pip install again)";
    return NULL;
#endif
}

bool lf_backend_cuda_built(void)
{
#ifdef LF_HAVE_CUDA
    return true;
#else
    return false;
#endif
}
