/* lf_params.h - what each parameter byte of the fuzz format selects. The
 * decoder (lf_decode.c) and the encoder (lf_encode.c) share these tables; the
 * first entry of each is the value all-zero bytes decode to. */
#ifndef LF_PARAMS_H
#define LF_PARAMS_H

#include <math.h> /* NAN in lf_options.def */
#include <stdint.h>

#include "lf_case.h"
#include "lf_group.h" /* LF_BLOCK_ROW: past it a row takes the block path */

/* Parameter byte positions, counted from the end of the input. */
enum {
    P_LOSS,
    P_RANK,
    P_N,
    P_C,
    P_D1,
    P_D2,
    P_D3,
    P_IN_DTYPE,
    P_TGT_DTYPE,
    P_TGT_SHAPE,
    P_WEIGHT,
    P_IGNORE_OR_POS_WEIGHT,
    P_REDUCTION,
    P_SMOOTHING,
    P_VALUE_MODE,
    P_PROB_IGNORE,
    P_WEIGHT_VALUES,
    P_POS_WEIGHT_VALUES,
    P_SEED,
    P_IN_LAYOUT,
    P_TGT_LAYOUT,
    P_FILL,
    P_COUNT
};

#define LF_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A row is wide past one block of 1024 threads (a kernel's one-block-per-row
 * layout then needs a second pass or block): the decoder, the labels and the
 * structure coverage all draw the line here. */
#define LF_WIDE_ROW 1024

static const int lf_p_rank_class[] = {2, 1, 4, 3, 5};
static const int lf_p_rank_prob[] = {2, 1, 4, 3, 5, 0};
/* Wide rows: 1025 and 1536 (one past a block of 1024 threads, a half-full
 * last block), 4 in 64, and past LF_BLOCK_ROW, the block path, 5 in 64:
 * 2049, 4097 and 8193 (one past 2, 4 and 8 blocks of 1024), 32000 (Llama
 * 2's vocabulary) and 50257 (GPT-2's), each kept whole (lf_decode.c). A
 * wide case costs what a hundred small ones do, a vocabulary's row a few
 * hundred: libFuzzer weighs inputs by their execution time
 * (fuzz_*.options), the coverage of lf_features.c keeps every wide input
 * that reaches something new, and the second half of the table is the
 * first as it was before the block path (2, 2 and 5 where 8193, 32000 and
 * 50257 are), with 63 and 65 for 4097 and 2049: that halves the block
 * path's share of the executions and keeps the others' mix (fuzzers/
 * README.md, the figures). Entries 16, 25 and 28 were repeats of 2 and 5,
 * which the encoder never writes (it writes a class count's first entry): no
 * seed changed when they became 8193, 32000 and 50257. */
static const int64_t lf_p_classes[] = {2,    3, 1, 4, 1025, 7,  8,  16, 33,   0,     64, 100, 255,   256, 20,  4097,
                                       8193, 3, 5, 4, 6,    10, 21, 32, 2049, 32000, 9,  17,  50257, 12,  128, 1536,
                                       2,    3, 1, 4, 1025, 7,  8,  16, 33,   0,     64, 100, 255,   256, 20,  63,
                                       2,    3, 5, 4, 6,    10, 21, 32, 65,   2,     9,  17,  5,     12,  128, 1536};
static const lf_dtype lf_p_in_dtypes[] = {LF_F32, LF_F64, LF_BF16, LF_F16};
/* fuzz_linear's hidden sizes: small, odd, a tile's edge (16, 32, 64, 128) and one past it. */
static const int64_t lf_p_hidden[] = {4, 8, 1, 16, 3, 33, 64, 2, 0, 128, 5, 65, 17, 32, 256, 7};
static const lf_dtype lf_p_label_dtypes[] = {LF_I64, LF_U8, LF_I32, LF_BOOL, LF_F32, LF_F64, LF_F16, LF_BF16};
/* Probability/BCE targets: index 0 means "the input's dtype". */
static const lf_dtype lf_p_prob_dtypes[] = {LF_DTYPE_COUNT, LF_F32, LF_F64, LF_BF16, LF_F16, LF_I64, LF_BOOL};
static const char *const lf_p_reductions[] = {"mean", "sum", "none", "avg"};
static const int64_t lf_p_prob_ignore[] = {-100, -1, 0, 3};
/* The options' bytes, lf_options.def's BYTE column: prm[byte] / divisor % n
 * picks a value, the first (the default) "not given"; n 0: none of its own.
 * P_SMOOTHING: label_smoothing, or the hinge's margin (% 8) and p
 * (/ 8 % 4). fuzz_llm's (the LLM family), from two bytes the class decoder
 * leaves unread: P_PROB_IGNORE the softcap (% 8), the logit scale (/ 8 % 8)
 * and / 64 the loss mask (none, ones, 0/1 bools, floats in [0, 1]);
 * P_POS_WEIGHT_VALUES the z-loss scale (% 8), n_items (/ 8 % 8;
 * LF_P_N_COUNTED: the rows counted, as a trainer passes it) and / 64 % 2 the
 * class dim last. (An int64_t option's values are small integers: exact.) */
typedef struct {
    int byte;
    unsigned divisor;
    const double *values;
    size_t n;
} lf_option_byte;
#define LF_P_N_COUNTED (-1.0)
#define LF_NO_BYTE                                                                                                     \
    {                                                                                                                  \
        0, 1, NULL, 0                                                                                                  \
    }
#define LF_VALUES(...) (const double[]){__VA_ARGS__}, LF_COUNT(((const double[]){__VA_ARGS__}))
#define LF_BYTE(BYTE, DIVISOR, VALUES)                                                                                 \
    {                                                                                                                  \
        BYTE, DIVISOR, LF_VALUES VALUES                                                                                \
    }
static const lf_option_byte lf_option_bytes[LF_OPTION_COUNT] = {
#define LF_OPTION(ID, NAME, TYPE, DEFAULT, VALID, FAMILY, BYTE, ...) [LF_OPTION_##ID] = BYTE,
#include "lf_options.def"
};

/* Class target shapes: the right one, or a common mistake. */
enum {
    TS_EXACT,
    TS_TRAILING_ONE,
    TS_CHANNEL_ONE,
    TS_BATCH_PLUS_ONE,
    TS_DROP_LAST,
    TS_SCALAR,
    TS_BATCH_MINUS_ONE,
    TS_COUNT
};
/* Class weights (cross_entropy, nll_loss): none, [C], [C+1], [C] in another
 * dtype, [1, C], [C, 1], 0-D, [C-1], [2, C], [C] int64 - what PyTorch accepts
 * (nll_loss2d takes any shape of C elements) and what it refuses. */
enum {
    W_NONE,
    W_PER_CLASS,
    W_ONE_TOO_MANY,
    W_OTHER_DTYPE,
    W_ROW,
    W_COLUMN,
    W_SCALAR,
    W_ONE_TOO_FEW,
    W_TWO_ROWS,
    W_INT,
    W_COUNT
};
/* BCE weight and pos_weight, against the input's shape [..., L]: none, [L],
 * [1], 0-D, the input's shape, the input's with L = 1, a leading 1 more
 * (broadcasts past the input: refused), [L+1], [L] in another dtype, [N]. */
enum {
    B_NONE,
    B_LAST,
    B_ONE,
    B_SCALAR,
    B_FULL,
    B_LAST_ONE,
    B_LEADING_ONE,
    B_LAST_PLUS_ONE,
    B_OTHER_DTYPE,
    B_FIRST,
    B_COUNT
};
/* Weight values (P_WEIGHT_VALUES, P_POS_WEIGHT_VALUES): byte % 8 the
 * generator, byte / 8 % 4 the share of special values (0, 0.1, 0.3, all),
 * seeded by P_SEED: generated whatever the payload's length. P_SEED also
 * gives a kernel under test its backward half (lf_decode.c: decode_backward). PAYLOAD reads
 * 1 + a float per weight after the logits (what seeds made from cases use). */
enum { WV_PAYLOAD, WV_ONES, WV_UNIFORM_0_2, WV_UNIFORM_NEAR_1, WV_INTS_0_2, WV_ZEROS, WV_SIGNED, WV_HUGE, WV_COUNT };
static const double lf_p_special_rates[] = {0, 0.1, 0.3, 1.0};
/* Zero, -0, NaN, +-inf, a float32 denormal, huge, float16's largest. */
static const double lf_p_weight_specials[] = {0.0,  -0.0,   __builtin_nan(""), __builtin_inf(), -__builtin_inf(), 1e-40,
                                              1e30, 65504.0};
/* Memory layout of input and target (P_IN_LAYOUT, P_TGT_LAYOUT): byte % 16 the
 * kind, byte / 16 its argument (the dim, the padding, the offset). */
enum {
    L_CONTIGUOUS,
    L_TRANSPOSED,
    L_CHANNELS_LAST,
    L_ROW_PITCH,
    L_OFFSET,
    L_EXPANDED,
    L_EVERY_OTHER,
    L_MIXED,
    L_KINDS
};
/* Bytes from L_KINDS to L_COUNT - 1 are contiguous too: a mutated byte is as
 * likely contiguous as not, since most calls in the wild are. */
#define L_COUNT 16
/* Logits: as given, + 1e4 (common offset), x 1000 (spread), zero bytes as -inf (masked). */
enum { V_RAW, V_OFFSET, V_SCALED, V_MASKED, V_COUNT };
/* Probability targets: as given, one-hot, normalized rows, clamped to [0, 1]. */
enum { PV_RAW, PV_ONE_HOT, PV_NORMALIZED, PV_CLAMPED, PV_COUNT };
/* A probability input (lf_losses.def's LF_LOSS_PROB_INPUT), from the smoothing
 * byte (such a loss takes no smoothing):
 * as given (seeds made from cases), sigmoid of it in the dtype, clamped to
 * [0, 1], or sigmoid with its first element one unit of the dtype past 1 (a
 * sigmoid rounded past 1 in half precision). A NaN stays NaN. */
enum { IA_RAW, IA_SIGMOID, IA_CLAMPED, IA_PAST_ONE, IA_COUNT };

/* ignore_index choices for class targets; C-relative ones are resolved per case. */
enum { IG_DEFAULT, IG_255, IG_MINUS_1, IG_ZERO, IG_C_MINUS_1, IG_C, IG_2P31, IG_COUNT };

/* A label word >= 0xFF00 selects a boundary value instead of v % C. */
#define LF_LABEL_SPECIAL 0xFF00u
enum { LF_N_SPECIAL_LABELS = 16 };
static inline double lf_special_label(unsigned k, int64_t C, int64_t ignore_index)
{
    static const double fixed[LF_N_SPECIAL_LABELS] = {
        0,   0, -1,           -100,  255, 0,  2147483648.0, 4294967299.0, -2147483648.0, 9223372036854775807.0,
        254, 0, 4294967297.0, 65536, -2,  1e6};
    switch (k % LF_N_SPECIAL_LABELS) { /* the C-relative ones */
    case 0: return (double)C;
    case 1: return (double)C - 1;
    case 5: return (double)ignore_index;
    case 11: return (double)C + 1;
    default: return fixed[k % LF_N_SPECIAL_LABELS];
    }
}

/* A label word below LF_LABEL_SPECIAL: v % C, except that in a row wider than
 * a block of 1024 threads a word with the top bit set picks one of the row's
 * last 8 classes (the last block, the vector tail), which v % C almost never
 * does: a uniform label of a 1025-class row is the last one once in 1025. The
 * encoder writes labels as themselves (below 0x8000), so they read back. */
static inline int64_t lf_plain_label(unsigned v, int64_t C)
{
    if (C <= 0) return 0;
    if (C > LF_WIDE_ROW && (v & 0x8000u)) return C - 1 - (int64_t)(v % 8u);
    return (int64_t)(v % (uint64_t)C);
}

#endif
