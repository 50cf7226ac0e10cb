/* lossfuzz.c - the command-line tool.
 *
 *   lossfuzz check [--backend sim] [--json] FILE|DIR...   run cases through spec, reference, guard
 *   lossfuzz show [--values] FILE                         print a case as JSON
 *   lossfuzz minimize [--target T] [--out DIR] FILE...    shrink a crash or case into a regression
 *   lossfuzz encode --target T --out DIR FILE...          JSON cases to fuzz inputs (seed corpora)
 *   lossfuzz repro [--json] [--save] FILE|DIR...          reproduce and explain a dumped batch
 *
 * Exit status: 0 every property holds, 1 a finding, 2 unusable input or usage. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lf_case_json.h"
#include "lf_cli.h"
#include "lf_oracle.h"
#include "lf_report.h"

enum { EXIT_PASS = LF_EXIT_PASS, EXIT_FINDING = LF_EXIT_FINDING, EXIT_UNUSABLE = LF_EXIT_UNUSABLE };

static const char usage_main[] =
    "usage: lossfuzz COMMAND [OPTIONS] ...\n"
    "\n"
    "Fuzzing and regression harness for cross-entropy loss kernels.\n"
    "\n"
    "commands:\n"
    "  check     run cases through the PyTorch spec, the reference kernels and the guard\n"
    "  show      print a case as JSON\n"
    "  repro     reproduce and explain a reported crash (safetensors, npz, npy, JSON, crash file)\n"
    "  minimize  shrink a crash file or a case into a JSON regression\n"
    "  encode    turn JSON cases into a fuzz target's inputs (seed corpora)\n"
    "\n"
    "'lossfuzz COMMAND --help' describes a command.\n";

static const char usage_check[] =
    "usage: lossfuzz check [--backend sim] [--json] FILE|DIR...\n"
    "\n"
    "Runs each case (a JSON case file; a directory means its *.json files) through\n"
    "  spec       the expected PyTorch outcome: ok, host_error or device_assert\n"
    "  reference  kernels that behave like PyTorch's, device-side asserts included\n"
    "  guard      kernels that validate first and reject with a diagnosis and a hint\n"
    "and checks that the guard catches what PyTorch rejects, accepts what it accepts,\n"
    "and that accepted cases give the same numbers on every path.\n"
    "\n"
    "  --backend NAME  where kernels run: sim (the CPU simulation, default) or cuda\n"
    "  --json          one JSON object per case per line\n"
    "\n"
    "exit status: 0 all properties hold, 1 a finding, 2 unusable input\n";

static const char usage_show[] =
    "usage: lossfuzz show [--values] FILE\n"
    "\n"
    "Prints the case as JSON, as lossfuzz reads it.\n"
    "  --values  write generated tensors as explicit value lists\n";

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Appends FILE, or the sorted *.json files of a directory, to the list. */
static bool expand(const char *arg, char ***list, int *n)
{
    struct stat st;
    if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode)) {
        *list = realloc(*list, sizeof(char *) * (size_t)(*n + 1));
        (*list)[(*n)++] = strdup(arg);
        return true;
    }
    DIR *d = opendir(arg);
    if (!d) return false;
    int first = *n;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json")) continue;
        size_t dir_len = strlen(arg);
        while (dir_len > 1 && arg[dir_len - 1] == '/') dir_len--;
        char *path = malloc(dir_len + len + 2);
        sprintf(path, "%.*s/%s", (int)dir_len, arg, e->d_name);
        *list = realloc(*list, sizeof(char *) * (size_t)(*n + 1));
        (*list)[(*n)++] = path;
    }
    closedir(d);
    if (*n > first) qsort(*list + first, (size_t)(*n - first), sizeof(char *), cmp_str);
    return true;
}

static void free_list(char **files, int n)
{
    for (int i = 0; i < n; i++) free(files[i]);
    free(files);
}

static int check_files(const lf_backend *be, bool json, char **files, int n_files, int status);

static int cmd_check(int argc, char **argv)
{
    const char *backend_name = "sim";
    bool json = false;
    char **files = NULL;
    int n_files = 0, status = EXIT_PASS;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_check, stdout);
            free_list(files, n_files);
            return EXIT_PASS;
        } else if (!strcmp(argv[i], "--json")) json = true;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend_name = argv[++i];
        else if (!strncmp(argv[i], "--backend=", 10)) backend_name = argv[i] + 10;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "lossfuzz check: unknown option %s\n%s", argv[i], usage_check);
            free_list(files, n_files);
            return EXIT_UNUSABLE;
        } else if (!expand(argv[i], &files, &n_files)) {
            fprintf(stderr, "lossfuzz check: %s: cannot read the directory\n", argv[i]);
            status = EXIT_UNUSABLE;
        }
    }
    const char *why;
    const lf_backend *be = lf_backend_find(backend_name, &why);
    if (!be) {
        fprintf(stderr, "lossfuzz check: backend \"%s\": %s\n", backend_name, why);
        free_list(files, n_files);
        return EXIT_UNUSABLE;
    }
    if (n_files == 0 && status == EXIT_PASS) {
        fprintf(stderr, "lossfuzz check: no case files given\n%s", usage_check);
        return EXIT_UNUSABLE;
    }
    status = check_files(be, json, files, n_files, status);
    free_list(files, n_files);
    return status;
}

/* Checks each file in turn; a file that cannot be used is reported and skipped. */
static int check_files(const lf_backend *be, bool json, char **files, int n_files, int status)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < n_files; i++) {
        lf_case c;
        lf_verdict v;
        char err[512];
        if (!lf_case_load_json_file(files[i], &c, err, sizeof err)) {
            fprintf(stderr, "lossfuzz check: %s: %s\n", files[i], err);
            status = EXIT_UNUSABLE;
            failed++;
            continue;
        }
        lf_oracle_check(&c, be, &v);
        if (json) lf_report_json(stdout, files[i], &c, &v);
        else lf_report_text(stdout, files[i], &c, &v);
        fflush(stdout);
        if (v.finding && status == EXIT_PASS) status = EXIT_FINDING;
        v.finding ? failed++ : passed++;
        lf_verdict_free(&v);
        lf_case_free(&c);
    }
    if (!json) printf("%d passed, %d failed\n", passed, failed);
    return status;
}

static int cmd_show(int argc, char **argv)
{
    bool values = false;
    const char *file = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(usage_show, stdout); return EXIT_PASS; }
        else if (!strcmp(argv[i], "--values")) values = true;
        else if (argv[i][0] == '-' || file) {
            fprintf(stderr, "lossfuzz show: unexpected argument %s\n%s", argv[i], usage_show);
            return EXIT_UNUSABLE;
        } else file = argv[i];
    }
    if (!file) { fprintf(stderr, "lossfuzz show: no case file given\n%s", usage_show); return EXIT_UNUSABLE; }
    lf_case c;
    char err[512];
    if (!lf_case_load_json_file(file, &c, err, sizeof err)) {
        fprintf(stderr, "lossfuzz show: %s: %s\n", file, err);
        return EXIT_UNUSABLE;
    }
    if (values) {
        lf_tensor *ts[] = {&c.input, &c.target, &c.weight, &c.pos_weight};
        for (int i = 0; i < 4; i++) ts[i]->generated = false;
    }
    char *text = lf_case_to_json(&c);
    if (text) fputs(text, stdout);
    free(text);
    lf_case_free(&c);
    return text ? EXIT_PASS : EXIT_UNUSABLE;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        fputs(usage_main, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_UNUSABLE : EXIT_PASS;
    }
    if (!strcmp(argv[1], "check")) return cmd_check(argc - 2, argv + 2);
    if (!strcmp(argv[1], "show")) return cmd_show(argc - 2, argv + 2);
    if (!strcmp(argv[1], "minimize")) return lf_cmd_minimize(argc - 2, argv + 2);
    if (!strcmp(argv[1], "encode")) return lf_cmd_encode(argc - 2, argv + 2);
    if (!strcmp(argv[1], "repro")) return lf_cmd_repro(argc - 2, argv + 2);
    fprintf(stderr, "lossfuzz: unknown command \"%s\"\n%s", argv[1], usage_main);
    return EXIT_UNUSABLE;
}
