/* lf_cmd_encode.c - `lossfuzz encode`: JSON cases to a fuzz target's byte
 * format, named by content hash: seed corpora start from the regressions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_case_json.h"
#include "lf_cli.h"
#include "lf_fuzz.h"
#include "lf_hash.h"

static const char usage[] =
    "usage: lossfuzz encode --target fuzz_class|fuzz_prob --out DIR FILE...\n"
    "\n"
    "Writes each JSON case that belongs to the target's family as a fuzz input\n"
    "(DIR/<content hash>), approximating what the byte format cannot express.\n";

int lf_cmd_encode(int argc, char **argv)
{
    const char *out_dir = NULL;
    lf_target target = LF_TARGET_COUNT;
    int written = 0, skipped = 0, status = LF_EXIT_PASS;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) { fputs(usage, stdout); return LF_EXIT_PASS; }
        if (!strcmp(argv[i], "--out") && i + 1 < argc) out_dir = argv[++i];
        else if (!strcmp(argv[i], "--target") && i + 1 < argc && lf_target_parse(argv[i + 1], &target)) i++;
        else if (argv[i][0] == '-') { fprintf(stderr, "lossfuzz encode: bad option %s\n%s", argv[i], usage); return LF_EXIT_UNUSABLE; }
    }
    if (!out_dir || target == LF_TARGET_COUNT || target == LF_TARGET_JSON) {
        fprintf(stderr, "lossfuzz encode: --target (fuzz_class or fuzz_prob) and --out are required\n%s", usage);
        return LF_EXIT_UNUSABLE;
    }
    size_t cap = 1 << 20;
    uint8_t *buf = malloc(cap);
    for (int i = 0; buf && i < argc; i++) {
        if (argv[i][0] == '-') { i++; continue; }
        lf_case c;
        char err[512], path[4096];
        if (!lf_case_load_json_file(argv[i], &c, err, sizeof err)) {
            fprintf(stderr, "lossfuzz encode: %s: %s\n", argv[i], err);
            status = LF_EXIT_UNUSABLE;
            continue;
        }
        size_t n = lf_encode(target, &c, buf, cap);
        lf_case_free(&c);
        if (!n) { skipped++; continue; }
        snprintf(path, sizeof path, "%s/%016llx", out_dir, (unsigned long long)lf_hash_bytes(buf, n));
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(buf, 1, n, f) != n) status = LF_EXIT_UNUSABLE;
        if (f) fclose(f);
        written++;
    }
    free(buf);
    printf("%d written, %d not of this target's family\n", written, skipped);
    return status;
}
