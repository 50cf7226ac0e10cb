/* lf_cmd_check.c - `lossfuzz check`: each case through the spec, the
 * reference kernels and the guard, judged by the oracle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_cli.h"
#include "lf_clock.h"
#include "lf_junit.h"
#include "lf_load.h"
#include "lf_report.h"

static const char usage[] =
    "usage: lossfuzz check [--backend sim|cuda] [--asserts soft|hard] [--torch] [--json] [--junit FILE]\n"
    "                      [--kernel LIB.so|py:MODULE:FUNCTION] [--target T] FILE|DIR...\n"
    "\n"
    "Runs each case (a JSON case file, a dump: .npz, .safetensors, a directory of\n"
    ".npy files; a directory of JSON cases means its *.json files) through\n"
    "  spec       the expected PyTorch outcome: ok, host_error or device_assert\n"
    "  reference  kernels that behave like PyTorch's, device-side asserts included\n"
    "  guard      kernels that validate first and reject with a diagnosis and a hint\n"
    "and checks that the guard catches what PyTorch rejects, accepts what it accepts,\n"
    "and that accepted cases give the same numbers on every path.\n"
    "With --kernel, your kernel is checked against the spec instead (lossfuzz's own\n"
    "reference and guard do not run): a case it does not claim is skipped.\n"
    "\n" LF_CLI_PATH_HELP "  --json          one JSON object per file per line (unusable files too)\n"
    "  --junit FILE    also write a JUnit XML report: a test case per file, a finding\n"
    "                  a <failure> with its class and the case's report, an unusable\n"
    "                  file an <error> (CI systems show them as test results)\n"
    "  --target T      read files without a case's name as crash files of fuzz target T\n"
    "                  ('lossfuzz list-targets' names them)\n"
    "\n"
    "Ends with \"N passed, N failed, N unusable\".\n"
    "exit status: 0 all properties hold, 1 a finding, 2 an unusable file or usage\n"
    "(2 wins over 1: some input was not checked)\n";

typedef struct {
    int passed, failed, unusable, skipped;
} tally;

static void unusable(const char *file, const char *err, bool json, lf_junit *junit, tally *t)
{
    fprintf(stderr, "lossfuzz check: %s: %s\n", file, err);
    if (json) lf_report_json_unusable(stdout, file, err);
    lf_junit_unusable(junit, file, err);
    t->unusable++;
}

static void check_file(const char *file, lf_target target, const lf_backend *be, bool json, lf_junit *junit, tally *t)
{
    double start = lf_now_ms();
    lf_loaded l;
    lf_case c;
    lf_verdict v;
    lf_cli_progress progress;
    char err[512];
    lf_cli_progress_begin(&progress, "check", file);
    if (!lf_load(file, target, &l, &c, err, sizeof err)) {
        lf_cli_progress_end(&progress);
        unusable(file, err, json, junit, t);
        lf_unload(&l, &c);
        return;
    }
    lf_cli_progress_loaded(&progress, &c);
    lf_oracle_check_progress(&c, be, &v, lf_cli_progress_stage, &progress);
    lf_cli_progress_end(&progress);
    if (json)
        lf_report_json(stdout, file, &c, &v);
    else
        lf_report_text(stdout, file, &c, &v);
    lf_junit_case(junit, file, (lf_now_ms() - start) / 1e3, &c, &v);
    fflush(stdout);
    v.finding ? t->failed++ : v.kernel_skip[0] ? t->skipped++ : t->passed++;
    lf_verdict_free(&v);
    lf_unload(&l, &c);
}

int lf_cmd_check(int argc, char **argv)
{
    static const struct option opts[] = {LF_CLI_PATH_OPTIONS,
                                         {"json", no_argument, NULL, 'j'},
                                         {"junit", required_argument, NULL, 'J'},
                                         {"target", required_argument, NULL, 't'},
                                         LF_CLI_COMMON_OPTIONS,
                                         {0}};
    const char *junit_path = NULL;
    lf_paths_config cfg;
    lf_cli_paths_default(&cfg);
    bool json = false;
    lf_target target = LF_TARGET_COUNT;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        int handled = lf_cli_path_option("check", o, optarg, &cfg);
        if (handled < 0) return LF_EXIT_UNUSABLE;
        if (handled) continue;
        if (o == 'j')
            json = true;
        else if (o == 'J')
            junit_path = optarg;
        else if (o == 't' && !lf_cli_parse_target("check", optarg, &target))
            return LF_EXIT_UNUSABLE;
    }
    if (optind == argc) {
        fprintf(stderr, "lossfuzz check: no case files given\n%s", usage);
        return LF_EXIT_UNUSABLE;
    }
    char jerr[512];
    lf_junit *junit = junit_path ? lf_junit_open(junit_path, jerr, sizeof jerr) : NULL;
    if (junit_path && !junit) {
        fprintf(stderr, "lossfuzz check: --junit: %s\n", jerr);
        return LF_EXIT_UNUSABLE;
    }
    const lf_backend *be = lf_cli_backend("check", &cfg);
    if (!be) {
        lf_junit_close(junit, jerr, sizeof jerr);
        return LF_EXIT_UNUSABLE;
    }
    tally t = {0, 0, 0, 0};
    for (int i = optind; i < argc; i++) {
        char **files = NULL, err[512];
        int n = 0;
        if (!lf_load_expand(argv[i], &files, &n, err, sizeof err)) unusable(argv[i], err, json, junit, &t);
        for (int k = 0; k < n; k++) check_file(files[k], target, be, json, junit, &t);
        lf_load_free_list(files, n);
    }
    if (!json && cfg.kernel)
        printf("%d passed, %d failed, %d unusable, %d skipped (outside the kernel's claims)\n", t.passed, t.failed,
               t.unusable, t.skipped);
    else if (!json)
        printf("%d passed, %d failed, %d unusable\n", t.passed, t.failed, t.unusable);
    lf_paths_close(be);
    if (!lf_junit_close(junit, jerr, sizeof jerr)) {
        fprintf(stderr, "lossfuzz check: --junit: %s\n", jerr);
        return LF_EXIT_UNUSABLE;
    }
    return t.unusable ? LF_EXIT_UNUSABLE : t.failed ? LF_EXIT_FINDING : LF_EXIT_PASS;
}
