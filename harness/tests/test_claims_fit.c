/* test_claims_fit.c - a fuzzed case moved inside a kernel's claims
 * (lf_claims_fit.c): everything one field away is fitted, so the kernel
 * runs it; what is not (a float label) stays outside. */
#include <stdio.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(fitted_inside_the_claims),
                                       cmocka_unit_test(a_float_label_stays_outside)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
