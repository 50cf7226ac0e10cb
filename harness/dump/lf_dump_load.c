/* lf_dump_load.c - a dump file as a case: the format by its magic bytes,
 * tensors by name (input/logits, target/labels/mask, weight, pos_weight), and
 * the loss and options from safetensors metadata or 0-d .npz arrays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_dump.h"

void lf_dump_free(lf_dump *d)
{
    for (int i = 0; i < d->n; i++) free(d->arrays[i].owned);
    memset(d, 0, sizeof *d);
}

static const lf_array *find(const lf_dump *d, const char *const *names)
{
    for (const char *const *n = names; *n; n++)
        for (int i = 0; i < d->n; i++)
            if (!strcmp(d->arrays[i].name, *n)) return &d->arrays[i];
    return NULL;
}

/* An option's text: safetensors metadata, or a 0-d array of the dump. */
static bool option(const lf_dump *d, const char *key, char *out, size_t len)
{
    for (int i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta_keys[i], key)) { snprintf(out, len, "%s", d->meta_values[i]); return true; }
    const char *names[] = {key, NULL};
    const lf_array *a = find(d, names);
    if (!a || (a->ndim != 0 && !a->is_text)) return false;
    if (a->is_text) snprintf(out, len, "%s", a->text);
    else if (lf_dtype_is_float(a->dtype)) snprintf(out, len, "%.17g", lf_load_f64(a->data, a->dtype, 0));
    else snprintf(out, len, "%lld", (long long)lf_load_i64(a->data, a->dtype, 0));
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
}

bool lf_dump_to_case(const lf_dump *d, lf_case *c, char *err, size_t errlen)
{
    static const char *const input[] = {"input", "logits", NULL}, *const target[] = {"target", "labels", "mask", NULL};
    static const char *const weight[] = {"weight", NULL}, *const pos_weight[] = {"pos_weight", NULL};
    const lf_array *in = find(d, input), *tg = find(d, target), *w = find(d, weight), *pw = find(d, pos_weight);
    char v[64];
    lf_case_init(c);
    if (!in || !tg) { snprintf(err, errlen, "the dump needs arrays named input (or logits) and target (or labels, mask)"); return false; }
    if (in->is_text || tg->is_text) { snprintf(err, errlen, "input and target must be numeric arrays"); return false; }
    if (!lf_dtype_is_float(in->dtype)) { snprintf(err, errlen, "input is %s: logits must be floating point", lf_dtype_name(in->dtype)); return false; }
    if (option(d, "loss", v, sizeof v) && !lf_loss_parse(v, &c->loss)) {
        snprintf(err, errlen, "loss \"%s\" is not cross_entropy, nll_loss or binary_cross_entropy_with_logits", v);
        return false;
    }
    borrow(in, &c->input);
    borrow(tg, &c->target);
    if (w) borrow(w, &c->weight);
    if (pw) borrow(pw, &c->pos_weight);
    if (option(d, "reduction", v, sizeof v)) {
        snprintf(c->reduction_name, sizeof c->reduction_name, "%.31s", v);
        c->reduction = lf_reduction_parse(v);
        c->has_reduction = true;
    }
    if (option(d, "ignore_index", v, sizeof v)) {
        char *end;
        c->ignore_index = strtoll(v, &end, 10);
        if (*end) { snprintf(err, errlen, "ignore_index \"%s\" is not an integer", v); lf_case_free(c); return false; }
        c->has_ignore_index = true;
    }
    if (option(d, "label_smoothing", v, sizeof v)) {
        char *end;
        c->label_smoothing = strtod(v, &end);
        if (*end) { snprintf(err, errlen, "label_smoothing \"%s\" is not a number", v); lf_case_free(c); return false; }
        c->has_label_smoothing = true;
    }
    return true;
}

bool lf_dump_load(const lf_mapped *m, const char *path, lf_dump *d, lf_case *c, char *err, size_t errlen)
{
    const uint8_t *b = m->base;
    size_t n = m->size;
    bool ok;
    memset(d, 0, sizeof *d);
    if (n >= 6 && !memcmp(b, "\x93NUMPY", 6)) {
        const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(strcspn(base, ".")), base);
        ok = lf_npy_parse(b, n, name, &d->arrays[0], err, errlen);
        d->n = ok;
        if (ok) snprintf(err, errlen, "a single .npy holds one array (%s): put input.npy and target.npy in a "
                         "directory and pass the directory", name);
        return false;
    }
    if (n >= 4 && !memcmp(b, "PK\x03\x04", 4)) ok = lf_npz_parse(b, n, d, err, errlen);
    else if (n >= 9 && b[8] == '{') ok = lf_safetensors_parse(b, n, d, err, errlen);
    else { snprintf(err, errlen, "not a .safetensors, .npz or .npy file"); return false; }
    if (ok) ok = lf_dump_to_case(d, c, err, errlen);
    if (!ok) lf_dump_free(d);
    return ok;
}
