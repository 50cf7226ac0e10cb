/* lf_cmd_repro.c - `lossfuzz repro`: a reported crash, from a dump (safetensors,
 * npz, a directory of .npy), a JSON case or a fuzzer crash file. Says what
 * PyTorch does with it (which assert in which kernel at which element, or which
 * host error with PyTorch's message), why (the guard's diagnosis and hint),
 * then reproduces it on the backend on a crop of the batch (one row, one
 * position, all classes) and shows the guard catching it. --save minimizes it
 * into a JSON regression. Dumps are mapped, never copied whole. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "lf_case_json.h"
#include "lf_cli.h"
#include "lf_dump.h"
#include "lf_fuzz.h"
#include "lf_guard.h"
#include "lf_minimize.h"
#include "lf_oracle.h"
#include "lf_report.h"
#include "lf_shape.h"
#include "lf_spec.h"
#include "lf_tensor_ops.h"

static const char usage[] =
    "usage: lossfuzz repro [--json] [--backend sim|cuda] [--save] [--out DIR] [--target NAME] FILE|DIR...\n"
    "\n"
    "Reproduces a reported crash and explains it. FILE is a .safetensors or .npz\n"
    "dump (arrays input/logits, target/labels/mask, weight, pos_weight; loss and\n"
    "options in safetensors __metadata__ or as 0-d npz arrays), a JSON case, or a\n"
    "fuzzer crash file (--target fuzz_class|fuzz_prob); DIR is a directory of .npy\n"
    "files (input.npy, target.npy, ...). Never unpickles anything.\n"
    "\n"
    "  --json     one JSON object per input, as `lossfuzz check --json` prints them\n"
    "  --save     minimize into a JSON regression in DIR (--out, default regressions/)\n"
    "\n"
    "exit status: 0 reproduced as predicted, 1 a finding, 2 unusable input\n";

typedef struct {
    lf_mapped maps[LF_DUMP_MAX_ARRAYS];
    int n_maps;
    lf_dump dump;
    bool is_dump;
} loaded;

static void unload(loaded *l, lf_case *c)
{
    lf_case_free(c);
    if (l->is_dump) lf_dump_free(&l->dump);
    for (int i = 0; i < l->n_maps; i++) lf_unmap(&l->maps[i]);
    memset(l, 0, sizeof *l);
}

/* A directory of .npy files: one array per file, named by the file. */
static bool load_npy_dir(const char *path, loaded *l, lf_case *c, char *err, size_t errlen)
{
    DIR *dir = opendir(path);
    char file[4096], why[300];
    if (!dir) { snprintf(err, errlen, "cannot open directory"); return false; }
    l->is_dump = true;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".npy")) continue;
        if (l->n_maps == LF_DUMP_MAX_ARRAYS) break;
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        lf_mapped *m = &l->maps[l->n_maps];
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n - 4 < 63 ? n - 4 : 63), e->d_name);
        if (!lf_map_file(file, m, why, sizeof why) || (l->n_maps++, !lf_npy_parse(m->base, m->size, name, &l->dump.arrays[l->dump.n], why, sizeof why))) {
            snprintf(err, errlen, "%s: %s", e->d_name, why);
            closedir(dir);
            return false;
        }
        l->dump.n++;
    }
    closedir(dir);
    return lf_dump_to_case(&l->dump, c, err, errlen);
}

static bool load(const char *path, lf_target target, loaded *l, lf_case *c, char *err, size_t errlen)
{
    struct stat st;
    memset(l, 0, sizeof *l);
    lf_case_init(c);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return load_npy_dir(path, l, c, err, errlen);
    lf_mapped *m = &l->maps[0];
    if (!lf_map_file(path, m, err, errlen)) return false;
    l->n_maps = 1;
    const uint8_t *b = m->base;
    size_t i = 0;
    while (i < m->size && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r')) i++;
    if (i < m->size && b[i] == '{') return lf_case_parse_json((const char *)b, m->size, c, err, errlen);
    if ((m->size >= 4 && (!memcmp(b, "PK\x03\x04", 4) || !memcmp(b, "\x93NUM", 4))) || (m->size >= 9 && b[8] == '{')) {
        l->is_dump = true;
        return lf_dump_load(m, path, &l->dump, c, err, errlen);
    }
    if (target == LF_TARGET_JSON) { snprintf(err, errlen, "not a JSON case"); return false; }
    lf_decode(target, b, m->size, c, NULL); /* a fuzzer's crash file */
    return true;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void print_text(const char *path, const lf_case *c, const lf_result *spec, const lf_result *guard,
                       const char *cs, const lf_verdict *v, const char *backend, const char *saved)
{
    char is[128], ts[128];
    lf_format_shape(is, sizeof is, c->input.shape, c->input.ndim);
    lf_format_shape(ts, sizeof ts, c->target.shape, c->target.ndim);
    printf("%s: %s, input %s %s, target %s %s\n", path, lf_loss_name(c->loss), lf_dtype_name(c->input.dtype), is,
           lf_dtype_name(c->target.dtype), ts);
    if (spec->kind == LF_OUTCOME_OK) printf("  %-11s ok: no error, loss %.9g (%s)\n", "PyTorch", spec->values[0], lf_dtype_name(spec->out_dtype));
    else if (spec->kind == LF_OUTCOME_DEVICE_ASSERT) printf("  %-11s device-side assert: %s\n", "PyTorch", spec->message);
    else printf("  %-11s %s: %s\n", "PyTorch", spec->exception, spec->message);
    if (guard->error[0]) printf("  %-11s %s: %s\n", "why", guard->error, guard->message);
    if (guard->hint[0]) printf("  %-11s %s\n", "hint", guard->hint);
    if (guard->warning[0]) printf("  %-11s %s\n", "warning", guard->warning);
    printf("  %-11s on %s, input %s: reference %s%s%s, guard %s%s%s; %s\n", "reproduced", backend, cs,
           lf_outcome_name(v->reference.kind), v->reference.kind == LF_OUTCOME_DEVICE_ASSERT ? " in " : "",
           v->reference.kind == LF_OUTCOME_DEVICE_ASSERT ? lf_kernel_name(v->reference.kernel_id) : "",
           v->guard.kind == LF_OUTCOME_OK ? "accepted" : "rejected", v->guard.kind == LF_OUTCOME_OK ? "" : ": ",
           v->guard.error, v->finding ? v->finding_class : "as predicted");
    if (saved[0]) printf("  %-11s %s\n", "saved", saved);
}

static int repro_one(const char *path, lf_target target, const lf_backend *be, bool json, bool save, const char *out_dir)
{
    loaded l;
    lf_case c, crop;
    char err[512], saved[4300] = "";
    double t0 = now_ms();
    if (!load(path, target, &l, &c, err, sizeof err)) {
        fprintf(stderr, "lossfuzz repro: %s: %s\n", path, err);
        unload(&l, &c);
        return LF_EXIT_UNUSABLE;
    }
    lf_result spec, guard;
    lf_problem p;
    lf_spec_run(&c, &spec);              /* the whole batch: where PyTorch fails */
    lf_guard_validate_case(&c, be, &p, &guard);
    double t1 = now_ms();
    int64_t focus = spec.kind == LF_OUTCOME_DEVICE_ASSERT ? spec.index : guard.index;
    lf_verdict v;
    crop = c; /* aliases c's tensors until lf_crop slices them into copies of their own */
    crop.expect_value = NULL;
    lf_tensor *ts[4] = {&crop.input, &crop.target, &crop.weight, &crop.pos_weight};
    for (int k = 0; k < 4; k++) ts[k]->borrowed = true;
    if (!lf_crop(&crop, focus)) { fprintf(stderr, "lossfuzz repro: %s: out of memory\n", path); unload(&l, &c); return LF_EXIT_UNUSABLE; }
    char crop_shape[128];
    lf_format_shape(crop_shape, sizeof crop_shape, crop.input.shape, crop.input.ndim);
    lf_oracle_check(&crop, be, &v);      /* the crop: reproduced on the backend */
    if (save) {
        lf_minimize_stats ms;
        bool existed;
        lf_minimize(&crop, be, &ms);
        if (!lf_save_regression(&crop, ms.signature, out_dir, saved, sizeof saved, &existed))
            snprintf(saved, sizeof saved, "(could not write into %s)", out_dir);
    }
    double t2 = now_ms();
    if (json) {
        lf_verdict full = v;             /* spec and guard of the whole batch, reference of the crop */
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
    int status = v.finding ? LF_EXIT_FINDING : LF_EXIT_PASS;
    if (spec.kind != v.spec.kind) status = LF_EXIT_FINDING; /* the crop must behave like the batch */
    lf_result_free(&spec);
    lf_result_free(&guard);
    lf_verdict_free(&v);
    lf_case_free(&crop);
    unload(&l, &c);
    return status;
}

int lf_cmd_repro(int argc, char **argv)
{
    const char *backend_name = "sim", *out_dir = "regressions", *why;
    bool json = false, save = false;
    lf_target target = LF_TARGET_CLASS;
    int status = LF_EXIT_PASS, files = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(usage, stdout); return LF_EXIT_PASS; }
        if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--save")) save = true;
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend_name = argv[++i];
        else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
            if (!lf_target_parse(argv[++i], &target)) { fprintf(stderr, "lossfuzz repro: unknown target %s\n", argv[i]); return LF_EXIT_UNUSABLE; }
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "lossfuzz repro: unknown option %s\n%s", argv[i], usage);
            return LF_EXIT_UNUSABLE;
        }
    }
    const lf_backend *be = lf_backend_find(backend_name, &why);
    if (!be) { fprintf(stderr, "lossfuzz repro: backend \"%s\": %s\n", backend_name, why); return LF_EXIT_UNUSABLE; }
    struct stat st;
    if (save && (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "lossfuzz repro: %s is not a directory (run from the repository root, or pass --out DIR)\n", out_dir);
        return LF_EXIT_UNUSABLE;
    }
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-') {
            i += !strcmp(argv[i], "--out") || !strcmp(argv[i], "--backend") || !strcmp(argv[i], "--target");
            continue;
        }
        int rc = repro_one(argv[i], target, be, json, save, out_dir);
        if (rc > status) status = rc;
        files++;
    }
    if (!files) { fprintf(stderr, "lossfuzz repro: no files given\n%s", usage); return LF_EXIT_UNUSABLE; }
    return status;
}
