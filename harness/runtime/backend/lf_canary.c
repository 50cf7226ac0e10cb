/* lf_canary.c - red zones around kernel buffers (lf_canary.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_backend.h"
#include "lf_layout.h"

#define G LF_CANARY_BYTES

static int sim_canary = -1; /* LOSSFUZZ_CANARY, read on first use */

void lf_canary_sim(int on) { sim_canary = on; }

bool lf_canary_enabled(const lf_backend *be)
{
    /* Memory from the simulation's allocator is ASan's to watch (lf_backend_sim.c). */
    if (be->alloc != lf_sim_backend()->alloc) return true;
    if (sim_canary < 0) {
        const char *v = getenv("LOSSFUZZ_CANARY");
        sim_canary = v && !strcmp(v, "1");
    }
    return sim_canary;
}

/* A red zone's contents: quiet NaNs of the dtype with a payload of 0xCA4A..., or
 * 0xFE bytes; no zero byte, so a written 0 changes every byte. The element is
 * the low bytes of e (little-endian, as CUDA devices are). */
static void pattern(unsigned char *g, lf_dtype t) { lf_poison_fill(g, G, t); }

void lf_canary_begin(lf_canary_list *l, const lf_backend *be)
{
    memset(l, 0, sizeof *l);
    l->be = be;
    l->on = lf_canary_enabled(be);
}

void *lf_canary_add(lf_canary_list *l, const char *name, size_t bytes, lf_dtype fill, const void *src)
{
    const lf_backend *be = l->be;
    size_t g = l->on ? G : 0;
    /* Fenced memory ends at a guard page: the back red zone only fills the data
     * up to G's alignment (DLPack's 256 bytes), so one byte more faults. */
    size_t back = be->fenced ? (bytes + G - 1) / G * G - bytes : g;
    if (l->n == LF_CANARY_MAX) return NULL;
    char *base = be->alloc(g + bytes + back);
    if (!base) return NULL;
    l->buf[l->n].data = base + g;
    l->buf[l->n].bytes = bytes;
    l->buf[l->n].back = back;
    l->buf[l->n].fill = fill;
    l->buf[l->n].name = name;
    l->n++; /* released by lf_canary_end even if a copy below fails */
    if (g) {
        unsigned char red_zone[G];
        pattern(red_zone, fill);
        if (be->to_device(base, red_zone, G) || be->to_device(base + G + bytes, red_zone, back)) return NULL;
    }
    return src && be->to_device(base + g, src, bytes) ? NULL : base + g;
}

/* Appends to msg which bytes of one red zone changed, widened to whole elements
 * of the fill (a written value may share a byte with the pattern). */
static void describe(char *msg, size_t len, const unsigned char *got, const unsigned char *want, size_t n, size_t esz,
                     bool front, const char *name, size_t bytes)
{
    size_t first = n, last = 0, used = strlen(msg);
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            if (first == n) first = i;
            last = i;
        }
    if (first == n || used >= len) return;
    first -= first % esz;
    last += esz - 1 - last % esz;
    if (front)
        snprintf(msg + used, len - used,
                 "%sthe kernel wrote before the start of %s: front red zone bytes %zu..%zu "
                 "changed (%zu..%zu bytes before it)",
                 used ? "; " : "", name, first, last, G - first, G - last);
    else
        snprintf(msg + used, len - used,
                 "%sthe kernel wrote past the end of %s: back red zone bytes %zu..%zu "
                 "changed (%s holds %zu bytes)",
                 used ? "; " : "", name, first, last, name, bytes);
}

bool lf_canary_check(const lf_canary_list *l, lf_result *r)
{
    char msg[sizeof r->message] = "";
    unsigned char want[G], front[G], back[G];
    for (int i = 0; l->on && i < l->n; i++) {
        const char *data = l->buf[i].data;
        size_t bytes = l->buf[i].bytes;
        /* A red zone that cannot be read says nothing; the caller's own reads fail too. */
        size_t nb = l->buf[i].back;
        if (l->be->to_host(front, data - G, G) || l->be->to_host(back, data + bytes, nb)) continue;
        lf_dtype t = l->buf[i].fill;
        pattern(want, t);
        describe(msg, sizeof msg, front, want, G, lf_dtype_size(t), true, l->buf[i].name, bytes);
        describe(msg, sizeof msg, back, want, nb, lf_dtype_size(t), false, l->buf[i].name, bytes);
    }
    if (!msg[0]) return true;
    lf_result_free(r); /* the whole result: nothing else the path said holds */
    lf_result_error(r, "oob_write", "RuntimeError", "%s", msg);
    return false;
}

void lf_canary_end(lf_canary_list *l)
{
    for (int i = 0; i < l->n; i++) l->be->release(l->buf[i].data - (l->on ? G : 0));
    memset(l, 0, sizeof *l);
}
