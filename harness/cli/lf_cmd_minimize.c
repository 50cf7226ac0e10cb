/* lf_cmd_minimize.c - `lossfuzz minimize`: a crash file from either fuzzing
 * engine, a JSON case, or a user's dump, shrunk into a readable JSON
 * regression named by its signature and content hash. Running it on its own
 * output changes nothing. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lf_case_json.h"
#include "lf_cli.h"
#include "lf_guard.h"
#include "lf_load.h"
#include "lf_minimize.h"
#include "lf_spec.h"

static const char usage[] =
    "usage: lossfuzz minimize [--target T] [--backend sim|cuda] [--asserts soft|hard] [--out DIR] FILE...\n"
    "\n"
    "Shrinks each case structurally (fewer dims, smaller batch, fewer classes,\n"
    "simpler dtypes, default options, simpler values) while it keeps its signature:\n"
    "its finding class, or else its PyTorch outcome, error class and hint. Writes a\n"
    "JSON regression with `expect` into DIR (default: regressions/), named\n"
    "<signature>-<content hash>.json.\n"
    "\n"
    "  FILE           a JSON case; a dump (.npz, .safetensors, a directory of .npy),\n"
    "                 cropped first to the part that keeps its diagnosis, and never\n"
    "                 saved when PyTorch accepts it and nothing is wrong; or a fuzz\n"
    "                 target's crash file (taken from an engine's crash location,\n"
    "                 crash-* or crashes/id:*, or with --target)\n"
    "  --target T     read files without a case's name as crash files of fuzz target\n"
    "                 T: fuzz_class, fuzz_prob, fuzz_json (guessed from the path in a\n"
    "                 crash location)\n"
    "  --out DIR      where the regression goes (default regressions/)\n"
    "\n"
    "exit status: 0 written, 2 unusable input or nothing to save\n";

/* A dump: the crop that keeps the batch's diagnosis, minimized. */
static bool minimize_batch(lf_case *c, const lf_backend *be, lf_minimize_stats *st, char *err, size_t errlen)
{
    lf_result spec, guard;
    lf_problem p;
    lf_case out;
    lf_spec_run(c, &spec);
    lf_guard_validate_case(c, be, &p, &guard);
    bool ok = lf_minimize_batch(c, be, &spec, &guard, &out, st, err, errlen);
    lf_result_free(&spec);
    lf_result_free(&guard);
    if (!ok) return false;
    lf_case_free(c);
    *c = out;
    return true;
}

static int minimize_one(const char *path, lf_target target, const lf_backend *be, const char *out_dir)
{
    lf_loaded l;
    lf_case c;
    char err[512], out[4096];
    lf_minimize_stats st;
    if (!lf_load(path, target, &l, &c, err, sizeof err)) {
        fprintf(stderr, "lossfuzz minimize: %s: %s\n", path, err);
        lf_unload(&l, &c);
        return LF_EXIT_UNUSABLE;
    }
    int64_t before = c.input.numel + c.target.numel;
    double t0 = lf_cli_now_ms(); /* wall time: the signatures run in child processes */
    bool ok = l.kind == LF_INPUT_DUMP ? minimize_batch(&c, be, &st, err, sizeof err) : lf_minimize(&c, be, NULL, &st);
    if (!ok) {
        fprintf(stderr, "lossfuzz minimize: %s: %s\n", path, l.kind == LF_INPUT_DUMP ? err : "out of memory");
        lf_unload(&l, &c);
        return LF_EXIT_UNUSABLE;
    }
    double ms = lf_cli_now_ms() - t0;
    bool existed;
    ok = lf_save_regression(&c, st.signature, out_dir, out, sizeof out, &existed);
    printf("%s: %s: %lld -> %lld elements, %d steps, %d tries, %.0f ms -> %s%s\n", path, st.signature,
           (long long)before, (long long)(c.input.numel + c.target.numel), st.steps, st.tries, ms, out,
           existed ? " (unchanged)" : "");
    if (!ok) fprintf(stderr, "lossfuzz minimize: cannot write %s\n", out);
    lf_unload(&l, &c);
    return ok ? LF_EXIT_PASS : LF_EXIT_UNUSABLE;
}

int lf_cmd_minimize(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, NULL, 'o'}, LF_CLI_PATH_OPTIONS,
                                         {"target", required_argument, NULL, 't'}, LF_CLI_COMMON_OPTIONS, {0}};
    const char *out_dir = "regressions";
    lf_paths_config cfg;
    lf_cli_paths_default(&cfg);
    lf_target target = LF_TARGET_COUNT;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        int handled = lf_cli_path_option("minimize", o, optarg, &cfg);
        if (handled < 0) return LF_EXIT_UNUSABLE;
        if (handled) continue;
        if (o == 'o') out_dir = optarg;
        else if (o == 't' && !lf_cli_parse_target("minimize", optarg, &target)) return LF_EXIT_UNUSABLE;
    }
    const lf_backend *be = lf_cli_backend("minimize", &cfg);
    if (!be) return LF_EXIT_UNUSABLE;
    struct stat st;
    if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "lossfuzz minimize: %s is not a directory (run from the repository root, or pass --out DIR)\n", out_dir);
        lf_paths_close(be);
        return LF_EXIT_UNUSABLE;
    }
    if (optind == argc) {
        fprintf(stderr, "lossfuzz minimize: no files given\n%s", usage);
        lf_paths_close(be);
        return LF_EXIT_UNUSABLE;
    }
    int status = LF_EXIT_PASS;
    for (int i = optind; i < argc; i++) {
        int rc = minimize_one(argv[i], target, be, out_dir);
        if (rc > status) status = rc;
    }
    lf_paths_close(be);
    return status;
}
