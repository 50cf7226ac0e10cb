/* lf_campaign_hit.c - one process's share of a campaign (lf_campaign.h):
 * a finding's key (lf_finding_key: its class and the call's traits but dtype
 * and layout) met for the first time is minimized keeping its class (10 s at
 * most: the campaign goes on), and the minimized case's signature - the
 * traits the bug needs - is the one recorded; later hits of the key count
 * for it. `lossfuzz fuzz` and the fuzz targets (fuzzers/lf_fuzz_check.c,
 * $LOSSFUZZ_CAMPAIGN) share it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lf_campaign.h"
#include "lf_exec_backend.h"
#include "lf_minimize.h"

enum { MAX_KEYS = 1024 };
typedef struct { char key[LF_SIGNATURE_MAX], signature[LF_SIGNATURE_MAX]; } key_entry;
struct lf_campaign {
    char dir[4096];
    key_entry e[MAX_KEYS];
    int n;
};

lf_campaign *lf_campaign_open(const char *dir)
{
    lf_campaign *k = calloc(1, sizeof *k);
    if (k) snprintf(k->dir, sizeof k->dir, "%s", dir);
    return k;
}

void lf_campaign_close(lf_campaign *k) { free(k); }

int lf_campaign_keys(const lf_campaign *k) { return k->n; }

static key_entry *key_of(lf_campaign *k, const char *key)
{
    for (int i = 0; i < k->n; i++)
        if (!strcmp(k->e[i].key, key)) return &k->e[i];
    return NULL;
}

/* A key's first case: minimized, recorded under its signature; a new one
 * saved into DIR/repros and said on stdout. */
static bool new_key(lf_campaign *k, const char *key, lf_case *c, const lf_backend *be)
{
    lf_minimize_stats st;
    lf_minimize_opts opts = {.max_ms = 10e3, .keep_class = true};
    char path[4096], repros[4200];
    bool existed, is_new = false;
    key_entry *e = k->n < MAX_KEYS ? &k->e[k->n++] : &k->e[MAX_KEYS - 1];
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->signature, sizeof e->signature, "%s", key);
    snprintf(repros, sizeof repros, "%s/repros", k->dir);
    mkdir(repros, 0777);
    if (lf_minimize(c, be, &opts, &st)) lf_signature(c, be, e->signature, sizeof e->signature);
    if (!lf_campaign_record(k->dir, e->signature, NULL, c, &is_new)) fprintf(stderr, "lossfuzz: cannot write to %s\n", k->dir);
    if (!is_new) return false;
    if (!lf_save_regression(c, e->signature, lf_paths_kernel_name(be), repros, path, sizeof path, &existed)) {
        fprintf(stderr, "lossfuzz: cannot save the finding into %s\n", repros);
        return false;
    }
    printf("finding %s (after %.1f s): minimized to %s\n", e->signature, lf_campaign_elapsed_s(k->dir), path);
    fflush(stdout);
    return true;
}

bool lf_campaign_hit(lf_campaign *k, lf_case *c, const lf_verdict *v, const lf_backend *be)
{
    bool is_new = false;
    if (v->finding) {
        char key[LF_SIGNATURE_MAX];
        key_entry *e;
        lf_finding_key(c, v->finding_class, key, sizeof key);
        if ((e = key_of(k, key))) lf_campaign_record(k->dir, e->signature, NULL, c, &is_new);
        else is_new = new_key(k, key, c, be);
    } else if (v->accepted[0]) { /* reported with its first case and counted; never failing */
        lf_campaign_record(k->dir, v->accepted_signature, v->accepted, c, &is_new);
        if (is_new) printf("accepted %s: %s (after %.1f s)\n", v->accepted_signature, v->accepted, lf_campaign_elapsed_s(k->dir));
    }
    return is_new;
}
