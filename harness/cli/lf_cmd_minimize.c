/* lf_cmd_minimize.c - `lossfuzz minimize`: a crash file from either fuzzing
 * engine, or a JSON case, shrunk into a readable JSON regression named by its
 * signature and content hash. Running it on its own output changes nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lf_case_json.h"
#include "lf_cli.h"
#include "lf_fuzz.h"
#include "lf_minimize.h"

static const char usage[] =
    "usage: lossfuzz minimize [--target NAME] [--backend sim|cuda] [--out DIR] FILE...\n"
    "\n"
    "Shrinks each case structurally (fewer dims, smaller batch, fewer classes,\n"
    "simpler dtypes, default options, simpler values) while it keeps its signature:\n"
    "its finding class, or else its PyTorch outcome and error class. Writes a JSON\n"
    "regression with `expect` into DIR (default: regressions/), named\n"
    "<signature>-<content hash>.json.\n"
    "\n"
    "  FILE           a JSON case, or a crash file from a fuzz target\n"
    "  --target NAME  the fuzz target a crash file came from: fuzz_class (default,\n"
    "                 or guessed from the path), fuzz_prob\n"
    "  --out DIR      where the regression goes (default regressions/)\n"
    "\n"
    "exit status: 0 written, 2 unusable input\n";

static bool read_file(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t cap = 4096, n;
    *size = 0;
    *data = malloc(cap);
    while (*data && (n = fread(*data + *size, 1, cap - *size, f)) > 0)
        if ((*size += n) == cap) *data = realloc(*data, cap *= 2);
    fclose(f);
    return *data != NULL;
}

/* A JSON case, or a crash file decoded by its target. */
static bool load_any(const char *path, lf_target target, lf_case *c, char *err, size_t errlen)
{
    uint8_t *data;
    size_t size;
    if (!read_file(path, &data, &size)) { snprintf(err, errlen, "cannot read: %s", strerror(errno)); return false; }
    size_t i = 0;
    while (i < size && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r')) i++;
    bool ok = true;
    if (i < size && data[i] == '{') ok = lf_case_parse_json((const char *)data, size, c, err, errlen);
    else if (target == LF_TARGET_JSON) { snprintf(err, errlen, "not a JSON case"); ok = false; }
    else lf_decode(target, data, size, c, NULL);
    free(data);
    return ok;
}

static int minimize_one(const char *path, lf_target target, const lf_backend *be, const char *out_dir)
{
    lf_case c;
    char err[512], out[4096];
    lf_minimize_stats st;
    if (!load_any(path, target, &c, err, sizeof err)) {
        fprintf(stderr, "lossfuzz minimize: %s: %s\n", path, err);
        return LF_EXIT_UNUSABLE;
    }
    int64_t before = c.input.numel + c.target.numel;
    struct timespec t0, t1; /* wall time: the signatures run in child processes */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    lf_minimize(&c, be, &st);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    bool existed;
    bool ok = lf_save_regression(&c, st.signature, out_dir, out, sizeof out, &existed);
    printf("%s: %s: %lld -> %lld elements, %d steps, %d tries, %.0f ms -> %s%s\n", path, st.signature,
           (long long)before, (long long)(c.input.numel + c.target.numel), st.steps, st.tries, ms, out,
           existed ? " (unchanged)" : "");
    if (!ok) fprintf(stderr, "lossfuzz minimize: cannot write %s\n", out);
    lf_case_free(&c);
    return ok ? LF_EXIT_PASS : LF_EXIT_UNUSABLE;
}

int lf_cmd_minimize(int argc, char **argv)
{
    const char *out_dir = "regressions", *backend_name = "sim", *why;
    bool target_given = false;
    lf_target target = LF_TARGET_CLASS;
    int status = LF_EXIT_PASS, files = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(usage, stdout); return LF_EXIT_PASS; }
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend_name = argv[++i];
        else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
            if (!lf_target_parse(argv[++i], &target)) {
                fprintf(stderr, "lossfuzz minimize: unknown target %s (fuzz_class, fuzz_prob, fuzz_json)\n", argv[i]);
                return LF_EXIT_UNUSABLE;
            }
            target_given = true;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "lossfuzz minimize: unknown option %s\n%s", argv[i], usage);
            return LF_EXIT_UNUSABLE;
        }
    }
    const lf_backend *be = lf_backend_find(backend_name, &why);
    struct stat st;
    if (!be) { fprintf(stderr, "lossfuzz minimize: backend \"%s\": %s\n", backend_name, why); return LF_EXIT_UNUSABLE; }
    if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "lossfuzz minimize: %s is not a directory (run from the repository root, or pass --out DIR)\n", out_dir);
        return LF_EXIT_UNUSABLE;
    }
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-') { i += strcmp(argv[i], "--help") != 0; continue; }
        lf_target t = target;
        if (!target_given && strstr(argv[i], "fuzz_prob")) t = LF_TARGET_PROB;
        int rc = minimize_one(argv[i], t, be, out_dir);
        if (rc > status) status = rc;
        files++;
    }
    if (!files) { fprintf(stderr, "lossfuzz minimize: no files given\n%s", usage); return LF_EXIT_UNUSABLE; }
    return status;
}
