/* lf_mutate.c - the structure-aware mutator shared by libFuzzer
 * (LLVMFuzzerCustomMutator / CustomCrossOver) and AFL++ (a custom-mutator
 * library). It knows the byte format (lf_bytes.h): it changes shapes, dtypes and
 * options through their parameter bytes, moves single labels to boundary values
 * (C, C-1, -1, -100, 255, ignore_index, 2^31, 2^32+k, ...) and logits to special
 * values (NaN, +-inf, +-65504, huge, -0, a denormal); weight shapes and values,
 * and memory layouts, are parameters too. The rest goes to a byte mutator. */
#include <math.h>
#include <string.h>

#include "lf_bytes.h"
#include "lf_params.h"

static unsigned next(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Grows the input to hold `payload` payload bytes before the parameters,
 * keeping the parameters at the end. Returns the new size (may be capped). */
static size_t reserve_payload(uint8_t *data, size_t size, size_t max_size, size_t payload)
{
    size_t params = size < LF_N_PARAMS ? size : LF_N_PARAMS, have = size - params;
    if (payload <= have) return size;
    if (payload + params > max_size) payload = max_size > params ? max_size - params : 0;
    if (payload <= have) return size;
    memmove(data + payload, data + have, params);
    memset(data + have, 0, payload - have);
    return payload + params;
}

/* Makes sure all LF_N_PARAMS parameter bytes exist (zeros: the defaults). */
static size_t reserve_params(uint8_t *data, size_t size, size_t max_size)
{
    if (size >= LF_N_PARAMS || max_size < LF_N_PARAMS) return size;
    size_t missing = LF_N_PARAMS - size;
    memmove(data + missing, data, size); /* the missing (earliest) params are zeros in front */
    memset(data, 0, missing);
    return LF_N_PARAMS;
}

static size_t random_bytes(uint8_t *data, size_t size, size_t max_size, unsigned *s)
{
    if (size == 0 || (next(s) % 8 == 0 && size < max_size))
        data[size++] = (uint8_t)next(s);
    else
        data[next(s) % size] ^= (uint8_t)(1u << (next(s) % 8));
    return size;
}

size_t lf_mutate(lf_target t, uint8_t *data, size_t size, size_t max_size, unsigned seed, lf_byte_mutator fallback)
{
    unsigned s = seed;
    lf_byte_map lay;
    unsigned op = next(&s) % 6;
    if (t == LF_TARGET_JSON || t == LF_TARGET_RAW || op == 5)
        return fallback ? fallback(data, size, max_size) : random_bytes(data, size, max_size, &s);
    size = reserve_params(data, size, max_size);
    if (size < LF_N_PARAMS) return fallback ? fallback(data, size, max_size) : size;
    if (op <= 1) { /* a parameter: shape, dtype or option */
        static const int structural[] = {P_RANK,          P_N,         P_C,         P_D1,
                                         P_TGT_SHAPE,     P_TGT_DTYPE, P_IN_DTYPE,  P_WEIGHT,
                                         P_WEIGHT_VALUES, P_IN_LAYOUT, P_TGT_LAYOUT};
        int k = op == 0 ? structural[next(&s) % LF_COUNT(structural)] : (int)(next(&s) % LF_N_PARAMS);
        uint8_t *p = &data[size - 1 - (size_t)k];
        *p = (uint8_t)(next(&s) % 2 ? *p + 1u : next(&s));
        return size;
    }
    lf_decode_byte_map(t, data, size, &lay);
    if (op == 2 && lay.n_labels > 0) { /* one label to a boundary value */
        size_t at = lay.label_at + 2 * (next(&s) % lay.n_labels);
        size = reserve_payload(data, size, max_size, at + 2);
        if (at + 2 <= size - LF_N_PARAMS) {
            unsigned v = LF_LABEL_SPECIAL | (next(&s) % (2 * LF_N_SPECIAL_LABELS) == 0 ? 0x80u : 0u) |
                         next(&s) % LF_N_SPECIAL_LABELS;
            data[at] = (uint8_t)v;
            data[at + 1] = (uint8_t)(v >> 8);
        }
        return size;
    }
    if ((op == 3 || op == 2) && lay.n_values > 0) { /* one logit to a special value */
        static const float specials[] = {NAN,    INFINITY, -INFINITY, 65504.0f, -65504.0f, 1e30f,
                                         -1e30f, 1e4f,     0.0f,      -0.0f,    1e-40f};
        size_t at = lay.value_at + 4 * (next(&s) % lay.n_values);
        size = reserve_payload(data, size, max_size, at + 4);
        if (at + 4 <= size - LF_N_PARAMS) memcpy(data + at, &specials[next(&s) % LF_COUNT(specials)], 4);
        return size;
    }
    return fallback ? fallback(data, size, max_size) : random_bytes(data, size, max_size, &s);
}

size_t lf_cross_over(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, uint8_t *out, size_t max_size,
                     unsigned seed)
{
    size_t params = a_size < LF_N_PARAMS ? a_size : LF_N_PARAMS;
    size_t payload = b_size > LF_N_PARAMS ? b_size - LF_N_PARAMS : 0;
    (void)seed;
    if (params > max_size) params = max_size;
    if (payload + params > max_size) payload = max_size - params;
    memcpy(out, b, payload);                            /* payload of b */
    memcpy(out + payload, a + a_size - params, params); /* parameters of a */
    return payload + params;
}
