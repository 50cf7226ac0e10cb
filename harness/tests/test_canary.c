/* test_canary.c - the red zones (lf_canary.h) on the simulation: fake
 * backends whose kernels write or read one element outside a buffer, and a
 * correct one, whose values the canaries must not change. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lf_guard.h"
#include "lf_run.h"
#include "lf_test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifdef TEST_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define CASE(dtype, tdtype, reduction)                                                                                 \
    "{\"loss\": \"cross_entropy\","                                                                                    \
    " \"input\": {\"dtype\": \"" dtype "\", \"shape\": [3, 4], \"values\": {\"init\": \"randn\", \"seed\": 7}},"       \
    " \"target\": {\"dtype\": \"" tdtype "\", \"shape\": [3], \"values\": [0, 3, 1]},"                                 \
    " \"reduction\": \"" reduction "\"}"

/* Kernels of the fake backends: the real one, then one stray access. */
static int writes_past_out(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_reference_forward(p, b);
    lf_store_f64(b->out, (lf_dtype)p->out_dtype, 1, 0.0); /* out holds one element (reduction sum) */
    return rc;
}

static int writes_before_out(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_reference_forward(p, b);
    lf_store_f64((char *)b->out - lf_dtype_size((lf_dtype)p->out_dtype), (lf_dtype)p->out_dtype, 0, 0.0);
    return rc;
}

static int reads_past_input(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_reference_forward(p, b);
    double x = lf_load_f64(b->input, (lf_dtype)p->in_dtype, p->N * p->C * p->S);
    lf_store_f64(b->out, (lf_dtype)p->out_dtype, 0, x);
    return rc;
}

static int reads_past_target(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_reference_forward(p, b);
    int64_t label = lf_load_i64(b->target, (lf_dtype)p->tgt_dtype, p->N * p->S);
    lf_store_f64(b->out, (lf_dtype)p->out_dtype, 0, (double)label);
    return rc;
}

static int forward_writes_past_stats(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_guarded_forward(p, b);
    ((unsigned char *)b->stats)[sizeof *b->stats] = 0;
    return rc;
}

static lf_backend fake(int (*forward)(const lf_problem *, const lf_buffers *))
{
    lf_backend be = *lf_sim_backend();
    if (forward) be.reference_forward = forward;
    return be;
}

static lf_result reference_of(const lf_backend *be, const char *json)
{
    lf_case c;
    lf_result r;
    lf_test_case(&c, json);
    lf_reference_run(&c, be, &r);
    lf_case_free(&c);
    return r;
}

static void expect_oob_write(lf_result *r, const char *words)
{
    if (strcmp(r->error, "oob_write") || strcmp(r->exception, "RuntimeError"))
        fail_msg("got error '%s' (%s), want oob_write", r->error, r->message);
    if (!strstr(r->message, words)) fail_msg("message '%s' lacks '%s'", r->message, words);
    assert_int_equal(r->kind, LF_OUTCOME_HOST_ERROR);
    lf_result_free(r);
}

/* Runs first: main sets LOSSFUZZ_CANARY=1 before anything reads it. */
static void environment_turns_canaries_on(void **state)
{
    (void)state;
    assert_true(lf_canary_enabled(lf_sim_backend()));
    lf_canary_sim(0);
    assert_false(lf_canary_enabled(lf_sim_backend()));
    lf_canary_sim(1);
}

static void write_past_out_is_oob_write(void **state)
{
    (void)state;
    lf_backend be = fake(writes_past_out);
    lf_result r = reference_of(&be, CASE("float32", "int64", "sum"));
    expect_oob_write(&r, "the kernel wrote past the end of out: back red zone bytes 0..3 changed (out holds 4 bytes)");
    r = reference_of(&be, CASE("float64", "int64", "sum"));
    expect_oob_write(&r, "past the end of out: back red zone bytes 0..7 changed (out holds 8 bytes)");
    be = fake(writes_before_out);
    r = reference_of(&be, CASE("float16", "int64", "sum"));
    expect_oob_write(&r, "the kernel wrote before the start of out: front red zone bytes 254..255 changed "
                         "(2..1 bytes before it)");
}

static void validation_write_past_stats_is_oob_write(void **state)
{
    (void)state;
    lf_backend be = fake(NULL);
    be.guarded_forward = forward_writes_past_stats;
    lf_case c;
    lf_result r;
    lf_test_case(&c, CASE("float32", "int64", "mean"));
    lf_guard_run(&c, &be, &r);
    expect_oob_write(&r, "past the end of target_stats: back red zone bytes 0..7 changed");
    lf_case_free(&c);
}

static void read_past_input_is_nan(void **state)
{
    (void)state;
    static const char *const cases[] = {CASE("float32", "int64", "sum"), CASE("float64", "int64", "sum"),
                                        CASE("float16", "int64", "sum"), CASE("bfloat16", "int64", "sum")};
    lf_backend be = fake(reads_past_input);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lf_result r = reference_of(&be, cases[i]);
        assert_int_equal(r.kind, LF_OUTCOME_OK);
        if (!isnan(r.values[0])) fail_msg("%s: read %g past the input, want NaN", cases[i], r.values[0]);
        lf_result_free(&r);
    }
}

/* A label read past the target is out of range for C = 4 (and not ignore_index). */
static void read_past_target_is_bad_label(void **state)
{
    (void)state;
    static const char *const cases[] = {CASE("float64", "int64", "sum"), CASE("float64", "uint8", "sum")};
    lf_backend be = fake(reads_past_target);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lf_result r = reference_of(&be, cases[i]);
        assert_int_equal(r.kind, LF_OUTCOME_OK);
        double label = r.values[0];
        if (!(label < 0 || label >= 4) || label == -100) fail_msg("%s: read label %g past the target", cases[i], label);
        lf_result_free(&r);
    }
}

/* A correct kernel: no oob_write, and bit for bit the values without canaries. */
static void correct_kernels_are_unchanged(void **state)
{
    (void)state;
    static const char *const cases[] = {CASE("float32", "int64", "none"), CASE("float16", "uint8", "mean"),
                                        CASE("bfloat16", "int64", "sum"), CASE("float64", "int64", "mean")};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int guard = 0; guard < 2; guard++) {
            lf_case c;
            lf_result r[2];
            lf_test_case(&c, cases[i]);
            for (int on = 0; on < 2; on++) {
                lf_canary_sim(on);
                if (guard)
                    lf_guard_run(&c, lf_sim_backend(), &r[on]);
                else
                    lf_reference_run(&c, lf_sim_backend(), &r[on]);
                if (r[on].kind != LF_OUTCOME_OK) fail_msg("%s: %s with canaries %d", cases[i], r[on].message, on);
            }
            assert_int_equal(r[0].n, r[1].n);
            assert_true(r[0].n > 0);
            assert_memory_equal(r[0].values, r[1].values, (size_t)r[0].n * sizeof(double));
            lf_result_free(&r[0]);
            lf_result_free(&r[1]);
            lf_case_free(&c);
        }
    lf_canary_sim(1);
}

/* The simulation keeps released buffers for the next case: one given out
 * again is zeroed, and under ASan its pads still start at its edges and a
 * released one is poisoned whole. */
static void sim_buffers_reused_zeroed_and_fenced(void **state)
{
    (void)state;
    const lf_backend *be = lf_sim_backend();
    unsigned char *a = be->alloc(100);
    assert_non_null(a);
    for (int i = 0; i < 100; i++) a[i] = 0xab;
    be->release(a);
#ifdef TEST_ASAN
    assert_true(__asan_address_is_poisoned(a));
#endif
    unsigned char *b = be->alloc(90); /* the same capacity: the kept buffer */
    assert_ptr_equal(a, b);
    for (int i = 0; i < 90; i++) assert_int_equal(b[i], 0);
#ifdef TEST_ASAN
    assert_false(__asan_address_is_poisoned(b + 89));
    assert_true(__asan_address_is_poisoned(b + 90));
    assert_true(__asan_address_is_poisoned(b - 1));
    assert_true(__asan_address_is_poisoned(b + 90 + 4000));
#endif
    be->release(b);
}

int main(void)
{
    setenv("LOSSFUZZ_CANARY", "1", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(environment_turns_canaries_on),
        cmocka_unit_test(write_past_out_is_oob_write),
        cmocka_unit_test(validation_write_past_stats_is_oob_write),
        cmocka_unit_test(read_past_input_is_nan),
        cmocka_unit_test(read_past_target_is_bad_label),
        cmocka_unit_test(correct_kernels_are_unchanged),
        cmocka_unit_test(sim_buffers_reused_zeroed_and_fenced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
