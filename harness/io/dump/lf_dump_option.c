/* lf_dump_option.c - the options of a dump (loss, reduction and the scalar
 * options of lf_options.def: ignore_index, label_smoothing, ...), from
 * safetensors __metadata__ or from an array (a 0-d .npz array, a .npy in a
 * directory, a 0-d safetensors tensor). Each must be one value of a type that
 * cannot mean two things; anything else is an error naming the option and
 * what was found, never a silent default. A 1-D array of one element ([255],
 * torch.tensor([255])) is read as that element: it holds one value, so
 * nothing is guessed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_dump.h"
#include "lf_shape.h"

typedef enum { TEXT, INTEGER, REAL } kind;

typedef struct {
    kind k;
    char text[64]; /* the value as written, for messages and for TEXT */
    int64_t i;
    double r;
} value;

/* Finds the option: *given says whether the dump has it; false (with a
 * message) when it is given twice or is not one number or string. */
static bool get(const lf_dump *d, const char *key, value *v, bool *given, char *err, size_t errlen)
{
    const lf_meta *m = NULL;
    const lf_array *a = NULL;
    for (int i = 0; i < d->n_meta; i++)
        if (!strcmp(d->meta[i].key, key)) m = &d->meta[i];
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->arrays[i].name, key)) a = &d->arrays[i];
    memset(v, 0, sizeof *v);
    *given = m || a;
    if (m && a)
        return snprintf(err, errlen, "%s is given twice, in __metadata__ and as an array: keep one", key), false;
    if (m) {
        snprintf(v->text, sizeof v->text, "%s", m->value);
        v->k = !m->is_number ? TEXT : m->is_integer ? INTEGER : REAL;
        v->i = strtoll(m->value, NULL, 10), v->r = strtod(m->value, NULL);
    } else if (a && a->is_text) {
        v->k = TEXT;
        snprintf(v->text, sizeof v->text, "%s", a->text);
    } else if (a) {
        if (a->ndim > 1 || a->numel != 1) {
            char shape[128];
            lf_format_shape(shape, sizeof shape, a->shape, a->ndim);
            snprintf(err, errlen, "%s: an array of shape %s; an option is one value (a 0-d array)", key, shape);
            return false;
        }
        if (a->dtype == LF_BOOL)
            return snprintf(err, errlen, "%s: a bool array; expected a number or a string", key), false;
        v->k = lf_dtype_is_float(a->dtype) ? REAL : INTEGER;
        v->r = lf_load_f64(a->data, a->dtype, 0), v->i = lf_load_i64(a->data, a->dtype, 0);
        if (v->k == REAL)
            snprintf(v->text, sizeof v->text, "%.17g", v->r);
        else
            snprintf(v->text, sizeof v->text, "%lld", (long long)v->i);
    }
    return true;
}

/* A string option (loss, reduction): a number is not one. */
static bool text(const value *v, const char *key, const char *expected, char *err, size_t errlen)
{
    if (v->k == TEXT) return true;
    snprintf(err, errlen, "%s: found the number %s; expected a string: %s", key, v->text, expected);
    return false;
}

/* ignore_index and the other int64_t options: an integer, or a string that is exactly one (not "", "2.0", or out
 * of range). */
static bool integer(value *v, const char *key, char *err, size_t errlen)
{
    if (v->k == REAL) /* 255.0 too: PyTorch takes an int, and so do JSON cases */
        return snprintf(err, errlen, "%s: found the float %s%s; expected an integer", key, v->text,
                        strpbrk(v->text, ".eEni") ? "" : ".0"),
               false;
    if (v->k == INTEGER) return true;
    char *end;
    errno = 0;
    v->i = strtoll(v->text, &end, 10);
    if (end != v->text && !*end && errno != ERANGE) return true;
    return snprintf(err, errlen, "%s \"%s\" is not an integer", key, v->text), false;
}

/* label_smoothing and the other double options: a number, or a string that is exactly one. */
static bool number(value *v, const char *key, char *err, size_t errlen)
{
    if (v->k == INTEGER) v->r = (double)v->i;
    if (v->k != TEXT) return true;
    char *end;
    v->r = strtod(v->text, &end);
    if (end != v->text && !*end) return true;
    return snprintf(err, errlen, "%s \"%s\" is not a number", key, v->text), false;
}

bool lf_dump_options(const lf_dump *d, lf_case *c, char *err, size_t errlen)
{
    value v;
    bool given;
    if (!get(d, "loss", &v, &given, err, errlen)) return false;
    if (given) {
        if (!text(&v, "loss", lf_loss_names(), err, errlen)) return false;
        if (!lf_loss_parse(v.text, &c->loss))
            return snprintf(err, errlen, "loss \"%s\" is not %s", v.text, lf_loss_names()), false;
    }
    if (!get(d, "reduction", &v, &given, err, errlen)) return false;
    if (given) {
        if (!text(&v, "reduction", "none, mean or sum", err, errlen)) return false;
        snprintf(c->reduction_name, sizeof c->reduction_name, "%.31s", v.text);
        c->reduction = lf_reduction_parse(v.text); /* another name is PyTorch's ValueError: a case, not a bad file */
        c->has_reduction = true;
    }
    for (int o = 0; o < LF_OPTION_COUNT; o++) { /* the scalar options (lf_options.def) */
        const char *name = lf_option_of(o)->name;
        if (!lf_option_is_scalar(o)) continue;
        if (!get(d, name, &v, &given, err, errlen)) return false;
        if (!given) continue;
        if (lf_option_of(o)->type == LF_TYPE_lf_choice) {
            int64_t k;
            if (!text(&v, name, "a name", err, errlen)) return false;
            if (!lf_option_choice_parse(o, v.text, &k))
                return snprintf(err, errlen, "%s: \"%s\" is not one of its names", name, v.text), false;
            lf_case_set_option_int(c, o, k);
        } else if (lf_option_of(o)->type == LF_TYPE_int64_t) {
            if (!integer(&v, name, err, errlen)) return false;
            lf_case_set_option_int(c, o, v.i);
        } else {
            if (!number(&v, name, err, errlen)) return false;
            lf_case_set_option(c, o, v.r);
        }
    }
    return true;
}
