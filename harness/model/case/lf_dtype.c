/* lf_dtype.c - names, sizes, rounding and element access for lf_dtype. The
 * half/bfloat16 bit conversions are the kernels' own (kernels/lf_port.h), so the
 * spec, the simulation and the GPU round identically. */
#include "lf_dtype.h"

#include <float.h>
#include <math.h>
#include <string.h>

static const char *const names[LF_DTYPE_COUNT] = {"float64", "float32", "float16", "bfloat16",
                                                  "int64",   "int32",   "uint8",   "bool"};
static const size_t sizes[LF_DTYPE_COUNT] = {8, 4, 2, 2, 8, 4, 1, 1};

const char *lf_dtype_name(lf_dtype t) { return t < LF_DTYPE_COUNT ? names[t] : "?"; }
size_t lf_dtype_size(lf_dtype t) { return sizes[t]; }

bool lf_dtype_parse(const char *name, lf_dtype *out)
{
    for (int t = 0; t < LF_DTYPE_COUNT; t++)
        if (strcmp(name, names[t]) == 0) {
            *out = (lf_dtype)t;
            return true;
        }
    return false;
}

double lf_dtype_max(lf_dtype t)
{
    switch (t) {
    case LF_F64: return DBL_MAX;
    case LF_F32: return FLT_MAX;
    case LF_F16: return 65504.0;
    case LF_BF16: return 3.3895313892515355e38;
    default: return 0;
    }
}

double lf_dtype_min_normal(lf_dtype t)
{
    switch (t) {
    case LF_F64: return DBL_MIN;
    case LF_F16: return 0x1p-14;
    default: return FLT_MIN; /* float32, bfloat16 */
    }
}

double lf_dtype_eps(lf_dtype t)
{
    switch (t) {
    case LF_F64: return DBL_EPSILON;
    case LF_F32: return FLT_EPSILON;
    case LF_F16: return 0x1p-10;
    case LF_BF16: return 0x1p-7;
    default: return 1;
    }
}

/* Wide enough for the rounding of log-probabilities to the input dtype (the
 * guard keeps them in float) and for summation order; NaN never passes. */
void lf_dtype_tolerance(lf_dtype t, double *rtol, double *atol)
{
    switch (t) {
    case LF_F64:
        *rtol = 1e-10;
        *atol = 1e-12;
        break;
    case LF_F32:
        *rtol = 1e-5;
        *atol = 1e-6;
        break;
    case LF_F16:
        *rtol = 4e-3;
        *atol = 1e-4;
        break;
    default:
        *rtol = 3e-2;
        *atol = 1e-3;
        break;
    }
}

lf_dtype lf_dtype_coarsest(lf_dtype a, lf_dtype b)
{
    if (!lf_dtype_is_float(b)) return a;
    if (!lf_dtype_is_float(a)) return b;
    return a > b ? a : b; /* the enum runs from float64 to bfloat16 */
}

lf_dtype lf_dtype_promote(lf_dtype a, lf_dtype b) { return lf_elem_promote(a, b); }

double lf_dtype_round(lf_dtype t, double v)
{
    switch (t) {
    /* double -> float -> half can round twice; only halfway cases differ and
     * kernels convert from float too, so this matches what they store. */
    case LF_F64:
    case LF_F32:
    case LF_F16:
    case LF_BF16: return lf_round_to(t, v);
    default: {
        int64_t i = lf_f64_to_i64(v);
        lf_store_i64(&i, t, 0, i); /* narrow like a C cast would */
        return (double)lf_load_i64(&i, t, 0);
    }
    }
}

double lf_load_f64(const void *data, lf_dtype t, int64_t i) { return lf_ld_f64(data, t, i); }
int64_t lf_load_i64(const void *data, lf_dtype t, int64_t i) { return lf_ld_i64(data, t, i); }
void lf_store_f64(void *data, lf_dtype t, int64_t i, double v) { lf_st_f64(data, t, i, v); }
void lf_store_i64(void *data, lf_dtype t, int64_t i, int64_t v) { lf_st_i64(data, t, i, v); }
