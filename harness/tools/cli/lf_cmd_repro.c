/* lf_cmd_repro.c - `lossfuzz repro`: a reported crash, from a dump (safetensors,
 * npz, a directory of .npy), a JSON case or a fuzzer crash file. Says what
 * PyTorch does with it (which assert in which kernel at which element, or which
 * host error with PyTorch's message), why (the guard's diagnosis and hint),
 * then reproduces it on the backend on a crop of the batch (one row, one
 * position, all classes) and shows the guard catching it. --save minimizes it
 * into a JSON regression. Dumps are mapped, never copied whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "lf_cli.h"
#include "lf_clock.h"
#include "lf_guard.h"
#include "lf_load.h"
#include "lf_minimize.h"
#include "lf_report.h"
#include "lf_shape.h"
#include "lf_spec.h"
#include "lf_tensor_ops.h"

static const char usage[] =
    "usage: lossfuzz repro [--json] [--backend sim|cuda] [--asserts soft|hard] [--torch] [--save]\n"
    "                      [--out DIR] [--target T] FILE|DIR...\n"
    "\n"
    "Reproduces a reported crash and explains it. FILE is a .safetensors or .npz\n"
    "dump (arrays input/logits, target/labels/mask, weight, pos_weight; loss and\n"
    "options in safetensors __metadata__ or as 0-d npz arrays), a JSON case, or a\n"
    "fuzzer crash file (from an engine's crash location, or with --target); DIR is\n"
    "a directory of .npy files (input.npy, target.npy, ...) or of JSON cases.\n"
    "Never unpickles anything.\n"
    "\n"
    "  --json      one JSON object per input, as `lossfuzz check --json` prints them\n"
    "  --save      minimize into a JSON regression in DIR (--out, default regressions/)\n"
    "              that keeps the batch's outcome, error class and hint; a batch\n"
    "              PyTorch accepts, with nothing wrong, is not saved (exit 2)\n"
    "  --target T  read files without a case's name as crash files of fuzz target T\n" LF_CLI_PATH_HELP "\n"
    "exit status: 0 reproduced as predicted, 1 a finding, 2 unusable input, usage,\n"
    "or nothing to save (2 wins over 1)\n";

static void print_text(const char *path, const lf_case *c, const lf_result *spec, const lf_result *guard,
                       const char *cs, const lf_verdict *v, const char *backend, const char *saved)
{
    char is[128], ts[128];
    lf_format_shape(is, sizeof is, c->input.shape, c->input.ndim);
    lf_format_shape(ts, sizeof ts, c->target.shape, c->target.ndim);
    printf("%s: %s, input %s %s, target %s %s\n", path, lf_loss_name(c->loss), lf_dtype_name(c->input.dtype), is,
           lf_dtype_name(c->target.dtype), ts);
    if (spec->kind == LF_OUTCOME_OK)
        printf("  %-11s ok: no error, loss %.9g (%s)\n", "PyTorch", spec->values[0], lf_dtype_name(spec->out_dtype));
    else if (spec->kind == LF_OUTCOME_DEVICE_ASSERT)
        printf("  %-11s device-side assert: %s\n", "PyTorch", spec->message);
    else
        printf("  %-11s %s: %s\n", "PyTorch", spec->exception, spec->message);
    if (guard->error[0]) printf("  %-11s %s: %s\n", "why", guard->error, guard->message);
    if (guard->hint[0]) printf("  %-11s %s\n", "hint", guard->hint);
    if (guard->warning[0]) printf("  %-11s %s\n", "warning", guard->warning);
    printf("  %-11s on %s, input %s: reference %s%s%s, guard %s%s%s; %s\n", "reproduced", backend, cs,
           lf_outcome_name(v->reference.kind), v->reference.kind == LF_OUTCOME_DEVICE_ASSERT ? " in " : "",
           v->reference.kind == LF_OUTCOME_DEVICE_ASSERT ? lf_kernel_name(v->reference.kernel_id) : "",
           v->guard.kind == LF_OUTCOME_OK ? "accepted" : "rejected", v->guard.kind == LF_OUTCOME_OK ? "" : ": ",
           v->guard.error, v->finding ? v->finding_class : "as predicted");
    bool refused = !strncmp(saved, "not saved: ", 11);
    if (saved[0]) printf("  %-11s %s\n", refused ? "not saved" : "saved", saved + (refused ? 11 : 0));
}

/* The crop the batch is reproduced on: one that keeps its diagnosis (kept,
 * with its signature), else one row and one position (the report then shows
 * how it differs, and --save says why nothing is saved). */
static bool reproduction_crop(const lf_case *c, const lf_backend *be, const lf_result *spec, const lf_result *guard,
                              lf_case *crop, bool *kept, char *sig, size_t siglen, char *why, size_t whylen)
{
    *kept = lf_batch_crop(c, be, spec, guard, crop, sig, siglen, why, whylen);
    return *kept || lf_crop_copy(c, lf_batch_focus(spec, guard), crop);
}

/* --save: the reproduction crop minimized into a regression, or why there is none (in `saved`). */
static bool save_regression(const lf_case *crop, const char *sig, const lf_result *spec, const lf_backend *be,
                            const char *out_dir, char *saved, size_t len)
{
    lf_case min;
    lf_minimize_stats ms;
    char err[400];
    bool existed;
    if (!lf_case_copy(crop, &min)) {
        snprintf(saved, len, "not saved: out of memory");
        return false;
    }
    if (!lf_minimize_crop(&min, sig, spec, be, NULL, &ms, err, sizeof err)) {
        snprintf(saved, len, "not saved: %s", err);
        lf_case_free(&min);
        return false;
    }
    bool ok = lf_save_regression(&min, ms.signature, lf_paths_kernel_name(be), out_dir, saved, len, &existed);
    if (!ok) snprintf(saved, len, "not saved: could not write into %s", out_dir);
    lf_case_free(&min);
    return ok;
}

static int repro_one(const char *path, lf_target target, const lf_backend *be, bool json, bool save,
                     const char *out_dir)
{
    lf_loaded l;
    lf_case c, crop;
    char err[512], saved[4300] = "";
    double t0 = lf_now_ms();
    lf_cli_progress progress;
    lf_cli_progress_begin(&progress, "repro", path);
    if (!lf_load(path, target, &l, &c, err, sizeof err)) {
        lf_cli_progress_end(&progress);
        fprintf(stderr, "lossfuzz repro: %s: %s\n", path, err);
        if (json) lf_report_json_unusable(stdout, path, err);
        lf_unload(&l, &c);
        return LF_EXIT_UNUSABLE;
    }
    lf_cli_progress_loaded(&progress, &c);
    lf_result spec, guard;
    lf_problem p;
    lf_cli_progress_stage(&progress, "spec");
    lf_spec_run(&c, &spec); /* the whole batch: where PyTorch fails */
    lf_cli_progress_stage(&progress, "guard");
    lf_guard_validate_case(&c, be, &p, &guard);
    lf_cli_progress_stage(&progress, "reproduction");
    double t1 = lf_now_ms();
    bool kept;
    char sig[LF_SIGNATURE_MAX] = "", why[400] = "";
    if (!reproduction_crop(&c, be, &spec, &guard, &crop, &kept, sig, sizeof sig, why, sizeof why)) {
        fprintf(stderr, "lossfuzz repro: %s: out of memory\n", path);
        lf_result_free(&spec);
        lf_result_free(&guard);
        lf_unload(&l, &c);
        return LF_EXIT_UNUSABLE;
    }
    lf_verdict v;
    char crop_shape[128];
    lf_format_shape(crop_shape, sizeof crop_shape, crop.input.shape, crop.input.ndim);
    lf_oracle_check(&crop, be, &v); /* the crop: reproduced on the backend */
    bool saved_ok = false;
    if (save && !kept)
        snprintf(saved, sizeof saved, "not saved: %s", why);
    else if (save)
        saved_ok = save_regression(&crop, sig, &spec, be, out_dir, saved, sizeof saved);
    lf_cli_progress_stage(&progress, NULL);
    lf_cli_progress_end(&progress);
    double t2 = lf_now_ms();
    if (json) {
        lf_verdict full = v; /* spec and guard of the whole batch, reference of the crop */
        full.spec = spec;
        full.guard = guard;
        lf_report_json(stdout, path, &c, &full);
    } else {
        print_text(path, &c, &spec, &guard, crop_shape, &v, be->name, saved);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("  %-11s analysis %.0f ms, reproduction%s %.0f ms, peak RSS %.0f MiB\n", "cost", t1 - t0,
               save ? " and minimization" : "", t2 - t1, (double)ru.ru_maxrss / 1024.0);
    }
    if (save && !saved_ok) fprintf(stderr, "lossfuzz repro: %s: %s\n", path, saved);
    int status = v.finding ? LF_EXIT_FINDING : LF_EXIT_PASS;
    if (spec.kind != v.spec.kind) status = LF_EXIT_FINDING; /* the crop must behave like the batch */
    if (save && !saved_ok) status = LF_EXIT_UNUSABLE;
    lf_result_free(&spec);
    lf_result_free(&guard);
    lf_verdict_free(&v);
    lf_case_free(&crop);
    lf_unload(&l, &c);
    return status;
}

int lf_cmd_repro(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                         {"save", no_argument, NULL, 's'},
                                         {"out", required_argument, NULL, 'o'},
                                         LF_CLI_PATH_OPTIONS,
                                         {"target", required_argument, NULL, 't'},
                                         LF_CLI_COMMON_OPTIONS,
                                         {0}};
    const char *out_dir = "regressions";
    lf_paths_config cfg;
    lf_cli_paths_default(&cfg);
    bool json = false, save = false;
    lf_target target = LF_TARGET_COUNT;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        int handled = lf_cli_path_option("repro", o, optarg, &cfg);
        if (handled < 0) return LF_EXIT_UNUSABLE;
        if (handled) continue;
        if (o == 'j')
            json = true;
        else if (o == 's')
            save = true;
        else if (o == 'o')
            out_dir = optarg;
        else if (o == 't' && !lf_cli_parse_target("repro", optarg, &target))
            return LF_EXIT_UNUSABLE;
    }
    struct stat st;
    if (save && (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "lossfuzz repro: %s is not a directory (run from the repository root, or pass --out DIR)\n",
                out_dir);
        return LF_EXIT_UNUSABLE;
    }
    if (optind == argc) {
        fprintf(stderr, "lossfuzz repro: no files given\n%s", usage);
        return LF_EXIT_UNUSABLE;
    }
    const lf_backend *be = lf_cli_backend("repro", &cfg);
    if (!be) return LF_EXIT_UNUSABLE;
    int status = LF_EXIT_PASS;
    for (int i = optind; i < argc; i++) {
        char **files = NULL, err[512];
        int n = 0;
        if (!lf_load_expand(argv[i], &files, &n, err, sizeof err)) {
            fprintf(stderr, "lossfuzz repro: %s: %s\n", argv[i], err);
            if (json) lf_report_json_unusable(stdout, argv[i], err);
            status = LF_EXIT_UNUSABLE;
        }
        for (int k = 0; k < n; k++) {
            int rc = repro_one(files[k], target, be, json, save, out_dir);
            if (rc > status) status = rc;
        }
        lf_load_free_list(files, n);
    }
    lf_paths_close(be);
    return status;
}
