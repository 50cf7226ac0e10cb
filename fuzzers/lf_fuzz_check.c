/* lf_fuzz_check.c - the oracle inside a fuzz target. In a campaign
 * ($LOSSFUZZ_CAMPAIGN=DIR, ci/fuzz.sh's default) the target keeps going: a
 * finding or an accepted deviation goes into the campaign's ledger
 * (harness/tools/campaign: a new key's first case minimized into DIR/repros, later
 * hits counted) and the engine fuzzes on. Without it a finding becomes a crash
 * whose DEDUP_TOKEN is the finding class (style.md #4), so libFuzzer's
 * -minimize_crash keeps the same bug and different bugs are never merged; the
 * input and its readable JSON case are saved first, atomically (write, fsync,
 * rename), so nothing is lost if the engine dies. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lf_campaign.h"
#include "lf_case_json.h"
#include "lf_paths.h"
#include "lf_features.h"
#include "lf_file.h"
#include "lf_fuzz.h"
#include "lf_hash.h"
#include "lf_oracle.h"
#include "lf_tensor_ops.h"

static const lf_backend *the_backend;

/* At the campaign's end: what the workers went through (fuzz.sh shows it). */
static void print_executor_stats(void)
{
    const lf_exec_stats *st = lf_exec_stats_of(the_backend->exec);
    fprintf(stderr,
            "lossfuzz executor: %lld cases, %lld hard asserts survived, %lld crashes, %lld hangs, %lld workers "
            "started, recovery mean %.1f ms, max %.1f ms\n",
            (long long)st->requests, (long long)st->asserts, (long long)st->crashes, (long long)st->hangs,
            (long long)st->worker_starts, st->recoveries ? st->recovery_ms_total / (double)st->recoveries : 0.0,
            st->recovery_ms_max);
}

/* Where the paths run ($LOSSFUZZ_BACKEND, $LOSSFUZZ_ASSERTS, ... as
 * lf_paths_config_from_env reads them); a cuda backend always goes through
 * workers: this process never initializes CUDA. */
static const lf_backend *backend(void)
{
    static const lf_backend *be;
    if (!be) {
        lf_paths_config cfg;
        char err[1536];
        if (lf_paths_config_from_env(&cfg, err, sizeof err)) { /* the worker: the lossfuzz of this build */
            if (!cfg.timeout_s) cfg.timeout_s = 10;
            be = lf_paths_open(&cfg, err, sizeof err);
        }
        if (!be) {
            fprintf(stderr, "lossfuzz: %s\n", err);
            exit(2);
        }
        the_backend = be;
        if (be->exec) atexit(print_executor_stats);
    }
    return be;
}

/* Workers that cannot start are the set-up's fault, not the case's: stop. */
static void stop_if_no_workers(const lf_verdict *v)
{
    const lf_result *paths[] = {&v->reference, &v->guard, &v->torch};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
        if (!strcmp(paths[i]->error, "worker_start")) {
            fprintf(stderr, "lossfuzz: %s\n", paths[i]->message);
            exit(2);
        }
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

/* The campaign of $LOSSFUZZ_CAMPAIGN, NULL when the target stops at a finding.
 * A first case is minimized for 4 s at most: the engines give one input 10. */
static lf_campaign *campaign(void)
{
    static lf_campaign *k;
    static bool read_env;
    if (read_env) return k;
    read_env = true;
    const char *dir = getenv("LOSSFUZZ_CAMPAIGN");
    if (!dir || !*dir) return NULL;
    if (!lf_campaign_begin(dir, false) || !(k = lf_campaign_open(dir, 4e3))) {
        fprintf(stderr, "lossfuzz: cannot keep the campaign in %s\n", dir);
        exit(2);
    }
    return k;
}

/* $LOSSFUZZ_INJECT: the replay runner's self-test makes every case fail. */
static void inject(const lf_case *c, const uint8_t *data, size_t size)
{
    static const char *mode;
    static bool read_env;
    if (!read_env) {
        mode = getenv("LOSSFUZZ_INJECT");
        read_env = true;
    }
    if (!mode) return;
    if (!strcmp(mode, "finding")) report(c, "selftest/injected", "LOSSFUZZ_INJECT=finding", data, size);
    if (!strcmp(mode, "crash")) raise(SIGSEGV);
    if (!strcmp(mode, "hang"))
        for (;;) pause();
}

/* $LOSSFUZZ_NO_BACKWARD=1 (ci/bench-throughput.sh): forward only, so a
 * benchmark shows what backward costs. */
static bool no_backward(void)
{
    static int off = -1;
    if (off < 0) off = getenv("LOSSFUZZ_NO_BACKWARD") && !strcmp(getenv("LOSSFUZZ_NO_BACKWARD"), "1");
    return off;
}

void lf_fuzz_check(const lf_case *c, const uint8_t *data, size_t size)
{
    lf_verdict v;
    lf_fuzz_features(c);
    inject(c, data, size);
    lf_oracle_check(c, backend(), &v);
    stop_if_no_workers(&v);
    lf_case copy;
    if ((v.finding || v.accepted[0]) && campaign() && lf_case_copy(c, &copy)) { /* minimized in place */
        lf_campaign_hit(campaign(), &copy, &v, backend());
        lf_case_free(&copy);
    } else if (v.finding) {
        report(c, v.finding_class, v.detail, data, size);
    }
    lf_verdict_free(&v);
}

void lf_fuzz_decoded(lf_target t, const uint8_t *data, size_t size)
{
    lf_case c;
    if (!lf_decode(t, data, size, &c, NULL)) { /* a loss code no row has: skipped */
        lf_case_free(&c);
        return;
    }
    lf_fuzz_stats_begin(); /* after the decode: its time is counted from here (the decode is cheap) */
    if (no_backward()) c.backward.given = false;
    lf_fuzz_check(&c, data, size);
    lf_fuzz_stats_end(&c);
    lf_case_free(&c);
}
