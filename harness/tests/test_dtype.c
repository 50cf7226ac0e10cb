/* test_dtype.c - half/bfloat16 rounding and integer narrowing, against known bit patterns. */
#include <math.h>

#include "lf_test_util.h"

static void half_known_values(void **state)
{
    (void)state;
    assert_int_equal(lf_float_to_half(1.0f), 0x3c00);
    assert_int_equal(lf_float_to_half(65504.0f), 0x7bff);
    assert_int_equal(lf_float_to_half(65520.0f), 0x7c00); /* halfway to the next: rounds to inf */
    assert_int_equal(lf_float_to_half(65519.0f), 0x7bff);
    assert_int_equal(lf_float_to_half(5.9604644775390625e-8f), 0x0001); /* smallest subnormal */
    assert_int_equal(lf_float_to_half(2.9802322387695312e-8f), 0x0000); /* half of it: ties to even (0) */
    assert_int_equal(lf_float_to_half(-0.0f), 0x8000);
    assert_int_equal(lf_float_to_half(1.0f + 1.0f / 2048), 0x3c00); /* tie between 1 and 1+2^-10: even */
    assert_int_equal(lf_float_to_half(1.0f + 3.0f / 2048), 0x3c02); /* tie: rounds up to even */
    assert_true(isnan(lf_half_to_float(lf_float_to_half(NAN))));
    assert_true(lf_half_to_float(0x7bff) == 65504.0f);
    assert_true(lf_half_to_float(0x0001) == 5.9604644775390625e-8f);
}

static void bf16_known_values(void **state)
{
    (void)state;
    assert_int_equal(lf_float_to_bf16(1.0f), 0x3f80);
    assert_int_equal(lf_float_to_bf16(1.0f + 1.0f / 256), 0x3f80); /* tie: even */
    assert_int_equal(lf_float_to_bf16(1.0f + 3.0f / 256), 0x3f82);
    assert_true(isnan(lf_bf16_to_float(lf_float_to_bf16(NAN))));
    assert_true(isinf(lf_bf16_to_float(lf_float_to_bf16(INFINITY))));
}

static void rounding_and_narrowing(void **state)
{
    (void)state;
    assert_true(lf_dtype_round(LF_F32, 0.1) == (double)0.1f);
    assert_true(lf_dtype_round(LF_I32, 4294967299.0) == 3.0); /* 2^32 + 3 narrows to 3 */
    assert_true(lf_dtype_round(LF_I32, 2147483648.0) == -2147483648.0);
    assert_true(lf_dtype_round(LF_U8, 256.0) == 0.0);
    assert_true(lf_dtype_round(LF_I64, NAN) == 0.0); /* no UB on NaN */
    assert_int_equal(lf_dtype_promote(LF_F32, LF_F16), LF_F32);
    assert_int_equal(lf_dtype_promote(LF_F16, LF_BF16), LF_F32);
    assert_int_equal(lf_dtype_promote(LF_F16, LF_I64), LF_F16);
    assert_int_equal(lf_dtype_promote(LF_F32, LF_F64), LF_F64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(half_known_values),
        cmocka_unit_test(bf16_known_values),
        cmocka_unit_test(rounding_and_narrowing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
