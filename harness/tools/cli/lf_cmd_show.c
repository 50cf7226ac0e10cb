/* lf_cmd_show.c - `lossfuzz show`: a case in any format lossfuzz reads, as the
 * JSON case it is read as (so a dump or a crash file becomes a case file). */
#include <stdio.h>
#include <stdlib.h>

#include "lf_case_json.h"
#include "lf_cli.h"
#include "lf_load.h"

static const char usage[] = "usage: lossfuzz show [--values] [--target T] FILE\n"
                            "\n"
                            "Prints the case as JSON, as lossfuzz reads it (a JSON case, a dump, or a\n"
                            "crash file of fuzz target T).\n"
                            "  --values    write generated tensors as explicit value lists\n"
                            "  --target T  read FILE as a crash file of fuzz target T ('lossfuzz list-targets')\n";

int lf_cmd_show(int argc, char **argv)
{
    static const struct option opts[] = {
        {"values", no_argument, NULL, 'v'}, {"target", required_argument, NULL, 't'}, LF_CLI_COMMON_OPTIONS, {0}};
    bool values = false;
    lf_target target = LF_TARGET_COUNT;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        if (o == 'v')
            values = true;
        else if (o == 't' && !lf_cli_parse_target("show", optarg, &target))
            return LF_EXIT_UNUSABLE;
    }
    if (argc - optind != 1) {
        fprintf(stderr, "lossfuzz show: %s\n%s", optind == argc ? "no case file given" : "one file at a time", usage);
        return LF_EXIT_UNUSABLE;
    }
    const char *file = argv[optind];
    lf_loaded l;
    lf_case c;
    char err[512];
    if (!lf_load(file, target, &l, &c, err, sizeof err)) {
        fprintf(stderr, "lossfuzz show: %s: %s\n", file, err);
        lf_unload(&l, &c);
        return LF_EXIT_UNUSABLE;
    }
    if (values) {
        for (int i = 0; i < LF_CASE_TENSORS; i++) lf_case_tensor(&c, i)->generated = false;
    }
    char *text = lf_case_to_json(&c);
    if (text) fputs(text, stdout);
    free(text);
    lf_unload(&l, &c);
    return text ? LF_EXIT_PASS : LF_EXIT_UNUSABLE;
}
