/* lf_decode.c - bytes to a case (lf_bytes.h's format). Three families:
 * fuzz_class (cross_entropy with class indices, nll_loss; 1-D, 2-D, spatial),
 * fuzz_prob (cross_entropy with probability targets, BCE-with-logits) and
 * fuzz_linear (fused linear + cross-entropy: hidden states, a vocabulary). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_bytes.h"
#include "lf_layout.h"
#include "lf_params.h"
#include "lf_producer.h"

_Static_assert(P_COUNT == LF_N_PARAMS, "one parameter byte per P_*");

/* The fuzz targets, from their one list. */
static const struct {
    const char *name;
    lf_target input;
    const char *what;
} fuzz_targets[] = {
#define LF_FUZZ_TARGET(name, input, what) {#name, input, what},
#include "lf_targets.def"
#undef LF_FUZZ_TARGET
};
#define N_FUZZ_TARGETS (int)(sizeof fuzz_targets / sizeof fuzz_targets[0])

int lf_fuzz_target_count(void) { return N_FUZZ_TARGETS; }

const char *lf_fuzz_target_at(int i, lf_target *input, const char **what)
{
    if (i < 0 || i >= N_FUZZ_TARGETS) return NULL;
    if (input) *input = fuzz_targets[i].input;
    if (what) *what = fuzz_targets[i].what;
    return fuzz_targets[i].name;
}

const char *lf_target_name(lf_target t)
{
    for (int i = 0; i < N_FUZZ_TARGETS; i++)
        if (fuzz_targets[i].input == t) return fuzz_targets[i].name;
    return "?";
}

int64_t lf_fuzz_numel_limit(lf_target t)
{
    return t == LF_TARGET_CLASS || t == LF_TARGET_PROB || t == LF_TARGET_LINEAR || t == LF_TARGET_LLM
               ? LF_FUZZ_WIDE_NUMEL
               : LF_FUZZ_MAX_NUMEL;
}

/* A target's name, with or without its "fuzz_" (class, prob, ...). */
bool lf_target_parse(const char *name, lf_target *out)
{
    for (int i = 0; i < N_FUZZ_TARGETS; i++)
        if (!strcmp(name, fuzz_targets[i].name) || !strcmp(name, fuzz_targets[i].name + 5)) {
            *out = fuzz_targets[i].input;
            return true;
        }
    return false;
}

void lf_fuzz_target_list(char *buf, size_t len, bool crash_files_only)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < N_FUZZ_TARGETS && at < len; i++)
        if (!crash_files_only || fuzz_targets[i].input != LF_TARGET_RAW)
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "", fuzz_targets[i].name);
}

/* The elements of an input whose rows take the block path: 8 rows of 2049
 * classes, 4 of 4097, 2 of 8193, one of 32000 or 50257 (the row is never
 * cut). A vocabulary's row costs what a few hundred small cases do: the
 * budget keeps the others to a few rows (fuzzers/README.md, the figures). */
#define LF_WIDE_BUDGET ((1 << 14) + 64)

/* Whether a row of c classes takes the block path whole: past LF_BLOCK_ROW,
 * in a process whose element limit holds it (lf_fuzz_numel_limit; one that
 * keeps to small cases, as bench_exec does, gets the row cut as before). */
static bool block_path(int64_t c) { return c > LF_BLOCK_ROW && lf_numel_limit >= LF_FUZZ_WIDE_NUMEL; }

/* The most rows of c classes past LF_BLOCK_ROW an input keeps: at least
 * one, LF_WIDE_BUDGET elements in all, and one more row within
 * LF_FUZZ_WIDE_NUMEL (a target with a row too many, a [2, C] weight). */
static int64_t block_rows(int64_t c)
{
    int64_t rows = LF_WIDE_BUDGET / c, room = LF_FUZZ_WIDE_NUMEL / c - 1;
    rows = rows < room ? rows : room;
    return rows > 1 ? rows : 1;
}

/* The input's shape from the size parameters, kept small enough that a
 * target with one more row (or an extra dim of 1) still fits the limit:
 * a wide row of C > 1024 comes with a batch of up to two, one past
 * LF_BLOCK_ROW classes with a few rows (fewer rows, never fewer classes,
 * when the batch asked for does not fit). */
static int input_shape(const uint8_t *prm, int rank, int64_t *shape)
{
    int64_t n = (prm[P_N] + 1) % 9, c = lf_p_classes[prm[P_C] % LF_COUNT(lf_p_classes)];
    int64_t d[3] = {1 + prm[P_D1] % 4, 1 + prm[P_D2] % 4, 1 + prm[P_D3] % 4};
    int64_t spatial = 1;
    for (int k = 0; k < rank - 2; k++) spatial *= d[k];
    if (block_path(c)) {
        if (n > block_rows(c)) n = block_rows(c);
        if ((n ? n : 1) * c * spatial > LF_WIDE_BUDGET) d[0] = d[1] = d[2] = 1;
    } else {
        /* An empty batch counts as one row; one more must fit for a target with a
         * row too many; the input itself stays near half the limit (a wide case
         * costs what a hundred small ones do), which still holds two rows of 1025. */
        const int64_t limit = LF_FUZZ_MAX_NUMEL, half = LF_FUZZ_MAX_NUMEL / 2 + 64;
        if (c > LF_WIDE_ROW && n * c > half) n = half / c > 1 ? half / c : 1;
        const int64_t rows = n ? n : 1;
        if ((rows + 1) * c * spatial > limit || rows * c * spatial > half) d[0] = d[1] = d[2] = 1;
        if ((rows + 1) * c > limit) c = limit / (rows + 1);
        if (rows * c > half) c = half / rows;
    }
    if (rank == 0) return 0;
    if (rank == 1) {
        shape[0] = c;
        return 1;
    }
    shape[0] = n;
    shape[1] = c;
    for (int k = 2; k < rank; k++) shape[k] = d[k - 2];
    return rank;
}

static void alloc(lf_tensor *t, lf_dtype dtype, int ndim, const int64_t *shape)
{
    char err[128];
    if (!lf_tensor_alloc(t, dtype, ndim, shape, err, sizeof err)) { /* cannot happen within the limits */
        fprintf(stderr, "lf_decode: %s\n", err);
        __builtin_trap();
    }
}

/* The options of `family` the case's loss takes, each from its byte (lf_options.def, lf_params.h). */
static void decode_options(lf_case *c, const uint8_t *prm, lf_option_family family)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++) {
        const lf_option_byte *b = &lf_option_bytes[o];
        size_t k = b->n ? prm[b->byte] / b->divisor % b->n : 0;
        if (k && lf_option_of(o)->family == family && (lf_loss_options(c->loss) >> o & 1))
            lf_case_set_option(c, o, b->values[k]);
    }
}

static void common_options(lf_case *c, const uint8_t *prm)
{
    const char *red = lf_p_reductions[prm[P_REDUCTION] % LF_COUNT(lf_p_reductions)];
    snprintf(c->reduction_name, sizeof c->reduction_name, "%s", red);
    c->reduction = lf_reduction_parse(red);
    c->has_reduction = prm[P_REDUCTION] != 0;
}

/* A weight's shape and dtype from its mode: class weights against C, BCE's
 * against the input's shape [..., L] (lf_params.h). false: no weight. */
static bool extra_shape(int mode, bool bce, const lf_tensor *in, int64_t C, int *ndim, int64_t *shape, lf_dtype *dtype)
{
    int64_t L = in->ndim ? in->shape[in->ndim - 1] : 1;
    *dtype = in->dtype;
    *ndim = 1;
    if (!bce) {
        shape[0] = C;
        switch (mode) {
        case W_NONE: return false;
        case W_ONE_TOO_MANY: shape[0] = C + 1; break;
        case W_OTHER_DTYPE: *dtype = in->dtype == LF_F64 ? LF_F32 : LF_F64; break;
        case W_ROW:
            *ndim = 2;
            shape[0] = 1;
            shape[1] = C;
            break;
        case W_COLUMN:
            *ndim = 2;
            shape[1] = 1;
            break;
        case W_SCALAR: *ndim = 0; break;
        case W_ONE_TOO_FEW: shape[0] = C > 0 ? C - 1 : 0; break;
        case W_TWO_ROWS:
            *ndim = 2;
            shape[0] = 2;
            shape[1] = C;
            break;
        case W_INT: *dtype = LF_I64; break;
        default: break;
        }
        return true;
    }
    shape[0] = L;
    switch (mode) {
    case B_NONE: return false;
    case B_ONE: shape[0] = 1; break;
    case B_SCALAR: *ndim = 0; break;
    case B_FULL:
    case B_LAST_ONE:
    case B_LEADING_ONE: {
        int lead = mode == B_LEADING_ONE;
        *ndim = in->ndim + lead;
        shape[0] = 1;
        memcpy(shape + lead, in->shape, sizeof(int64_t) * (size_t)in->ndim);
        if (mode == B_LAST_ONE && in->ndim) shape[in->ndim - 1] = 1;
        break;
    }
    case B_LAST_PLUS_ONE: shape[0] = L + 1; break;
    case B_OTHER_DTYPE: *dtype = in->dtype == LF_F64 ? LF_F32 : LF_F64; break;
    case B_FIRST: shape[0] = in->ndim ? in->shape[0] : 1; break;
    default: break;
    }
    return true;
}

/* A weight (or pos_weight) of that mode, its values from the payload or
 * from a seeded generator with special values (lf_params.h). */
static void extra(lf_producer *pr, lf_tensor *w, int mode, uint8_t values, uint64_t seed, bool bce, const lf_tensor *in,
                  int64_t C, bool fill)
{
    int ndim;
    int64_t shape[LF_MAX_DIMS];
    lf_dtype dtype;
    if (!extra_shape(mode, bce, in, C, &ndim, shape, &dtype)) return;
    alloc(w, dtype, ndim, shape);
    int kind = values % WV_COUNT;
    if (kind == WV_PAYLOAD) {
        if (!fill) {
            pr->head += 4 * (size_t)w->numel;
            return;
        }
        for (int64_t i = 0; i < w->numel; i++) lf_st_f64(w->data, dtype, i, 1.0 + lf_take_f32(pr));
        return;
    }
    static const char *const kinds[WV_COUNT] = {"",        "ones",  "uniform", "uniform",
                                                "randint", "zeros", "uniform", "uniform"};
    static const double lows[WV_COUNT] = {0, 0, 0, 0.5, 0, 0, -1, 1e3}, highs[WV_COUNT] = {0, 1, 2, 1.5, 3, 1, 1, 1e4};
    lf_init *g = &w->init;
    snprintf(g->kind, sizeof g->kind, "%s", kinds[kind]);
    g->seed = seed;
    g->low = lows[kind];
    g->high = highs[kind];
    if (!strcmp(g->kind, "uniform") || !strcmp(g->kind, "randint")) g->given |= LF_INIT_HAS_LOW | LF_INIT_HAS_HIGH;
    g->special_rate = lf_p_special_rates[values / WV_COUNT % LF_COUNT(lf_p_special_rates)];
    if (g->special_rate > 0) {
        g->n_specials = (int)LF_COUNT(lf_p_weight_specials);
        memcpy(g->specials, lf_p_weight_specials, sizeof lf_p_weight_specials);
        g->given |= LF_INIT_HAS_SPECIALS;
    }
    w->generated = true;
    char err[160];
    if (fill && !lf_init_fill(w, err, sizeof err)) { /* cannot happen: the kinds above exist */
        fprintf(stderr, "lf_decode: %s\n", err);
        __builtin_trap();
    }
}

/* The memory layout a parameter byte picks (lf_params.h), applied after the
 * values are in: an expanded tensor then repeats its first slice. A layout
 * past the element limit stays contiguous. */
static void layout(lf_tensor *t, uint8_t b)
{
    int kind = b % L_COUNT, arg = b / L_COUNT, n = t->ndim, order[LF_MAX_DIMS];
    int64_t strides[LF_MAX_DIMS], s = 1, offset = 0, pad = 0;
    int dim = n ? arg % n : 0;
    if (kind == L_CONTIGUOUS || kind >= L_KINDS || n == 0) return;
    for (int k = 0; k < n; k++) order[k] = kind == L_TRANSPOSED || kind == L_MIXED ? n - 1 - k : k;
    if (kind == L_CHANNELS_LAST && n >= 3) { /* (N, d1..dk, C) in memory */
        for (int k = 1; k < n - 1; k++) order[k] = k + 1;
        order[n - 1] = 1;
    } else if (kind == L_CHANNELS_LAST) {
        for (int k = 0; k < n; k++) order[k] = n - 1 - k;
    }
    if (kind == L_ROW_PITCH || kind == L_MIXED) pad = 1 + arg % 3;
    if (kind == L_OFFSET || kind == L_MIXED) offset = 1 + arg % 7;
    for (int k = n - 1; k >= 0; k--) { /* innermost first */
        int d = order[k];
        int64_t size = t->shape[d] > 1 ? t->shape[d] : 1;
        if (kind == L_EXPANDED && d == dim) {
            strides[d] = 0;
            continue;
        }
        strides[d] = kind == L_EVERY_OTHER && d == dim ? 2 * s : s;
        s *= (kind == L_EVERY_OTHER && d == dim ? 2 * size : size) + (k == n - 1 ? pad : 0);
    }
    char err[160];
    if (lf_layout_set(t, strides, offset, err, sizeof err)) lf_layout_settle(t);
}

/* Logits from the payload; past its end zeros, or seeded normals of a
 * spread P_FILL picks, so wide rows are not all zeros. */
static void logits(lf_producer *pr, lf_tensor *t, int mode, uint8_t fill_byte, lf_byte_map *lay, bool fill)
{
    static const double spreads[] = {0, 1, 3, 30};
    double spread = spreads[fill_byte % LF_COUNT(spreads)];
    uint64_t rng = 0x9E3779B97F4A7C15ull * (fill_byte + 1u);
    lay->value_at = pr->head;
    lay->n_values = (size_t)t->numel;
    if (!fill) {
        pr->head += 4 * (size_t)t->numel;
        return;
    }
    for (int64_t i = 0; i < t->numel; i++) {
        bool given = lf_have_bytes(pr, 4);
        double v = lf_take_f32(pr);
        if (!given && spread > 0) { /* two uniforms from one draw, summed: centred, cheap */
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(rng >> 32) / 4294967296.0 + (double)(rng & 0xFFFFFFFFu) / 4294967296.0;
            v = (u - 1.0) * 2.449 * spread;
        }
        if (mode == V_OFFSET)
            v += 1e4;
        else if (mode == V_SCALED)
            v *= 1000;
        else if (mode == V_MASKED && v == 0)
            v = -INFINITY;
        lf_st_f64(t->data, t->dtype, i, v);
    }
}

static void target_shape(const lf_tensor *in, int mode, int *ndim, int64_t *shape)
{
    if (in->ndim <= 1)
        *ndim = 0;
    else {
        *ndim = in->ndim - 1;
        shape[0] = in->shape[0];
        for (int k = 2; k < in->ndim; k++) shape[k - 1] = in->shape[k];
    }
    switch (mode) {
    case TS_TRAILING_ONE: shape[(*ndim)++] = 1; break;
    case TS_CHANNEL_ONE:
        if (*ndim == 0) {
            shape[(*ndim)++] = 1;
            break;
        }
        memmove(shape + 2, shape + 1, sizeof(int64_t) * (size_t)(*ndim - 1));
        shape[1] = 1;
        (*ndim)++;
        break;
    case TS_BATCH_PLUS_ONE:
        if (*ndim == 0)
            shape[(*ndim)++] = 2;
        else
            shape[0]++;
        break;
    case TS_BATCH_MINUS_ONE: /* a kernel that trusts the target's length reads past its end */
        if (*ndim > 0 && shape[0] > 0) shape[0]--;
        break;
    case TS_DROP_LAST:
        if (*ndim > 0) (*ndim)--;
        break;
    case TS_SCALAR: *ndim = 0; break;
    default: break;
    }
}

/* Labels from the payload: v % C, or a boundary value (lf_params.h). */
static void labels(lf_producer *pr, lf_tensor *t, int64_t C, int64_t ignore_index, lf_byte_map *lay, bool fill)
{
    lay->label_at = pr->head;
    lay->n_labels = (size_t)t->numel;
    if (!fill) pr->head += 2 * (size_t)t->numel;
    for (int64_t i = 0; fill && i < t->numel; i++) {
        unsigned v = lf_take_u16(pr);
        double label =
            v < LF_LABEL_SPECIAL ? (double)lf_plain_label(v, C) : lf_special_label(v & 0x7f, C, ignore_index);
        if ((v & 0x80) && v >= LF_LABEL_SPECIAL) label = (double)((v & 0x7f) % (C > 0 ? C : 1)) + 0.5;
        lf_st_f64(t->data, t->dtype, i, label);
    }
}

/* A class or probability input's loss: its byte's code (byte % LF_LOSS_CODES) names one row of the table
 * forever (lf_losses.def's CODE). A code no row of these targets has is skipped, never given another loss:
 * adding a loss leaves every saved input's meaning as it was. */
static bool pick_loss(lf_target t, uint8_t byte, lf_loss *out)
{
    unsigned kinds =
        t == LF_TARGET_PROB ? LF_TAKES(LF_PROB_TARGETS) | LF_TAKES(LF_BINARY_TARGETS) : LF_TAKES(LF_CLASS_TARGETS);
    return lf_loss_of_code(byte % LF_LOSS_CODES, kinds, out);
}

/* llm: fuzz_llm's cross_entropy, logits with a batch dim. */
static void decode_class(lf_producer *pr, const uint8_t *prm, lf_case *c, lf_byte_map *lay, bool fill, bool llm)
{
    int64_t shape[LF_MAX_DIMS];
    if (llm) c->loss = LF_LOSS_CROSS_ENTROPY; /* else decode() picked it */
    unsigned options = lf_loss_options(c->loss);
    int rank = lf_p_rank_class[prm[P_RANK] % LF_COUNT(lf_p_rank_class)];
    int ndim = input_shape(prm, llm && rank < 2 ? 2 : rank, shape);
    alloc(&c->input, lf_p_in_dtypes[prm[P_IN_DTYPE] % LF_COUNT(lf_p_in_dtypes)], ndim, shape);
    int64_t C = c->input.shape[ndim == 1 ? 0 : 1];
    static const int64_t fixed_ignore[IG_COUNT] = {-100, 255, -1, 0, 0, 0, 2147483648LL};
    int ig = options & LF_OPT_IGNORE_INDEX ? prm[P_IGNORE_OR_POS_WEIGHT] % IG_COUNT : IG_DEFAULT;
    c->ignore_index = ig == IG_C_MINUS_1 ? C - 1 : ig == IG_C ? C : fixed_ignore[ig];
    c->has_ignore_index = ig != IG_DEFAULT;
    common_options(c, prm);
    decode_options(c, prm, LF_PYTORCH);
    int tndim;
    int64_t tshape[LF_MAX_DIMS];
    target_shape(&c->input, prm[P_TGT_SHAPE] % TS_COUNT, &tndim, tshape);
    lf_dtype tdtype = lf_p_label_dtypes[prm[P_TGT_DTYPE] % LF_COUNT(lf_p_label_dtypes)];
    alloc(&c->target, tdtype, tndim, tshape);
    labels(pr, &c->target, C, c->ignore_index, lay, fill);
    logits(pr, &c->input, prm[P_VALUE_MODE] % V_COUNT, prm[P_FILL], lay, fill);
    extra(pr, &c->weight, prm[P_WEIGHT] % W_COUNT, prm[P_WEIGHT_VALUES], prm[P_SEED], false, &c->input, C, fill);
    if (!fill) return;
    layout(&c->input, prm[P_IN_LAYOUT]);
    layout(&c->target, prm[P_TGT_LAYOUT]);
}

/* A probability input's values (a loss's LF_LOSS_PROB_INPUT) from the values read (lf_params.h: IA_*). */
static void probabilities(lf_tensor *t, int mode)
{
    for (int64_t i = 0; i < t->numel && mode != IA_RAW; i++) {
        double v = lf_ld_f64(t->data, t->dtype, i);
        v = mode == IA_CLAMPED ? fmin(1, fmax(0, v)) : 1 / (1 + exp(-v));
        if (mode == IA_PAST_ONE && i == 0) v = 1 + lf_dtype_eps(t->dtype);
        lf_st_f64(t->data, t->dtype, i, v);
    }
}

static void prob_values(lf_producer *pr, lf_tensor *t, int mode)
{
    int64_t rows = t->ndim >= 2 ? t->shape[0] : 1, C = t->ndim >= 2 ? t->shape[1] : t->ndim ? t->shape[0] : 1;
    int64_t inner = rows * C != 0 ? t->numel / (rows * C) : 0;
    for (int64_t i = 0; i < t->numel; i++) {
        double v = lf_take_f32(pr);
        if (mode == PV_CLAMPED) v = isnan(v) ? 0 : fmin(1, fmax(0, v));
        if (mode == PV_NORMALIZED) v = isfinite(v) ? fabs(v) : 1;
        lf_st_f64(t->data, t->dtype, i, v);
    }
    if (mode != PV_ONE_HOT && mode != PV_NORMALIZED) return;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t s = 0; s < inner; s++) {
            double sum = 0;
            int64_t hot = 0;
            for (int64_t k = 0; k < C; k++) {
                double v = lf_ld_f64(t->data, t->dtype, (r * C + k) * inner + s);
                sum += v;
                if (v > lf_ld_f64(t->data, t->dtype, (r * C + hot) * inner + s)) hot = k;
            }
            for (int64_t k = 0; k < C; k++) {
                int64_t at = (r * C + k) * inner + s;
                double v = mode == PV_ONE_HOT ? (k == hot)
                           : sum > 0          ? lf_ld_f64(t->data, t->dtype, at) / sum
                                              : 1.0 / (double)C;
                lf_st_f64(t->data, t->dtype, at, v);
            }
        }
}

static void decode_prob(lf_producer *pr, const uint8_t *prm, lf_case *c, lf_byte_map *lay, bool fill)
{
    int64_t shape[LF_MAX_DIMS];
    bool bce = lf_loss_of(c->loss)->targets & LF_TAKES(LF_BINARY_TARGETS);
    int ndim = input_shape(prm, lf_p_rank_prob[prm[P_RANK] % LF_COUNT(lf_p_rank_prob)], shape);
    lf_dtype in_dtype = lf_p_in_dtypes[prm[P_IN_DTYPE] % LF_COUNT(lf_p_in_dtypes)];
    alloc(&c->input, in_dtype, ndim, shape);
    common_options(c, prm);
    decode_options(c, prm, LF_PYTORCH);
    if (!bce) {
        c->ignore_index = lf_p_prob_ignore[prm[P_PROB_IGNORE] % LF_COUNT(lf_p_prob_ignore)];
        c->has_ignore_index = prm[P_PROB_IGNORE] % LF_COUNT(lf_p_prob_ignore) != 0;
    }
    int tndim = ndim;
    int64_t tshape[LF_MAX_DIMS];
    memcpy(tshape, shape, sizeof tshape);
    switch (prm[P_TGT_SHAPE] % 4) { /* same shape, or a mistake */
    case 1: tshape[tndim++] = 1; break;
    case 2:
        if (tndim) tndim--;
        break;
    case 3: /* a batch of one more row, or (its bit 2) of one row, meant to broadcast: [1, C] for [N, C] */
        if (tndim)
            tshape[0] = prm[P_TGT_SHAPE] & 4 ? 1 : tshape[0] + 1;
        else
            tshape[tndim++] = 2;
        break;
    default: break;
    }
    lf_dtype td = lf_p_prob_dtypes[prm[P_TGT_DTYPE] % LF_COUNT(lf_p_prob_dtypes)];
    alloc(&c->target, td == LF_DTYPE_COUNT ? in_dtype : td, tndim, tshape);
    logits(pr, &c->input, V_RAW, prm[P_FILL], lay, fill);
    if (fill && lf_loss_of(c->loss)->prob_input) probabilities(&c->input, prm[P_SMOOTHING] % IA_COUNT);
    lay->n_values += (size_t)c->target.numel; /* the mutator treats targets like logits */
    if (fill)
        prob_values(pr, &c->target, prm[P_VALUE_MODE] % PV_COUNT);
    else
        pr->head += 4 * (size_t)c->target.numel;
    int64_t C = ndim >= 2 ? shape[1] : ndim ? shape[0] : 1;
    extra(pr, &c->weight, prm[P_WEIGHT] % (bce ? B_COUNT : W_COUNT), prm[P_WEIGHT_VALUES], prm[P_SEED], bce, &c->input,
          C, fill);
    if (lf_loss_options(c->loss) & LF_OPT_POS_WEIGHT)
        extra(pr, &c->pos_weight, prm[P_IGNORE_OR_POS_WEIGHT] % B_COUNT, prm[P_POS_WEIGHT_VALUES], prm[P_SEED] + 1u,
              true, &c->input, C, fill);
    if (!fill) return;
    layout(&c->input, prm[P_IN_LAYOUT]);
    layout(&c->target, prm[P_TGT_LAYOUT]);
}

/* A seeded normal tensor (the linear's weight and bias), kept as its init. */
static void normal(lf_tensor *t, lf_dtype dtype, int ndim, const int64_t *shape, uint64_t seed, double std, bool fill)
{
    alloc(t, dtype, ndim, shape);
    snprintf(t->init.kind, sizeof t->init.kind, "randn");
    t->init.seed = seed;
    t->init.std = std;
    t->init.given |= LF_INIT_HAS_STD;
    t->generated = true;
    char err[160];
    if (fill && !lf_init_fill(t, err, sizeof err)) { /* cannot happen: randn exists */
        fprintf(stderr, "lf_decode: %s\n", err);
        __builtin_trap();
    }
}

/* fuzz_linear: hidden states [N, H] (or [H]) from the payload, a seeded
 * weight [V, H] (sometimes of the wrong H: PyTorch raises; sometimes [V, 2, H])
 * and bias (sometimes [1]), in one
 * dtype, then cross_entropy's options and labels as fuzz_class has them.
 * Vocabularies up to 2047, and past LF_BLOCK_ROW (2049 to 50257) with the
 * hidden size cut (to 7 for 2049, 1 past 8193). */
static void decode_linear(lf_producer *pr, const uint8_t *prm, lf_case *c, lf_byte_map *lay, bool fill)
{
    c->loss = LF_LOSS_LINEAR_CROSS_ENTROPY;
    int64_t N = (prm[P_N] + 1) % 9, V = lf_p_classes[prm[P_C] % LF_COUNT(lf_p_classes)];
    int64_t H = lf_p_hidden[prm[P_D1] % LF_COUNT(lf_p_hidden)];
    const int64_t half = LF_FUZZ_MAX_NUMEL / 2;
    if (block_path(V)) { /* a vocabulary kept whole: a smaller hidden size (the weight [V, H + 1] within
                            * the budget, or [V, 2]: the products cost), a few rows */
        if (V * (H + 1) > LF_WIDE_BUDGET) H = LF_WIDE_BUDGET / V > 1 ? LF_WIDE_BUDGET / V - 1 : 1;
        if (N > block_rows(V)) N = block_rows(V);
    } else {
        if (V >= half) V = half - 1;            /* a class weight of [2, V] fits the limit */
        if (V * H > half) V = H ? half / H : V; /* the weight fits; then the logits and the hidden states */
        if ((N + 1) * V > half) N = V ? half / V - 1 : N;
        if (N < 0) N = 0;
    }
    bool one_d = prm[P_RANK] % 4 == 3;
    /* P_D2 % 16: 15 a weight of another hidden size, 14 a K-dimensional weight [V, 2, H] (logits
     * [N, V, 2], torch 2.15's), 13 a bias [1] (broadcast by F.linear, refused by 2.15) */
    int shape_byte = prm[P_D2] % 16, k = shape_byte == 14;
    if (k && V > 1) V /= 2; /* the same budget for [V, 2, H] */
    lf_dtype dtype = lf_p_in_dtypes[prm[P_IN_DTYPE] % LF_COUNT(lf_p_in_dtypes)];
    int64_t hshape[2] = {N, H}, wshape[3] = {V, 2, shape_byte == 15 ? H + 1 : H}, bshape[2] = {V, 2};
    if (!k) wshape[1] = wshape[2];
    if (shape_byte == 13) bshape[0] = 1;
    alloc(&c->input, dtype, one_d ? 1 : 2, one_d ? hshape + 1 : hshape);
    static const int64_t fixed_ignore[IG_COUNT] = {-100, 255, -1, 0, 0, 0, 2147483648LL};
    int ig = prm[P_IGNORE_OR_POS_WEIGHT] % IG_COUNT;
    c->ignore_index = ig == IG_C_MINUS_1 ? V - 1 : ig == IG_C ? V : fixed_ignore[ig];
    c->has_ignore_index = ig != IG_DEFAULT;
    common_options(c, prm);
    decode_options(c, prm, LF_PYTORCH);
    if (prm[P_LOSS] / 2 % 3) decode_options(c, prm, LF_CHUNKED); /* two in three: torch 2.15's chunked path */
    int tndim;
    int64_t tshape[LF_MAX_DIMS];
    lf_tensor logits_view = {.ndim = (one_d ? 1 : 2) + k, .shape = {N, V, 2}}; /* the target fits the logits */
    if (one_d) {
        logits_view.shape[0] = V;
        logits_view.shape[1] = 2;
    }
    target_shape(&logits_view, prm[P_TGT_SHAPE] % TS_COUNT, &tndim, tshape);
    alloc(&c->target, lf_p_label_dtypes[prm[P_TGT_DTYPE] % LF_COUNT(lf_p_label_dtypes)], tndim, tshape);
    labels(pr, &c->target, V, c->ignore_index, lay, fill);
    logits(pr, &c->input, prm[P_VALUE_MODE] % V_COUNT, prm[P_FILL], lay, fill);
    /* weights of std 1/sqrt(H) keep the logits near the hidden states' spread, or 30x it */
    double std = (prm[P_POS_WEIGHT_VALUES] % 4 == 3 ? 30.0 : 1.0) / (H > 1 ? __builtin_sqrt((double)H) : 1.0);
    normal(&c->linear_weight, dtype, 2 + k, wshape, prm[P_SEED] + 2u, std, fill);
    if (prm[P_LOSS] % 2) normal(&c->linear_bias, dtype, 1 + k, bshape, prm[P_SEED] + 3u, 1.0, fill);
    extra(pr, &c->weight, prm[P_WEIGHT] % W_COUNT, prm[P_WEIGHT_VALUES], prm[P_SEED], false, &c->input, V, fill);
    if (!fill) return;
    layout(&c->input, prm[P_IN_LAYOUT]);
    layout(&c->target, prm[P_TGT_LAYOUT]);
}

/* fuzz_llm: a class-index case, then the LLM family's options from the two
 * bytes lf_params.h names; with the class dim last, the same logits read as
 * [N, d.., C] (the labels were drawn for C). */
static void decode_llm(lf_producer *pr, const uint8_t *prm, lf_case *c, lf_byte_map *lay, bool fill)
{
    decode_class(pr, prm, c, lay, fill, true);
    if (!fill) return;
    uint8_t a = prm[P_PROB_IGNORE], b = prm[P_POS_WEIGHT_VALUES];
    lf_tensor *in = &c->input;
    int n = in->ndim;
    c->vocab_last = b / 64 % 2 && n >= 3;
    if (c->vocab_last) { /* [N, C, d..] -> [N, d.., C]: the values read anew */
        int64_t C = in->shape[1];
        for (int d = 1; d < n - 1; d++) in->shape[d] = in->shape[d + 1];
        in->shape[n - 1] = C;
        in->strided = false;
    }
    int64_t shape[LF_MAX_DIMS], rows = 1, counted = 0; /* the rows: the mask's shape */
    int m = lf_case_row_shape(c, shape);
    for (int d = 0; d < m; d++) rows *= shape[d];
    for (int64_t i = 0; i < c->target.numel; i++)
        counted += lf_load_i64(c->target.data, c->target.dtype, i) != c->ignore_index;
    decode_options(c, prm, LF_LLM);
    if (c->reduction == LF_REDUCTION_NONE || c->reduction == LF_REDUCTION_INVALID) /* n_items divides a sum */
        lf_case_option_off(c, LF_OPTION_N_ITEMS);
    /* (the sentinel is n_items' only: logit_scale's -1 is a value, flash-attention's assert's) */
    else if (c->n_items == LF_P_N_COUNTED)
        c->n_items = counted ? (double)counted : 1.0;
    int mask = a / 64;
    if (mask && c->target.numel == rows) {
        alloc(&c->loss_mask, mask == 2 ? LF_BOOL : LF_F32, m, shape);
        uint64_t s = 0x9E3779B97F4A7C15ull * (prm[P_SEED] + 7u);
        for (int64_t i = 0; c->loss_mask.data && i < rows; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double r = (double)(s >> 40) / (double)(1 << 24);
            lf_store_f64(c->loss_mask.data, c->loss_mask.dtype, i, mask == 1 ? 1.0 : mask == 2 ? r < 0.7 : r);
        }
    }
}

/* The backward half (a kernel under test's, and lossfuzz's own paths' where
 * given: every byte but 0), from the seed byte
 * (also the weights' seed): the upstream gradient's kind (byte % 3), the
 * input frozen one time in four, the byte its seed. Zero is the default. */
static void decode_backward(uint8_t byte, uint8_t linear_byte, lf_backward *b)
{
    b->given = byte != 0;
    b->seed = byte;
    b->upstream = (lf_upstream)(byte % LF_UPSTREAM_COUNT);
    b->input_requires_grad = byte / LF_UPSTREAM_COUNT % 4 != 3;
    b->through_softmax = byte / (LF_UPSTREAM_COUNT * 4) % 4 == 1; /* one time in four */
    /* a fused linear's weight and bias each frozen one time in four (P_PROB_IGNORE's byte) */
    b->linear_weight_requires_grad = linear_byte % 4 != 3;
    b->linear_bias_requires_grad = linear_byte / 4 % 4 != 3;
}

static bool decode(lf_target t, const uint8_t *data, size_t size, lf_case *c, lf_byte_map *layout, bool fill)
{
    lf_producer pr = {data, size, 0};
    uint8_t prm[LF_N_PARAMS];
    lf_byte_map lay = {0};
    for (int k = 0; k < LF_N_PARAMS; k++) prm[k] = lf_take_param(&pr);
    lay.payload = pr.size;
    lf_case_init(c);
    if (layout) *layout = lay;
    if (t != LF_TARGET_LINEAR && t != LF_TARGET_LLM && !pick_loss(t, prm[P_LOSS], &c->loss)) return false;
    if (t == LF_TARGET_PROB)
        decode_prob(&pr, prm, c, &lay, fill);
    else if (t == LF_TARGET_LINEAR)
        decode_linear(&pr, prm, c, &lay, fill);
    else if (t == LF_TARGET_LLM)
        decode_llm(&pr, prm, c, &lay, fill);
    else
        decode_class(&pr, prm, c, &lay, fill, false);
    decode_backward(prm[P_SEED], t == LF_TARGET_LINEAR ? prm[P_PROB_IGNORE] : 0, &c->backward);
    if (layout) *layout = lay;
    return true;
}

bool lf_decode(lf_target t, const uint8_t *data, size_t size, lf_case *c, lf_byte_map *layout)
{
    return decode(t, data, size, c, layout, true);
}

void lf_decode_byte_map(lf_target t, const uint8_t *data, size_t size, lf_byte_map *layout)
{
    lf_case c;
    decode(t, data, size, &c, layout, false);
    lf_case_free(&c);
}
