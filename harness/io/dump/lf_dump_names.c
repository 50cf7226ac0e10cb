/* lf_dump_names.c - the names a dump may use, and the closest known one to a
 * name that is not: a misspelt ignore_idx is refused with a suggestion rather
 * than skipped, which would diagnose the batch with the default -100. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lf_dump.h"

static const char *const tensors[] = {"input",  "logits",     "target",    "labels", "mask",
                                      "weight", "pos_weight", "loss_mask", NULL};
/* and the LLM family's, lf_llm_names (lf_llm.def) */
static const char *const options[] = {"loss", "reduction", "ignore_index", "label_smoothing", NULL};

/* The options' names: the list above, then lf_llm.def's. */
static const char *const *option_names(void)
{
    static const char *all[sizeof options / sizeof *options + LF_LLM_COUNT];
    size_t n = sizeof options / sizeof *options - 1;
    memcpy(all, options, sizeof(char *) * n);
    memcpy(all + n, lf_llm_names, sizeof(char *) * LF_LLM_COUNT);
    all[n + LF_LLM_COUNT] = NULL;
    return all;
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
    if (listed(name, tensors) || listed(name, option_names())) return true;
    nearer(name, tensors, &guess, &d);
    nearer(name, option_names(), &guess, &d);
    unknown(name, "array", guess,
            "tensors input/logits, target/labels/mask, weight, pos_weight, loss_mask; options loss, reduction, "
            "ignore_index, label_smoothing and the LLM family's (logit_scale, softcap, z_loss_scale, n_items)",
            err, errlen);
    return false;
}

bool lf_dump_check_meta_key(const char *key, char *err, size_t errlen)
{
    const char *guess = NULL;
    size_t d = 64;
    if (listed(key, option_names()) || !strcmp(key, "format"))
        return true; /* "format": "pt", which transformers and others add */
    nearer(key, option_names(), &guess, &d);
    unknown(key, "__metadata__ key", guess,
            listed(key, tensors)
                ? "options loss, reduction, ignore_index, label_smoothing; tensors belong in the header"
                : "options loss, reduction, ignore_index, label_smoothing",
            err, errlen);
    return false;
}
