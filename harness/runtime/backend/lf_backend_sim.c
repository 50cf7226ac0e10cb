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

/* The buffer's capacity is stored in front of the left pad, for release. */
#define HEADER 16

/* Released buffers are kept for the next case, by capacity (a power of two,
 * up to 1 MiB): a fuzz case allocates about 16, and under ASan each malloc
 * is a stack trace, a 4 KiB fill and a quarantine. A kept buffer is poisoned
 * whole, so a stale pointer into it is still caught; given out again, exactly
 * the bytes asked for are unpoisoned and zeroed, its pads at their edges. */
#define KEPT_SLOTS 32
#define KEPT_MAX_CAPACITY ((size_t)1 << 20)
static _Thread_local struct {
    char *base;
    size_t capacity;
} kept[KEPT_SLOTS];
static _Thread_local int n_kept;

static size_t capacity_for(size_t bytes)
{
    size_t cap = 64;
    while (cap < bytes && cap <= KEPT_MAX_CAPACITY) cap *= 2;
    return cap < bytes ? bytes : cap;
}

/* The last one released first: it is the likeliest still in cache. */
static char *take_kept(size_t capacity)
{
    for (int i = n_kept - 1; i >= 0; i--)
        if (kept[i].capacity == capacity) {
            char *base = kept[i].base;
            kept[i] = kept[--n_kept];
            return base;
        }
    return NULL;
}

/* Only the buffer is zeroed, not its pads: nothing reads them (under ASan,
 * zeroing 8 KiB of pads for each buffer was an eighth of a fuzz execution). */
static void *sim_alloc(size_t bytes)
{
    size_t capacity = capacity_for(bytes);
    char *base = take_kept(capacity);
    if (!base && !(base = malloc(HEADER + PAD + capacity + PAD))) return NULL;
    memcpy(base, &capacity, sizeof capacity);
    char *user = base + HEADER + PAD;
#ifdef LF_ASAN
    ASAN_UNPOISON_MEMORY_REGION(user, bytes);
    ASAN_POISON_MEMORY_REGION(base + HEADER, PAD);
    ASAN_POISON_MEMORY_REGION(user + bytes, capacity - bytes + PAD);
#endif
    memset(user, 0, bytes);
    return user;
}

static void sim_release(void *p)
{
    if (!p) return;
    char *base = (char *)p - PAD - HEADER;
    size_t capacity;
    memcpy(&capacity, base, sizeof capacity);
    if (capacity <= KEPT_MAX_CAPACITY && n_kept < KEPT_SLOTS) {
#ifdef LF_ASAN
        ASAN_POISON_MEMORY_REGION(p, capacity);
#endif
        kept[n_kept].base = base;
        kept[n_kept++].capacity = capacity;
        return;
    }
#ifdef LF_ASAN
    ASAN_UNPOISON_MEMORY_REGION(base, HEADER + PAD + capacity + PAD);
#endif
    free(base);
}

static int sim_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
    return 0;
}

static const lf_backend sim_backend = {
    "sim",
    sim_alloc,
    sim_release,
    sim_copy,
    sim_copy,
    lf_sim_reference_forward,
    lf_sim_guarded_validate,
    lf_sim_guarded_forward,
    lf_sim_reference_backward,
    NULL,
    NULL,
    NULL,
    NULL,
    false,
    sim_copy,
};

const lf_backend *lf_sim_backend(void) { return &sim_backend; }
