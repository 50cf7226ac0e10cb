/* lf_backend_cuda.c - the CUDA backend for the harness: device memory through
 * the CUDA runtime, kernels from lf_cuda.cu (soft asserts: a failed assert is
 * recorded and the context stays alive). Built only when nvcc is found.
 * lf_cuda_backend() returns NULL when no usable GPU is present, so callers can
 * say "no GPU" instead of failing. Crash isolation (a worker process owning the
 * context) is the executor's job (harness/runtime/workers), not this file's. */
#include <cuda_runtime.h>
#include <stddef.h>

#include "lf_backend.h"

static void *cuda_alloc(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes ? bytes : 1) != cudaSuccess) return NULL;
    if (cudaMemset(p, 0, bytes ? bytes : 1) != cudaSuccess) {
        cudaFree(p);
        return NULL;
    }
    return p;
}

static void cuda_release(void *p) { cudaFree(p); }

static int cuda_to_device(void *dst, const void *src, size_t bytes)
{
    return bytes ? (int)cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) : 0;
}

static int cuda_to_host(void *dst, const void *src, size_t bytes)
{
    return bytes ? (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) : 0;
}

static int cuda_device_copy(void *dst, const void *src, size_t bytes)
{
    return bytes ? (int)cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice) : 0;
}

/* A sticky error (a device assert, an illegal address) survives being read;
 * a plain one (a launch that asked too much) is cleared by it. */
static const char *cuda_broken(void)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e == cudaSuccess) return NULL;
    cudaGetLastError();
    return cudaDeviceSynchronize() == cudaSuccess ? NULL : cudaGetErrorString(e);
}

static const lf_backend cuda_backend = {
    "cuda",
    cuda_alloc,
    cuda_release,
    cuda_to_device,
    cuda_to_host,
    lf_cuda_reference_forward,
    lf_cuda_guarded_validate,
    lf_cuda_guarded_forward,
    lf_cuda_reference_backward,
    cuda_broken,
    NULL,
    NULL,
    NULL,
    false,
    cuda_device_copy,
};

/* Real device asserts: the context dies with the first one. Only an executor
 * worker (harness/runtime/workers) runs these. */
static const lf_backend cuda_hard_backend = {
    "cuda",
    cuda_alloc,
    cuda_release,
    cuda_to_device,
    cuda_to_host,
    lf_cuda_hard_reference_forward,
    lf_cuda_hard_guarded_validate,
    lf_cuda_hard_guarded_forward,
    lf_cuda_hard_reference_backward,
    cuda_broken,
    NULL,
    NULL,
    NULL,
    false,
    cuda_device_copy,
};

const lf_backend *lf_cuda_backend(bool hard_asserts)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return NULL;
    return hard_asserts ? &cuda_hard_backend : &cuda_backend;
}
