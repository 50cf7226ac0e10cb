/* lf_cmd_fuzz.c - `lossfuzz fuzz`: fuzzing with nothing but lossfuzz itself
 * (no compiler, no fuzzing engine): the fuzz targets' structure-aware mutator
 * (fuzzers/lf_mutate.c: shapes, dtypes, options, boundary labels, special
 * logits) applied to the seed corpus and to the inputs it made, each case
 * through the oracle - a kernel under test's contract with --kernel - until
 * the time is up. It keeps going past findings: each distinct signature is
 * minimized into a regression once, later hits are counted (a campaign
 * directory, harness/campaign), and the campaign ends with its report.
 * Black-box: it finds what the mutator reaches, not what coverage would lead
 * to; ci/fuzz.sh (libFuzzer, AFL++) is the campaign for a build tree. It is
 * what lossfuzz_add_kernel_test's smoke run uses (cmake/LossfuzzKernelTest.cmake). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lf_cli.h"
#include "lf_clock.h"
#include "lf_data.h"
#include "lf_fuzz.h"
#include "lf_campaign.h"
#include "lf_minimize.h"

static const char usage[] =
    "usage: lossfuzz fuzz [--target fuzz_class|fuzz_prob|fuzz_linear] [--seconds S] [--seed N]\n"
    "                     [--corpus DIR] [--out DIR] [--first] [--kernel LIB.so|py:MODULE:FUNCTION]\n"
    "                     [--backend sim|cuda] [--asserts soft|hard]\n"
    "\n"
    "Fuzzes without a compiler or a fuzzing engine: mutates the seed corpus (lossfuzz's\n"
    "corpus/TARGET, or --corpus) with the fuzz targets' structure-aware mutator and runs each\n"
    "case through the oracle (your kernel's contract with --kernel) until the time is up.\n"
    "Every distinct finding signature is minimized once into DIR/repros/, later hits are\n"
    "counted (DIR/ledger), and DIR/report.md and DIR/report.json list them, the most harmful\n"
    "first. Black-box: ci/fuzz.sh runs coverage-guided campaigns.\n"
    "\n"
    LF_CLI_PATH_HELP
    "  --target T      the byte format and its seeds (default fuzz_class)\n"
    "  --seconds S     how long (default 10)\n"
    "  --seed N        the mutator's seed (default 1): the same seed, the same cases\n"
    "  --corpus DIR    seed inputs of the target's byte format (default: lossfuzz's)\n"
    "  --out DIR       the campaign's directory (default fuzz-out/lossfuzz-TARGET)\n"
    "  --first         stop at the first finding\n"
    "\n"
    "Ends with \"TARGET: N cases in S s (N/s), findings: N (H hits) (seeds: DIR; report: DIR/report.md)\".\n"
    "exit status: 0 no finding, 1 a finding, 2 usage or unusable input\n";

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

static bool load_seeds(const char *dir, pool *p, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot read the seed corpus %.400s", dir);
        return false;
    }
    for (struct dirent *e; (e = readdir(d)) && p->n < POOL / 2;) {
        char path[4096 + 512];
        size_t size;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%.4000s/%.500s", dir, e->d_name);
        if (!(p->data[p->n] = read_input(path, &size))) continue;
        p->size[p->n++] = size;
    }
    closedir(d);
    p->seeds = p->n;
    if (p->n == 0) snprintf(err, errlen, "no seed inputs in %.400s", dir);
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

/* The findings' keys met so far (lf_finding_key: the class and the call's
 * traits but dtype and layout), each with the signature its first case
 * minimized to: later hits of a key count for that signature. */
enum { MAX_KEYS = 1024 };
typedef struct { char key[LF_SIGNATURE_MAX], signature[LF_SIGNATURE_MAX]; } key_entry;
typedef struct { key_entry e[MAX_KEYS]; int n; } key_table;

static key_entry *key_of(key_table *t, const char *key)
{
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->e[i].key, key)) return &t->e[i];
    return NULL;
}

/* A key's first case, minimized keeping its finding class (10 s at most: the
 * campaign goes on): the minimized case's signature is the finding's, with
 * the traits the bug needs. A new one is saved into DIR/repros and said. */
static void new_key(key_table *t, const char *key, lf_case *c, const lf_backend *be, const char *out_dir, double t0)
{
    lf_minimize_stats st;
    lf_minimize_opts opts = {.max_ms = 10e3, .keep_class = true};
    char path[4096], repros[4200];
    bool existed, is_new = false;
    key_entry *k = t->n < MAX_KEYS ? &t->e[t->n++] : &t->e[MAX_KEYS - 1];
    snprintf(k->key, sizeof k->key, "%s", key);
    snprintf(k->signature, sizeof k->signature, "%s", key);
    snprintf(repros, sizeof repros, "%s/repros", out_dir);
    mkdir(repros, 0777);
    if (lf_minimize(c, be, &opts, &st)) lf_signature(c, be, k->signature, sizeof k->signature);
    if (!lf_campaign_record(out_dir, k->signature, NULL, c, &is_new)) fprintf(stderr, "lossfuzz fuzz: cannot write to %s\n", out_dir);
    if (!is_new) return;
    if (!lf_save_regression(c, k->signature, lf_paths_kernel_name(be), repros, path, sizeof path, &existed)) {
        fprintf(stderr, "lossfuzz fuzz: cannot save the finding into %s\n", repros);
        return;
    }
    printf("finding %s (after %.1f s): minimized to %s\n", k->signature, (lf_now_ms() - t0) / 1e3, path);
}

int lf_cmd_fuzz(int argc, char **argv)
{
    static const struct option opts[] = {LF_CLI_PATH_OPTIONS, {"target", required_argument, NULL, 't'},
                                         {"seconds", required_argument, NULL, 's'}, {"seed", required_argument, NULL, 'S'},
                                         {"corpus", required_argument, NULL, 'c'}, {"out", required_argument, NULL, 'o'},
                                         {"first", no_argument, NULL, 'F'}, LF_CLI_COMMON_OPTIONS, {0}};
    lf_paths_config cfg;
    lf_cli_paths_default(&cfg);
    lf_target target = LF_TARGET_CLASS;
    double seconds = 10;
    unsigned seed = 1;
    const char *corpus = NULL, *out_dir = NULL;
    bool first_only = false;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        int handled = lf_cli_path_option("fuzz", o, optarg, &cfg);
        if (handled < 0) return LF_EXIT_UNUSABLE;
        if (handled) continue;
        char *end = NULL;
        if (o == 't' && (!lf_cli_parse_target("fuzz", optarg, &target) || target == LF_TARGET_JSON || target == LF_TARGET_RAW)) {
            fprintf(stderr, "lossfuzz fuzz: --target takes fuzz_class, fuzz_prob or fuzz_linear\n");
            return LF_EXIT_UNUSABLE;
        }
        if (o == 's' && (!((seconds = strtod(optarg, &end)) > 0) || *end)) {
            fprintf(stderr, "lossfuzz fuzz: --seconds takes a positive number, not '%s'\n", optarg);
            return LF_EXIT_UNUSABLE;
        }
        if (o == 'S' && ((seed = (unsigned)strtoul(optarg, &end, 10)), *optarg < '0' || *optarg > '9' || *end)) {
            fprintf(stderr, "lossfuzz fuzz: --seed takes a number, not '%s'\n", optarg);
            return LF_EXIT_UNUSABLE;
        }
        if (o == 'c') corpus = optarg;
        if (o == 'o') out_dir = optarg;
        if (o == 'F') first_only = true;
    }
    if (optind != argc) {
        fprintf(stderr, "lossfuzz fuzz: takes no files (--corpus DIR for seeds)\n%s", usage);
        return LF_EXIT_UNUSABLE;
    }
    char seeds_dir[4096], err[512], rel[64], default_out[128];
    snprintf(default_out, sizeof default_out, "fuzz-out/lossfuzz-%s", lf_target_name(target));
    if (!out_dir) {
        mkdir("fuzz-out", 0777);
        out_dir = default_out;
    }
    if (!lf_campaign_begin(out_dir, true)) {
        fprintf(stderr, "lossfuzz fuzz: cannot write the campaign directory %s\n", out_dir);
        return LF_EXIT_UNUSABLE;
    }
    snprintf(rel, sizeof rel, "corpus/%s", lf_target_name(target));
    if (!corpus) lf_data_path(rel, seeds_dir, sizeof seeds_dir);
    else snprintf(seeds_dir, sizeof seeds_dir, "%s", corpus);
    pool p = {0};
    if (!load_seeds(seeds_dir, &p, err, sizeof err)) {
        fprintf(stderr, "lossfuzz fuzz: %s\n", err);
        return LF_EXIT_UNUSABLE;
    }
    const lf_backend *be = lf_cli_backend("fuzz", &cfg);
    if (!be) return LF_EXIT_UNUSABLE;
    unsigned s = seed ? seed : 1, replace = 0;
    uint8_t buf[MAX_INPUT];
    long cases = 0, hits = 0;
    key_table *keys = calloc(1, sizeof *keys);
    if (!keys) {
        fprintf(stderr, "lossfuzz fuzz: out of memory\n");
        return LF_EXIT_UNUSABLE;
    }
    double start = lf_now_ms(), end_ms = start + seconds * 1e3;
    while (lf_now_ms() < end_ms && !(first_only && keys->n)) {
        int from = (int)(rng(&s) % (unsigned)p.n);
        size_t size = p.size[from];
        memcpy(buf, p.data[from], size);
        for (unsigned k = 1 + rng(&s) % 3; k > 0; k--) size = lf_mutate(target, buf, size, MAX_INPUT, rng(&s), NULL);
        lf_case c;
        lf_verdict v;
        lf_decode(target, buf, size, &c, NULL);
        lf_oracle_check(&c, be, &v);
        cases++;
        bool is_new = false;
        if (v.finding) {
            char key[LF_SIGNATURE_MAX];
            key_entry *k;
            hits++;
            lf_finding_key(&c, v.finding_class, key, sizeof key);
            if ((k = key_of(keys, key)))
                lf_campaign_record(out_dir, k->signature, NULL, &c, &is_new);
            else
                new_key(keys, key, &c, be, out_dir, start);
        } else if (v.accepted[0]) { /* reported with its first case and counted; never failing */
            hits++;
            lf_campaign_record(out_dir, v.accepted_signature, v.accepted, &c, &is_new);
            if (is_new) printf("accepted %s: %s (after %.1f s)\n", v.accepted_signature, v.accepted, (lf_now_ms() - start) / 1e3);
        } else if (rng(&s) % 4 == 0) {
            keep(&p, buf, size, &replace);
        }
        lf_verdict_free(&v);
        lf_case_free(&c);
    }
    double elapsed = (lf_now_ms() - start) / 1e3;
    char title[256];
    snprintf(title, sizeof title, "%s, %s, %.0f s", lf_target_name(target), cfg.kernel ? cfg.kernel : "lossfuzz's own paths", elapsed);
    int n = 0, findings = lf_campaign_report(out_dir, be, cfg.kernel, title);
    lf_campaign_entry *all = lf_campaign_read(out_dir, &n);
    if (findings < 0) fprintf(stderr, "lossfuzz fuzz: cannot write the report into %s\n", out_dir);
    int accepted = n - (findings > 0 ? findings : 0);
    free(all);
    free(keys);
    printf("%s: %ld cases in %.1f s (%.0f/s), findings: %ld (%ld hits), accepted deviations: %ld (seeds: %s; "
           "report: %s/report.md)\n", lf_target_name(target), cases, elapsed, elapsed > 0 ? cases / elapsed : 0.0,
           findings > 0 ? (long)findings : 0L, hits, (long)accepted, seeds_dir, out_dir);
    for (int i = 0; i < POOL; i++) free(p.data[i]);
    lf_paths_close(be);
    return findings > 0 ? LF_EXIT_FINDING : findings < 0 ? LF_EXIT_UNUSABLE : LF_EXIT_PASS;
}
