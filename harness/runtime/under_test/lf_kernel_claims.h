/* lf_kernel_claims.h - what a kernel under test says it supports
 * (include/lossfuzz/kernel.h), as the fuzzing side knows it: from the hello
 * of the worker that runs it (a C library's table, or a Python callable's
 * `lossfuzz_claims`), as JSON. A case outside the claims is not sent. */
#ifndef LF_KERNEL_CLAIMS_H
#define LF_KERNEL_CLAIMS_H

#include <jansson.h>
#include <stdbool.h>

#include "lf_case.h"
#include "lossfuzz/kernel.h"

/* What a kernel does differently from PyTorch on purpose (a Python
 * callable's claims; a C table says none): the findings these explain are
 * still reported and counted, as accepted, but never fail (lf_deviation.c). */
#define LF_MAX_ACCEPTED 16
typedef struct {
    int64_t min_batch, min_classes; /* no empty tensors: calls with fewer rows or classes */
    bool grad_in_place;             /* d input written into the input when it requires grad */
    bool float32_result;            /* a float32 result for bfloat16 or float16 input */
    bool labels_unchecked;          /* labels left unchecked: numbers for out-of-range labels */
    bool targets_flattened;         /* class targets viewed as [-1]: checked by their element count alone */
    bool no_ignore_index;           /* an API without ignore_index: no label is ignored, none is sent */
    bool empty_mean_zero;           /* a mean over no counted row is 0 (PyTorch's is NaN) */
    int n_accepted;                 /* signatures accepted with a reason ("accept": {"PREFIX": "REASON"}) */
    struct {
        char prefix[96], reason[160];
    } accepted[LF_MAX_ACCEPTED];
} lf_kernel_deviations;

/* The LLM family (lf_options.def, lf_llm.def; lf_llm_claims.c): the options it takes, each
 * by its own keyword (a Python callable's "options": {"softcap":
 * "logit_softcapping", ...}, any option of lossfuzz's renamed the same way),
 * the outputs it returns besides the loss ("outputs": ["loss", "z_loss"],
 * its return order), the class dim last ("vocab_last": [B, T, V] logits),
 * and vocabulary parallelism ("vocab_parallel": {"group": KEYWORD, "split":
 * "divisible" | "even" | "any", "empty_shards": BOOL}) on the worker's
 * world_size ranks, and the range of each option's values it takes ("ranges":
 * {NAME: [LOW, HIGH]}). None by default: a kernel that says nothing is sent
 * none of it. */
typedef enum {
    LF_SPLIT_EVEN,      /* ceil(V / W) classes a rank, the last the rest (lf_case_shard): the default */
    LF_SPLIT_DIVISIBLE, /* V / W each, V a multiple of W only: Megatron's and flash-attention's (rank * V / W) */
    LF_SPLIT_ANY        /* any consecutive cuts (the old "uneven_shards": true, empty shards included) */
} lf_split;

typedef struct {
    unsigned options; /* LF_OPT_LLM bits */
    unsigned outputs; /* 1 << lf_llm_output */
    bool vocab_last, vocab_parallel;
    lf_split split;
    bool empty_shards; /* a rank may hold no class (even V = 4, W = 3 gives [2, 2, 0]) */
    /* each option's values it takes where it says (LF_OPT_* bits in ranged: "ranges": {"logit_scale": [1e-6,
     * 1e6]}; flash-attention asserts a scale > 0), else any */
    unsigned ranged;
    double lo[LF_OPTION_COUNT], hi[LF_OPTION_COUNT];
    int world_size; /* the ranks its worker runs it on (0: one process, not vocabulary-parallel) */
} lf_llm_claims;

typedef struct {
    char name[128];
    char device[16]; /* "cpu" or "cuda" */
    bool guarded;
    unsigned losses, input_dtypes, target_dtypes, reductions, features; /* kernel.h's bits */
    int max_spatial_dims;
    bool backward;     /* d input is checked too (a Python callable's autograd; a C kernel's backward) */
    int64_t max_numel; /* the largest input it is sent (0: no limit): Triton's interpreter is slow */
    lf_kernel_deviations deviations;
    lf_llm_claims llm;
} lf_kernel_claims;

/* Everything lossfuzz can send: the claims of a kernel that says nothing. */
void lf_kernel_claims_all(lf_kernel_claims *k);
/* The claims of a C kernel's table. */
void lf_kernel_claims_of_table(const lossfuzz_kernel *t, lf_kernel_claims *k);

/* The hello's "kernel" object, and back; false with err for a bad one. */
/* The kinds of call the claimed losses take, as LF_TAKES bits (lf_losses.h) for class indices, probability
 * or binary targets; *fused_linear when one is a fused linear + CE. The byte format a campaign picks. */
unsigned lf_kernel_claims_targets(const lf_kernel_claims *k, bool *fused_linear);
json_t *lf_kernel_claims_json(const lf_kernel_claims *k);
bool lf_kernel_claims_parse(const json_t *o, lf_kernel_claims *k, char *err, size_t errlen);

/* NULL when the case is within the claims, else what is not claimed
 * ("input dtype bfloat16", "label_smoothing"): a skip's reason. */
const char *lf_kernel_claims_skip(const lf_kernel_claims *k, const lf_case *c);

/* Moves a fuzzed case inside the claims where one field stands in the way
 * (lf_claims_fit.c): the loss between nll_loss and cross_entropy, dtypes,
 * the reduction, unclaimed options left out. lossfuzz fuzz's campaigns only. */
void lf_kernel_claims_fit(const lf_kernel_claims *k, lf_case *c);

/* The LLM family's part of the claims (lf_llm_claims.c): read from the
 * hello, written to it, a case's reason to be skipped, and the fit. */
bool lf_llm_claims_parse(const json_t *o, lf_llm_claims *l, char *err, size_t errlen);
void lf_llm_claims_json(const lf_llm_claims *l, json_t *o);
const char *lf_llm_claims_skip(const lf_llm_claims *l, const lf_case *c);
void lf_llm_claims_fit(const lf_llm_claims *l, lf_case *c);

/* kernel.h's bits a case may go to a kernel under. cross_entropy's target
 * decides between class indices and probabilities as PyTorch does (the
 * input's shape: probabilities); a float target of another shape is a mistake
 * a kernel of either kind may be handed (class indices of a float dtype, or
 * probabilities of the wrong shape: a [1, C] meant to broadcast), both bits. */
unsigned lf_kernel_loss_bits(const lf_case *c);
/* The one bit of those the case goes under to a kernel claiming `losses`:
 * class indices where it claims both. */
unsigned lf_kernel_loss_bit(const lf_case *c, unsigned losses);
/* The first loss of `losses` (LOSSFUZZ_* claim bits) that takes an option a C kernel's call has no field
 * for, or NULL: a C kernel cannot be judged on it. */
const char *lf_kernel_claims_unreachable(unsigned losses);
/* kernel.h's bit of a dtype. */
unsigned lf_kernel_dtype_bit(lf_dtype t);

#endif
