/* lf_cmd_report.c - `lossfuzz report DIR`: a campaign's report (harness/tools/campaign)
 * from its directory - what ci/fuzz.sh runs after a libFuzzer or AFL++
 * campaign whose targets kept going into DIR ($LOSSFUZZ_CAMPAIGN) - and the
 * report step `lossfuzz fuzz` shares. */
#include <stdio.h>
#include <stdlib.h>

#include "lf_campaign.h"
#include "lf_cli.h"
#include "lf_junit.h"
#include "lf_load.h"

static const char usage[] = "usage: lossfuzz report [--kernel K] [--junit FILE] [--title TEXT] [--backend B] DIR\n"
                            "\n"
                            "Writes DIR/report.md and DIR/report.json for the campaign in DIR (its ledger, first\n"
                            "cases and repros): one entry per cause (the signatures folded as its variants), the most\n"
                            "harmful first, its repro re-checked (with --kernel: the kernel the campaign fuzzed).\n"
                            "--junit FILE: also as JUnit XML.\n"
                            "\n" LF_CLI_PATH_HELP "\n"
                            "exit status: 0 no finding, 1 findings, 2 usage or an unwritable report\n";

/* The campaign as JUnit XML: a test case per report entry, its repro
 * re-checked (an accepted claim passes). false: said on stderr. */
static bool write_junit(const char *path, const lf_campaign_entries *x, const lf_backend *be)
{
    char err[512];
    lf_junit *j = lf_junit_open(path, err, sizeof err);
    for (int g = 0; j && g < x->n_g; g++) {
        const char *file = x->v[x->g[g].repro].file;
        lf_loaded l;
        lf_case c;
        lf_verdict v;
        if (!lf_load(file, LF_TARGET_JSON, &l, &c, err, sizeof err)) {
            lf_junit_unusable(j, file, err);
            continue;
        }
        lf_oracle_check(&c, be, &v);
        lf_junit_case(j, file, 0, &c, &v);
        lf_verdict_free(&v);
        lf_unload(&l, &c);
    }
    if (!j || !lf_junit_close(j, err, sizeof err)) {
        fprintf(stderr, "lossfuzz: --junit %s: %s\n", path, err);
        return false;
    }
    return true;
}

int lf_cli_campaign_report(const char *dir, const lf_backend *be, const char *kernel, const char *title,
                           const char *junit, int *entries)
{
    lf_campaign_entries x;
    int findings = -1;
    if (lf_campaign_entries_build(dir, be, &x)) findings = lf_campaign_report(dir, &x, kernel, title);
    *entries = x.n_g;
    if (findings < 0) fprintf(stderr, "lossfuzz: cannot write the report into %s\n", dir);
    if (findings >= 0 && junit && !write_junit(junit, &x, be)) findings = -1;
    for (int g = 0; findings >= 0 && g < x.n_g; g++) { /* what the report says, on the console too */
        const lf_campaign_group *gr = &x.g[g];
        printf("%s %d: %s - %s (%d signature%s, %ld hit%s)\n", gr->accepted ? "accepted" : "finding", g + 1,
               x.v[gr->repro].e->signature, gr->cause, gr->n_members, gr->n_members == 1 ? "" : "s", gr->hits,
               gr->hits == 1 ? "" : "s");
    }
    for (int i = 0; i < x.n_excused; i++)
        printf("excused by a listed PyTorch difference: %s, %ld case%s\n", x.excused[i].known->id, x.excused[i].hits,
               x.excused[i].hits == 1 ? "" : "s");
    lf_campaign_entries_free(&x);
    return findings;
}

int lf_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {LF_CLI_PATH_OPTIONS,
                                         {"junit", required_argument, NULL, 'J'},
                                         {"title", required_argument, NULL, 't'},
                                         LF_CLI_COMMON_OPTIONS,
                                         {0}};
    lf_paths_config cfg;
    lf_cli_paths_default(&cfg);
    const char *junit = NULL, *title = NULL;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        int handled = lf_cli_path_option("report", o, optarg, &cfg);
        if (handled < 0) return LF_EXIT_UNUSABLE;
        if (o == 'J') junit = optarg;
        if (o == 't') title = optarg;
    }
    if (optind != argc - 1) {
        fprintf(stderr, "lossfuzz report: takes one campaign directory\n%s", usage);
        return LF_EXIT_UNUSABLE;
    }
    const char *dir = argv[optind];
    int entries = 0;
    const lf_backend *be = lf_cli_backend("report", &cfg);
    if (!be) return LF_EXIT_UNUSABLE;
    int findings = lf_cli_campaign_report(dir, be, cfg.kernel, title ? title : dir, junit, &entries);
    lf_paths_close(be);
    if (findings >= 0)
        printf("%s: findings: %d, accepted deviations: %d (report: %s/report.md)\n", dir, findings, entries - findings,
               dir);
    return findings > 0 ? LF_EXIT_FINDING : findings < 0 ? LF_EXIT_UNUSABLE : LF_EXIT_PASS;
}
