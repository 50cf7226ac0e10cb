/* lf_backend.c - choosing a backend by name. */
#include <string.h>

#include "lf_backend.h"

const lf_backend *lf_backend_find(const char *name, const char **why)
{
    *why = NULL;
    if (!name || !strcmp(name, "sim")) return lf_sim_backend();
    if (strcmp(name, "cuda")) {
        *why = "unknown backend (expected sim or cuda)";
        return NULL;
    }
#ifdef LF_HAVE_CUDA
    const lf_backend *be = lf_cuda_backend();
    if (!be) *why = "no CUDA device is available";
    return be;
#else
    *why = "this build has no CUDA (nvcc was not found when it was configured)";
    return NULL;
#endif
}
