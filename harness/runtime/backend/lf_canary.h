/* lf_canary.h - red zones around the buffers a kernel gets, so that an
 * out-of-bounds access shows on the GPU, where nothing watches the kernels.
 *
 * Each buffer is allocated with LF_CANARY_BYTES before and after its data and
 * the kernel gets the data pointer. The red zones hold a quiet NaN of the
 * buffer's dtype (payload bytes 0xCA4A...), so a stray read turns a result into NaN and
 * the value check catches it; integer buffers hold bytes 0xFE, a negative label
 * (254 for uint8, which is not the usual 255 void), so a stray label read
 * asserts or is rejected. After the kernels every red zone byte is compared with
 * what was written: a change makes the path's result error "oob_write".
 *
 * On for every backend but the simulation. There ASan watches the kernels,
 * and red zones inside an allocation would hide a short overflow from it, so it
 * takes LOSSFUZZ_CANARY=1 (read once) or lf_canary_sim(1). */
#ifndef LF_CANARY_H
#define LF_CANARY_H

#include <stdbool.h>
#include <stddef.h>

#include "lf_result.h"

#define LF_CANARY_BYTES 256 /* a multiple of cudaMalloc's alignment, so the data keeps it */
#define LF_CANARY_MAX 12    /* buffers of one call: input .. rec, or a kernel's six tensors, out and four gradients */

struct lf_backend;

/* The buffers of one launch sequence, with red zones when `on`. */
typedef struct {
    const struct lf_backend *be;
    bool on;
    int n;
    struct {
        char *data;
        size_t bytes;
        size_t back;   /* bytes of the back red zone: LF_CANARY_BYTES, less on fenced memory */
        lf_dtype fill; /* the element type the red zones imitate */
        const char *name;
    } buf[LF_CANARY_MAX];
} lf_canary_list;

/* Whether buffers on this backend get red zones. */
bool lf_canary_enabled(const struct lf_backend *be);
/* Canaries on the simulation on (1) or off (0), replacing LOSSFUZZ_CANARY. */
void lf_canary_sim(int on);

void lf_canary_begin(lf_canary_list *l, const struct lf_backend *be);
/* A buffer of `bytes` holding src (zeroed if src is NULL), named for the
 * messages (a static string); NULL when allocation or copy fails. */
void *lf_canary_add(lf_canary_list *l, const char *name, size_t bytes, lf_dtype fill, const void *src);
/* After the kernels: false when a red zone byte changed; r is then error
 * oob_write naming the buffer and the byte. */
bool lf_canary_check(const lf_canary_list *l, lf_result *r);
/* Releases every buffer. */
void lf_canary_end(lf_canary_list *l);

#endif
