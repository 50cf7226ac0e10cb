/* lf_cmd_fuzz.c - `lossfuzz fuzz`: fuzzing with nothing but lossfuzz itself
 * (no compiler, no fuzzing engine): the fuzz targets' structure-aware mutator
 * (harness/model/bytes/lf_mutate.c: shapes, dtypes, options, boundary labels, special
 * logits) applied to the seed corpus and to the inputs it made, each case
 * through the oracle - a kernel under test's contract with --kernel - until
 * the time is up. It keeps going past findings: each distinct signature is
 * minimized into a regression once, later hits are counted (a campaign
 * directory, harness/tools/campaign), and the campaign ends with its report.
 * Black-box: it finds what the mutator reaches, not what coverage would lead
 * to; ci/fuzz.sh (libFuzzer, AFL++) is the campaign for a build tree. It is
 * what lossfuzz_add_kernel_test's smoke run uses (cmake/LossfuzzKernelTest.cmake). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lf_cli.h"
#include "lf_clock.h"
#include "lf_data.h"
#include "lf_bytes.h"
#include "lf_campaign.h"
#include "lf_fuzz_run.h"

static const char usage[] =
    "usage: lossfuzz fuzz [--target fuzz_class|fuzz_prob|fuzz_linear|fuzz_llm] [--seconds S] [--seed N]\n"
    "                     [--corpus DIR] [--out DIR] [--first] [--jobs N] [--kernel LIB.so|py:MODULE:FUNCTION]\n"
    "                     [--backend sim|cuda] [--asserts soft|hard]\n"
    "\n"
    "Fuzzes without a compiler or a fuzzing engine: mutates the seed corpus (lossfuzz's\n"
    "corpus/TARGET, or --corpus) with the fuzz targets' structure-aware mutator and runs each\n"
    "case through the oracle (your kernel's contract with --kernel) until the time is up.\n"
    "Every distinct finding signature is minimized once into DIR/repros/, later hits are\n"
    "counted (DIR/ledger), and DIR/report.md and DIR/report.json list them, the most harmful\n"
    "first. Black-box: ci/fuzz.sh runs coverage-guided campaigns.\n"
    "\n" LF_CLI_PATH_HELP
    "  --target T      the byte format and its seeds (default: the one of the kernel's claimed losses,\n"
    "                  else fuzz_class)\n"
    "  --seconds S     how long (default 10)\n"
    "  --seed N        the mutator's seed (default 1): the same seed, the same cases\n"
    "  --corpus DIR    seed inputs of the target's byte format (default: lossfuzz's)\n"
    "  --out DIR       the campaign's directory (default fuzz-out/lossfuzz-TARGET)\n"
    "  --first         stop at the first finding\n"
    "  --jobs N        N processes, each with its own seed and workers, into one campaign (1)\n"
    "  --junit FILE    also the report as JUnit XML: a test case per entry, a finding a failure\n"
    "\n"
    "Ends with \"TARGET: N cases in S s (N/s), findings: N (H hits) (seeds: DIR; report: DIR/report.md)\".\n"
    "exit status: 0 no finding, 1 a finding, 2 usage or unusable input\n";

/* Jobs of one campaign, each a process with its own seed and workers, all
 * into one campaign directory; their counts come back through a pipe. */
static lf_fuzz_counts run_jobs(const lf_fuzz_job *job, int jobs, lf_paths_config *cfg)
{
    lf_fuzz_counts total = {0, 0, 0};
    int fds[2];
    if (pipe(fds) != 0) return total;
    fflush(NULL);
    for (int j = 0; j < jobs; j++) {
        pid_t pid = fork();
        if (pid != 0) continue;
        close(fds[0]);
        lf_fuzz_job mine = *job;
        mine.seed = job->seed + (unsigned)j * 7919u; /* apart, and the same seed gives the same campaign */
        const lf_backend *be = lf_cli_backend("fuzz", cfg);
        lf_fuzz_counts n = be ? lf_fuzz_run(&mine, be) : total;
        if (be) lf_paths_close(be);
        fflush(NULL);
        _exit(write(fds[1], &n, sizeof n) == (ssize_t)sizeof n ? 0 : 1);
    }
    close(fds[1]);
    lf_fuzz_counts n;
    while (read(fds[0], &n, sizeof n) == (ssize_t)sizeof n)
        total.cases += n.cases, total.hits += n.hits, total.ran += n.ran;
    close(fds[0]);
    while (wait(NULL) > 0 || errno == EINTR) {}
    return total;
}

/* fuzz_class where a claimed loss takes class indices, else fuzz_prob (probability or binary targets), else
 * fuzz_linear (a fused linear + CE alone); fuzz_class for a kernel that claims none. */
static lf_target target_for_claims(const lf_kernel_claims *k)
{
    bool linear = false;
    unsigned kinds = k ? lf_kernel_claims_targets(k, &linear) : 0;
    if (kinds & LF_TAKES(LF_CLASS_TARGETS) || (!kinds && !linear)) return LF_TARGET_CLASS;
    return kinds ? LF_TARGET_PROB : LF_TARGET_LINEAR;
}

/* The seed corpus: --corpus DIR, else the target's shipped one (corpus/TARGET); false, said, if unreadable. */
static bool seeds_of(lf_target target, const char *corpus, char *dir, size_t len)
{
    char rel[64];
    snprintf(rel, sizeof rel, "corpus/%s", lf_target_name(target));
    if (!corpus)
        lf_data_path(rel, dir, len);
    else
        snprintf(dir, len, "%s", corpus);
    if (access(dir, R_OK) == 0) return true;
    fprintf(stderr, "lossfuzz fuzz: cannot read the seed corpus %s\n", dir);
    return false;
}

/* The campaign's report (report.md, its JUnit file, the scripts of a Python kernel's entries) and its
 * last line: the findings, or -1 when the report could not be written. */
static int report_campaign(const lf_fuzz_job *job, const lf_paths_config *cfg, const lf_backend *be,
                           const lf_fuzz_counts *n, double elapsed, int jobs, const char *junit_path)
{
    char title[4400], kernel[4200]; /* the kernel as --kernel gives it again: its ranks and backend too */
    snprintf(kernel, sizeof kernel, "%.4000s", cfg->kernel ? cfg->kernel : "");
    if (cfg->kernel && cfg->world_size)
        snprintf(kernel + strlen(kernel), sizeof kernel - strlen(kernel), " --world-size %d", cfg->world_size);
    if (cfg->kernel && strcmp(cfg->backend, "sim"))
        snprintf(kernel + strlen(kernel), sizeof kernel - strlen(kernel), " --backend %.16s", cfg->backend);
    snprintf(title, sizeof title, "%s, %s, %.0f s, %d job%s", lf_target_name(job->target),
             cfg->kernel ? kernel : "lossfuzz's own paths", elapsed, jobs, jobs == 1 ? "" : "s");
    int entries = 0,
        findings = lf_cli_campaign_report(job->out_dir, be, cfg->kernel ? kernel : NULL, title, junit_path, &entries);
    /* each entry of a Python kernel's as a plain-torch script anyone can run, which the report then names */
    if (findings > 0 && cfg->kernel && !strncmp(cfg->kernel, "py:", 3) && !cfg->world_size &&
        lf_export_campaign(job->out_dir))
        printf("scripts: each entry as a plain-torch script and an issue text in %s/repros (report.md names them)\n",
               job->out_dir);
    char ran[96] = "";
    if (cfg->kernel)
        snprintf(ran, sizeof ran, ", %ld run by the kernel (%.1f/s)", n->ran, elapsed > 0 ? n->ran / elapsed : 0.0);
    printf("%s: %ld cases in %.1f s (%.0f/s)%s, findings: %d (%ld hits), accepted deviations: %d (seeds: %s; "
           "report: %s/report.md)\n",
           lf_target_name(job->target), n->cases, elapsed, elapsed > 0 ? n->cases / elapsed : 0.0, ran,
           findings > 0 ? findings : 0, n->hits, entries - (findings > 0 ? findings : 0), job->seeds_dir, job->out_dir);
    return findings;
}

int lf_cmd_fuzz(int argc, char **argv)
{
    static const struct option opts[] = {LF_CLI_PATH_OPTIONS,
                                         {"target", required_argument, NULL, 't'},
                                         {"seconds", required_argument, NULL, 's'},
                                         {"seed", required_argument, NULL, 'S'},
                                         {"corpus", required_argument, NULL, 'c'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"first", no_argument, NULL, 'F'},
                                         {"jobs", required_argument, NULL, 'j'},
                                         {"junit", required_argument, NULL, 'J'},
                                         LF_CLI_COMMON_OPTIONS,
                                         {0}};
    lf_paths_config cfg;
    lf_cli_paths_default(&cfg);
    lf_target target = LF_TARGET_CLASS;
    bool target_given = false;
    double seconds = 10;
    unsigned seed = 1;
    const char *corpus = NULL, *out_dir = NULL;
    bool first_only = false;
    int jobs = 1;
    const char *junit_path = NULL;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        int handled = lf_cli_path_option("fuzz", o, optarg, &cfg);
        if (handled < 0) return LF_EXIT_UNUSABLE;
        if (handled) continue;
        char *end = NULL;
        if (o == 't' &&
            (!lf_cli_parse_target("fuzz", optarg, &target) || target == LF_TARGET_JSON || target == LF_TARGET_RAW)) {
            fprintf(stderr, "lossfuzz fuzz: --target takes fuzz_class, fuzz_prob, fuzz_linear or fuzz_llm\n");
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
        if (o == 't') target_given = true;
        if (o == 'c') corpus = optarg;
        if (o == 'o') out_dir = optarg;
        if (o == 'F') first_only = true;
        if (o == 'J') junit_path = optarg;
        if (o == 'j' && (jobs = (int)strtol(optarg, &end, 10), jobs < 1 || jobs > 256 || *end)) {
            fprintf(stderr, "lossfuzz fuzz: --jobs takes a count from 1 to 256, not '%s'\n", optarg);
            return LF_EXIT_UNUSABLE;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "lossfuzz fuzz: takes no files (--corpus DIR for seeds)\n%s", usage);
        return LF_EXIT_UNUSABLE;
    }
    const lf_backend *be = NULL;
    if (cfg.kernel && !target_given) { /* the byte format of the losses the kernel claims (its worker reads them) */
        if (!(be = lf_cli_backend("fuzz", &cfg))) return LF_EXIT_UNUSABLE;
        target = target_for_claims(lf_paths_kernel_claims(be));
        if (jobs > 1) { /* each job starts its own */
            lf_paths_close(be);
            be = NULL;
        }
    }
    char seeds_dir[4096], default_out[128];
    snprintf(default_out, sizeof default_out, "fuzz-out/lossfuzz-%s", lf_target_name(target));
    if (!out_dir) {
        mkdir("fuzz-out", 0777);
        out_dir = default_out;
    }
    if (!lf_campaign_begin(out_dir, true)) {
        fprintf(stderr, "lossfuzz fuzz: cannot write the campaign directory %s\n", out_dir);
        return LF_EXIT_UNUSABLE;
    }
    if (!seeds_of(target, corpus, seeds_dir, sizeof seeds_dir)) return LF_EXIT_UNUSABLE;
    lf_fuzz_job job = {target, seconds, seed, seeds_dir, out_dir, first_only};
    double start = lf_now_ms();
    lf_fuzz_counts n = {0, 0, 0};
    if (jobs > 1) {
        n = run_jobs(&job, jobs, &cfg);
    } else {
        if (!be && !(be = lf_cli_backend("fuzz", &cfg))) return LF_EXIT_UNUSABLE;
        n = lf_fuzz_run(&job, be);
    }
    double elapsed = (lf_now_ms() - start) / 1e3;
    if (!be && !(be = lf_cli_backend("fuzz", &cfg))) return LF_EXIT_UNUSABLE; /* the report re-checks the repros */
    int findings = report_campaign(&job, &cfg, be, &n, elapsed, jobs, junit_path);
    lf_paths_close(be);
    return findings > 0 ? LF_EXIT_FINDING : findings < 0 ? LF_EXIT_UNUSABLE : LF_EXIT_PASS;
}
