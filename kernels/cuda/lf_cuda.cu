/* lf_cuda.cu - the CUDA backend: the same kernel sources as the CPU simulation
 * (kernels/reference, kernels/guarded, kernels/lf_common.inc), compiled by nvcc.
 * Exports lf_cuda_* launch sequences over device pointers (lf_kernels.h).
 * Build with -DLF_ASSERT_HARD for real device-side asserts (what PyTorch users
 * hit); without it a failed assert is recorded in the lf_assert_record and the
 * context stays alive. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "lf_kernels.h"

static unsigned cuda_blocks(int64_t work)
{
    int64_t blocks = (work + 255) / 256;
    return (unsigned)(blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks);
}

#ifdef LF_ASSERT_HARD
#define LF_FN(name) lf_cuda_hard_##name /* both builds link into one worker */
#else
#define LF_FN(name) lf_cuda_##name
#endif
#define LF_LAUNCH(kernel, work, ...)                                                                                   \
    do {                                                                                                               \
        kernel<<<cuda_blocks(work), (work) == 1 ? 1 : 256>>>(__VA_ARGS__);                                             \
        cudaError_t launch_error = cudaGetLastError();                                                                 \
        if (launch_error != cudaSuccess) return (int)launch_error;                                                     \
    } while (0)
/* Blocks of exactly LF_BLOCK threads, `lanes` per group; a grid of at most
 * 2048 blocks strides over the rest (the block-level sums then flush once a block). */
#define LF_LAUNCH_GROUPS(kernel, groups, lanes, ...)                                                                   \
    do {                                                                                                               \
        int64_t lf_blocks_ = ((int64_t)(groups) * (lanes) + LF_BLOCK - 1) / LF_BLOCK;                                  \
        lf_blocks_ = lf_blocks_ < 1 ? 1 : lf_blocks_ > 2048 ? 2048 : lf_blocks_;                                       \
        kernel<<<(unsigned)lf_blocks_, LF_BLOCK>>>(__VA_ARGS__);                                                       \
        cudaError_t launch_error = cudaGetLastError();                                                                 \
        if (launch_error != cudaSuccess) return (int)launch_error;                                                     \
    } while (0)
#define LF_LAUNCH_CHECK() ((int)cudaDeviceSynchronize())

#include "lf_common.inc"
#include "reference/lf_reference.inc"
#include "guarded/lf_guarded.inc"
extern "C" {
#include "lf_launch.inc"
}
