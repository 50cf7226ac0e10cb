/* lossfuzz/guard.h - lossfuzz's guard as a library: before a cross-entropy
 * loss runs, say whether PyTorch would compute the call as asked, or raise, or
 * hit a device-side assert, or silently miscompute - and why, with the first
 * offending element and a hint. The tensors are DLPack's DLTensor (what
 * PyTorch, CuPy and JAX exchange); they are read, never written, and only
 * while the call runs. Class-index targets may be CPU or CUDA tensors (a CUDA
 * one is validated on the GPU, where it is: a library built with CUDA, on a
 * machine with a GPU - lossfuzz_guard_devices); probability targets and the
 * input they go with are read on the CPU. The input's values are read only for
 * probability targets, a weight's never (data may be NULL then). The Python
 * package (python/lossfuzz) loads this library. */
#ifndef LOSSFUZZ_GUARD_H
#define LOSSFUZZ_GUARD_H

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: lossfuzz_call renamed lossfuzz_guard_call (kernel.h has its own); 3: lossfuzz_guard_loss */
#define LOSSFUZZ_GUARD_ABI 3u

/* One loss call, as torch.nn.functional takes it. */
typedef struct {
    const char *loss; /* "cross_entropy", ...: one lossfuzz_guard_loss names */
    const DLTensor *input, *target;
    const DLTensor *weight;     /* NULL: none */
    const DLTensor *pos_weight; /* NULL: none (BCE-with-logits only) */
    int64_t ignore_index;       /* -100 as PyTorch's default */
    const char *reduction;      /* "mean", "sum" or "none" */
    double label_smoothing;     /* 0 as PyTorch's default */
} lossfuzz_guard_call;

/* The guard's answer. Strings are NUL-terminated, empty when not given. */
typedef struct {
    int accepted;   /* 1: PyTorch computes the call as asked (warning may be set) */
    char error[48]; /* the rejection's stable class: label_out_of_range, target_dtype, ... */
    char message[512];
    char hint[512], hint_id[32]; /* what the data suggests the user did wrong */
    char warning[512], warning_id[32];
    int64_t index, value; /* the first offending target element and its value; index -1: none */
} lossfuzz_verdict;

/* Runs the guard on the call: 0 with out filled, or -1 when the arguments
 * themselves are unusable (a NULL tensor, a dtype DLPack names that PyTorch
 * has no loss for, a tensor not on the CPU): out->message says which. */
int lossfuzz_guard_check(const lossfuzz_guard_call *call, lossfuzz_verdict *out);

/* The name of the i-th loss a call can name, one a call's fields hold every
 * option of (a loss with options of its own, as a hinge's p, is left out); NULL
 * past the end. */
const char *lossfuzz_guard_loss(unsigned i);

/* LOSSFUZZ_GUARD_ABI of the library: a caller built against another refuses it. */
unsigned lossfuzz_guard_abi(void);

/* Where targets may live: LOSSFUZZ_GUARD_CPU always, LOSSFUZZ_GUARD_CUDA when
 * this library was built with CUDA and a GPU is present. */
#define LOSSFUZZ_GUARD_CPU 1u
#define LOSSFUZZ_GUARD_CUDA 2u
unsigned lossfuzz_guard_devices(void);

#ifdef __cplusplus
}
#endif

#endif
