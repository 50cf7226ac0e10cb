/* test_oracle.c - the oracle notices broken paths: a backend whose guard's
 * fused pass gathers no evidence, one whose guard's kernel asserts, one that names the wrong
 * offending target or the wrong reason, one whose kernels return wrong
 * numbers, one whose reference does not assert. Each must become a finding of
 * the right class. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lf_oracle.h"
#include "lf_test_util.h"

static lf_backend broken;

/* The guard's fused pass, its statistics then spoiled by `spoil`. */
static void (*spoil)(const lf_problem *p, lf_target_stats *s);
static int forward_spoiled(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_backend()->guarded_forward(p, b);
    if (b->stats) spoil(p, b->stats);
    return rc;
}

static void validating_nothing(const lf_problem *p, lf_target_stats *s)
{
    (void)p;
    lf_stats_init(s); /* "no bad target" */
}

static int forward_off_by_a_bit(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_backend()->guarded_forward(p, b);
    lf_st_f64(b->out, p->out_dtype, 0, lf_ld_f64(b->out, p->out_dtype, 0) * 1.001);
    return rc;
}

/* The reference's kernels in the guard's place (they assert), with the scratch they need. */
static int forward_by_reference(const lf_problem *p, const lf_buffers *b)
{
    lf_buffers with_scratch = *b;
    with_scratch.scratch = calloc((size_t)(p->N * p->C * p->S), sizeof(double));
    int rc = lf_sim_backend()->reference_forward(p, &with_scratch);
    free(with_scratch.scratch);
    return rc;
}

static int reference_without_asserts(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_backend()->reference_forward(p, b);
    memset(b->rec, 0, sizeof *b->rec);
    return rc;
}

static void naming_the_last(const lf_problem *p, lf_target_stats *s)
{
    if (s->n_bad > 1) s->first_bad = (p->one_d ? 1 : p->N * p->S) - 1; /* the right class, the wrong element */
}

static void calling_all_narrowed(const lf_problem *p, lf_target_stats *s)
{
    (void)p;
    s->n_narrowed_silently = s->n_bad; /* the right element, the wrong reason */
    s->first_narrowed = s->first_bad;
}

static lf_backend spoiling(void (*how)(const lf_problem *, lf_target_stats *))
{
    lf_backend be = *lf_sim_backend();
    spoil = how;
    be.guarded_forward = forward_spoiled;
    return be;
}

static const char *finding_of(const char *json)
{
    static char cls[96];
    lf_case c;
    lf_verdict v;
    lf_test_case(&c, json);
    lf_oracle_check(&c, &broken, &v);
    snprintf(cls, sizeof cls, "%s", v.finding ? v.finding_class : "pass");
    lf_verdict_free(&v);
    lf_case_free(&c);
    return cls;
}

#define CE(labels)                                                                                                     \
    "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [3, 4],"                             \
    " \"values\": {\"init\": \"randn\", \"seed\": 5}}, \"target\": {\"dtype\": \"int64\", \"shape\": [3], "            \
    "\"values\": " labels "}}"

static void a_correct_backend_passes(void **state)
{
    (void)state;
    broken = *lf_sim_backend();
    assert_string_equal(finding_of(CE("[0, 3, 1]")), "pass");
    assert_string_equal(finding_of(CE("[0, 4, 1]")), "pass");
}

static void a_guard_that_skips_validation_is_a_guard_miss(void **state)
{
    (void)state;
    broken = spoiling(validating_nothing);
    assert_string_equal(finding_of(CE("[0, 4, 1]")), "guard-miss/label_out_of_range");
}

static void a_guard_whose_kernel_asserts_is_a_guard_miss(void **state)
{
    (void)state;
    broken = *lf_sim_backend();
    broken.guarded_forward = forward_by_reference; /* gathers no statistics: "no bad target" */
    assert_string_equal(finding_of("{\"loss\": \"nll_loss\", \"input\": {\"dtype\": \"float32\", \"shape\": [3, 4],"
                                   " \"values\": {\"init\": \"randn\"}}, \"target\": {\"dtype\": \"int64\","
                                   " \"shape\": [3], \"values\": [0, 4, 1]}}"),
                        "guard-miss/device_assert");
}

static void a_guard_naming_the_wrong_target_is_a_diagnosis_mismatch(void **state)
{
    (void)state;
    broken = spoiling(naming_the_last);
    assert_string_equal(finding_of(CE("[0, 4, 9]")), "diagnosis-mismatch/label_out_of_range");
    assert_string_equal(finding_of(CE("[0, 4, 1]")), "pass"); /* one bad target: named right */
}

static void a_guard_giving_the_wrong_reason_is_a_diagnosis_mismatch(void **state)
{
    (void)state;
    broken = spoiling(calling_all_narrowed);
    assert_string_equal(finding_of(CE("[0, 4, 1]")), "diagnosis-mismatch/label_out_of_range");
}

static void wrong_numbers_are_a_value_mismatch(void **state)
{
    (void)state;
    broken = *lf_sim_backend();
    broken.guarded_forward = forward_off_by_a_bit;
    assert_string_equal(finding_of(CE("[0, 3, 1]")), "value-mismatch/guard");
}

static void a_reference_that_does_not_assert_is_caught(void **state)
{
    (void)state;
    broken = *lf_sim_backend();
    broken.reference_forward = reference_without_asserts;
    assert_string_equal(finding_of(CE("[0, 4, 1]")), "reference-mismatch/ok-vs-device_assert");
}

static int reference_backward_without_asserts(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_backend()->reference_backward(p, b);
    memset(b->rec, 0, sizeof *b->rec);
    return rc;
}

/* The fused backward's d input, its first value off by a little. */
static int forward_grad_off_by_a_bit(const lf_problem *p, const lf_buffers *b)
{
    int rc = lf_sim_backend()->guarded_forward(p, b);
    if (b->grad_in) lf_st_f64(b->grad_in, p->in_dtype, 0, lf_ld_f64(b->grad_in, p->in_dtype, 0) + 0.01);
    return rc;
}

#define BACKWARD ", \"backward\": {\"seed\": 3, \"upstream\": \"random\", \"input_requires_grad\": true}}"

static void backward_is_judged_on_both_paths(void **state)
{
    (void)state;
    /* label 2^32+1 in a spatial mean: the forward reads it narrowed, the backward kernel asserts */
    static const char *const truncated =
        "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": "
        "[1, 3, 2], \"values\": {\"init\": \"randn\"}}, \"target\": {\"dtype\": \"int64\", \"shape\": [1, 2], "
        "\"values\": [4294967297, 0]}" BACKWARD;
    char valid[512];
    snprintf(valid, sizeof valid, "%.*s" BACKWARD, (int)strlen(CE("[0, 3, 1]")) - 1, CE("[0, 3, 1]"));
    broken = *lf_sim_backend();
    assert_string_equal(finding_of(valid), "pass");
    assert_string_equal(finding_of(truncated), "pass");
    broken.reference_backward = reference_backward_without_asserts;
    assert_string_equal(finding_of(truncated), "reference-mismatch/ok-vs-device_assert");
    broken = *lf_sim_backend();
    broken.guarded_forward = forward_grad_off_by_a_bit;
    assert_string_equal(finding_of(valid), "grad-mismatch/guard");
    assert_string_equal(finding_of(CE("[0, 3, 1]")), "pass"); /* no backward asked: d input is not computed */
}

static void comparison_is_nan_safe(void **state)
{
    (void)state;
    assert_false(lf_values_close(NAN, 1, 1.0, LF_F32));
    assert_false(lf_values_close(1.0, 1, NAN, LF_F32));
    assert_true(lf_values_close(NAN, 0, NAN, LF_F32));
    assert_false(lf_values_close(INFINITY, 0, -INFINITY, LF_F32));
    assert_true(lf_values_close(INFINITY, 0, 65504.0, LF_F16)); /* overflow at the dtype's edge */
    assert_false(lf_values_close(INFINITY, 0, 1000.0, LF_F16));
    assert_true(lf_values_close(1.0, 1, 1.0 + 1e-7, LF_F32));
    assert_false(lf_values_close(1.0, 1, 1.0 + 1e-3, LF_F32));
}

/* A vocab-last case's classes are its last dim (V), not dim 1 (T): [1, 3, 0] has no classes, [1, 0, 4] is an
 * empty batch. */
static void a_vocab_last_case_counts_its_last_dim_as_classes(void **state)
{
    (void)state;
    static const char *cases[2] = {
        "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [1, 3, 0], \"values\": []},"
        " \"target\": {\"dtype\": \"int64\", \"shape\": [1, 3], \"values\": [-100, -100, -100]}, \"vocab_last\": true}",
        "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [1, 0, 4], \"values\": []},"
        " \"target\": {\"dtype\": \"int64\", \"shape\": [1, 0], \"values\": []}, \"vocab_last\": true}"};
    static const char *want[2] = {"no-classes", "empty"};
    for (int i = 0; i < 2; i++) {
        lf_case c;
        char sig[LF_SIGNATURE_MAX];
        lf_test_case(&c, cases[i]);
        lf_finding_signature(&c, "value-mismatch/kernel", sig, sizeof sig);
        if (!strstr(sig, want[i])) fail_msg("%s: want the trait %s", sig, want[i]);
        lf_case_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_correct_backend_passes),
        cmocka_unit_test(a_guard_that_skips_validation_is_a_guard_miss),
        cmocka_unit_test(a_guard_whose_kernel_asserts_is_a_guard_miss),
        cmocka_unit_test(a_guard_naming_the_wrong_target_is_a_diagnosis_mismatch),
        cmocka_unit_test(a_guard_giving_the_wrong_reason_is_a_diagnosis_mismatch),
        cmocka_unit_test(wrong_numbers_are_a_value_mismatch),
        cmocka_unit_test(a_reference_that_does_not_assert_is_caught),
        cmocka_unit_test(backward_is_judged_on_both_paths),
        cmocka_unit_test(comparison_is_nan_safe),
        cmocka_unit_test(a_vocab_last_case_counts_its_last_dim_as_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
