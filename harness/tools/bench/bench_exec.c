/* bench_exec.c - the executor's figures (a benchmark that prints them; no
 * timed test): cases/s in this process and through workers, the recovery
 * time per hard assert with and without the warm spare, and a run of
 * consecutive hard asserts with every outcome counted.
 *
 *   bench_exec [--backend sim|cuda] [--cases N] [--asserts K] [--worker PATH] [--torch]
 *
 * Cases are fuzz_class's seed corpus, decoded and repeated (small, varied);
 * the assert run repeats one case whose label is C. Exit 1 when any case lost
 * its outcome. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lf_clock.h"
#include "lf_paths.h"
#include "lf_bytes.h"
#include "lf_oracle.h"

static double now_s(void) { return lf_now_ms() / 1e3; }

/* Cases/s of the oracle over the cases on a backend; counts findings. */
static double rate(const lf_case *cases, int n, const lf_backend *be, int *findings)
{
    double t0 = now_s();
    *findings = 0;
    for (int i = 0; i < n; i++) {
        lf_verdict v;
        lf_oracle_check(&cases[i], be, &v);
        *findings += v.finding;
        lf_verdict_free(&v);
    }
    return n / (now_s() - t0);
}

/* The fuzz_class seed corpus, decoded, repeated to n cases: the small cases
 * a campaign starts from, about a third of them asserting. */
static bool corpus_cases(const char *dir, lf_case *cases, int n)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "bench_exec: cannot open %s\n", dir);
        return false;
    }
    uint8_t *inputs[512];
    size_t sizes[512];
    int m = 0;
    for (struct dirent *e; (e = readdir(d)) && m < 512;) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = e->d_name[0] == '.' ? NULL : fopen(path, "rb");
        if (!f) continue;
        inputs[m] = malloc(4096);
        sizes[m] = fread(inputs[m], 1, 4096, f);
        fclose(f);
        m++;
    }
    closedir(d);
    for (int i = 0; i < n; i++) lf_decode(LF_TARGET_CLASS, inputs[i % m], sizes[i % m], &cases[i], NULL);
    for (int i = 0; i < m; i++) free(inputs[i]);
    return m > 0;
}

/* K hard asserts in a row: each must come back as a device assert in the
 * spec's kernel, with the worker replaced. Returns the number lost. */
static int assert_run(const lf_paths_config *base, bool spare, int k, const lf_case *c, const char *label)
{
    lf_paths_config cfg = *base;
    cfg.hard_asserts = true;
    cfg.no_spare = !spare;
    char err[1536];
    const lf_backend *be = lf_paths_open(&cfg, err, sizeof err);
    if (!be) {
        fprintf(stderr, "bench_exec: %s\n", err);
        return k;
    }
    int asserted = 0, lost = 0;
    double t0 = now_s();
    for (int i = 0; i < k; i++) {
        lf_verdict v;
        lf_oracle_check(c, be, &v);
        if (v.reference.kind == LF_OUTCOME_DEVICE_ASSERT && v.reference.kernel_id == v.spec.kernel_id && !v.finding)
            asserted++;
        else
            lost++;
        lf_verdict_free(&v);
    }
    double secs = now_s() - t0;
    const lf_exec_stats *st = lf_exec_stats_of(be->exec);
    printf("  %-28s %d/%d asserts recorded, %lld workers started, %.1f cases/s; recovery mean %.1f ms, max %.1f ms\n",
           label, asserted, k, (long long)st->worker_starts, k / secs,
           st->recoveries ? st->recovery_ms_total / (double)st->recoveries : 0.0, st->recovery_ms_max);
    lf_paths_close(be);
    return lost;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"backend", required_argument, NULL, 'b'}, {"cases", required_argument, NULL, 'n'},
        {"asserts", required_argument, NULL, 'k'}, {"worker", required_argument, NULL, 'w'},
        {"torch", no_argument, NULL, 't'},         {0}};
    lf_paths_config cfg = {.backend = "sim"};
    int n = 20000, k = 1000;
    const char *corpus = LF_SOURCE_DIR "/corpus/fuzz_class";
    bool torch = false;
    for (int o; (o = getopt_long(argc, argv, "", opts, NULL)) != -1;) {
        if (o == 'b')
            cfg.backend = optarg;
        else if (o == 'n')
            n = atoi(optarg);
        else if (o == 'k')
            k = atoi(optarg);
        else if (o == 'w')
            cfg.worker = optarg;
        else if (o == 't')
            torch = true;
        else {
            fprintf(stderr,
                    "usage: bench_exec [--backend sim|cuda] [--cases N] [--asserts K] [--worker PATH] [--torch]\n");
            return 2;
        }
    }
    if (n < 1 || k < 0) {
        fprintf(stderr, "bench_exec: --cases must be >= 1 and --asserts >= 0\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* each figure as it comes: a run stopped by its caller keeps the earlier ones */
    lf_numel_limit = LF_FUZZ_MAX_NUMEL;
    lf_case *cases = calloc((size_t)n, sizeof *cases);
    if (!corpus_cases(corpus, cases, n)) return 2;
    char err[1536];
    printf("executor figures, backend %s, %d small cases (corpus/fuzz_class, repeated)\n", cfg.backend, n);

    int lost = 0, f_in = 0, f_ex = 0;
    double in_process = 0;
    lf_paths_config soft = cfg;
    const lf_backend *be = lf_paths_open(&soft, err, sizeof err); /* in process (sim, or cuda soft) */
    if (be) {
        in_process = rate(cases, n, be, &f_in);
        printf("  %-28s %.0f cases/s (%d findings)\n", "in process, soft asserts", in_process, f_in);
    } else {
        printf("  %-28s not available: %s\n", "in process, soft asserts", err);
    }
    soft.executor = true;
    if ((be = lf_paths_open(&soft, err, sizeof err))) {
        double through = rate(cases, n, be, &f_ex);
        printf("  %-28s %.0f cases/s (%d findings)", "executor, soft asserts", through, f_ex);
        if (in_process > 0) printf(", %.0f%% of in process", 100 * through / in_process);
        printf("\n");
        lf_paths_close(be);
    } else {
        fprintf(stderr, "bench_exec: %s\n", err);
        return 2;
    }
    lf_paths_config hard = cfg;
    hard.hard_asserts = true;
    if ((be = lf_paths_open(&hard, err, sizeof err))) {
        int f_hard;
        double r = rate(cases, n, be, &f_hard);
        const lf_exec_stats *st = lf_exec_stats_of(be->exec);
        printf("  %-28s %.0f cases/s (%d findings), %lld asserts survived, %lld workers started\n",
               "executor, hard asserts", r, f_hard, (long long)st->asserts, (long long)st->worker_starts);
        lf_paths_close(be);
    }
    if (torch) {
        lf_paths_config t = cfg;
        t.torch = true;
        if ((be = lf_paths_open(&t, err, sizeof err))) {
            int f_t = 0, m = n < 2000 ? n : 2000;
            printf("  %-28s %.0f cases/s (%d findings, %d cases)\n", "with the PyTorch worker",
                   rate(cases, m, be, &f_t), f_t, m);
            lf_paths_close(be);
        } else {
            printf("  %-28s not available: %s\n", "with the PyTorch worker", err);
        }
    }
    if (k > 0) {
        lf_case c;
        uint8_t bytes[LF_N_PARAMS + 8] = {0};
        lf_decode(LF_TARGET_CLASS, bytes, sizeof bytes, &c, NULL);
        lf_store_i64(c.target.data, c.target.dtype, 0, c.input.shape[1]); /* label C: asserts */
        lost += assert_run(&cfg, true, k, &c, "hard asserts, warm spare");
        lost += assert_run(&cfg, false, k < 100 ? k : 100, &c, "hard asserts, cold (no spare)");
        lf_case_free(&c);
    }
    for (int i = 0; i < n; i++) lf_case_free(&cases[i]);
    free(cases);
    if (lost) printf("LOST: %d hard asserts did not come back as the spec's device assert\n", lost);
    return lost ? 1 : 0;
}
