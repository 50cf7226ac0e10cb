/* lf_port.h - the portability layer that lets one kernel source compile twice:
 * by nvcc into CUDA kernels, and by the C compiler into a CPU simulation that
 * runs the same grid of blocks and threads one thread at a time.
 *
 * Kernels written against this header may use: LF_KERNEL / LF_DEVICE functions,
 * lf_thread_index() / lf_thread_count() for grid-stride loops, LF_ATOMIC_ADD_F64,
 * the half/bfloat16 conversions below, and LF_KERNEL_ASSERT. They must not use
 * __syncthreads or warp intrinsics directly: threads cooperate through atomics,
 * or as the lanes of a group (lf_group.h), whose lane loops and reductions the
 * simulation runs serially, a group per simulated thread.
 *
 * LF_KERNEL_ASSERT has three modes (architecture.md):
 *   LF_ASSERT_HARD  a real device assert(), sticky, exactly what PyTorch users hit
 *   LF_ASSERT_SOFT  record the failure in an lf_assert_record and return (GPU fuzzing)
 *   simulation      (no __CUDACC__) the same record, written by the CPU; or, in
 *                   hard mode, CUDA's assertion line and abort() (a worker dies
 *                   as a process whose context a real assert killed)
 */
#ifndef LF_PORT_H
#define LF_PORT_H

#include <stdint.h>

#ifdef __CUDACC__
#include <assert.h>
#define LF_KERNEL static __global__ void
/* A kernel of groups (lf_group.h): blocks of 256 threads, at least 2 resident
 * per SM (at most 128 registers a thread: with the statistics and the sums a
 * thread keeps, fewer spill). Loads in flight come from LF_UNROLL. */
#define LF_GROUP_KERNEL static __global__ void __launch_bounds__(256, 2)
/* One that needs more (a fused backward): at least 1 block per SM. */
#define LF_GROUP_KERNEL_WIDE static __global__ void __launch_bounds__(256, 1)
#define LF_DEVICE static __device__ inline
#define LF_HOST_DEVICE static __host__ __device__ inline /* launch decisions too */
#define LF_BOOKKEEPING LF_DEVICE
#define LF_IS_CUDA 1
#else
#include <math.h>
#define LF_KERNEL static void
#define LF_GROUP_KERNEL static void
#define LF_GROUP_KERNEL_WIDE static void
#define LF_DEVICE static inline
#define LF_HOST_DEVICE static inline
#if defined(__clang__)
/* A block's bookkeeping - its sums and statistics merged and flushed - steers
 * no fuzzer: without coverage in the simulation, like the harness's plumbing.
 * A libFuzzer execution costs about as much per edge it touches as the work
 * itself (fuzzers/README.md, throughput); these were 50 of a case's 400. */
#define LF_BOOKKEEPING static __attribute__((no_sanitize("coverage")))
#else
#define LF_BOOKKEEPING static
#endif
#define LF_IS_CUDA 0
#endif

/* Where a failed kernel assert is recorded (soft mode and simulation). The
 * smallest offending flat index wins, so the record is the same whatever order
 * the threads ran in. */
typedef struct lf_assert_record {
    int32_t fired;     /* number of threads whose assert failed */
    int32_t kernel_id; /* LF_K_* of the first kernel that fired */
    int32_t pad[2];
    int64_t index; /* smallest offending flat element index */
    /* the smallest index * LF_ASSERT_SITE + cond_id: the condition that failed
     * there (a kernel with two asserts, as BCE's, may fail both in one launch) */
    int64_t site;
} lf_assert_record;
#define LF_ASSERT_SITE 256

#if LF_IS_CUDA
LF_DEVICE int64_t lf_thread_index(void) { return (int64_t)blockIdx.x * blockDim.x + threadIdx.x; }
LF_DEVICE int64_t lf_thread_count(void) { return (int64_t)gridDim.x * blockDim.x; }
LF_DEVICE void lf_atomic_add_f64(double *p, double v) { atomicAdd(p, v); }
LF_DEVICE void lf_atomic_add_i64(int64_t *p, int64_t v) { atomicAdd((unsigned long long *)p, (unsigned long long)v); }
LF_DEVICE void lf_atomic_min_i64(int64_t *p, int64_t v) { atomicMin((long long *)p, (long long)v); }
LF_DEVICE void lf_atomic_max_i64(int64_t *p, int64_t v) { atomicMax((long long *)p, (long long)v); }
#else
/* The simulated grid position, set by the launcher before each thread runs. */
extern _Thread_local int64_t lf_sim_thread_index, lf_sim_thread_count;
LF_DEVICE int64_t lf_thread_index(void) { return lf_sim_thread_index; }
LF_DEVICE int64_t lf_thread_count(void) { return lf_sim_thread_count; }
LF_DEVICE void lf_atomic_add_f64(double *p, double v) { *p += v; }
LF_DEVICE void lf_atomic_add_i64(int64_t *p, int64_t v) { *p += v; }
LF_DEVICE void lf_atomic_min_i64(int64_t *p, int64_t v)
{
    if (v < *p) *p = v;
}
LF_DEVICE void lf_atomic_max_i64(int64_t *p, int64_t v)
{
    if (v > *p) *p = v;
}
#endif

LF_DEVICE void lf_assert_fail(lf_assert_record *rec, int kernel_id, int cond_id, int64_t index, int64_t value)
{
#if LF_IS_CUDA
    if (atomicAdd(&rec->fired, 1) == 0) { rec->kernel_id = kernel_id; }
#else
    if (rec->fired++ == 0) { rec->kernel_id = kernel_id; }
#endif
    lf_atomic_min_i64(&rec->index, index);
    lf_atomic_min_i64(&rec->site, index * LF_ASSERT_SITE + cond_id);
    (void)value; /* the host reads the value at rec->index: no race on who wrote it */
}

#if LF_IS_CUDA && defined(LF_ASSERT_HARD)
/* Declared here as c10/macros/Macros.h does: CUDA's headers no longer declare
 * the device side of it. */
extern "C" __host__ __device__ void __assert_fail(const char *, const char *, unsigned int, const char *) noexcept
    __attribute__((__noreturn__));
/* Hard mode: a real device-side assert, as PyTorch's CUDA_KERNEL_ASSERT makes it:
 * __assert_fail directly, so NDEBUG cannot compile it out. The context is dead
 * afterwards (cudaErrorAssert, 710). */
/* The line CUDA prints names PyTorch's kernel and condition (lf_names.h), so
 * the executor can compare a real assert with the spec's prediction. */
#define LF_KERNEL_ASSERT(cond, rec, kernel_id, cond_id, index, value)                                                  \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            __assert_fail(lf_cond_text_at(cond_id), __FILE__, (unsigned)__LINE__, lf_kernel_name_at(kernel_id));       \
    } while (0)
#else
#if LF_IS_CUDA
#define LF_SIM_HARD_ASSERT(kernel_id, cond_id) ((void)0)
#else
/* The simulation's hard mode (lf_sim_set_hard_asserts): print CUDA's line, abort. */
extern int lf_sim_hard_asserts;
void lf_sim_assert_abort(const char *file, int line, int kernel_id, int cond_id);
#define LF_SIM_HARD_ASSERT(kernel_id, cond_id)                                                                         \
    do {                                                                                                               \
        if (lf_sim_hard_asserts) lf_sim_assert_abort(__FILE__, __LINE__, (kernel_id), (cond_id));                      \
    } while (0)
#endif
#define LF_KERNEL_ASSERT(cond, rec, kernel_id, cond_id, index, value)                                                  \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            LF_SIM_HARD_ASSERT((kernel_id), (cond_id));                                                                \
            lf_assert_fail((rec), (kernel_id), (cond_id), (index), (value));                                           \
            return;                                                                                                    \
        }                                                                                                              \
    } while (0)
#endif

/* IEEE half and bfloat16, stored as uint16_t, converted with round-to-nearest-even.
 * Written in plain integer code so the CPU and the GPU round identically. */
LF_DEVICE uint32_t lf_f32_bits(float f)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.f = f;
    return c.u;
}
LF_DEVICE float lf_bits_f32(uint32_t u)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.u = u;
    return c.f;
}
LF_DEVICE uint64_t lf_f64_bits(double d)
{
    union {
        double d;
        uint64_t u;
    } c;
    c.d = d;
    return c.u;
}
LF_DEVICE double lf_bits_f64(uint64_t u)
{
    union {
        double d;
        uint64_t u;
    } c;
    c.u = u;
    return c.d;
}

LF_DEVICE float lf_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f) return lf_bits_f32(sign | 0x7f800000u | (man << 13));
    if (exp == 0) { /* zero or subnormal: man * 2^-24 */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return lf_bits_f32(sign | ((exp + 112) << 23) | (man << 13));
}

LF_DEVICE uint16_t lf_float_to_half(float f)
{
    uint32_t u = lf_f32_bits(f), sign = (u >> 16) & 0x8000;
    uint32_t exp = (u >> 23) & 0xff, man = u & 0x7fffff;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0)); /* inf, nan */
    int32_t e = (int32_t)exp - 127 + 15;
    if (e >= 31) return (uint16_t)(sign | 0x7c00); /* overflow */
    if (e <= 0) {                                  /* subnormal or zero */
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000;
        uint32_t shift = (uint32_t)(14 - e), half_man = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rem > halfway || (rem == halfway && (half_man & 1))) half_man++;
        return (uint16_t)(sign | half_man);
    }
    uint32_t h = sign | ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++; /* may carry into inf: correct */
    return (uint16_t)h;
}

LF_DEVICE float lf_bf16_to_float(uint16_t b) { return lf_bits_f32((uint32_t)b << 16); }

LF_DEVICE uint16_t lf_float_to_bf16(float f)
{
    uint32_t u = lf_f32_bits(f);
    if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)((u >> 16) | 0x40); /* quiet nan */
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

#endif /* LF_PORT_H */
