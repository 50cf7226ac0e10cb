/* lf_elem.h - element types and typed loads/stores, shared by the kernels (CPU
 * simulation and CUDA) and the host code, so every path reads a value the same way. */
#ifndef LF_ELEM_H
#define LF_ELEM_H

#include "lf_port.h"

/* Floating types first: lf_dtype_is_float relies on the order. */
typedef enum {
    LF_F64, LF_F32, LF_F16, LF_BF16,
    LF_I64, LF_I32, LF_U8, LF_BOOL,
    LF_DTYPE_COUNT
} lf_dtype;

/* Float to integer without undefined behaviour: NaN gives 0, out of range saturates. */
LF_DEVICE int64_t lf_f64_to_i64(double v)
{
    if (!(v == v)) return 0;
    if (v >= 9.2233720368547758e18) return INT64_MAX;
    if (v <= -9.2233720368547758e18) return INT64_MIN;
    return (int64_t)v;
}

/* v rounded to a floating dtype's value set (where PyTorch stores an intermediate). */
LF_DEVICE double lf_round_to(int t, double v)
{
    switch (t) {
    case LF_F32: return (double)(float)v;
    case LF_F16: return lf_half_to_float(lf_float_to_half((float)v));
    case LF_BF16: return lf_bf16_to_float(lf_float_to_bf16((float)v));
    default: return v;
    }
}

LF_DEVICE int64_t lf_ld_i64(const void *p, int t, int64_t i)
{
    switch (t) {
    case LF_I64: return ((const int64_t *)p)[i];
    case LF_I32: return ((const int32_t *)p)[i];
    case LF_U8: return ((const uint8_t *)p)[i];
    case LF_BOOL: return ((const uint8_t *)p)[i] != 0;
    case LF_F64: return lf_f64_to_i64(((const double *)p)[i]);
    case LF_F32: return lf_f64_to_i64(((const float *)p)[i]);
    case LF_F16: return lf_f64_to_i64(lf_half_to_float(((const uint16_t *)p)[i]));
    default: return lf_f64_to_i64(lf_bf16_to_float(((const uint16_t *)p)[i]));
    }
}

LF_DEVICE double lf_ld_f64(const void *p, int t, int64_t i)
{
    switch (t) {
    case LF_F64: return ((const double *)p)[i];
    case LF_F32: return ((const float *)p)[i];
    case LF_F16: return lf_half_to_float(((const uint16_t *)p)[i]);
    case LF_BF16: return lf_bf16_to_float(((const uint16_t *)p)[i]);
    default: return (double)lf_ld_i64(p, t, i);
    }
}

LF_DEVICE void lf_st_i64(void *p, int t, int64_t i, int64_t v)
{
    switch (t) {
    case LF_I64: ((int64_t *)p)[i] = v; break;
    case LF_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case LF_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case LF_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case LF_F64: ((double *)p)[i] = (double)v; break;
    case LF_F32: ((float *)p)[i] = (float)v; break;
    case LF_F16: ((uint16_t *)p)[i] = lf_float_to_half((float)v); break;
    default: ((uint16_t *)p)[i] = lf_float_to_bf16((float)v); break;
    }
}

LF_DEVICE void lf_st_f64(void *p, int t, int64_t i, double v)
{
    switch (t) {
    case LF_F64: ((double *)p)[i] = v; break;
    case LF_F32: ((float *)p)[i] = (float)v; break;
    case LF_F16: ((uint16_t *)p)[i] = lf_float_to_half((float)v); break;
    case LF_BF16: ((uint16_t *)p)[i] = lf_float_to_bf16((float)v); break;
    default: lf_st_i64(p, t, i, lf_f64_to_i64(v)); break;
    }
}

#endif
