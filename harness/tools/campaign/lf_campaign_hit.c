/* lf_campaign_hit.c - one process's share of a campaign (lf_campaign.h):
 * a finding's key (lf_finding_key: its class and the call's traits but dtype
 * and layout) met for the first time is minimized keeping its class (10 s at
 * most: the campaign goes on), and the minimized case's signature - the
 * traits the bug needs - is the one recorded; later hits of the key count
 * for it. The key's signature is also written to DIR/keys/HASH, so that the
 * campaign's other processes (lossfuzz fuzz --jobs, AFL++'s forks, a
 * restarted libFuzzer) count their hits of it without minimizing again.
 * `lossfuzz fuzz` and the fuzz targets (fuzzers/lf_fuzz_check.c,
 * $LOSSFUZZ_CAMPAIGN) share it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lf_campaign.h"
#include "lf_paths.h"
#include "lf_file.h"
#include "lf_hash.h"
#include "lf_minimize.h"

enum { MAX_KEYS = 1024 };
typedef struct {
    char key[LF_SIGNATURE_MAX], signature[LF_SIGNATURE_MAX];
} key_entry;
struct lf_campaign {
    char dir[4096];
    double minimize_ms;
    key_entry e[MAX_KEYS];
    int n;
};

lf_campaign *lf_campaign_open(const char *dir, double minimize_ms)
{
    lf_campaign *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    snprintf(k->dir, sizeof k->dir, "%s", dir);
    k->minimize_ms = minimize_ms;
    return k;
}

void lf_campaign_close(lf_campaign *k) { free(k); }

int lf_campaign_keys(const lf_campaign *k) { return k->n; }

static key_entry *add_key(lf_campaign *k, const char *key, const char *signature)
{
    key_entry *e = k->n < MAX_KEYS ? &k->e[k->n++] : &k->e[MAX_KEYS - 1];
    snprintf(e->key, sizeof e->key, "%s", key);
    snprintf(e->signature, sizeof e->signature, "%s", signature);
    return e;
}

static void key_file(const char *key, char *name, size_t len)
{
    snprintf(name, len, "%016llx", (unsigned long long)lf_hash_bytes(key, strlen(key)));
}

/* The key met by this process, or by another of the campaign (DIR/keys). */
static key_entry *key_of(lf_campaign *k, const char *key)
{
    for (int i = 0; i < k->n; i++)
        if (!strcmp(k->e[i].key, key)) return &k->e[i];
    char name[32], path[4200], line[2 * LF_SIGNATURE_MAX];
    key_file(key, name, sizeof name);
    snprintf(path, sizeof path, "%s/keys/%s", k->dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    /* "key\tsignature": a hash shared by two keys is not taken for the other */
    bool got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    char *tab = got ? strchr(line, '\t') : NULL;
    if (!tab) return NULL;
    *tab = '\0';
    tab[1 + strcspn(tab + 1, "\n")] = '\0';
    return strcmp(line, key) ? NULL : add_key(k, key, tab + 1);
}

static void share_key(const lf_campaign *k, const key_entry *e)
{
    char name[32], dir[4200], line[2 * LF_SIGNATURE_MAX + 2];
    key_file(e->key, name, sizeof name);
    snprintf(dir, sizeof dir, "%s/keys", k->dir);
    mkdir(dir, 0777);
    int len = snprintf(line, sizeof line, "%s\t%s\n", e->key, e->signature);
    if (!lf_write_atomically(dir, name, line, (size_t)len)) fprintf(stderr, "lossfuzz: cannot write to %s\n", dir);
}

/* A key's first case: minimized, recorded under its signature; a new one
 * saved into DIR/repros and said on stdout. */
static bool new_key(lf_campaign *k, const char *key, lf_case *c, const lf_backend *be)
{
    lf_minimize_stats st;
    lf_minimize_opts opts = {.max_ms = k->minimize_ms, .keep_class = true};
    char path[4096], repros[4200];
    bool existed, is_new = false;
    key_entry *e = add_key(k, key, key);
    snprintf(repros, sizeof repros, "%s/repros", k->dir);
    mkdir(repros, 0777);
    /* a minimized case that no longer shows a finding (a nondeterministic read) keeps the key: never "ok/none";
     * the report replays it and says it is flaky */
    char sig[LF_SIGNATURE_MAX];
    if (lf_minimize(c, be, &opts, &st)) {
        lf_signature(c, be, sig, sizeof sig);
        if (lf_signature_is_finding(sig)) snprintf(e->signature, sizeof e->signature, "%s", sig);
    }
    share_key(k, e);
    if (!lf_campaign_record(k->dir, e->signature, NULL, c, &is_new))
        fprintf(stderr, "lossfuzz: cannot write to %s\n", k->dir);
    if (!is_new) return false;
    if (!lf_save_regression(c, e->signature, lf_paths_kernel_name(be), repros, path, sizeof path, &existed)) {
        fprintf(stderr, "lossfuzz: cannot save the finding into %s\n", repros);
        return false;
    }
    /* a signature, not yet a finding: the report folds signatures into one entry per cause, and says so */
    printf("new signature %s (after %.1f s): minimized to %s\n", e->signature, lf_campaign_elapsed_s(k->dir), path);
    fflush(stdout);
    return true;
}

bool lf_campaign_hit(lf_campaign *k, lf_case *c, const lf_verdict *v, const lf_backend *be)
{
    bool is_new = false;
    if (v->torch_known) lf_campaign_excuse(k->dir, v->torch_known->id);
    if (v->finding) {
        char key[LF_SIGNATURE_MAX];
        key_entry *e;
        lf_finding_key(c, v->finding_class, key, sizeof key);
        if ((e = key_of(k, key)))
            lf_campaign_record(k->dir, e->signature, NULL, c, &is_new);
        else
            is_new = new_key(k, key, c, be);
    } else if (v->accepted[0]) { /* reported with its first case and counted; never failing */
        lf_campaign_record(k->dir, v->accepted_signature, v->accepted, c, &is_new);
        if (is_new)
            printf("accepted %s: %s (after %.1f s)\n", v->accepted_signature, v->accepted,
                   lf_campaign_elapsed_s(k->dir));
    }
    return is_new;
}
