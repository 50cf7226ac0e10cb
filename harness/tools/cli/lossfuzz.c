/* lossfuzz.c - the command-line tool: dispatches to its subcommands.
 *
 *   lossfuzz check [--backend B] [--asserts hard] [--torch] FILE|DIR...
 *                                       spec, reference and guard (and PyTorch) on each case
 *   lossfuzz show [--values] [--target T] FILE         a case (any format) as JSON
 *   lossfuzz minimize [--target T] [--backend B] [--out DIR] FILE...
 *                                       shrink a finding into a regression
 *   lossfuzz encode --target T --out DIR FILE...       cases to fuzz inputs (seed corpora)
 *   lossfuzz repro [--json] [--save] [--backend B] FILE|DIR...
 *                                       reproduce and explain a dumped batch
 *   lossfuzz fuzz [--target T] [--kernel K] [--seconds S]
 *                                       fuzz with no compiler or engine (black-box)
 *   lossfuzz report [--kernel K] [--junit F] DIR        a campaign's report (ci/fuzz.sh)
 *   lossfuzz worker [--backend B] [--asserts M]        a worker process, started by the executor
 *   lossfuzz describe [--json]          the loss table (model/case/lf_losses.def), for people or Python
 *   lossfuzz list-targets               the fuzz targets (model/bytes/lf_targets.def)
 *   lossfuzz list-findings              the finding classes (oracle/lf_findings.def)
 *   lossfuzz list-errors                the error classes (model/case/lf_errors.def)
 *   lossfuzz list-hints                 the guard's hints and warnings (runtime/guard/lf_hints.def)
 *
 * Exit status: 0 every property holds, 1 a finding, 2 unusable input or usage
 * (2 wins when both happen: not everything was checked). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_cli.h"
#include "lf_describe.h"
#include "lf_errors.h"
#include "lf_guard.h"

static const char usage_main[] =
    "usage: lossfuzz COMMAND [OPTIONS] ...\n"
    "\n"
    "Fuzzing and regression harness for cross-entropy loss kernels.\n"
    "\n"
    "commands:\n"
    "  check     run cases through the PyTorch spec, the reference kernels and the guard\n"
    "  show      print a case as JSON\n"
    "  repro     reproduce and explain a reported crash (safetensors, npz, npy, JSON, crash file)\n"
    "  minimize  shrink a crash file, a case or a dump into a JSON regression\n"
    "  encode    turn cases into a fuzz target's inputs (seed corpora)\n"
    "  fuzz      fuzz with nothing but lossfuzz (no compiler, no engine), keeping going\n"
    "  report    a campaign's report from its directory (lossfuzz fuzz, ci/fuzz.sh)\n"
    "  export    each entry of a campaign as a plain-torch script, an issue text, a pytest file\n"
    "  worker    a worker process for the executor (started by lossfuzz itself)\n"
    "  list-targets  the fuzz targets, a line each: name, what it fuzzes\n"
    "  list-findings the finding classes, a line each: property, harm, what it means\n"
    "  describe      the losses (their targets, options, call), --json: with dtypes and error classes\n"
    "  list-errors   the error classes, a line each: name, source, finding, what it means\n"
    "  list-hints    the guard's hints and warnings, a line each: kind, id, what it means\n"
    "\n"
    "'lossfuzz COMMAND --help' describes a command; --version prints the version.\n"
    "exit status: 0 all properties hold, 1 a finding, 2 unusable input or usage\n"
    "(2 wins over 1: some input was not checked)\n";

/* The lists the project writes once, for people and scripts: a line each. */
static void list_targets(void) /* harness/model/bytes/lf_targets.def */
{
    const char *name, *what;
    for (int i = 0; (name = lf_fuzz_target_at(i, NULL, &what)); i++) printf("%-17s %s\n", name, what);
}

static void list_findings(void) /* harness/oracle/lf_findings.def */
{
    const char *property, *what;
    int harm;
    for (int i = 0; (property = lf_finding_at(i, &harm, &what)); i++)
        printf("%-26s %s | %s\n", property, lf_harm_label(harm), what);
}

static void list_errors(void) /* harness/model/case/lf_errors.def */
{
    const char *name, *finding, *what;
    lf_error_source source;
    for (int i = 0; (name = lf_error_at(i, &source, &finding, &what)); i++)
        printf("%-22s %-7s %-13s %s\n", name, lf_error_source_names[source], finding ? finding : "-", what);
}

static void list_hints(void) /* harness/runtime/guard/lf_hints.def */
{
    const char *id, *what;
    bool warning;
    for (int i = 0; (id = lf_hint_at(i, &warning, &what)); i++)
        printf("%-7s %-27s %s\n", warning ? "warning" : "hint", id, what);
}

static int list(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: lossfuzz %s (it takes no arguments)\n", argv[0]);
        return LF_EXIT_UNUSABLE;
    }
    if (!strcmp(argv[0], "list-targets"))
        list_targets();
    else if (!strcmp(argv[0], "list-findings"))
        list_findings();
    else if (!strcmp(argv[0], "list-errors"))
        list_errors();
    else
        list_hints();
    return LF_EXIT_PASS;
}

/* The loss table for people, or (--json) what the Python worker reads. */
static int describe(int argc, char **argv)
{
    bool json = argc == 2 && !strcmp(argv[1], "--json");
    if (argc > 2 || (argc == 2 && !json)) {
        fprintf(stderr, "usage: lossfuzz describe [--json]\n");
        return LF_EXIT_UNUSABLE;
    }
    json_t *d = lf_describe();
    if (json) {
        json_dumpf(d, stdout, JSON_INDENT(2));
        putchar('\n');
    } else {
        size_t i;
        json_t *L;
        json_array_foreach(json_object_get(d, "losses"), i, L)
        {
            char *targets = json_dumps(json_object_get(L, "targets"), JSON_COMPACT);
            char *options = json_dumps(json_object_get(L, "options"), JSON_COMPACT);
            char *call = json_dumps(json_object_get(L, "positional"), JSON_COMPACT);
            printf("%-33s targets %-18s options %s, tensors %s%s\n", json_string_value(json_object_get(L, "name")),
                   targets, options, call, json_is_true(json_object_get(L, "fused_linear")) ? ", fused linear" : "");
            free(targets), free(options), free(call);
        }
    }
    json_decref(d);
    return LF_EXIT_PASS;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int, char **);
    } commands[] = {{"check", lf_cmd_check},   {"show", lf_cmd_show},     {"minimize", lf_cmd_minimize},
                    {"encode", lf_cmd_encode}, {"repro", lf_cmd_repro},   {"fuzz", lf_cmd_fuzz},
                    {"report", lf_cmd_report}, {"worker", lf_cmd_worker}, {"list-targets", list},
                    {"list-findings", list},   {"list-errors", list},     {"list-hints", list},
                    {"describe", describe},    {"export", lf_cmd_export}};
    if (argc < 2) {
        fputs(usage_main, stderr);
        return LF_EXIT_UNUSABLE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_main, stdout);
        return LF_EXIT_PASS;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        lf_cli_print_version();
        return LF_EXIT_PASS;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name)) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "lossfuzz: unknown command \"%s\"\n%s", cmd, usage_main);
    return LF_EXIT_UNUSABLE;
}
