/* lf_cmd_minimize.c - `lossfuzz minimize`: a crash file from either fuzzing
 * engine, a JSON case, or a user's dump, shrunk into a readable JSON
 * regression named by its signature and content hash. Running it on its own
 * output changes nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lf_case_json.h"
#include "lf_clock.h"
#include "lf_cli.h"
#include "lf_guard.h"
#include "lf_load.h"
#include "lf_minimize.h"
#include "lf_spec.h"

static const char usage[] =
    "usage: lossfuzz minimize [--target T] [--backend sim|cuda] [--asserts soft|hard] [--out DIR]\n"
    "                         [--kernel LIB.so|py:MODULE:FUNCTION] [--max-time S] FILE...\n"
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
    "                 T ('lossfuzz list-targets'; guessed from the path in a crash\n"
    "                 location)\n"
    "  --out DIR      where the regression goes (default regressions/)\n"
    "  --kernel K     keep a finding of the kernel under test (include/lossfuzz/kernel.h);\n"
    "                 the regression's note names it\n"
    "  --max-time S   stop minimizing a file after S seconds (default 30; 0: no bound)\n"
    "                 and write the smallest case so far that keeps the signature; the\n"
    "                 result line then ends \"(cut short at --max-time S s)\"\n"
    "\n"
    "Progress goes to stderr once a file has taken a second: a line a second (every\n"
    "5 s when stderr is not a terminal) with the time, steps kept, oracle runs and\n"
    "elements; LOSSFUZZ_PROGRESS=never: none, =always: from the start.\n"
    "\n"
    "exit status: 0 written, 2 unusable input or nothing to save\n";

/* Progress while a file is minimized (opts.progress), quiet for the quick ones. */
typedef struct {
    const char *file;
    double next_ms; /* elapsed time of the next line; < 0: never */
    double every_ms;
} progress;

static void show_progress(void *arg, const lf_minimize_stats *st)
{
    progress *p = arg;
    if (p->next_ms < 0 || st->elapsed_ms < p->next_ms) return;
    fprintf(stderr, "lossfuzz minimize: %s: %.0f s, %d steps, %d tries, %lld elements\n", p->file, st->elapsed_ms / 1e3,
            st->steps, st->tries, (long long)st->elements);
    p->next_ms = st->elapsed_ms + p->every_ms;
}

static progress progress_for(const char *file)
{
    const char *mode = getenv("LOSSFUZZ_PROGRESS");
    progress p = {file, 1000, isatty(2) ? 1000 : 5000}; /* CI logs: every 5 s */
    if (mode && !strcmp(mode, "never")) p.next_ms = -1;
    if (mode && !strcmp(mode, "always")) p.next_ms = 0;
    return p;
}

/* A dump: the crop that keeps the batch's diagnosis, minimized. */
static bool minimize_batch(lf_case *c, const lf_backend *be, const lf_minimize_opts *opts, lf_minimize_stats *st,
                           char *err, size_t errlen)
{
    lf_result spec, guard;
    lf_problem p;
    lf_case out;
    lf_spec_run(c, &spec);
    lf_guard_validate_case(c, be, &p, &guard);
    bool ok = lf_minimize_batch(c, be, &spec, &guard, opts, &out, st, err, errlen);
    lf_result_free(&spec);
    lf_result_free(&guard);
    if (!ok) return false;
    lf_case_free(c);
    *c = out;
    return true;
}

static int minimize_one(const char *path, lf_target target, const lf_backend *be, const char *out_dir, double max_s)
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
    double t0 = lf_now_ms(); /* wall time: the signatures run in child processes */
    progress pr = progress_for(path);
    lf_minimize_opts opts = {.max_ms = max_s * 1e3, .progress = show_progress, .progress_arg = &pr};
    bool ok =
        l.kind == LF_INPUT_DUMP ? minimize_batch(&c, be, &opts, &st, err, sizeof err) : lf_minimize(&c, be, &opts, &st);
    if (!ok) {
        fprintf(stderr, "lossfuzz minimize: %s: %s\n", path, l.kind == LF_INPUT_DUMP ? err : "out of memory");
        lf_unload(&l, &c);
        return LF_EXIT_UNUSABLE;
    }
    double ms = lf_now_ms() - t0;
    bool existed;
    ok = lf_save_regression(&c, st.signature, lf_paths_kernel_name(be), out_dir, out, sizeof out, &existed);
    /* ci/fuzz.sh and ci/bench-minimize.sh read this line: "PATH: SIG: ... -> OUT" */
    printf("%s: %s: %lld -> %lld elements, %d steps, %d tries, %.0f ms -> %s%s", path, st.signature, (long long)before,
           (long long)(c.input.numel + c.target.numel), st.steps, st.tries, ms, out, existed ? " (unchanged)" : "");
    if (st.cut_short) printf(" (cut short at --max-time %g s)", max_s);
    printf("\n");
    fflush(stdout); /* before the next file's progress on stderr */
    if (!ok) fprintf(stderr, "lossfuzz minimize: cannot write %s\n", out);
    lf_unload(&l, &c);
    return ok ? LF_EXIT_PASS : LF_EXIT_UNUSABLE;
}

static bool parse_seconds(const char *arg, double *out)
{
    char *end;
    double s = strtod(arg, &end);
    if (end == arg || *end || !(s >= 0 && s < 1e9)) {
        fprintf(stderr, "lossfuzz minimize: --max-time takes seconds (0: no bound), not '%s'\n", arg);
        return false;
    }
    *out = s;
    return true;
}

int lf_cmd_minimize(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},      LF_CLI_PATH_OPTIONS,   {"target", required_argument, NULL, 't'},
        {"max-time", required_argument, NULL, 'M'}, LF_CLI_COMMON_OPTIONS, {0}};
    const char *out_dir = "regressions";
    double max_s = 30; /* a wide finding took 44 s to minimize after 1 s of fuzzing */
    lf_paths_config cfg;
    lf_cli_paths_default(&cfg);
    lf_target target = LF_TARGET_COUNT;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        int handled = lf_cli_path_option("minimize", o, optarg, &cfg);
        if (handled < 0) return LF_EXIT_UNUSABLE;
        if (handled) continue;
        if (o == 'o')
            out_dir = optarg;
        else if (o == 't' && !lf_cli_parse_target("minimize", optarg, &target))
            return LF_EXIT_UNUSABLE;
        else if (o == 'M' && !parse_seconds(optarg, &max_s))
            return LF_EXIT_UNUSABLE;
    }
    const lf_backend *be = lf_cli_backend("minimize", &cfg);
    if (!be) return LF_EXIT_UNUSABLE;
    struct stat st;
    if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "lossfuzz minimize: %s is not a directory (run from the repository root, or pass --out DIR)\n",
                out_dir);
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
        int rc = minimize_one(argv[i], target, be, out_dir, max_s);
        if (rc > status) status = rc;
    }
    lf_paths_close(be);
    return status;
}
