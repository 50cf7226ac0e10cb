/* lf_features.c - the case's structure as coverage, and as a campaign's
 * statistics (the cases whose rows take the block path, and their time). A
 * bug often needs a combination - a wide row AND a generated weight AND
 * reduction sum, or a strided target on the spatial path - that runs no code
 * of its own: on the simulation a 1536-class row takes the same branches as a
 * 3-class one. Each combination gets a distinct edge here (one switch case,
 * one call), so the engines (libFuzzer, AFL++) keep an input that reaches a
 * new one. */
#include "lf_features.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lf_kernels.h"
#include "lf_params.h"

/* Distinct, not folded into a table: one call per case. */
__attribute__((noinline)) static void hit(volatile int k) { (void)k; }

#define CASE1(n)                                                                                                       \
    case (n):                                                                                                          \
        hit(n);                                                                                                        \
        break;
#define CASE4(n) CASE1(n) CASE1((n) + 1) CASE1((n) + 2) CASE1((n) + 3)
#define CASE16(n) CASE4(n) CASE4((n) + 4) CASE4((n) + 8) CASE4((n) + 12)
#define CASE64(n) CASE16(n) CASE16((n) + 16) CASE16((n) + 32) CASE16((n) + 48)

int64_t lf_fuzz_classes(const lf_case *c)
{
    const lf_tensor *in = &c->input, *w = &c->linear_weight;
    if (lf_loss_of(c->loss)->fused_linear) return w->ndim ? w->shape[0] : 1; /* linear_weight's rows */
    return in->ndim >= 2 ? in->shape[1] : in->ndim ? in->shape[0] : 1;
}

/* The class count: none, small, a warp's, past a block of 1024 threads, or
 * past LF_BLOCK_ROW (the block path). */
static int classes_bucket(const lf_case *c)
{
    int64_t C = lf_fuzz_classes(c);
    return C <= 1 ? 0 : C <= 64 ? 1 : C <= LF_WIDE_ROW ? 2 : C <= LF_BLOCK_ROW ? 3 : 4;
}

/* The largest class-index label: small, within a block of 1024 threads, past
 * it, or past LF_BLOCK_ROW. */
static int label_bucket(const lf_case *c)
{
    const lf_tensor *t = &c->target;
    int64_t hi = 0;
    if (lf_dtype_is_float(t->dtype)) return 0;
    for (int64_t i = 0; i < t->numel; i++) {
        int64_t v = lf_load_i64(t->data, t->dtype, i);
        hi = v > hi ? v : hi;
    }
    return hi < 64 ? 0 : hi < LF_WIDE_ROW ? 1 : hi < LF_BLOCK_ROW ? 2 : 3;
}

static int weight_kind(const lf_tensor *w)
{
    if (!w->present) return 0;
    if (!w->generated) return 1;
    return w->init.special_rate > 0 ? 3 : 2; /* with zeros, NaNs, infinities */
}

/* The first switch's cases: every loss of the table (lf_losses.def) has its own. */
_Static_assert(LF_LOSS_COUNT * 32 <= 256, "lf_fuzz_features: a loss past the switch's 256 cases gets no feature");

void lf_fuzz_features(const lf_case *c)
{
    int loss = (int)c->loss;                                           /* LF_LOSS_COUNT */
    int red = (int)c->reduction;                                       /* 4 */
    int layout = c->input.strided + 2 * c->target.strided;             /* 4 */
    int spatial = c->input.ndim >= 3;                                  /* 2 */
    int classes = classes_bucket(c), weight = weight_kind(&c->weight); /* 5, 4 */
    int a = ((loss * 4 + red) * 4 + layout) * 2 + spatial;             /* < LF_LOSS_COUNT * 32 */
    int b = classes * 4 + weight;                                      /* < 20 */
    switch (a) {
        CASE64(0) CASE64(64) CASE64(128) CASE64(192) default : break;
    }
    switch (b * 4 + weight_kind(&c->pos_weight)) {
        CASE64(0) CASE16(64) default : break;
    }
    switch (b * 4 + red) {
        CASE64(0) CASE16(64) default : break;
    }
    switch ((classes * 4 + label_bucket(c)) * 4 + weight) {
        CASE64(0) CASE16(64) default : break;
    }
}

static struct {
    long long cases, block;
    double seconds, block_seconds, start;
} stats;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void print_stats(void)
{
    fprintf(stderr, "lossfuzz rows: %lld cases, %lld with rows past %d classes, %.1f%% of the cases' %.3f s\n",
            stats.cases, stats.block, LF_BLOCK_ROW, stats.seconds > 0 ? 100 * stats.block_seconds / stats.seconds : 0.0,
            stats.seconds);
}

void lf_fuzz_stats_begin(void)
{
    if (stats.cases == 0) {
        const char *on = getenv("LOSSFUZZ_STATS");
        if (on && !strcmp(on, "1")) atexit(print_stats);
    }
    stats.start = now();
}

void lf_fuzz_stats_end(const lf_case *c)
{
    double t = now() - stats.start;
    bool block = lf_loss_has_classes(c->loss) && lf_fuzz_classes(c) > LF_BLOCK_ROW;
    stats.cases++;
    stats.seconds += t;
    stats.block += block;
    if (block) stats.block_seconds += t;
}
