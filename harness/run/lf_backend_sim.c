/* lf_backend_sim.c - the simulation backend: plain host memory, kernels from
 * kernels/sim. Under ASan every buffer sits between two poisoned 4 KiB pads,
 * so an access up to 4 KiB outside it (x[-100], x[C] of the last row) aborts
 * with a report even where ASan's own redzones are narrower; the pads start
 * exactly at the buffer's edges. */
#include <stdlib.h>
#include <string.h>

#include "lf_backend.h"

#if defined(__SANITIZE_ADDRESS__)
#define LF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LF_ASAN 1
#endif
#endif

#ifdef LF_ASAN
#include <sanitizer/asan_interface.h>
#define PAD 4096
#else
#define PAD 0
#endif

/* The buffer's size is stored in front of the left pad, for release. */
#define HEADER 16

static void *sim_alloc(size_t bytes)
{
    char *base = calloc(1, HEADER + PAD + bytes + PAD);
    if (!base) return NULL;
    memcpy(base, &bytes, sizeof bytes);
    char *user = base + HEADER + PAD;
#ifdef LF_ASAN
    ASAN_POISON_MEMORY_REGION(base + HEADER, PAD);
    ASAN_POISON_MEMORY_REGION(user + bytes, PAD);
#endif
    return user;
}

static void sim_release(void *p)
{
    if (!p) return;
    char *base = (char *)p - PAD - HEADER;
#ifdef LF_ASAN
    size_t bytes;
    memcpy(&bytes, base, sizeof bytes);
    ASAN_UNPOISON_MEMORY_REGION(base, HEADER + PAD + bytes + PAD);
#endif
    free(base);
}

static int sim_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
    return 0;
}

static const lf_backend sim_backend = {
    "sim", sim_alloc, sim_release, sim_copy, sim_copy,
    lf_sim_reference_forward, lf_sim_guarded_validate, lf_sim_guarded_forward, lf_sim_reference_backward, NULL, NULL, NULL, NULL, false, sim_copy,
};

const lf_backend *lf_sim_backend(void) { return &sim_backend; }
