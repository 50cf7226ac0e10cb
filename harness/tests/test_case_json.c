/* test_case_json.c - case files: lossless round trips and clear errors for bad input. */
#include <math.h>
#include <stdlib.h>

#include "lf_test_util.h"

static const char *const example =
    "{\"loss\": \"cross_entropy\",\n"
    " \"input\": {\"dtype\": \"float32\", \"shape\": [4, 3], \"values\": {\"init\": \"randn\", \"seed\": 7}},\n"
    " \"target\": {\"dtype\": \"int64\", \"shape\": [4], \"values\": [0, 1, 3, 2]},\n"
    " \"weight\": {\"dtype\": \"float32\", \"shape\": [3], \"values\": [1.0, 0.5, 2.0]},\n"
    " \"ignore_index\": -100,\n \"reduction\": \"mean\",\n \"label_smoothing\": 0.0,\n"
    " \"expect\": \"device_assert\"}\n";

static void example_round_trips_to_the_same_text(void **state)
{
    (void)state;
    lf_case c;
    lf_test_case(&c, example);
    assert_int_equal(c.loss, LF_LOSS_CROSS_ENTROPY);
    assert_int_equal(c.input.numel, 12);
    assert_int_equal(c.expect, LF_OUTCOME_DEVICE_ASSERT);
    assert_int_equal(lf_load_i64(c.target.data, c.target.dtype, 2), 3);
    char *text = lf_case_to_json(&c);
    assert_string_equal(text, example);
    free(text);
    lf_case_free(&c);
}

static void explicit_values_round_trip_exactly(void **state)
{
    (void)state;
    const char *json =
        "{\"loss\": \"binary_cross_entropy_with_logits\","
        " \"input\": {\"dtype\": \"float16\", \"shape\": [2, 3], \"values\": [0.1, -65504, \"inf\", \"-inf\", \"nan\", 1e-07]},"
        " \"target\": {\"dtype\": \"bfloat16\", \"shape\": [2, 3], \"values\": [0.3, 0, 1, 1, 0, 0.5]},"
        " \"pos_weight\": {\"dtype\": \"float64\", \"shape\": [3], \"values\": [0.1, 2, 3.25]},"
        " \"reduction\": \"sum\"}";
    lf_case a, b;
    lf_test_case(&a, json);
    char *once = lf_case_to_json(&a);
    lf_test_case(&b, once);
    char *twice = lf_case_to_json(&b);
    assert_string_equal(once, twice);
    assert_memory_equal(a.input.data, b.input.data, 12);
    assert_memory_equal(a.target.data, b.target.data, 12);
    assert_non_null(strstr(once, "[0.1, -65504.0, \"inf\", \"-inf\", \"nan\", 1e-07]")); /* shortest forms */
    free(once);
    free(twice);
    lf_case_free(&a);
    lf_case_free(&b);
}

static void expect_error(const char *json, const char *needle)
{
    lf_case c;
    char err[512] = "";
    if (lf_case_parse_json(json, strlen(json), &c, err, sizeof err)) fail_msg("accepted: %s", json);
    if (!strstr(err, needle)) fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

#define T(shape, values) "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": " shape \
    ", \"values\": " values "}, \"target\": {\"dtype\": \"int64\", \"shape\": [2], \"values\": [0, 1]}}"

static void bad_files_get_clear_errors(void **state)
{
    (void)state;
    expect_error("{\"loss\": \"cross_entropy\", \"input\": ", "line 1");
    expect_error("[1, 2]", "JSON object");
    expect_error("{\"loss\": \"hinge\"}", "loss:");
    expect_error("{\"loss\": \"cross_entropy\", \"target\": {}}", "input: missing");
    expect_error(T("[2, 2]", "[1, 2, 3]"), "has 3 numbers, the shape needs 4");
    expect_error(T("[2, -1]", "[]"), "input.shape[1]");
    expect_error(T("[1099511627776, 1099511627776]", "[]"), "more than");       /* overflow-proof */
    expect_error(T("[2, 2]", "{\"init\": \"cauchy\"}"), "unknown init");
    expect_error(T("[2, 2]", "[1, 2, \"x\", 4]"), "values[2]");
    expect_error("{\"loss\": \"cross_entropy\", \"ignore_idx\": 3}", "unknown key \"ignore_idx\"");
    expect_error("{\"loss\": \"nll_loss\", \"loss\": \"nll_loss\"}", "duplicate");
    expect_error("{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"int64\", \"shape\": [1], \"values\": [1]},"
                 " \"target\": {\"dtype\": \"int64\", \"shape\": [], \"values\": [0]}}", "logits are not supported");
    expect_error("{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [1], \"values\": [1]},"
                 " \"target\": {\"dtype\": \"uint8\", \"shape\": [], \"values\": [300]}}", "does not fit uint8");
    expect_error("{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [1], \"values\": [1]},"
                 " \"target\": {\"dtype\": \"int64\", \"shape\": [], \"values\": [0.5]}}", "needs integers");
}

static void defaults_are_pytorchs(void **state)
{
    (void)state;
    lf_case c;
    lf_test_case(&c, T("[2, 2]", "{\"init\": \"zeros\"}"));
    assert_int_equal(c.ignore_index, -100);
    assert_int_equal(c.reduction, LF_REDUCTION_MEAN);
    assert_true(c.label_smoothing == 0.0);
    assert_false(c.weight.present);
    lf_case_free(&c);
}

static void generators_are_deterministic(void **state)
{
    (void)state;
    lf_case a, b;
    lf_test_case(&a, T("[2, 2]", "{\"init\": \"randn\", \"seed\": 3, \"offset\": 10000}"));
    lf_test_case(&b, T("[2, 2]", "{\"init\": \"randn\", \"seed\": 3, \"offset\": 10000}"));
    assert_memory_equal(a.input.data, b.input.data, 16);
    assert_true(lf_load_f64(a.input.data, LF_F32, 0) > 9990);
    lf_case_free(&a);
    lf_case_free(&b);
    lf_test_case(&a, T("[2, 3]", "{\"init\": \"probs\", \"seed\": 1}"));
    double row = 0;
    for (int k = 0; k < 3; k++) row += lf_load_f64(a.input.data, LF_F32, k);
    assert_true(fabs(row - 1.0) < 1e-6);
    lf_case_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_round_trips_to_the_same_text),
        cmocka_unit_test(explicit_values_round_trip_exactly),
        cmocka_unit_test(bad_files_get_clear_errors),
        cmocka_unit_test(defaults_are_pytorchs),
        cmocka_unit_test(generators_are_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
