/* lf_cli.c - what the subcommands share: getopt_long with one set of
 * messages, and the version. */
#include "lf_cli.h"

#include <stdio.h>
#include <string.h>

#ifndef LF_VERSION
#define LF_VERSION "unknown"
#endif

int lf_cli_next_option(int argc, char **argv, const struct option *opts, const char *usage)
{
    opterr = 0; /* our messages, naming the command */
    int c = getopt_long(argc, argv, ":hV", opts, NULL);
    if (c == 'h') fputs(usage, stdout);
    else if (c == 'V') lf_cli_print_version();
    else if (c == ':' || c == '?') {
        const char *bad = argv[optind - 1];
        if (c == ':') fprintf(stderr, "lossfuzz %s: option %s needs a value\n", argv[0], bad);
        else if (!strncmp(bad, "--", 2) && strchr(bad, '=')) /* --json=1: a value the option does not take */
            fprintf(stderr, "lossfuzz %s: option %.*s takes no value\n", argv[0], (int)(strchr(bad, '=') - bad), bad);
        else if (optopt && strncmp(bad, "--", 2)) fprintf(stderr, "lossfuzz %s: unknown option -%c\n", argv[0], optopt);
        else fprintf(stderr, "lossfuzz %s: unknown option %s\n", argv[0], bad);
        fprintf(stderr, "('lossfuzz %s --help' lists the options)\n", argv[0]);
        c = '?';
    }
    return c;
}

void lf_cli_print_version(void) { printf("lossfuzz %s\n", LF_VERSION); }

bool lf_cli_parse_target(const char *command, const char *name, lf_target *out)
{
    if (lf_target_parse(name, out) && *out != LF_TARGET_RAW) return true;
    fprintf(stderr, "lossfuzz %s: unknown target %s (fuzz_class, fuzz_prob, fuzz_json)\n", command, name);
    return false;
}

const lf_backend *lf_cli_backend(const char *command, const char *name)
{
    const char *why;
    const lf_backend *be = lf_backend_find(name, &why);
    if (!be) fprintf(stderr, "lossfuzz %s: backend \"%s\": %s\n", command, name, why);
    return be;
}
