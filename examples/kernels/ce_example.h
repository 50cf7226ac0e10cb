/* ce_example.h - what the example kernels share to build from one source
 * twice: by nvcc for CUDA (kDLCUDA, device pointers) and by the C compiler
 * for the CPU (kDLCPU, host pointers): CE_DEVICE functions, float32/float64
 * loads and stores, the rows' scratch, waiting for the kernels, and rejections. */
#ifndef CE_EXAMPLE_H
#define CE_EXAMPLE_H

#undef NDEBUG /* label checks stay in release builds, as CUDA_KERNEL_ASSERT does */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lossfuzz/kernel.h"

#ifdef __CUDACC__
#include <cuda_runtime.h>
#define CE_DEVICE static __device__ __host__ inline
#define CE_DEVICE_NAME kDLCUDA
#else
#define CE_DEVICE static inline
#define CE_DEVICE_NAME kDLCPU
#endif

/* Element i of a float32 or float64 buffer. */
CE_DEVICE double load(const char *base, int f64, int64_t i)
{
    return f64 ? ((const double *)base)[i] : ((const float *)base)[i];
}

CE_DEVICE void store(char *base, int f64, int64_t i, double v)
{
    if (f64)
        ((double *)base)[i] = v;
    else
        ((float *)base)[i] = (float)v;
}

static inline const char *at(const DLTensor *t) { return (const char *)t->data + t->byte_offset; }
static inline char *at_out(DLTensor *t) { return t ? (char *)t->data + t->byte_offset : NULL; }

static inline int reject(char *error, size_t size, const char *what)
{
    snprintf(error, size, "%s", what);
    return LOSSFUZZ_REJECTED;
}

#ifdef __CUDACC__
static inline void *scratch_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : NULL;
}

/* Waits for the kernels and frees the scratch: LOSSFUZZ_FAILED with CUDA's
 * error (a device-side assert among them) when they failed. */
static inline int finish(void *scratch, void *stream, char *error, size_t size)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaStreamSynchronize((cudaStream_t)stream);
    cudaFree(scratch);
    if (e == cudaSuccess) return LOSSFUZZ_OK;
    snprintf(error, size, "CUDA: %s", cudaGetErrorString(e));
    return LOSSFUZZ_FAILED;
}
#else
static inline void *scratch_alloc(size_t bytes) { return malloc(bytes); }

static inline int finish(void *scratch, void *stream, char *error, size_t size)
{
    (void)stream, (void)error, (void)size;
    free(scratch);
    return LOSSFUZZ_OK;
}
#endif

/* Two arrays of a double per row in one scratch allocation (finish frees
 * it through the first): LOSSFUZZ_OK, or LOSSFUZZ_FAILED saying why. */
static inline int scratch_rows(int64_t rows, double **first, double **second, char *error, size_t size)
{
    size_t n = (size_t)(rows ? rows : 1);
    *first = (double *)scratch_alloc(sizeof(double) * 2 * n);
    if (!*first) {
        snprintf(error, size, "cannot allocate %lld rows of scratch", (long long)rows);
        return LOSSFUZZ_FAILED;
    }
    *second = *first + n;
    return LOSSFUZZ_OK;
}

#endif
