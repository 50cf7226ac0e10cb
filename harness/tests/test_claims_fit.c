/* test_claims_fit.c - a fuzzed case moved inside a kernel's claims
 * (lf_claims_fit.c): everything one field away is fitted, so the kernel
 * runs it; what is not (a float label) stays outside. */
#include <stdio.h>
#include <string.h>

#include "lf_kernel_claims.h"
#include "lf_test_util.h"

static const char *const NLL_CASE =
    "{\"loss\": \"nll_loss\", \"reduction\": \"avg\", \"ignore_index\": 2,"
    " \"input\": {\"dtype\": \"float64\", \"shape\": [2, 3], \"values\": [-1, -2, -3, -4, -5, -6]},"
    " \"target\": {\"dtype\": \"int32\", \"shape\": [2], \"values\": [0, 2]},"
    " \"weight\": {\"dtype\": \"float64\", \"shape\": [3], \"values\": [1, 2, 3]}}";

static lf_kernel_claims narrow_claims(void)
{
    lf_kernel_claims k;
    lf_kernel_claims_all(&k);
    k.losses = LOSSFUZZ_CROSS_ENTROPY;
    k.input_dtypes = LOSSFUZZ_F32 | LOSSFUZZ_BF16;
    k.target_dtypes = LOSSFUZZ_I64;
    k.reductions = LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_NONE) | LOSSFUZZ_REDUCTION_BIT(LOSSFUZZ_SUM);
    k.features = 0;
    return k;
}

static void fitted_inside_the_claims(void **state)
{
    (void)state;
    lf_case c;
    lf_kernel_claims k = narrow_claims();
    lf_test_case(&c, NLL_CASE);
    assert_non_null(lf_kernel_claims_skip(&k, &c));
    lf_kernel_claims_fit(&k, &c);
    assert_null(lf_kernel_claims_skip(&k, &c));
    assert_int_equal(c.loss, LF_LOSS_CROSS_ENTROPY);
    assert_int_equal(c.input.dtype, LF_F32);
    assert_int_equal(c.target.dtype, LF_I64);
    assert_int_equal(lf_load_i64(c.target.data, c.target.dtype, 1), 2);
    assert_true(lf_load_f64(c.input.data, c.input.dtype, 5) == -6.0);
    assert_int_equal(c.reduction, LF_REDUCTION_NONE);
    assert_string_equal(c.reduction_name, "none");
    assert_false(c.weight.present);
    assert_int_equal(c.ignore_index, -100);
    lf_case_free(&c);
}

static void a_float_label_stays_outside(void **state)
{
    (void)state;
    lf_case c;
    lf_kernel_claims k = narrow_claims();
    lf_test_case(
        &c,
        "{\"loss\": \"cross_entropy\", \"input\": {\"dtype\": \"float32\", \"shape\": [1, 3], \"values\": [1, 2, 3]},"
        " \"target\": {\"dtype\": \"float64\", \"shape\": [1], \"values\": [1.5]}, \"reduction\": \"sum\"}");
    lf_kernel_claims_fit(&k, &c);
    assert_int_equal(c.target.dtype, LF_F64);
    assert_non_null(lf_kernel_claims_skip(&k, &c));
    lf_case_free(&c);
}

/* A [1, 1, 3] case decoded with its classes at dim 1 (rows [1, 3]) for a kernel that claims vocab_last: its
 * rows are [1, 1] then, and its mask follows (a [1, 3] mask was a case the kernel rightly refused). */
static void a_mask_follows_the_class_dim_the_kernel_claims(void **state)
{
    (void)state;
    lf_case c;
    lf_kernel_claims k;
    char err[256];
    lf_kernel_claims_all(&k);
    k.llm.options = LF_OPT_LOSS_MASK | LF_OPT_SOFTCAP;
    k.llm.vocab_last = true;
    lf_test_case(&c, "{\"loss\": \"cross_entropy\", \"softcap\": 50.0,"
                     " \"input\": {\"dtype\": \"float32\", \"shape\": [1, 1, 3], \"values\": [1, 2, 3]},"
                     " \"target\": {\"dtype\": \"int64\", \"shape\": [1, 3], \"values\": [0, 0, 0]},"
                     " \"loss_mask\": {\"dtype\": \"float32\", \"shape\": [1, 3], \"values\": [0.5, 1, 1]}}");
    lf_kernel_claims_fit(&k, &c);
    assert_true(c.vocab_last);
    assert_int_equal(c.loss_mask.ndim, 2);
    assert_int_equal(c.loss_mask.shape[0], 1);
    assert_int_equal(c.loss_mask.shape[1], 1);
    assert_true(lf_load_f64(c.loss_mask.data, c.loss_mask.dtype, 0) == 0.5);
    assert_true(lf_case_check_options(&c, err, sizeof err));
    lf_case_free(&c);
}

/* Vocabulary shards as the kernel claims them: divisible splits only, empty shards or not, any cuts. */
static void shards_as_the_kernel_claims_its_split(void **state)
{
    (void)state;
    lf_case c;
    lf_kernel_claims k;
    int64_t first;
    lf_kernel_claims_all(&k);
    k.llm.vocab_parallel = true;
    k.llm.world_size = 3;
    k.llm.split = LF_SPLIT_DIVISIBLE;
    lf_test_case(&c, "{\"loss\": \"cross_entropy\", \"world_size\": 3,"
                     " \"input\": {\"dtype\": \"float32\", \"shape\": [1, 4], \"values\": [1, 2, 3, 4]},"
                     " \"target\": {\"dtype\": \"int64\", \"shape\": [1], \"values\": [0]}}");
    assert_non_null(strstr(lf_kernel_claims_skip(&k, &c), "divisible"));
    k.llm.split = LF_SPLIT_EVEN; /* [2, 2, 0] */
    assert_non_null(strstr(lf_kernel_claims_skip(&k, &c), "empty shard"));
    k.llm.empty_shards = true;
    assert_null(lf_kernel_claims_skip(&k, &c));
    k.llm.split = LF_SPLIT_ANY;
    k.llm.empty_shards = false;
    for (uint64_t seed = 1; seed < 40; seed += 2) { /* odd seeds: cut anew, a class at least each */
        c.backward.seed = seed;
        lf_kernel_claims_fit(&k, &c);
        assert_int_equal(c.n_shards, 3);
        for (int r = 0; r < 3; r++) assert_true(lf_case_shard(&c, 4, r, &first) >= 1);
        assert_null(lf_kernel_claims_skip(&k, &c));
    }
    lf_case_free(&c);
}

/* "ranges": a logit_scale of -1 is outside flash-attention's (it asserts a scale > 0): skipped, and fitted to the
 * nearest value inside; a range without the option's off value is refused. */
static void an_option_in_the_range_the_kernel_claims(void **state)
{
    (void)state;
    lf_case c;
    lf_kernel_claims k;
    char err[256];
    json_t *o = json_loads("{\"name\": \"fa\", \"options\": {\"logit_scale\": \"logit_scale\"},"
                           " \"ranges\": {\"logit_scale\": [1e-6, 1e6]}}",
                           0, NULL);
    assert_true(lf_kernel_claims_parse(o, &k, err, sizeof err));
    lf_test_case(&c, "{\"loss\": \"cross_entropy\", \"logit_scale\": -1.0,"
                     " \"input\": {\"dtype\": \"float32\", \"shape\": [1, 2], \"values\": [1, 2]},"
                     " \"target\": {\"dtype\": \"int64\", \"shape\": [1], \"values\": [0]}}");
    assert_non_null(strstr(lf_kernel_claims_skip(&k, &c), "logit_scale -1"));
    lf_kernel_claims_fit(&k, &c);
    assert_null(lf_kernel_claims_skip(&k, &c));
    assert_true(c.logit_scale == 1e-6);
    json_decref(o);
    o = json_loads("{\"name\": \"fa\", \"ranges\": {\"logit_scale\": [2, 3]}}", 0, NULL);
    assert_false(lf_kernel_claims_parse(o, &k, err, sizeof err));
    assert_non_null(strstr(err, "around its default"));
    json_decref(o);
    lf_case_free(&c);
    /* a PyTorch option's range too (TransformerEngine documents label_smoothing in [0, 1]) */
    o = json_loads("{\"name\": \"te\", \"ranges\": {\"label_smoothing\": [0, 1]}}", 0, NULL);
    assert_true(lf_kernel_claims_parse(o, &k, err, sizeof err));
    lf_test_case(&c, "{\"loss\": \"cross_entropy\", \"label_smoothing\": -0.1,"
                     " \"input\": {\"dtype\": \"float32\", \"shape\": [1, 2], \"values\": [1, 2]},"
                     " \"target\": {\"dtype\": \"int64\", \"shape\": [1], \"values\": [0]}}");
    assert_non_null(strstr(lf_kernel_claims_skip(&k, &c), "label_smoothing -0.1"));
    lf_kernel_claims_fit(&k, &c);
    assert_null(lf_kernel_claims_skip(&k, &c));
    assert_true(c.label_smoothing == 0);
    json_decref(o);
    lf_case_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(fitted_inside_the_claims),
                                       cmocka_unit_test(a_float_label_stays_outside),
                                       cmocka_unit_test(a_mask_follows_the_class_dim_the_kernel_claims),
                                       cmocka_unit_test(shards_as_the_kernel_claims_its_split),
                                       cmocka_unit_test(an_option_in_the_range_the_kernel_claims)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
