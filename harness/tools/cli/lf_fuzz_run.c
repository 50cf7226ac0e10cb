/* lf_fuzz_run.c - one process's loop of `lossfuzz fuzz` (lf_cmd_fuzz.c):
 * the fuzz targets' structure-aware mutator (harness/model/bytes/lf_mutate.c) on a pool
 * of the seed corpus and the inputs it made, each case through the oracle,
 * every finding into the campaign's shared ledger (harness/tools/campaign,
 * lf_campaign_hit): the first case of a finding's key minimized, its later
 * hits counted. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lf_campaign.h"
#include "lf_clock.h"
#include "lf_exec.h"
#include "lf_fuzz_run.h"
#include "lf_kernel_claims.h"

enum { MAX_INPUT = 4096, POOL = 256 };

typedef struct {
    uint8_t *data[POOL];
    size_t size[POOL];
    int n, seeds; /* the first `seeds` entries are the corpus's, kept; the rest are replaced */
} pool;

/* The first MAX_INPUT bytes of a regular file, in a MAX_INPUT buffer; NULL when unreadable. */
static uint8_t *read_input(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = f ? malloc(MAX_INPUT) : NULL;
    *size = buf ? fread(buf, 1, MAX_INPUT, f) : 0;
    if (f) fclose(f);
    return buf;
}

/* Dot files are not seeds. */
static int is_seed(const struct dirent *e) { return e->d_name[0] != '.'; }

/* The corpus in name order: readdir's order is the filesystem's, and the same
 * seed must give the same campaign on every machine. */
static bool load_seeds(const char *dir, pool *p, char *err, size_t errlen)
{
    struct dirent **names;
    int count = scandir(dir, &names, is_seed, alphasort);
    if (count < 0) {
        snprintf(err, errlen, "cannot read the seed corpus %.400s", dir);
        return false;
    }
    for (int i = 0; i < count; i++) {
        char path[4096 + 512];
        size_t size;
        snprintf(path, sizeof path, "%.4000s/%.500s", dir, names[i]->d_name);
        if (p->n < POOL / 2 && (p->data[p->n] = read_input(path, &size))) p->size[p->n++] = size;
        free(names[i]);
    }
    free(names);
    if (p->n == 0 && (p->data[0] = calloc(1, MAX_INPUT))) p->size[p->n++] = 0; /* an empty corpus: the empty input */
    p->seeds = p->n;
    if (p->n == 0) snprintf(err, errlen, "out of memory");
    return p->n > 0;
}

/* Keeps an input the mutator made: the pool's mutated half, oldest out. */
static void keep(pool *p, const uint8_t *data, size_t size, unsigned *next)
{
    int at = p->n < POOL ? p->n++ : p->seeds + (int)((*next)++ % (unsigned)(POOL - p->seeds));
    if (!p->data[at] && !(p->data[at] = malloc(MAX_INPUT))) return;
    memcpy(p->data[at], data, size);
    p->size[at] = size;
}

static unsigned rng(unsigned *s)
{
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

lf_fuzz_counts lf_fuzz_run(const lf_fuzz_job *job, const lf_backend *be)
{
    char err[512];
    lf_fuzz_counts n = {0, 0, 0};
    pool *p = calloc(1, sizeof *p);
    lf_campaign *keys = lf_campaign_open(job->out_dir, 10e3);
    if (!p || !keys || !load_seeds(job->seeds_dir, p, err, sizeof err)) {
        fprintf(stderr, "lossfuzz fuzz: %s\n", p && keys ? err : "out of memory");
        free(p);
        lf_campaign_close(keys);
        return n;
    }
    unsigned s = job->seed ? job->seed : 1, replace = 0;
    uint8_t buf[MAX_INPUT];
    double start = lf_now_ms(), end_ms = start + job->seconds * 1e3;
    const lf_kernel_claims *claims = be->kernel ? lf_exec_kernel_claims(be->kernel) : NULL;
    while (lf_now_ms() < end_ms && !(job->first_only && lf_campaign_keys(keys))) {
        int from = (int)(rng(&s) % (unsigned)p->n);
        size_t size = p->size[from];
        memcpy(buf, p->data[from], size);
        for (unsigned k = 1 + rng(&s) % 3; k > 0; k--)
            size = lf_mutate(job->target, buf, size, MAX_INPUT, rng(&s), NULL);
        lf_case c;
        lf_verdict v;
        if (!lf_decode(job->target, buf, size, &c, NULL)) { /* a loss code no row has: skipped */
            lf_case_free(&c);
            continue;
        }
        if (claims) lf_kernel_claims_fit(claims, &c);
        lf_oracle_check(&c, be, &v);
        n.cases++;
        n.ran += v.has_kernel;
        n.hits += v.finding || v.accepted[0];
        lf_campaign_hit(keys, &c, &v, be);
        if (!v.finding && !v.accepted[0] && rng(&s) % 4 == 0) keep(p, buf, size, &replace);
        lf_verdict_free(&v);
        lf_case_free(&c);
    }
    for (int i = 0; i < POOL; i++) free(p->data[i]);
    free(p);
    lf_campaign_close(keys);
    return n;
}
