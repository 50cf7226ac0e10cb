/* test_minimize.c - the minimizer keeps what a finding is: its class and the
 * guard's hint, on a backend with a planted guard bug; it stops at its time
 * bound with the case so far, and cuts wide cases by halves. */
#include <stdio.h>
#include <stdlib.h>

#include "lf_minimize.h"
#include "lf_oracle.h"
#include "lf_test_util.h"

/* A guard that range-checks against C - 1: the last class is "out of range",
 * a false alarm (PyTorch accepts it). Its hint depends on the rest of the
 * batch: interpolated_void while an ignored 255 is beside it, else
 * too_many_classes, so a minimizer that drops the 255 changes the hint. */
static int validate_one_short(const lf_problem *p, const void *target, int64_t n, lf_target_stats *s)
{
    lf_problem q = *p;
    q.C = p->C - 1;
    return lf_sim_guarded_validate(&q, target, n, s);
}

/* The same bug in the fused pass (its loss is never the answer: the call is rejected). */
static int forward_one_short(const lf_problem *p, const lf_buffers *b)
{
    lf_problem q = *p;
    q.C = p->C - 1;
    return lf_sim_guarded_forward(&q, b);
}

static lf_backend one_short;

static const lf_backend *backend(void)
{
    one_short = *lf_sim_backend();
    one_short.guarded_validate = validate_one_short;
    one_short.guarded_forward = forward_one_short;
    return &one_short;
}

#define VOID_BESIDE_LAST_CLASS                                                                                         \
    "{\"loss\": \"cross_entropy\", \"ignore_index\": 255,"                                                             \
    " \"input\": {\"dtype\": \"float32\", \"shape\": [3, 4], \"values\": {\"init\": \"randn\", \"seed\": 1}},"         \
    " \"target\": {\"dtype\": \"int64\", \"shape\": [3], \"values\": [255, 3, 1]}}"

/* The finding class and the guard's hint of a case. */
static void verdict_of(const lf_case *c, char *cls, char *hint)
{
    lf_verdict v;
    lf_oracle_check(c, backend(), &v);
    snprintf(cls, 96, "%s", v.finding ? v.finding_class : "none");
    snprintf(hint, 32, "%s", v.guard.hint_id);
    lf_verdict_free(&v);
}

static void minimized_finding_keeps_guard_hint(void **state)
{
    (void)state;
    lf_case c;
    lf_minimize_stats st;
    char cls[96], hint[32];
    lf_test_case(&c, VOID_BESIDE_LAST_CLASS);
    verdict_of(&c, cls, hint);
    if (strcmp(cls, "false-alarm/label_out_of_range") || strcmp(hint, "interpolated_void"))
        fail_msg("the planted guard bug gives %s with hint %s, want false-alarm/label_out_of_range, interpolated_void",
                 cls, hint);
    assert_true(lf_minimize(&c, backend(), NULL, &st));
    verdict_of(&c, cls, hint);
    if (strcmp(cls, "false-alarm/label_out_of_range") || strcmp(hint, "interpolated_void"))
        fail_msg("minimized (%lld targets): %s with hint %s, want the original's interpolated_void",
                 (long long)c.target.numel, cls, hint);
    assert_true(c.target.numel < 3); /* the third row is not needed */
    lf_case_free(&c);
}

/* A 1x2048 bfloat16 row whose label is C: classes go by halves, not one by one. */
#define WIDE_ONE_BASED                                                                                                 \
    "{\"loss\": \"cross_entropy\","                                                                                    \
    " \"input\": {\"dtype\": \"bfloat16\", \"shape\": [1, 2048], \"values\": {\"init\": \"randn\", \"seed\": 2}},"     \
    " \"target\": {\"dtype\": \"int64\", \"shape\": [1], \"values\": [2048]}}"

static void count_calls(void *arg, const lf_minimize_stats *st)
{
    (void)st;
    ++*(int *)arg;
}

static void time_bound_keeps_the_case_so_far(void **state)
{
    (void)state;
    lf_case c;
    lf_minimize_stats st;
    int calls = 0;
    lf_test_case(&c, WIDE_ONE_BASED);
    lf_minimize_opts opts = {.max_ms = 1e-6, .progress = count_calls, .progress_arg = &calls};
    assert_true(lf_minimize(&c, lf_sim_backend(), &opts, &st)); /* the time is up before the first try */
    assert_true(st.cut_short);
    assert_int_equal(st.tries, 0);
    assert_int_equal(c.input.numel, 2048);
    assert_string_equal(st.signature, "device_assert/label_out_of_range/one_based_labels");
    opts.max_ms = 0; /* no bound */
    assert_true(lf_minimize(&c, lf_sim_backend(), &opts, &st));
    assert_false(st.cut_short);
    assert_int_equal(calls, st.tries); /* progress after every try */
    assert_int_equal(st.elements, c.input.numel + c.target.numel);
    if (c.input.numel > 2 || st.tries > 100) /* one class at a time took 4358 tries and stopped at 256 classes */
        fail_msg("%lld input elements left after %d tries", (long long)c.input.numel, st.tries);
    lf_case_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(minimized_finding_keeps_guard_hint),
        cmocka_unit_test(time_bound_keeps_the_case_so_far),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
