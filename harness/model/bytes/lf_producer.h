/* lf_producer.h - a data producer (zstd fuzz_data_producer.c, LLVM
 * FuzzedDataProvider): parameters from the tail, payload from the head, zeros
 * once the bytes run out. */
#ifndef LF_PRODUCER_H
#define LF_PRODUCER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* head counts every payload byte asked for, also past the end (where zeros are
 * read), so positions in a layout do not depend on how many bytes there are. */
typedef struct {
    const uint8_t *data;
    size_t size, head;
} lf_producer;

static inline uint8_t lf_take_param(lf_producer *p) { return p->size > p->head ? p->data[--p->size] : 0; }

/* n payload bytes into out, zero-filled past the end. */
static inline void lf_take_bytes(lf_producer *p, void *out, size_t n)
{
    size_t left = p->head < p->size ? p->size - p->head : 0, have = left < n ? left : n;
    memcpy(out, p->data + p->head, have);
    memset((uint8_t *)out + have, 0, n - have);
    p->head += n;
}

/* Whether the next n payload bytes are in the input (not past its end). */
static inline bool lf_have_bytes(const lf_producer *p, size_t n) { return p->head + n <= p->size; }

static inline uint16_t lf_take_u16(lf_producer *p)
{
    uint8_t b[2];
    lf_take_bytes(p, b, 2);
    return (uint16_t)(b[0] | b[1] << 8);
}

static inline float lf_take_f32(lf_producer *p)
{
    float f = 0;
    if (p->head >= p->size) { /* past the end, without a copy: most of a vocabulary's row is there */
        p->head += 4;
        return f;
    }
    lf_take_bytes(p, &f, 4);
    return f;
}

#endif
