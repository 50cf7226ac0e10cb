/* lf_cmd_encode.c - `lossfuzz encode`: cases to a fuzz target's byte format,
 * named by content hash: seed corpora start from the regressions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_cli.h"
#include "lf_file.h"
#include "lf_hash.h"
#include "lf_load.h"

static const char usage[] = "usage: lossfuzz encode --target fuzz_class|fuzz_prob --out DIR FILE...\n"
                            "\n"
                            "Writes each case (a JSON case or a dump) that belongs to the target's family\n"
                            "as a fuzz input (DIR/<content hash>), approximating what the byte format\n"
                            "cannot express. An input over 4096 bytes (the engines' -max_len in\n"
                            "ci/fuzz.sh, which would cut it) is not written.\n";

int lf_cmd_encode(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'}, {"target", required_argument, NULL, 't'}, LF_CLI_COMMON_OPTIONS, {0}};
    const char *out_dir = NULL;
    lf_target target = LF_TARGET_COUNT;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        if (o == 'o')
            out_dir = optarg;
        else if (o == 't' &&
                 (!lf_target_parse(optarg, &target) || (target != LF_TARGET_CLASS && target != LF_TARGET_PROB))) {
            fprintf(stderr, "lossfuzz encode: --target must be fuzz_class or fuzz_prob, not %s\n", optarg);
            return LF_EXIT_UNUSABLE;
        }
    }
    if (!out_dir || target == LF_TARGET_COUNT) {
        fprintf(stderr, "lossfuzz encode: --target (fuzz_class or fuzz_prob) and --out are required\n%s", usage);
        return LF_EXIT_UNUSABLE;
    }
    int written = 0, skipped = 0, status = LF_EXIT_PASS;
    size_t cap = 4096; /* ci/fuzz.sh's -max_len: a longer seed would be cut, so not the case */
    uint8_t *buf = malloc(cap);
    for (int i = optind; buf && i < argc; i++) {
        lf_loaded l;
        lf_case c;
        char err[512], name[32];
        if (!lf_load(argv[i], LF_TARGET_COUNT, &l, &c, err, sizeof err)) {
            fprintf(stderr, "lossfuzz encode: %s: %s\n", argv[i], err);
            lf_unload(&l, &c);
            status = LF_EXIT_UNUSABLE;
            continue;
        }
        size_t n = lf_encode(target, &c, buf, cap);
        lf_unload(&l, &c);
        if (!n) {
            skipped++;
            continue;
        }
        snprintf(name, sizeof name, "%016llx", (unsigned long long)lf_hash_bytes(buf, n));
        if (!lf_write_atomically(out_dir, name, buf, n)) {
            fprintf(stderr, "lossfuzz encode: cannot write %s/%s\n", out_dir, name);
            status = LF_EXIT_UNUSABLE;
            continue;
        }
        written++;
    }
    free(buf);
    printf("%d written, %d not of this target's family or over 4096 bytes\n", written, skipped);
    return status;
}
