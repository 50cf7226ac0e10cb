/* test_case_json.c - case files: lossless round trips and clear errors for bad input. */
#include <math.h>
#include <stdlib.h>

#include "lf_layout.h"
#include "lf_losses.h"
#include "lf_tensor_ops.h"
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
    const char *json = "{\"loss\": \"binary_cross_entropy_with_logits\","
                       " \"input\": {\"dtype\": \"float16\", \"shape\": [2, 3], \"values\": [0.1, -65504, \"inf\", "
                       "\"-inf\", \"nan\", 1e-07]},"
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

#define T(shape, values)                                                                                               \
    "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": " shape ", \"values\": " values      \
    "}, \"target\": {\"dtype\": \"int64\", \"shape\": [2], \"values\": [0, 1]}}"

static void bad_files_get_clear_errors(void **state)
{
    (void)state;
    expect_error("{\"loss\": \"cross_entropy\", \"input\": ", "line 1");
    expect_error("[1, 2]", "JSON object");
    expect_error("{\"loss\": \"hinge\"}", "loss:");
    expect_error("{\"loss\": \"cross_entropy\", \"target\": {}}", "input: missing");
    expect_error(T("[2, 2]", "[1, 2, 3]"), "has 3 numbers, the shape needs 4");
    expect_error(T("[2, -1]", "[]"), "input.shape[1]");
    expect_error(T("[1099511627776, 1099511627776]", "[]"), "more than"); /* overflow-proof */
    expect_error(T("[2, 2]", "{\"init\": \"cauchy\"}"), "unknown init");
    expect_error(T("[2, 2]", "[1, 2, \"x\", 4]"), "values[2]");
    expect_error("{\"loss\": \"cross_entropy\", \"ignore_idx\": 3}", "unknown key \"ignore_idx\"");
    expect_error("{\"loss\": \"nll_loss\", \"loss\": \"nll_loss\"}", "duplicate");
    expect_error("{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"int64\", \"shape\": [1], \"values\": [1]},"
                 " \"target\": {\"dtype\": \"int64\", \"shape\": [], \"values\": [0]}}",
                 "logits are not supported");
    expect_error("{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [1], \"values\": [1]},"
                 " \"target\": {\"dtype\": \"uint8\", \"shape\": [], \"values\": [300]}}",
                 "does not fit uint8");
    expect_error("{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [1], \"values\": [1]},"
                 " \"target\": {\"dtype\": \"int64\", \"shape\": [], \"values\": [0.5]}}",
                 "needs integers");
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

#define LAID_OUT(layout, values)                                                                                       \
    "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [2, 3],"                             \
    " \"values\": " values ", " layout "}, \"target\": {\"dtype\": \"int64\", \"shape\": [2], \"values\": [0, 1]}}"

/* Strides and offsets: read, written back, laid out in memory with poisoned
 * gaps; nonsense is refused with the key. */
static void strides_round_trip_and_lay_out(void **state)
{
    (void)state;
    lf_case c;
    size_t bytes;
    lf_test_case(&c, LAID_OUT("\"strides\": [1, 4], \"offset\": 2", "[0, 1, 2, 3, 4, 5]"));
    assert_true(c.input.strided);
    assert_int_equal(lf_layout_extent(&c.input), 2 + 1 + 2 * 4 + 1);
    assert_int_equal(lf_layout_at(&c.input, 1), 2 + 4); /* element (0, 1) */
    float *mem = lf_layout_storage(&c.input, &bytes);
    assert_int_equal(bytes, 12 * sizeof(float));
    assert_true(mem[2] == 0 && mem[6] == 1 && mem[3] == 3 && mem[11] == 5);
    assert_true(isnan(mem[0]) && isnan(mem[4])); /* the gaps */
    free(mem);
    char *text = lf_case_to_json(&c);
    assert_non_null(strstr(text, "\"strides\": [1, 4], \"offset\": 2"));
    lf_case back;
    lf_test_case(&back, text);
    assert_memory_equal(back.input.strides, c.input.strides, 2 * sizeof(int64_t));
    free(text);
    lf_case_free(&back);
    lf_case_free(&c);
    lf_test_case(&c, LAID_OUT("\"strides\": [3, 1], \"offset\": 0", "[0, 1, 2, 3, 4, 5]"));
    assert_false(c.input.strided); /* contiguous after all */
    lf_case_free(&c);
    lf_test_case(&c, LAID_OUT("\"strides\": [0, 1]", "{\"init\": \"randn\", \"seed\": 2}"));
    assert_true(lf_load_f64(c.input.data, LF_F32, 4) == lf_load_f64(c.input.data, LF_F32, 1)); /* expanded: repeats */
    lf_case_free(&c);
    expect_error(LAID_OUT("\"strides\": [0, 1]", "[0, 1, 2, 3, 4, 5]"), "input.values[3] differs");
    expect_error(LAID_OUT("\"strides\": [1]", "[0, 1, 2, 3, 4, 5]"), "input.strides: expected a list of 2");
    expect_error(LAID_OUT("\"strides\": [-1, 1]", "[0, 1, 2, 3, 4, 5]"), "negative strides");
    expect_error(LAID_OUT("\"strides\": [1099511627776, 1]", "[0, 1, 2, 3, 4, 5]"), "input.strides");
    expect_error(LAID_OUT("\"offset\": -3", "[0, 1, 2, 3, 4, 5]"), "offset -3");
}

/* A reshape keeps a strided layout's kinds (lf_layout_refit): the cause of a bug of strided input is sought
 * on rows that are strided the same way. */
static void a_layout_survives_a_reshape(void **state)
{
    (void)state;
    lf_case c;
    char name[48];
    lf_test_case(&c, LAID_OUT("\"strides\": [1, 4], \"offset\": 2", "[0, 1, 2, 3, 4, 5]"));
    lf_layout_kinds_name(lf_layout_kinds_of(&c.input), name, sizeof name);
    assert_string_equal(name, "transposed+gaps+offset");
    lf_tensor flat;
    assert_true(lf_tensor_flat(&c.input, &flat));
    lf_layout_refit(&flat, &c.input);
    lf_layout_kinds k = lf_layout_kinds_of(&flat);
    assert_true(flat.strided && k.gaps && k.offset && !k.permuted); /* 1-D: no order to keep */
    lf_tensor_free(&flat);
    lf_case_free(&c);
    lf_test_case(&c, LAID_OUT("\"strides\": [0, 1]", "{\"init\": \"randn\", \"seed\": 2}"));
    lf_layout_kinds_name(lf_layout_kinds_of(&c.input), name, sizeof name);
    assert_string_equal(name, "expanded");
    lf_case_free(&c);
}

/* The byte format's loss codes (lf_losses.def's CODE): one per loss, inside the byte's range, each read back as
 * its loss; a code no loss of a target has is none (the decoder skips the input). */
static void loss_codes_are_unique_and_read_back(void **state)
{
    (void)state;
    for (int l = 0; l < LF_LOSS_COUNT; l++) {
        const lf_loss_info *info = lf_loss_of((lf_loss)l);
        assert_true(info->code < LF_LOSS_CODES);
        for (int m = l + 1; m < LF_LOSS_COUNT; m++) assert_int_not_equal(info->code, lf_loss_of((lf_loss)m)->code);
        lf_loss back;
        if (!info->fused_linear) {
            assert_true(lf_loss_of_code(info->code, info->targets, &back));
            assert_int_equal(back, l);
        }
    }
    lf_loss none;
    assert_false(lf_loss_of_code(lf_loss_of(LF_LOSS_NLL)->code, LF_TAKES(LF_BINARY_TARGETS), &none));
    assert_false(lf_loss_of_code(lf_loss_of(LF_LOSS_LINEAR_CROSS_ENTROPY)->code, LF_TAKES(LF_CLASS_TARGETS), &none));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(example_round_trips_to_the_same_text), cmocka_unit_test(explicit_values_round_trip_exactly),
        cmocka_unit_test(bad_files_get_clear_errors),           cmocka_unit_test(defaults_are_pytorchs),
        cmocka_unit_test(generators_are_deterministic),         cmocka_unit_test(strides_round_trip_and_lay_out),
        cmocka_unit_test(a_layout_survives_a_reshape),          cmocka_unit_test(loss_codes_are_unique_and_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
