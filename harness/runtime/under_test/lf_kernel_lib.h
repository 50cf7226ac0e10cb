/* lf_kernel_lib.h - a kernel under test from a shared library
 * (include/lossfuzz/kernel.h), loaded and run by the C worker: the case's
 * tensors as DLTensors in fenced memory (lf_fence.h) on the CPU, or in
 * canary-guarded device memory on CUDA, and its answer as a path result. */
#ifndef LF_KERNEL_LIB_H
#define LF_KERNEL_LIB_H

#include "lf_backend.h"
#include "lf_kernel_claims.h"

typedef struct {
    void *handle;
    const lossfuzz_kernel *table;
    lf_kernel_claims claims;
} lf_kernel_lib;

/* dlopen's the library and checks its table (the ABI version first); false
 * with err saying what to do. A path without a slash is taken as ./path. */
bool lf_kernel_lib_open(const char *path, lf_kernel_lib *k, char *err, size_t errlen);
void lf_kernel_lib_close(lf_kernel_lib *k);

/* One forward call on c, its buffers from `mem`. r: ok with the values, a
 * host_error (kernel_rejected, kernel_failed, oob_write), or the error of a
 * failed copy; a device assert or a fault ends the process instead. */
void lf_kernel_lib_run(const lf_kernel_lib *k, const lf_case *c, const lf_backend *mem, lf_result *r);

#endif
