/* lf_encode.c - a case to the fuzz byte format, for seed corpora made from
 * regressions. Approximate where the format cannot say exactly (a class count
 * outside its table, an ignore_index it has no choice for): a seed only needs
 * to start the fuzzer near the case, lf_decode decides what it is. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lf_bytes.h"
#include "lf_params.h"

typedef struct {
    uint8_t *out;
    size_t cap, at;
    bool full;
} sink;

static void put(sink *s, const void *bytes, size_t n)
{
    if (s->at + n > s->cap) {
        s->full = true;
        return;
    }
    memcpy(s->out + s->at, bytes, n);
    s->at += n;
}

static void put_f32(sink *s, double v)
{
    float f = (float)v;
    put(s, &f, 4);
}

static uint8_t nearest(const int64_t *table, size_t n, int64_t v)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (llabs(table[i] - v) < llabs(table[best] - v)) best = i;
    return (uint8_t)best;
}

static uint8_t index_of_dtype(const lf_dtype *table, size_t n, lf_dtype t)
{
    for (size_t i = 0; i < n; i++)
        if (table[i] == t) return (uint8_t)i;
    return 0;
}

static uint8_t index_of_rank(const int *table, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        if (table[i] == rank) return (uint8_t)i;
    return 0;
}

static void sizes(const lf_tensor *in, uint8_t *prm)
{
    int64_t N = in->ndim >= 2 ? in->shape[0] : 1, C = in->ndim >= 2 ? in->shape[1] : in->ndim ? in->shape[0] : 2;
    prm[P_N] = (uint8_t)((N > 8 ? 8 : N) + 8) % 9;
    prm[P_C] = nearest(lf_p_classes, LF_COUNT(lf_p_classes), C);
    for (int k = 2; k < in->ndim && k < 5; k++)
        prm[P_D1 + k - 2] = (uint8_t)((in->shape[k] > 4 ? 4 : in->shape[k] < 1 ? 1 : in->shape[k]) - 1);
    prm[P_IN_DTYPE] = index_of_dtype(lf_p_in_dtypes, LF_COUNT(lf_p_in_dtypes), in->dtype);
}

/* The layout byte nearest a tensor's strides (lf_params.h); approximate. */
static uint8_t layout_byte(const lf_tensor *t)
{
    if (!t->strided || t->ndim == 0) return L_CONTIGUOUS;
    int n = t->ndim;
    for (int d = 0; d < n; d++)
        if (t->strides[d] == 0 && t->shape[d] > 1) return (uint8_t)(L_EXPANDED + L_COUNT * d);
    if (n >= 2 && t->strides[0] < t->strides[n - 1]) return L_TRANSPOSED;
    if (n >= 3 && t->strides[1] == 1) return L_CHANNELS_LAST;
    if (t->offset > 0) return (uint8_t)(L_OFFSET + L_COUNT * ((t->offset - 1) % 7));
    return L_ROW_PITCH;
}

static void options(const lf_case *c, uint8_t *prm)
{
    for (size_t i = 0; i < LF_COUNT(lf_p_reductions); i++)
        if (!strcmp(c->reduction_name, lf_p_reductions[i])) prm[P_REDUCTION] = (uint8_t)i;
    /* PyTorch's options the loss takes (lf_options.def; fuzz_llm's seeds are bytes): the last value of its
     * byte's table that is the case's, else "not given" */
    for (int o = 0; o < LF_OPTION_COUNT; o++) {
        const lf_option_byte *b = &lf_option_bytes[o];
        double v = lf_option_is_scalar(o) ? lf_case_option_value(c, o) : 0;
        size_t k = 0;
        if (lf_option_of(o)->family != LF_PYTORCH || !lf_case_given(c, o) || !(lf_loss_options(c->loss) >> o & 1))
            continue;
        for (size_t i = 0; i < b->n; i++)
            if (v == b->values[i] || (isnan(v) && isnan(b->values[i]))) k = i;
        prm[b->byte] = (uint8_t)(prm[b->byte] + k * b->divisor);
    }
    prm[P_IN_LAYOUT] = layout_byte(&c->input);
    prm[P_TGT_LAYOUT] = layout_byte(&c->target);
}

/* The weight mode whose shape and dtype the tensor has (lf_params.h), else
 * the nearest: one per class (or per last-dim element). Values go in the
 * payload (WV_PAYLOAD), exactly. */
static uint8_t extra_mode(const lf_tensor *w, const lf_tensor *in, bool bce)
{
    int64_t L = in->ndim ? in->shape[in->ndim - 1] : 1, C = in->ndim >= 2 ? in->shape[1] : in->ndim ? in->shape[0] : 1;
    bool other = w->dtype != in->dtype;
    if (!w->present) return 0;
    if (!bce) {
        if (w->dtype == LF_I64) return W_INT;
        if (other) return W_OTHER_DTYPE;
        if (w->ndim == 0) return W_SCALAR;
        if (w->ndim == 2) return w->shape[0] == 2 ? W_TWO_ROWS : w->shape[0] == 1 ? W_ROW : W_COLUMN;
        return w->numel == C + 1 ? W_ONE_TOO_MANY : w->numel == C - 1 ? W_ONE_TOO_FEW : W_PER_CLASS;
    }
    if (other) return B_OTHER_DTYPE;
    if (w->ndim == 0) return B_SCALAR;
    if (w->ndim == in->ndim + 1) return B_LEADING_ONE;
    if (w->ndim == in->ndim && w->ndim > 1) return w->shape[w->ndim - 1] == 1 ? B_LAST_ONE : B_FULL;
    return w->numel == 1 ? B_ONE : w->numel == L + 1 ? B_LAST_PLUS_ONE : w->numel == L ? B_LAST : B_FIRST;
}

static void weights(sink *s, const lf_tensor *w)
{
    for (int64_t i = 0; w->present && i < w->numel; i++) put_f32(s, lf_load_f64(w->data, w->dtype, i) - 1.0);
}

/* The weight generator a weight's init matches (lf_params.h), its seed's low
 * byte in *seed; WV_PAYLOAD (values in the payload, exactly) otherwise. */
static uint8_t weight_generator(const lf_tensor *w, uint8_t *seed)
{
    const lf_init *g = &w->init;
    if (!w->present || !w->generated || g->n_specials || g->offset != 0) return WV_PAYLOAD;
    *seed = (uint8_t)g->seed;
    if (!strcmp(g->kind, "ones")) return WV_ONES;
    if (!strcmp(g->kind, "zeros")) return WV_ZEROS;
    if (!strcmp(g->kind, "uniform") && g->low == 0 && g->high == 2) return WV_UNIFORM_0_2;
    if (!strcmp(g->kind, "uniform") && g->low == 0.5 && g->high == 1.5) return WV_UNIFORM_NEAR_1;
    if (!strcmp(g->kind, "uniform") && g->low == -1 && g->high == 1) return WV_SIGNED;
    return WV_PAYLOAD;
}

/* The byte the decoder's pick_loss reads back as `loss`: its row's CODE. */
static uint8_t loss_byte(lf_loss loss) { return (uint8_t)lf_loss_of(loss)->code; }

static void encode_class(const lf_case *c, sink *s, uint8_t *prm)
{
    const lf_tensor *in = &c->input, *tg = &c->target;
    int64_t C = in->ndim >= 2 ? in->shape[1] : in->ndim ? in->shape[0] : 0;
    prm[P_LOSS] = loss_byte(c->loss);
    prm[P_RANK] = index_of_rank(lf_p_rank_class, LF_COUNT(lf_p_rank_class), in->ndim);
    prm[P_TGT_DTYPE] = index_of_dtype(lf_p_label_dtypes, LF_COUNT(lf_p_label_dtypes), tg->dtype);
    int want = in->ndim <= 1 ? 0 : in->ndim - 1;
    bool batch_off = want > 0 && tg->ndim == want && tg->shape[0] != in->shape[0];
    prm[P_TGT_SHAPE] = batch_off              ? (tg->shape[0] > in->shape[0] ? TS_BATCH_PLUS_ONE : TS_BATCH_MINUS_ONE)
                       : tg->ndim == want     ? TS_EXACT
                       : tg->ndim == want + 1 ? TS_TRAILING_ONE
                       : tg->ndim == 0        ? TS_SCALAR
                                              : TS_DROP_LAST;
    const int64_t fixed[IG_COUNT] = {-100, 255, -1, 0, C - 1, C, 2147483648LL};
    for (int i = IG_COUNT - 1; i >= 0; i--)
        if (c->ignore_index == fixed[i]) prm[P_IGNORE_OR_POS_WEIGHT] = (uint8_t)i;
    for (int64_t i = 0; i < tg->numel; i++) {
        double label = lf_load_f64(tg->data, tg->dtype, i);
        unsigned v = LF_LABEL_SPECIAL; /* C, when nothing closer fits */
        if (label >= 0 && label < (double)C && label < LF_LABEL_SPECIAL && label == floor(label))
            v = (unsigned)label;
        else
            for (unsigned k = 0; k < LF_N_SPECIAL_LABELS; k++)
                if (lf_special_label(k, C, c->ignore_index) == label) {
                    v = LF_LABEL_SPECIAL | k;
                    break;
                }
        uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
        put(s, b, 2);
    }
    prm[P_WEIGHT] = extra_mode(&c->weight, in, false);
    prm[P_WEIGHT_VALUES] = weight_generator(&c->weight, &prm[P_SEED]);
    /* A large generated input (a wide row) goes as seeded logits, not 4 bytes
     * an element: the seed then fits the engines' length limit. */
    if (in->generated && in->numel > 256 && prm[P_WEIGHT_VALUES] != WV_PAYLOAD) {
        prm[P_FILL] = 1;
        return;
    }
    for (int64_t i = 0; i < in->numel; i++) put_f32(s, lf_load_f64(in->data, in->dtype, i));
    if (prm[P_WEIGHT_VALUES] == WV_PAYLOAD) weights(s, &c->weight);
}

static void encode_prob(const lf_case *c, sink *s, uint8_t *prm)
{
    const lf_tensor *in = &c->input, *tg = &c->target;
    prm[P_LOSS] = loss_byte(c->loss);
    prm[P_RANK] = index_of_rank(lf_p_rank_prob, LF_COUNT(lf_p_rank_prob), in->ndim);
    prm[P_TGT_DTYPE] =
        tg->dtype == in->dtype ? 0 : index_of_dtype(lf_p_prob_dtypes, LF_COUNT(lf_p_prob_dtypes), tg->dtype);
    bool first_off = tg->ndim == in->ndim && tg->ndim && tg->shape[0] != in->shape[0]; /* lf_decode.c's mode 3 */
    prm[P_TGT_SHAPE] = first_off ? (tg->shape[0] == 1 ? 7 : 3) : tg->ndim == in->ndim ? 0 : tg->ndim > in->ndim ? 1 : 2;
    for (size_t i = 0; i < LF_COUNT(lf_p_prob_ignore); i++)
        if (c->ignore_index == lf_p_prob_ignore[i]) prm[P_PROB_IGNORE] = (uint8_t)i;
    bool bce = !lf_loss_has_classes(c->loss);
    prm[P_WEIGHT] = extra_mode(&c->weight, in, bce);
    if (bce) prm[P_IGNORE_OR_POS_WEIGHT] = extra_mode(&c->pos_weight, in, true);
    for (int64_t i = 0; i < in->numel; i++) put_f32(s, lf_load_f64(in->data, in->dtype, i));
    for (int64_t i = 0; i < tg->numel; i++) put_f32(s, lf_load_f64(tg->data, tg->dtype, i));
    weights(s, &c->weight);
    weights(s, &c->pos_weight);
}

size_t lf_encode(lf_target t, const lf_case *c, uint8_t *out, size_t cap)
{
    uint8_t prm[LF_N_PARAMS] = {0};
    sink s = {out, cap, 0, false};
    if (t == LF_TARGET_JSON || t == LF_TARGET_LINEAR || t == LF_TARGET_LLM || lf_loss_of(c->loss)->fused_linear)
        return 0; /* fuzz_linear's and fuzz_llm's seeds are written as bytes (corpus/fuzz_linear, fuzz_llm) */
    bool prob = !lf_loss_has_classes(c->loss) ||
                (lf_loss_takes_probs(c->loss) && c->input.ndim == c->target.ndim &&
                 !memcmp(c->input.shape, c->target.shape, sizeof(int64_t) * (size_t)c->input.ndim));
    if (prob != (t == LF_TARGET_PROB)) return 0; /* the other target's family */
    sizes(&c->input, prm);
    options(c, prm);
    (prob ? encode_prob : encode_class)(c, &s, prm);
    for (int k = LF_N_PARAMS - 1; k >= 0; k--) put(&s, &prm[k], 1);
    return s.full ? 0 : s.at;
}
