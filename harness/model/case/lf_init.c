/* lf_init.c - seeded value generators for case tensors (the `init` objects of
 * case files). Deterministic: the same init gives the same bits everywhere. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_case.h"

/* splitmix64: small, good enough for test data, trivially reproducible. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double next_unit(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; }

static double next_normal(uint64_t *s)
{
    double u1 = next_unit(s), u2 = next_unit(s);
    return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}

/* Rows along the class dimension (1, or 0 for a tensor of rank < 2). */
typedef struct {
    int64_t outer, classes, inner;
} class_layout;

static class_layout layout_of(const lf_tensor *t)
{
    class_layout l = {1, t->ndim ? t->shape[0] : 1, 1};
    if (t->ndim >= 2) {
        l.outer = t->shape[0];
        l.classes = t->shape[1];
        for (int d = 2; d < t->ndim; d++) l.inner *= t->shape[d];
    }
    return l;
}

static void fill_rows(lf_tensor *t, uint64_t *s, bool onehot)
{
    class_layout l = layout_of(t);
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t i = 0; i < l.inner; i++) {
            int64_t hot = l.classes ? (int64_t)(next_u64(s) % (uint64_t)l.classes) : 0;
            double total = 0, w[64];
            for (int64_t c = 0; c < l.classes; c++) {
                double v = onehot ? (c == hot) : exp(next_normal(s));
                if (c < 64) w[c] = v;
                total += v;
                lf_store_f64(t->data, t->dtype, (o * l.classes + c) * l.inner + i, v);
            }
            if (onehot) continue;
            for (int64_t c = 0; c < l.classes; c++) { /* normalize the row */
                int64_t at = (o * l.classes + c) * l.inner + i;
                double v = c < 64 ? w[c] : lf_load_f64(t->data, t->dtype, at);
                lf_store_f64(t->data, t->dtype, at, v / total);
            }
        }
}

bool lf_init_fill(lf_tensor *t, char *err, size_t errlen)
{
    const lf_init *in = &t->init;
    uint64_t s = in->seed;
    const char *k = in->kind;
    bool is_float = lf_dtype_is_float(t->dtype);
    if (!strcmp(k, "onehot") || !strcmp(k, "probs")) {
        if (!is_float && !strcmp(k, "probs")) {
            snprintf(err, errlen, "init \"probs\" needs a floating dtype, not %s", lf_dtype_name(t->dtype));
            return false;
        }
        fill_rows(t, &s, k[0] == 'o');
    } else {
        static const char *const kinds[] = {"randn", "uniform", "randint", "zeros", "ones", "full"};
        int kind = 0; /* looked up once: a tensor may have 2^28 elements */
        while (kind < 6 && strcmp(k, kinds[kind])) kind++;
        if (kind == 6) {
            snprintf(err, errlen,
                     "unknown init \"%s\" (expected randn, uniform, randint, zeros, "
                     "ones, full, onehot or probs)",
                     k);
            return false;
        }
        double span = floor(in->high) - floor(in->low);
        for (int64_t i = 0; i < t->numel; i++) {
            double v;
            switch (kind) {
            case 0: v = in->mean + in->std * next_normal(&s); break;
            case 1: v = in->low + (in->high - in->low) * next_unit(&s); break;
            case 2: v = floor(in->low) + (span > 0 ? floor(next_unit(&s) * span) : 0); break;
            case 3: v = 0; break;
            case 4: v = 1; break;
            default: v = in->value; break;
            }
            if (!is_float) v = floor(v);
            lf_store_f64(t->data, t->dtype, i, v);
        }
    }
    for (int64_t i = 0; i < t->numel; i++) {
        double v = lf_load_f64(t->data, t->dtype, i) + in->offset;
        if (in->n_specials && next_unit(&s) < in->special_rate)
            v = in->specials[next_u64(&s) % (uint64_t)in->n_specials];
        if (in->offset != 0 || in->n_specials) lf_store_f64(t->data, t->dtype, i, v);
    }
    return true;
}
