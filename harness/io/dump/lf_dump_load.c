/* lf_dump_load.c - a dump file as a case: the format by its magic bytes,
 * tensors by name (input/logits, target/labels/mask, weight, pos_weight, loss_mask), and
 * the loss and options from safetensors metadata or 0-d .npz arrays
 * (lf_dump_option.c). Every array must have a known name (lf_dump_names.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_dump.h"
#include "lf_layout.h"

void lf_dump_free(lf_dump *d)
{
    for (int i = 0; i < d->n; i++) free(d->arrays[i].owned);
    memset(d, 0, sizeof *d);
}

/* The one array with any of `names` (a role's spellings): false when two
 * arrays both claim it, since picking one would be a guess. */
static bool find(const lf_dump *d, const char *const *names, const lf_array **out, char *err, size_t errlen)
{
    *out = NULL;
    for (const char *const *n = names; *n; n++)
        for (int i = 0; i < d->n; i++) {
            if (strcmp(d->arrays[i].name, *n)) continue;
            if (*out) {
                snprintf(err, errlen, "arrays %s and %s both give the %s: keep one", (*out)->name, *n, names[0]);
                return false;
            }
            *out = &d->arrays[i];
        }
    if (*out && (*out)->is_text) {
        snprintf(err, errlen, "%s is a string array: expected numbers", (*out)->name);
        return false;
    }
    return true;
}

static void borrow(const lf_array *a, lf_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->present = true;
    t->dtype = a->dtype;
    t->ndim = a->ndim;
    memcpy(t->shape, a->shape, sizeof t->shape);
    t->numel = a->numel;
    t->data = (void *)a->data;
    t->borrowed = true;
    if (a->column_major) { /* kept as it was in memory: the kernels get it so */
        int64_t strides[LF_MAX_DIMS], s = 1;
        char err[160];
        for (int d = 0; d < a->ndim; d++) {
            strides[d] = s;
            s *= a->shape[d] > 1 ? a->shape[d] : 1;
        }
        lf_layout_set(t, strides, 0, err, sizeof err); /* within the limit: the array itself is */
    }
}

bool lf_dump_to_case(const lf_dump *d, lf_case *c, char *err, size_t errlen)
{
    static const char *const input[] = {"input", "logits", NULL}, *const target[] = {"target", "labels", "mask", NULL};
    static const char *const weight[] = {"weight", NULL}, *const pos_weight[] = {"pos_weight", NULL};
    static const char *const loss_mask[] = {"loss_mask", NULL};
    const lf_array *in, *tg, *w, *pw, *lm;
    lf_case_init(c);
    for (int i = 0; i < d->n; i++)
        if (!lf_dump_check_array_name(d->arrays[i].name, err, errlen)) return false;
    if (!find(d, input, &in, err, errlen) || !find(d, target, &tg, err, errlen) || !find(d, weight, &w, err, errlen) ||
        !find(d, pos_weight, &pw, err, errlen) || !find(d, loss_mask, &lm, err, errlen))
        return false;
    if (!in || !tg) {
        snprintf(err, errlen, "the dump needs arrays named input (or logits) and target (or labels, mask)");
        return false;
    }
    if (!lf_dtype_is_float(in->dtype)) {
        snprintf(err, errlen, "%s is %s: logits must be floating point", in->name, lf_dtype_name(in->dtype));
        return false;
    }
    if (!lf_dump_options(d, c, err, errlen)) return false;
    borrow(in, &c->input);
    borrow(tg, &c->target);
    if (w) borrow(w, &c->weight);
    if (pw) borrow(pw, &c->pos_weight);
    if (lm) borrow(lm, &c->loss_mask);
    return lf_case_check_options(c, err, errlen);
}

bool lf_dump_load(const lf_mapped *m, const char *path, lf_dump *d, lf_case *c, char *err, size_t errlen)
{
    const uint8_t *b = m->base;
    size_t n = m->size;
    bool ok;
    memset(d, 0, sizeof *d);
    lf_format format = lf_format_of_bytes(b, n);
    if (format == LF_FORMAT_NPY) {
        const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(strcspn(base, ".")), base);
        ok = lf_npy_parse(b, n, name, &d->arrays[0], err, errlen);
        d->n = ok;
        if (ok)
            snprintf(err, errlen,
                     "a single .npy holds one array (%s): put input.npy and target.npy in a "
                     "directory and pass the directory",
                     name);
        return false;
    }
    if (format == LF_FORMAT_NPZ)
        ok = lf_npz_parse(b, n, d, err, errlen);
    else if (format == LF_FORMAT_SAFETENSORS)
        ok = lf_safetensors_parse(b, n, d, err, errlen);
    else {
        snprintf(err, errlen, "not a .safetensors, .npz or .npy file");
        return false;
    }
    if (ok) ok = lf_dump_to_case(d, c, err, errlen);
    if (!ok) lf_dump_free(d);
    return ok;
}
