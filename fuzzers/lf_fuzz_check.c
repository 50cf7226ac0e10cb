/* lf_fuzz_check.c - the oracle inside a fuzz target: a finding becomes a crash
 * whose DEDUP_TOKEN is the finding class (style.md #4), so libFuzzer's
 * -minimize_crash keeps the same bug and different bugs are never merged. The
 * input and its readable JSON case are saved first, atomically (write, fsync,
 * rename), so nothing is lost if the engine dies. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lf_case_json.h"
#include "lf_file.h"
#include "lf_fuzz.h"
#include "lf_hash.h"
#include "lf_oracle.h"

static const lf_backend *backend(void)
{
    static const lf_backend *be;
    if (!be) {
        const char *why, *name = getenv("LOSSFUZZ_BACKEND");
        be = lf_backend_find(name ? name : "sim", &why);
        if (!be) {
            fprintf(stderr, "lossfuzz: backend \"%s\": %s\n", name, why);
            exit(2);
        }
    }
    return be;
}

/* Saves <class>-<hash>.bin (the input) and .json (the case) under $LOSSFUZZ_FINDINGS. */
static void save(const char *cls, const char *json, const uint8_t *data, size_t size)
{
    const char *dir = getenv("LOSSFUZZ_FINDINGS");
    if (!dir || !*dir) return;
    char stem[160], name[200];
    lf_finding_file_stem(stem, sizeof stem, cls, lf_hash_bytes(data, size));
    snprintf(name, sizeof name, "%s.bin", stem);
    bool ok = lf_write_atomically(dir, name, data, size);
    snprintf(name, sizeof name, "%s.json", stem);
    ok &= json && lf_write_atomically(dir, name, json, strlen(json));
    fprintf(stderr, ok ? "lossfuzz: saved %s/%s.{bin,json}\n" : "lossfuzz: could not save %s/%s\n", dir, stem);
}

static void report(const lf_case *c, const char *cls, const char *detail, const uint8_t *data, size_t size)
{
    char *json = lf_case_to_json(c);
    fprintf(stderr, "\n==lossfuzz== finding %s: %s\n%s", cls, detail, json ? json : "(case not printable)\n");
    save(cls, json, data, size);
    fprintf(stderr, "DEDUP_TOKEN: %s\n", cls);
    free(json);
    abort();
}

/* $LOSSFUZZ_INJECT: the replay runner's self-test makes every case fail. */
static void inject(const lf_case *c, const uint8_t *data, size_t size)
{
    static const char *mode;
    static bool read_env;
    if (!read_env) { mode = getenv("LOSSFUZZ_INJECT"); read_env = true; }
    if (!mode) return;
    if (!strcmp(mode, "finding")) report(c, "selftest/injected", "LOSSFUZZ_INJECT=finding", data, size);
    if (!strcmp(mode, "crash")) raise(SIGSEGV);
    if (!strcmp(mode, "hang")) for (;;) pause();
}

void lf_fuzz_check(const lf_case *c, const uint8_t *data, size_t size)
{
    lf_verdict v;
    inject(c, data, size);
    lf_oracle_check(c, backend(), &v);
    if (v.finding) report(c, v.finding_class, v.detail, data, size);
    lf_verdict_free(&v);
}

void lf_fuzz_decoded(lf_target t, const uint8_t *data, size_t size)
{
    lf_case c;
    lf_decode(t, data, size, &c, NULL);
    lf_fuzz_check(&c, data, size);
    lf_case_free(&c);
}
