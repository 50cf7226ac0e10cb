/* lossfuzz/kernel.h - the interface of a loss kernel under test (ABI version 3).
 *
 * A kernel under test is a shared library exporting one function:
 *
 *     const lossfuzz_kernel *lossfuzz_kernel_describe(uint32_t abi);
 *
 * lossfuzz calls it with LOSSFUZZ_KERNEL_ABI (the version it speaks); the
 * kernel returns its table with `abi` set to the version it was built
 * against (LOSSFUZZ_KERNEL_ENTRY below does both), or NULL to refuse. A
 * table whose abi differs from lossfuzz's is refused with a message naming
 * both versions: rebuild the kernel against the installed header.
 *
 * Tensors are DLPack DLTensors (dlpack/dlpack.h; Debian's libdlpack-dev), as
 * PyTorch, CuPy and JAX exchange them: `data` is 256-byte aligned, and a view
 * (transposed, sliced, channels-last, expanded with stride 0) has `strides`
 * and a `byte_offset`; `strides` is never NULL here. On CUDA the pointers
 * are device pointers; on the CPU, host pointers. Every buffer is exactly as
 * large as its tensor: lossfuzz fences it, and a read or write outside it is
 * a finding (guard pages on the CPU, canary bytes on the GPU).
 *
 * What a kernel claims (losses, dtypes, options, reductions) is what it is
 * sent: a case outside its claims is skipped and counted, never judged. A
 * *guarded* kernel promises to report every call PyTorch rejects (raises for,
 * or asserts on) by returning LOSSFUZZ_REJECTED; an unguarded one promises
 * only correct results on valid calls, and on a bad label it may stop the
 * way PyTorch does (a device-side assert on CUDA, assert() on the CPU), but
 * never return a number where PyTorch gives none.
 *
 * Shapes follow torch.nn.functional: input [N, C] or [C] or [N, C, d1, ...];
 * class targets [N] / [] / [N, d1, ...]; probability targets the input's
 * shape; `out` has the result's shape (the target's batch shape for
 * reduction none, [] otherwise) and the input's dtype.
 *
 * Backward (optional, ABI 2): `backward` gets the forward call again, with
 * `out` holding forward's result, `grad_out` the upstream gradient (out's
 * shape and dtype: seeded random numbers, zeros among them, for reduction
 * none; one number for mean and sum) and `grad_input` to fill with
 * d loss / d input (the input's shape and dtype, contiguous). grad_input
 * arrives filled with NaN: write every element, zeros included, as
 * PyTorch's autograd returns a whole tensor. No tensor but out (in
 * forward) and grad_input (in backward) may change: lossfuzz compares each
 * with a copy taken before the call.
 *
 * A fused linear + cross-entropy's backward fills each of grad_input,
 * grad_linear_weight and grad_linear_bias that is not NULL (those whose
 * tensor requires grad); it is called when any one is asked for.
 *
 * The LLM family (ABI 3; docs/llm-cross-entropy.md): a kernel that claims
 * some of logit_scale, softcap, z_loss_scale, n_items and the loss mask in
 * its table's llm_options is given them in the call (the others stay at
 * their "off" values: 1, 0, 0, 0, NULL); LOSSFUZZ_VOCAB_LAST in features
 * takes logits [N, d.., C] with the classes last; each output claimed in
 * `outputs` has a buffer to fill in forward: out_z_loss (the z-loss part,
 * reduced as out is) and out_lse (each row's log-sum-exp, the target's
 * shape), both of out's dtype.
 *
 * Version history: 1 forward only; 2 adds backward (grad_out, grad_input
 * and the table's backward) and fused linear + cross-entropy (the linear_*
 * fields); 3 the LLM family (the call's logit_scale..out_lse, the table's
 * llm_options and outputs); each appended, so an older kernel's source
 * builds unchanged against this header. */
#ifndef LOSSFUZZ_KERNEL_H
#define LOSSFUZZ_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOSSFUZZ_KERNEL_ABI 3u

/* Losses (a bit each in lossfuzz_kernel.losses). */
#define LOSSFUZZ_CROSS_ENTROPY 0x1u      /* F.cross_entropy, class-index targets */
#define LOSSFUZZ_CROSS_ENTROPY_PROB 0x2u /* F.cross_entropy, probability targets */
#define LOSSFUZZ_NLL 0x4u                /* F.nll_loss (input: log-probabilities) */
#define LOSSFUZZ_BCE_WITH_LOGITS 0x8u    /* F.binary_cross_entropy_with_logits */
/* Fused linear + cross-entropy, cross_entropy(linear(input, linear_weight,
 * linear_bias), target, ...): input the hidden states [N, H] or [H],
 * lossfuzz_call's linear_weight [V, H] and linear_bias [V] (or NULL), all of
 * one float dtype; class-index targets, the result as cross_entropy's. A
 * Python callable's signature: (input, linear_weight, target,
 * linear_bias=None, weight=None, ...). */
#define LOSSFUZZ_LINEAR_CROSS_ENTROPY 0x10u
/* F.multi_margin_loss(input, target, p=1, margin=1, weight=None): class
 * indices; Python kernels only for now (lossfuzz_call has no field for p and
 * margin: a library claiming it is refused). */
#define LOSSFUZZ_MULTI_MARGIN 0x20u
#define LOSSFUZZ_BCE 0x40u /* F.binary_cross_entropy: input probabilities in [0, 1], weight; no pos_weight */

/* Reductions (lossfuzz_call.reduction; a bit each in .reductions). */
enum { LOSSFUZZ_NONE = 0, LOSSFUZZ_MEAN = 1, LOSSFUZZ_SUM = 2 };
#define LOSSFUZZ_REDUCTION_BIT(r) (1u << (r))

/* Dtypes (a bit each in .input_dtypes and .target_dtypes). */
#define LOSSFUZZ_F32 0x01u
#define LOSSFUZZ_F64 0x02u
#define LOSSFUZZ_F16 0x04u
#define LOSSFUZZ_BF16 0x08u
#define LOSSFUZZ_I64 0x10u
#define LOSSFUZZ_I32 0x20u
#define LOSSFUZZ_U8 0x40u
#define LOSSFUZZ_BOOL 0x80u /* DLPack 0.6 has no bool code: {kDLUInt, 8} marked by this bit */

/* Options a kernel honours (.features). Without one, no case uses it: no
 * weight, ignore_index -100 (PyTorch's default, still honoured), no label
 * smoothing, no pos_weight. LOSSFUZZ_CONTIGUOUS_ONLY: the kernel is only
 * ever called with contiguous tensors, so strided cases are not sent. */
#define LOSSFUZZ_WEIGHT 0x01u
#define LOSSFUZZ_IGNORE_INDEX 0x02u
#define LOSSFUZZ_LABEL_SMOOTHING 0x04u
#define LOSSFUZZ_POS_WEIGHT 0x08u
#define LOSSFUZZ_CONTIGUOUS_ONLY 0x10u
#define LOSSFUZZ_LINEAR_BIAS 0x20u /* fused linear + CE: a linear_bias */
#define LOSSFUZZ_VOCAB_LAST 0x40u  /* ABI 3: logits [N, d.., C], the classes last */

/* The LLM family's options a kernel honours (ABI 3, .llm_options): in
 * harness/model/case/lf_options.def's order, then the loss mask. */
#define LOSSFUZZ_LOGIT_SCALE 0x01u
#define LOSSFUZZ_SOFTCAP 0x02u
#define LOSSFUZZ_Z_LOSS 0x04u
#define LOSSFUZZ_N_ITEMS 0x08u
#define LOSSFUZZ_LOSS_MASK 0x10u
/* Its outputs besides the loss (ABI 3, .outputs), lf_llm.def's order. */
#define LOSSFUZZ_OUT_Z_LOSS 0x01u
#define LOSSFUZZ_OUT_LSE 0x02u

/* What forward returns. */
enum {
    LOSSFUZZ_OK = 0,       /* out holds the result */
    LOSSFUZZ_REJECTED = 1, /* the call is invalid; `error` says why (guarded kernels) */
    LOSSFUZZ_FAILED = 2    /* anything else went wrong; `error` says what */
};

typedef struct {
    uint32_t loss;          /* one LOSSFUZZ_CROSS_ENTROPY.. bit */
    int reduction;          /* LOSSFUZZ_NONE, _MEAN, _SUM */
    int64_t ignore_index;   /* class targets; -100 by default */
    double label_smoothing; /* cross_entropy; 0 by default */
    const DLTensor *input;
    const DLTensor *target;
    const DLTensor *weight;     /* NULL when absent */
    const DLTensor *pos_weight; /* NULL when absent (BCE only) */
    DLTensor *out;
    void *stream; /* CUDA: the cudaStream_t to launch on (NULL: the default stream) */
    /* Backward only (NULL in forward): */
    const DLTensor *grad_out; /* the upstream gradient, out's shape and dtype */
    DLTensor *grad_input;     /* d loss / d input: the input's shape and dtype, contiguous;
                                 * NULL when the input does not require grad (a fused linear's) */
    /* Fused linear + cross-entropy only (NULL otherwise): */
    const DLTensor *linear_weight; /* [V, H] */
    const DLTensor *linear_bias;   /* [V], or NULL */
    DLTensor *grad_linear_weight;  /* backward: d loss / d linear_weight, or NULL when not asked for */
    DLTensor *grad_linear_bias;    /* backward: d loss / d linear_bias, or NULL */
    /* ABI 3, the LLM family (at their "off" values unless claimed): */
    double logit_scale, softcap, z_loss_scale, n_items; /* 1, 0, 0, 0 */
    const DLTensor *loss_mask;                          /* a float or bool per row, or NULL */
    DLTensor *out_z_loss;                               /* forward: the z-loss, reduced as out (if claimed) */
    DLTensor *out_lse;                                  /* forward: each row's log-sum-exp (if claimed) */
} lossfuzz_call;

typedef struct {
    uint32_t abi;        /* LOSSFUZZ_KERNEL_ABI of the header the kernel was built with */
    const char *name;    /* shown in findings and regressions */
    DLDeviceType device; /* kDLCPU or kDLCUDA */
    int guarded;         /* 1: reports bad input by LOSSFUZZ_REJECTED; 0: unguarded */
    uint32_t losses, input_dtypes, target_dtypes, reductions, features;
    int max_spatial_dims; /* 0: [N, C] and [C] only; k: up to [N, C, d1..dk] */
    /* Computes the loss into call->out; a message of at most error_size bytes
     * (NUL included) goes to error when the result is not LOSSFUZZ_OK. CUDA
     * kernels may return before the work ends: lossfuzz synchronizes. */
    int (*forward)(const lossfuzz_call *call, char *error, size_t error_size);
    /* d loss / d input into call->grad_input (see above), or NULL: forward
     * only. Same results and error contract as forward. */
    int (*backward)(const lossfuzz_call *call, char *error, size_t error_size);
    uint32_t llm_options; /* ABI 3: LOSSFUZZ_LOGIT_SCALE.. it honours */
    uint32_t outputs;     /* ABI 3: LOSSFUZZ_OUT_Z_LOSS, LOSSFUZZ_OUT_LSE it fills */
} lossfuzz_kernel;

#if defined(__GNUC__)
#define LOSSFUZZ_EXPORT __attribute__((visibility("default")))
#else
#define LOSSFUZZ_EXPORT
#endif

/* The one symbol lossfuzz looks up (declared here so C++ and CUDA give it C linkage). */
LOSSFUZZ_EXPORT const lossfuzz_kernel *lossfuzz_kernel_describe(uint32_t abi);
typedef const lossfuzz_kernel *(*lossfuzz_kernel_describe_fn)(uint32_t abi);
#define LOSSFUZZ_KERNEL_SYMBOL "lossfuzz_kernel_describe"

/* Defines the entry, returning `table` (a lossfuzz_kernel). */
#define LOSSFUZZ_KERNEL_ENTRY(table)                                                                                   \
    LOSSFUZZ_EXPORT const lossfuzz_kernel *lossfuzz_kernel_describe(uint32_t abi)                                      \
    {                                                                                                                  \
        (void)abi; /* lossfuzz compares table.abi with its own and says which to rebuild */                            \
        return &(table);                                                                                               \
    }

#ifdef __cplusplus
}
#endif

#endif
