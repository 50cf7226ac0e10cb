/* lf_afl_mutator.c - AFL++ custom-mutator library around lf_mutate (the same
 * structure-aware mutations libFuzzer gets). Built once per target with
 * -DLF_AFL_TARGET=LF_TARGET_CLASS|LF_TARGET_PROB; loaded by afl-fuzz through
 * AFL_CUSTOM_MUTATOR_LIBRARY (ci/fuzz.sh sets it). */
#include <stdlib.h>
#include <string.h>

#include "lf_bytes.h"

typedef struct {
    unsigned seed;
    uint8_t *buf;
    size_t cap;
} lf_afl_state;

void *afl_custom_init(void *afl, unsigned int seed)
{
    (void)afl;
    lf_afl_state *st = calloc(1, sizeof *st);
    if (st) st->seed = seed;
    lf_numel_limit = lf_fuzz_numel_limit(LF_AFL_TARGET);
    return st;
}

size_t afl_custom_fuzz(void *data, uint8_t *buf, size_t buf_size, uint8_t **out_buf, uint8_t *add_buf,
                       size_t add_buf_size, size_t max_size)
{
    lf_afl_state *st = data;
    size_t cap = max_size > buf_size ? max_size : buf_size;
    if (cap > st->cap) {
        uint8_t *grown = realloc(st->buf, cap);
        if (!grown) {
            *out_buf = buf;
            return buf_size;
        }
        st->buf = grown;
        st->cap = cap;
    }
    st->seed = st->seed * 1664525u + 1013904223u;
    size_t n;
    if (add_buf && add_buf_size && st->seed % 8 == 0) {
        n = lf_cross_over(buf, buf_size, add_buf, add_buf_size, st->buf, max_size, st->seed);
    } else {
        memcpy(st->buf, buf, buf_size);
        n = lf_mutate(LF_AFL_TARGET, st->buf, buf_size, max_size, st->seed, NULL);
    }
    *out_buf = st->buf;
    return n;
}

void afl_custom_deinit(void *data)
{
    lf_afl_state *st = data;
    free(st->buf);
    free(st);
}
