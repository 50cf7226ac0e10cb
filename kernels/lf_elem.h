/* lf_elem.h - element types and typed loads/stores, shared by the kernels (CPU
 * simulation and CUDA) and the host code, so every path reads a value the same way. */
#ifndef LF_ELEM_H
#define LF_ELEM_H

#include "lf_port.h"

#if !LF_IS_CUDA
#include <string.h>
#endif

/* Loads and stores through memcpy: a mapped dump's arrays need not be aligned
 * to their element size, and memcpy of a constant size is a plain move. */
#define LF_DEFINE_ACCESS(T, name)                                                                                      \
    LF_DEVICE T lf_load_##name(const void *p, int64_t i)                                                               \
    {                                                                                                                  \
        T v;                                                                                                           \
        memcpy(&v, (const char *)p + (size_t)i * sizeof(T), sizeof(T));                                                \
        return v;                                                                                                      \
    }                                                                                                                  \
    LF_DEVICE void lf_store_##name(void *p, int64_t i, T v)                                                            \
    {                                                                                                                  \
        memcpy((char *)p + (size_t)i * sizeof(T), &v, sizeof(T));                                                      \
    }
LF_DEFINE_ACCESS(int64_t, i64_at)
LF_DEFINE_ACCESS(int32_t, i32_at)
LF_DEFINE_ACCESS(uint8_t, u8_at)
LF_DEFINE_ACCESS(uint16_t, u16_at)
LF_DEFINE_ACCESS(double, f64_at)
LF_DEFINE_ACCESS(float, f32_at)
#define LF_LOAD(T, p, i) LF_LOAD_##T(p, i)
#define LF_LOAD_int64_t lf_load_i64_at
#define LF_LOAD_int32_t lf_load_i32_at
#define LF_LOAD_uint8_t lf_load_u8_at
#define LF_LOAD_uint16_t lf_load_u16_at
#define LF_LOAD_double lf_load_f64_at
#define LF_LOAD_float lf_load_f32_at
#define LF_STORE(T, p, i, v) LF_STORE_##T(p, i, v)
#define LF_STORE_int64_t lf_store_i64_at
#define LF_STORE_int32_t lf_store_i32_at
#define LF_STORE_uint8_t lf_store_u8_at
#define LF_STORE_uint16_t lf_store_u16_at
#define LF_STORE_double lf_store_f64_at
#define LF_STORE_float lf_store_f32_at

/* Floating types first: lf_dtype_is_float relies on the order. */
typedef enum { LF_F64, LF_F32, LF_F16, LF_BF16, LF_I64, LF_I32, LF_U8, LF_BOOL, LF_DTYPE_COUNT } lf_dtype;

/* Bytes per element. */
LF_HOST_DEVICE int lf_elem_size(int t)
{
    return t == LF_F64 || t == LF_I64 ? 8 : t == LF_F32 || t == LF_I32 ? 4 : t == LF_F16 || t == LF_BF16 ? 2 : 1;
}

/* PyTorch's result type of an op on two tensors (floating types win). */
LF_DEVICE lf_dtype lf_elem_promote(lf_dtype a, lf_dtype b)
{
    if (a == b || b > LF_BF16) return a;
    if (a > LF_BF16) return b;
    if (a == LF_F64 || b == LF_F64) return LF_F64;
    return LF_F32; /* f32 with anything narrower, and f16 with bf16 */
}

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
    case LF_I64: return LF_LOAD(int64_t, p, i);
    case LF_I32: return LF_LOAD(int32_t, p, i);
    case LF_U8: return LF_LOAD(uint8_t, p, i);
    case LF_BOOL: return LF_LOAD(uint8_t, p, i) != 0;
    case LF_F64: return lf_f64_to_i64(LF_LOAD(double, p, i));
    case LF_F32: return lf_f64_to_i64(LF_LOAD(float, p, i));
    case LF_F16: return lf_f64_to_i64(lf_half_to_float(LF_LOAD(uint16_t, p, i)));
    default: return lf_f64_to_i64(lf_bf16_to_float(LF_LOAD(uint16_t, p, i)));
    }
}

LF_DEVICE double lf_ld_f64(const void *p, int t, int64_t i)
{
    switch (t) {
    case LF_F64: return LF_LOAD(double, p, i);
    case LF_F32: return LF_LOAD(float, p, i);
    case LF_F16: return lf_half_to_float(LF_LOAD(uint16_t, p, i));
    case LF_BF16: return lf_bf16_to_float(LF_LOAD(uint16_t, p, i));
    default: return (double)lf_ld_i64(p, t, i);
    }
}

LF_DEVICE void lf_st_i64(void *p, int t, int64_t i, int64_t v)
{
    switch (t) {
    case LF_I64: LF_STORE(int64_t, p, i, v); break;
    case LF_I32: LF_STORE(int32_t, p, i, (int32_t)v); break;
    case LF_U8: LF_STORE(uint8_t, p, i, (uint8_t)v); break;
    case LF_BOOL: LF_STORE(uint8_t, p, i, v != 0); break;
    case LF_F64: LF_STORE(double, p, i, (double)v); break;
    case LF_F32: LF_STORE(float, p, i, (float)v); break;
    case LF_F16: LF_STORE(uint16_t, p, i, lf_float_to_half((float)v)); break;
    default: LF_STORE(uint16_t, p, i, lf_float_to_bf16((float)v)); break;
    }
}

LF_DEVICE void lf_st_f64(void *p, int t, int64_t i, double v)
{
    switch (t) {
    case LF_F64: LF_STORE(double, p, i, v); break;
    case LF_F32: LF_STORE(float, p, i, (float)v); break;
    case LF_F16: LF_STORE(uint16_t, p, i, lf_float_to_half((float)v)); break;
    case LF_BF16: LF_STORE(uint16_t, p, i, lf_float_to_bf16((float)v)); break;
    default: lf_st_i64(p, t, i, lf_f64_to_i64(v)); break;
    }
}

#endif
