/* test_guard.c - the guard's decisions and diagnoses on the named user mistakes
 * of pytorch-semantics.md section 5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lf_guard.h"
#include "lf_test_util.h"

static lf_result guard_of(const char *json)
{
    lf_case c;
    lf_result r;
    lf_test_case(&c, json);
    lf_guard_run(&c, lf_sim_backend(), &r);
    lf_case_free(&c);
    return r;
}

static void expect_rejection(const char *json, const char *error, const char *hint_id)
{
    lf_result r = guard_of(json);
    if (r.kind == LF_OUTCOME_OK) fail_msg("accepted, want %s/%s", error, hint_id);
    if (strcmp(r.error, error) || strcmp(r.hint_id, hint_id))
        fail_msg("got %s/%s (%s), want %s/%s", r.error, r.hint_id, r.message, error, hint_id);
    lf_result_free(&r);
}

#define SEG(tdtype, tshape, tvalues, extra)                                                                            \
    "{\"loss\": \"cross_entropy\","                                                                                    \
    " \"input\": {\"dtype\": \"float32\", \"shape\": [1, 4, 2, 2], \"values\": {\"init\": \"randn\"}},"                \
    " \"target\": {\"dtype\": \"" tdtype "\", \"shape\": " tshape ", \"values\": " tvalues "}" extra "}"

static void label_mistakes_get_their_hints(void **state)
{
    (void)state;
    expect_rejection(SEG("int64", "[1, 2, 2]", "[1, 2, 3, 4]", ""), "label_out_of_range", "one_based_labels");
    expect_rejection(SEG("int64", "[1, 2, 2]", "[0, 255, 3, 255]", ""), "label_out_of_range", "void_255");
    expect_rejection(SEG("int64", "[1, 2, 2]", "[0, -1, 3, 2]", ""), "label_out_of_range", "negative_labels");
    expect_rejection(SEG("int64", "[1, 2, 2]", "[0, 9, 3, 2]", ""), "label_out_of_range", "too_many_classes");
    expect_rejection(SEG("int64", "[1, 2, 2]", "[0, 255, 300, 2]", ""), "label_out_of_range", "too_many_classes");
    /* the spatial mean kernel reads 4294967299 as class 3: no assert, a wrong loss; rejected by its own name */
    expect_rejection(SEG("int64", "[1, 2, 2]", "[0, 4294967299, 3, 2]", ""), "label_truncated", "labels_past_int32");
    /* reduction none reads int64 and asserts; 2^31 is negative as int32 and asserts in every kernel */
    expect_rejection(SEG("int64", "[1, 2, 2]", "[0, 4294967299, 3, 2]", ", \"reduction\": \"none\""),
                     "label_out_of_range", "corrupt_labels");
    expect_rejection(SEG("int64", "[1, 2, 2]", "[0, 2147483648, 3, 2]", ""), "label_out_of_range", "corrupt_labels");
    expect_rejection(SEG("float32", "[1, 2, 2]", "[0, 1, 3, 2]", ""), "target_dtype", "float_mask");
    expect_rejection(SEG("float32", "[1, 2, 2]", "[0, 1.5, 3, 2.25]", ""), "target_dtype", "interpolated_mask");
    expect_rejection(SEG("int64", "[1, 2, 2, 1]", "[0, 1, 3, 2]", ""), "target_shape", "extra_channel_dim");
    expect_rejection(SEG("int64", "[1, 4, 2, 2]", "{\"init\": \"onehot\"}", ""), "prob_target_dtype", "one_hot_target");
}

/* A void-255 mask resized bilinearly to 5x5 and cast to long, made with torch:
 * F.interpolate(mask.float()[:, None], (5, 5), mode="bilinear").long(). Void
 * blends into labels 25..50; ignore_index=255 alone still asserts on them. */
#define RESIZED_VOID                                                                                                   \
    "[1, 1, 255, 28, 3, 1, 1, 255, 28, 3, 255, 255, 255, 255, 255, 25, 25, 255, 50, 27, 0, 0, 255, 27, 2]"
#define RESIZED(extra)                                                                                                 \
    "{\"loss\": \"cross_entropy\","                                                                                    \
    " \"input\": {\"dtype\": \"float32\", \"shape\": [1, 4, 5, 5], \"values\": {\"init\": \"randn\"}},"                \
    " \"target\": {\"dtype\": \"int64\", \"shape\": [1, 5, 5], \"values\": " RESIZED_VOID "}" extra "}"

static void interpolated_void_is_not_more_classes(void **state)
{
    (void)state;
    lf_result r = guard_of(RESIZED(""));
    assert_string_equal(r.hint_id, "interpolated_void");
    assert_non_null(strstr(r.hint, "ignore_index=255"));
    assert_non_null(strstr(r.hint, "mode='nearest'"));
    lf_result_free(&r);
    r = guard_of(RESIZED(", \"ignore_index\": 255"));
    assert_string_equal(r.hint_id, "interpolated_void");
    assert_non_null(strstr(r.hint, "mode='nearest'"));
    lf_result_free(&r);
    expect_rejection(SEG("int64", "[1, 2, 2]", "[0, 255, 63, 191]", ""), "label_out_of_range", "interpolated_void");
}

static void accepted_cases_keep_their_warnings(void **state)
{
    (void)state;
    lf_result r = guard_of(SEG("int64", "[1, 2, 2]", "[0, 255, 3, 255]", ", \"ignore_index\": 255"));
    assert_int_equal(r.kind, LF_OUTCOME_OK);
    lf_result_free(&r);
    r = guard_of(SEG("int64", "[1, 2, 2]", "[0, 1, 3, 2]", ", \"ignore_index\": 2"));
    assert_int_equal(r.kind, LF_OUTCOME_OK);
    assert_non_null(strstr(r.warning, "is a real class"));
    assert_string_equal(r.warning_id, "ignore_index_is_class");
    lf_result_free(&r);
    r = guard_of(SEG("float32", "[1, 4, 2, 2]", "{\"init\": \"uniform\", \"seed\": 2}", ""));
    assert_int_equal(r.kind, LF_OUTCOME_OK); /* soft targets not summing to 1: PyTorch accepts */
    assert_non_null(strstr(r.warning, "do not sum to 1"));
    assert_string_equal(r.warning_id, "soft_targets_not_normalized");
    lf_result_free(&r);
}

/* torch 1.13, this batch: probabilities 0.600297093, class indices 1.07195926
 * with weight (1.73733485 both without); with label_smoothing 0.1 0.68426609
 * and 1.2219038; with reduction 'sum' 3.0014856 both. */
#define ONE_HOT(extra)                                                                                                 \
    "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [5, 4],"                             \
    " \"values\": [-0.820134521, 0.395631164, 0.898908496, -1.38840389, 0.198445052, 0.782072663, 1.03910768,"         \
    " -0.724510729, -0.848908603, -1.21692944, -0.0810215846, 1.36148512, -2.0614779, 0.674100697, -1.32334578,"       \
    " -1.35976899, -0.866701603, -0.564006686, -2.05646253, -0.356722534]},"                                           \
    " \"target\": {\"dtype\": \"float32\", \"shape\": [5, 4], \"values\": [0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0,"        \
    " 0, 0, 0, 1, 1, 0, 0, 0]}" extra "}"
#define WEIGHT ", \"weight\": {\"dtype\": \"float32\", \"shape\": [4], \"values\": [0.1, 1, 2, 0.5]}"

/* The warning for a one-hot float target; `class_loss` is the class-index loss
 * it must name, or 0 when the two paths agree and it names none. */
static void expect_one_hot_warning(const char *json, double prob_loss, double class_loss)
{
    lf_result r = guard_of(json);
    assert_int_equal(r.kind, LF_OUTCOME_OK);
    assert_true(fabs(r.values[0] - prob_loss) < 1e-5); /* the warning changes no value */
    if (strcmp(r.warning_id, "one_hot_probabilities") || !strstr(r.warning, "probability path") ||
        !strstr(r.warning, "target.argmax(dim=1)"))
        fail_msg("warning %s: \"%s\"", r.warning_id, r.warning);
    const char *at = strstr(r.warning, "would give ");
    if (class_loss == 0 && at) fail_msg("the paths agree, yet: \"%s\"", r.warning);
    if (class_loss != 0 && (!at || fabs(strtod(at + 11, NULL) - class_loss) > 1e-5))
        fail_msg("want class-index loss %.9g in \"%s\"", class_loss, r.warning);
    lf_result_free(&r);
}

static void one_hot_float_target_warns(void **state)
{
    (void)state;
    expect_one_hot_warning(ONE_HOT(""), 1.73733485, 0);
    expect_one_hot_warning(ONE_HOT(WEIGHT), 0.600297093, 1.07195926);
    expect_one_hot_warning(ONE_HOT(WEIGHT ", \"label_smoothing\": 0.1"), 0.68426609, 1.2219038);
    expect_one_hot_warning(ONE_HOT(WEIGHT ", \"reduction\": \"sum\""), 3.0014856, 0);
    /* float64 weights for float32 logits: class indices would be rejected */
    lf_result r =
        guard_of(ONE_HOT(", \"weight\": {\"dtype\": \"float64\", \"shape\": [4], \"values\": [0.1, 1, 2, 0.5]}"));
    assert_int_equal(r.kind, LF_OUTCOME_OK);
    assert_non_null(strstr(r.warning, "would be rejected"));
    lf_result_free(&r);
}

/* A target handed over in the backend's memory (lf_tensor.on_device, as the
 * guard library keeps a CUDA target where it is): the same verdict, the
 * offending label read back from that memory, strided too. */
static void a_target_in_backend_memory_gets_the_same_verdict(void **state)
{
    (void)state;
    static const char *const cases[] = {SEG("int64", "[1, 2, 2]", "[1, 2, 3, 4]", ""),
                                        SEG("int64", "[1, 2, 2]", "[0, 4294967297, 3, 2]", ""),
                                        SEG("uint8", "[1, 2, 2]", "[0, 255, 3, 2]", ", \"ignore_index\": 3"),
                                        SEG("int64", "[1, 2, 2]", "[0, 1, 3, 2]", "")};
    const lf_backend *be = lf_sim_backend();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lf_case c;
        lf_problem p;
        lf_result host, dev;
        lf_test_case(&c, cases[i]);
        lf_guard_validate_case(&c, be, &p, &host);
        size_t bytes = (size_t)c.target.numel * lf_dtype_size(c.target.dtype);
        void *on_dev = be->alloc(bytes), *own = c.target.data;
        assert_int_equal(be->to_device(on_dev, own, bytes), 0);
        c.target.data = on_dev;
        c.target.on_device = c.target.borrowed = true;
        lf_guard_validate_case(&c, be, &p, &dev);
        if (host.kind != dev.kind || strcmp(host.error, dev.error) || host.index != dev.index ||
            host.value != dev.value)
            fail_msg("%s: in host memory %s target[%lld] = %lld, in backend memory %s target[%lld] = %lld", cases[i],
                     host.error, (long long)host.index, (long long)host.value, dev.error, (long long)dev.index,
                     (long long)dev.value);
        be->release(on_dev);
        c.target.data = own;
        c.target.on_device = c.target.borrowed = false;
        lf_result_free(&host);
        lf_result_free(&dev);
        lf_case_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(label_mistakes_get_their_hints),
        cmocka_unit_test(interpolated_void_is_not_more_classes),
        cmocka_unit_test(accepted_cases_keep_their_warnings),
        cmocka_unit_test(one_hot_float_target_warns),
        cmocka_unit_test(a_target_in_backend_memory_gets_the_same_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
