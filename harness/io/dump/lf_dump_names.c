/* lf_dump_names.c - the names a dump may use, and the closest known one to a
 * name that is not: a misspelt ignore_idx is refused with a suggestion rather
 * than skipped, which would diagnose the batch with the default -100. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lf_dump.h"

static const char *const tensors[] = {"input",  "logits",     "target",    "labels", "mask",
                                      "weight", "pos_weight", "loss_mask", NULL};
/* The options' names: loss, reduction, then the scalar options (lf_options.def). */
static const char *const *option_names(void)
{
    static const char *all[2 + LF_OPTION_COUNT + 1] = {"loss", "reduction"};
    int n = 2;
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_option_is_scalar(o)) all[n++] = lf_option_of(o)->name;
    all[n] = NULL;
    return all;
}

/* "options loss, reduction, ignore_index, ...", for a message */
static const char *option_list(void)
{
    static char text[256];
    size_t at = 0;
    for (const char *const *name = option_names(); *name && at < sizeof text; name++)
        at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", name == option_names() ? "options " : ", ", *name);
    return text;
}

static bool listed(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(name, *list)) return true;
    return false;
}

/* Edit distance, case-insensitive (Ignore_Index is a typo too); names past
 * 63 characters are far from every known one. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];
    if (la > 63 || lb > 63) return 64;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* Keeps the known name nearest to `name` if near enough to be a typo of it:
 * at most a third of its letters (and at least two) changed. */
static void nearer(const char *name, const char *const *list, const char **best, size_t *best_d)
{
    for (; *list; list++) {
        size_t d = distance(name, *list), limit = strlen(*list) / 3 < 2 ? 2 : strlen(*list) / 3;
        if (d <= limit && d < *best_d) *best = *list, *best_d = d;
    }
}

static void unknown(const char *name, const char *what, const char *guess, const char *known, char *err, size_t errlen)
{
    snprintf(err, errlen, "%.63s: unknown %s%s%s%s (known: %s)", name, what, guess ? "; did you mean " : "",
             guess ? guess : "", guess ? "?" : "", known);
}

bool lf_dump_check_array_name(const char *name, char *err, size_t errlen)
{
    const char *guess = NULL;
    size_t d = 64;
    char known[320];
    if (listed(name, tensors) || listed(name, option_names())) return true;
    nearer(name, tensors, &guess, &d);
    nearer(name, option_names(), &guess, &d);
    snprintf(known, sizeof known, "tensors input/logits, target/labels/mask, weight, pos_weight, loss_mask; %s",
             option_list());
    unknown(name, "array", guess, known, err, errlen);
    return false;
}

bool lf_dump_check_meta_key(const char *key, char *err, size_t errlen)
{
    const char *guess = NULL;
    size_t d = 64;
    char known[320];
    if (listed(key, option_names()) || !strcmp(key, "format"))
        return true; /* "format": "pt", which transformers and others add */
    nearer(key, option_names(), &guess, &d);
    snprintf(known, sizeof known, "%s%s", option_list(), listed(key, tensors) ? "; tensors belong in the header" : "");
    unknown(key, "__metadata__ key", guess, known, err, errlen);
    return false;
}
