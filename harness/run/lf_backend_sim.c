/* lf_backend_sim.c - the simulation backend: plain host memory, kernels from
 * kernels/sim. Exact-size allocations keep ASan's redzones right at the edges. */
#include <stdlib.h>
#include <string.h>

#include "lf_backend.h"

static void *sim_alloc(size_t bytes) { return calloc(1, bytes ? bytes : 1); }
static void sim_release(void *p) { free(p); }
static int sim_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
    return 0;
}

static const lf_backend sim_backend = {
    "sim", sim_alloc, sim_release, sim_copy, sim_copy,
    lf_sim_reference_forward, lf_sim_guarded_validate, lf_sim_guarded_forward,
};

const lf_backend *lf_sim_backend(void) { return &sim_backend; }
