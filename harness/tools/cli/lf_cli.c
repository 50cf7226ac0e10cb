/* lf_cli.c - what the subcommands share: getopt_long with one set of
 * messages, and the version. */
#include "lf_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_backend.h"

#ifndef LF_VERSION
#define LF_VERSION "unknown"
#endif

int lf_cli_next_option(int argc, char **argv, const struct option *opts, const char *usage)
{
    opterr = 0; /* our messages, naming the command */
    int c = getopt_long(argc, argv, ":hV", opts, NULL);
    if (c == 'h')
        fputs(usage, stdout);
    else if (c == 'V')
        lf_cli_print_version();
    else if (c == ':' || c == '?') {
        const char *bad = argv[optind - 1];
        if (c == ':')
            fprintf(stderr, "lossfuzz %s: option %s needs a value\n", argv[0], bad);
        else if (!strncmp(bad, "--", 2) && strchr(bad, '=')) /* --json=1: a value the option does not take */
            fprintf(stderr, "lossfuzz %s: option %.*s takes no value\n", argv[0], (int)(strchr(bad, '=') - bad), bad);
        else if (optopt && strncmp(bad, "--", 2))
            fprintf(stderr, "lossfuzz %s: unknown option -%c\n", argv[0], optopt);
        else
            fprintf(stderr, "lossfuzz %s: unknown option %s\n", argv[0], bad);
        fprintf(stderr, "('lossfuzz %s --help' lists the options)\n", argv[0]);
        c = '?';
    }
    return c;
}

void lf_cli_print_version(void)
{
    printf("lossfuzz %s, %s\n", LF_VERSION,
           lf_backend_cuda_built() ? "CUDA kernels built"
                                   : "no CUDA kernels (built without: nvcc not found, or CUDA turned off)");
}

bool lf_cli_parse_target(const char *command, const char *name, lf_target *out)
{
    if (lf_target_parse(name, out) && *out != LF_TARGET_RAW) return true;
    char names[256];
    lf_fuzz_target_list(names, sizeof names, true);
    if (lf_target_parse(name, out))
        fprintf(stderr,
                "lossfuzz %s: %s's crash files are dumps themselves: pass them without --target (it takes %s)\n",
                command, name, names);
    else
        fprintf(stderr, "lossfuzz %s: unknown target %s (%s)\n", command, name, names);
    return false;
}

void lf_cli_paths_default(lf_paths_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = "sim";
}

bool lf_cli_parse_asserts(const char *command, const char *name, bool *hard)
{
    if (strcmp(name, "soft") && strcmp(name, "hard")) {
        fprintf(stderr, "lossfuzz %s: --asserts must be soft or hard, not %s\n", command, name);
        return false;
    }
    *hard = !strcmp(name, "hard");
    return true;
}

int lf_cli_path_option(const char *command, int o, const char *arg, lf_paths_config *cfg)
{
    char *end;
    switch (o) {
    case 'b': cfg->backend = arg; return 1;
    case 'a': return lf_cli_parse_asserts(command, arg, &cfg->hard_asserts) ? 1 : -1;
    case 'E': cfg->executor = true; return 1;
    case 'T': cfg->torch = true; return 1;
    case 'K': cfg->kernel = arg; return 1;
    case 'R':
        cfg->world_size = (int)strtol(arg, &end, 10);
        if (*end || end == arg || cfg->world_size < 1 || cfg->world_size > LF_MAX_WORLD) {
            fprintf(stderr, "lossfuzz %s: --world-size takes 1 to %d ranks, not %s\n", command, LF_MAX_WORLD, arg);
            return -1;
        }
        return 1;
    case 'W':
        cfg->timeout_s = strtod(arg, &end);
        if (*end || end == arg || !(cfg->timeout_s > 0)) {
            fprintf(stderr, "lossfuzz %s: --timeout needs a positive number of seconds, not %s\n", command, arg);
            return -1;
        }
        return 1;
    default: return 0;
    }
}

const lf_backend *lf_cli_backend(const char *command, const lf_paths_config *cfg)
{
    char err[1536];
    const lf_backend *be = lf_paths_open(cfg, err, sizeof err);
    if (!be && cfg->kernel)
        fprintf(stderr, "lossfuzz %s: %s\n", command, err);
    else if (!be)
        fprintf(stderr, "lossfuzz %s: backend \"%s\": %s\n", command, cfg->backend, err);
    return be;
}
