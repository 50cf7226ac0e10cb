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
        else if (optopt) fprintf(stderr, "lossfuzz %s: unknown option -%c\n", argv[0], optopt);
        else fprintf(stderr, "lossfuzz %s: unknown option %s\n", argv[0], bad);
        fputs(usage, stderr);
        c = '?';
    }
    return c;
}

void lf_cli_print_version(void) { printf("lossfuzz %s\n", LF_VERSION); }
