/* lf_case.h - a case: one call of a loss, with its tensors and options.
 * Everything in lossfuzz (spec, kernels, guard, oracle, fuzzers) works on cases. */
#ifndef LF_CASE_H
#define LF_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lf_dtype.h"
#include "lf_llm.h"
#include "lf_losses.h"
#include "lf_options.h"

#define LF_MAX_DIMS 8                   /* inputs and targets up to 8-D (PyTorch takes more; cases rarely need it) */
#define LF_MAX_NUMEL ((int64_t)1 << 28) /* per tensor; larger shapes are refused, not allocated */

/* The per-tensor element limit in force (LF_MAX_NUMEL unless lowered, as the
 * fuzz targets do to keep every execution fast). */
extern int64_t lf_numel_limit;
/* The size-limit error, with what a case at the limit costs to check. */
void lf_format_size_limit(char *err, size_t errlen);
#define LF_MAX_SPECIALS 8

/* The losses (lf_losses.def). LF_LOSS_LINEAR_CROSS_ENTROPY: cross_entropy(linear(input, linear_weight,
 * linear_bias), target, ...), the fused linear + cross-entropy of LM heads:
 * input is the hidden states [N, H] (or [H]), linear_weight [V, H] (or [V, d1..dK, H]). */
typedef enum { LF_REDUCTION_NONE, LF_REDUCTION_MEAN, LF_REDUCTION_SUM, LF_REDUCTION_INVALID } lf_reduction;
typedef enum { LF_OUTCOME_NONE, LF_OUTCOME_OK, LF_OUTCOME_HOST_ERROR, LF_OUTCOME_DEVICE_ASSERT } lf_outcome_kind;

/* How a tensor's values were generated, kept so a case file is written back as
 * it was read. Distributions: randn, uniform, randint, zeros, ones, full, onehot,
 * probs; then `offset` is added and a `special_rate` share of the elements is
 * replaced by values drawn from `specials`. */
typedef struct {
    char kind[16];
    uint64_t seed;
    double mean, std, low, high, value, offset, special_rate;
    double specials[LF_MAX_SPECIALS];
    int n_specials;
    unsigned given; /* LF_INIT_HAS_* bits: keys present in the file */
} lf_init;

enum {
    LF_INIT_HAS_MEAN = 1,
    LF_INIT_HAS_STD = 2,
    LF_INIT_HAS_LOW = 4,
    LF_INIT_HAS_HIGH = 8,
    LF_INIT_HAS_VALUE = 16,
    LF_INIT_HAS_OFFSET = 32,
    LF_INIT_HAS_SPECIALS = 64
};

/* The numeric keys of an init object, shared by the reader and the writer. */
typedef struct {
    const char *key;
    size_t offset;
    unsigned bit;
} lf_init_field;
#define LF_INIT_FIELD_COUNT 7
extern const lf_init_field lf_init_fields[LF_INIT_FIELD_COUNT];

typedef struct {
    bool present;
    lf_dtype dtype;
    int ndim;
    int64_t shape[LF_MAX_DIMS];
    int64_t numel;
    void *data; /* the values: contiguous, row-major, numel elements */
    /* How the kernels get it in memory (lf_layout.h): PyTorch's strides and
     * storage offset, in elements; strided = false is contiguous. A transposed,
     * sliced, channels-last or expanded tensor keeps its values in `data`. */
    bool strided;
    int64_t strides[LF_MAX_DIMS];
    int64_t offset;
    bool borrowed;  /* data belongs to someone else (a mapped dump) */
    bool on_device; /* data is the backend's memory (a CUDA tensor handed to the
                                            * guard library): given to the kernels as it is, never read
                                            * on the host; borrowed too */
    bool generated; /* values came from `init`, not a list */
    lf_init init;
} lf_tensor;

/* The backward half of a call, for a kernel under test that claims it and,
 * where the case gives it (`given`: its "backward" key, or the fuzzer's), for
 * lossfuzz's own reference and guard: the upstream gradient handed to
 * backward (seeded; for reduction none random with zeros, the same at the
 * first position, or one value everywhere; for mean and sum one random
 * number) and whether the input requires grad. A case without the key in its
 * file gets the defaults (seed 0, random, true). */
typedef enum { LF_UPSTREAM_RANDOM, LF_UPSTREAM_ZERO_FIRST, LF_UPSTREAM_EQUAL, LF_UPSTREAM_COUNT } lf_upstream;
typedef struct {
    bool given; /* written in the case file (or set by the fuzzer): kept there */
    uint64_t seed;
    lf_upstream upstream;
    bool input_requires_grad;
    bool linear_weight_requires_grad, linear_bias_requires_grad; /* fused linear + CE */
    /* A Python kernel is also called on softmax(input) along its last dim,
     * an output softmax saves for its backward: the input's gradient through
     * softmax must be what softmax's backward gives for the kernel's d
     * input, which a write into the saved output breaks. */
    bool through_softmax;
    /* Borrowed, for one run only: the upstream gradient the oracle made
     * (lf_upstream_values), n values of the result; never in a file. */
    const double *values;
    int64_t n_values;
} lf_backward;

const char *lf_upstream_name(lf_upstream u);
bool lf_upstream_parse(const char *name, lf_upstream *out);
/* The upstream gradient of a result of n values: values in [-2, 2] that
 * every float dtype holds exactly (multiples of 1/64), some of them 0. */
void lf_upstream_values(const lf_backward *b, int64_t n, double *out);

typedef struct {
    lf_loss loss;
    lf_tensor input, target, weight, pos_weight;
    lf_tensor linear_weight, linear_bias; /* LF_LOSS_LINEAR_CROSS_ENTROPY only */
    lf_tensor loss_mask;                  /* the LLM family: a float or bool per row (the target's shape) */
    /* The scalar options (lf_options.def): a field named as each (c->label_smoothing, c->softcap), and
     * has_NAME: written in the case, else at its default. The functions below reach them by the list. */
#define LF_OPTION(ID, NAME, TYPE, ...) TYPE NAME;
#include "lf_options.def"
#define LF_OPTION(ID, NAME, ...) bool has_##NAME;
#include "lf_options.def"
    lf_reduction reduction;  /* default mean */
    char reduction_name[32]; /* as written; kept for invalid names */
    bool has_reduction;
    /* The LLM family (lf_llm.def; docs/llm-cross-entropy.md), besides its
     * options: the class dimension last (logits [B, T, V], targets [B, T]);
     * and the ranks a vocabulary-parallel kernel runs on, each holding the
     * consecutive shard of the classes shards[r] (n_shards 0: split evenly). */
    bool vocab_last;
    int world_size; /* 1: one process */
    int n_shards;
    int64_t shards[LF_MAX_WORLD];
    lf_outcome_kind expect; /* LF_OUTCOME_NONE when the file gives none */
    char expect_error[48];  /* optional expected error class */
    char expect_hint[32];   /* optional expected guard hint id (a user's repro keeps it) */
    double *expect_value;   /* optional expected result (PyTorch's numbers) */
    int64_t n_expect_value;
    bool expect_value_scalar; /* written as a number, not a list */
    double expect_rtol;       /* > 0: each expect_value also within this fraction of itself (plus the dtype's
                               * atol), whatever the spec's own tolerance: a regression pinning its numbers */
    char note[256];           /* optional free text, kept for readers */
    lf_backward backward;     /* a kernel under test's backward half */
} lf_case;

/* The case's tensors in one order, for what treats them alike (copies,
 * the wire, the minimizer), by these indices. */
enum {
    LF_T_INPUT,
    LF_T_TARGET,
    LF_T_WEIGHT,
    LF_T_POS_WEIGHT,
    LF_T_LINEAR_WEIGHT,
    LF_T_LINEAR_BIAS,
    LF_T_LOSS_MASK,
    LF_CASE_TENSORS
};
extern const char *const lf_case_tensor_names[LF_CASE_TENSORS];
lf_tensor *lf_case_tensor(lf_case *c, int k);
const lf_tensor *lf_case_tensor_const(const lf_case *c, int k);

const char *lf_outcome_name(lf_outcome_kind k);
bool lf_outcome_parse(const char *name, lf_outcome_kind *out);
lf_reduction lf_reduction_parse(const char *name);

/* An option the case's loss does not take (BCE-with-logits has no
 * ignore_index or label_smoothing, only it has pos_weight, nll_loss has no
 * label_smoothing): false with err naming it. Case files and dumps both ask. */
bool lf_case_check_options(const lf_case *c, char *err, size_t errlen);
/* The label the case's loss ignores: its ignore_index, or for a loss that
 * takes none (the hinge) INT64_MAX, which no label a kernel reads as
 * int32 equals. */
int64_t lf_case_ignored_label(const lf_case *c);
/* Whether the case calls the LLM family's function: an option given (at its
 * off value too) or a loss mask. Its rules on shapes hold then. */
bool lf_case_llm_call(const lf_case *c);
/* Whether the case asks for more than PyTorch's function (an LLM option at
 * another value than its off one, a loss mask, the class dimension last on a
 * 3-D or larger input): then the LLM spec alone judges it, lossfuzz's own
 * kernels do not run it. With every option off a case is PyTorch's call,
 * judged by the plain spec's rules, whichever options it names. */
bool lf_case_beyond_pytorch(const lf_case *c);
/* The input's class dim: 0 for a 1-D input, the last with vocab_last (not a
 * fused linear's, whose dim 1 is the hidden size), else 1. */
int lf_case_class_dim(const lf_case *c);
/* The shape of the logits' rows (a value per row: the loss mask, an lse):
 * the input's without its class dim; for a fused linear the logits' without
 * theirs. Its number of dims. */
int lf_case_row_shape(const lf_case *c, int64_t shape[LF_MAX_DIMS]);
/* The shape of a valid call's result as torch.nn.functional gives it: []
 * when reduced, else the input's (BCE), the rows' (probability targets: a
 * float target, on a valid call) or the target's (class indices; [] for one
 * row, a [C] input, but where the loss is LF_LOSS_TARGET_SHAPED). Its number
 * of dims. */
int lf_case_result_shape(const lf_case *c, int64_t shape[LF_MAX_DIMS]);
/* A fused linear's logits, as torch 2.15's linear_cross_entropy shapes them:
 * [*input.shape[:-1], C, d1..dK] for linear_weight [C, d1..dK, H]; their
 * number of dims, -1 where the shapes make none (a weight under 2-D, a rank
 * past LF_MAX_DIMS). */
int lf_case_linear_logits_shape(const lf_case *c, int64_t shape[LF_MAX_DIMS]);
/* The classes of the case's logits: the input's class dim (1, the last for
 * vocab_last or a 1-D input), or a fused linear's linear_weight.shape[0]; -1
 * where there is none. */
int64_t lf_case_classes(const lf_case *c);
/* Whether a class-index target holds the case's ignore_index somewhere. */
bool lf_case_any_ignored(const lf_case *c);
/* Whether the case asks for label smoothing: any value but 0, NaN and negative ones too (PyTorch takes them
 * as none; a kernel may not), a trait of signatures and causes. */
bool lf_case_has_smoothing(const lf_case *c);
/* The first target that label smoothing's mask drops while nll_loss keeps it: a uint8 label equal to an
 * ignore_index outside [0, 255] cast to uint8 (-100 as 156, 2^31 as 0; PyTorch's target == ignore_index
 * compares in the target's dtype), or -1. PyTorch's answer then is not the loss asked for (silently). */
int64_t lf_case_first_wrapped_ignore(const lf_case *c);
/* The classes rank r holds of V under the case's split: [*first, *first + return). */
int64_t lf_case_shard(const lf_case *c, int64_t V, int r, int64_t *first);

/* A case's options by their list (lf_options.def; lf_options.c), for what
 * treats them alike (JSON, the wire, the minimizer, the claims). */
bool lf_case_given(const lf_case *c, lf_option o);          /* has_NAME; a tensor: present */
bool lf_case_option_on(const lf_case *c, lf_option o);      /* given, a scalar at another value than its default */
double lf_case_option_value(const lf_case *c, lf_option o); /* a scalar's, as a double */
int64_t lf_case_option_int(const lf_case *c, lf_option o);  /* an int64_t one's */
void lf_case_set_option(lf_case *c, lf_option o, double v); /* given from now on (an int64_t one's converted) */
void lf_case_set_option_int(lf_case *c, lf_option o, int64_t v);
void lf_case_option_off(lf_case *c, lf_option o); /* its default, not given; a tensor freed */

/* A case with PyTorch's defaults and no tensors. */
void lf_case_init(lf_case *c);
void lf_case_free(lf_case *c);

/* Sets shape and dtype, checks the size limit and allocates zeroed data.
 * Returns false (with a message in err) for a negative dim or a shape too large. */
bool lf_tensor_alloc(lf_tensor *t, lf_dtype dtype, int ndim, const int64_t *shape, char *err, size_t errlen);
void lf_tensor_free(lf_tensor *t);

/* Fills t->data from t->init. `class_dim` is where one-hot and probability
 * rows run (1, or 0 for a 1-D tensor). Returns false with a message for an
 * unknown distribution or one that does not fit the dtype. */
bool lf_init_fill(lf_tensor *t, char *err, size_t errlen);

#endif
