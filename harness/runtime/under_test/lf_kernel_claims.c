/* lf_kernel_claims.c - a kernel's claims: from its table, to and from the
 * worker's hello, and whether a case is within them (lf_kernel_claims.h). */
#include "lf_kernel_claims.h"

#include <stdio.h>
#include <string.h>

#include "lf_shape.h"

/* The losses' claims bits (kernel.h) and their names, from the loss table:
 * a loss's name, and NAME_prob for it with probability targets. */
static const struct {
    unsigned bit, prob_bit;
    const char *name, *prob_name;
} loss_claims[LF_LOSS_COUNT] = {
#define LF_LOSS(ID, NAME, TARGETS, FLAGS, POSITIONAL, OPTIONS, CLAIM, CLAIM_PROB, ...)                                 \
    [LF_LOSS_##ID] = {CLAIM, CLAIM_PROB, NAME, NAME "_prob"},
#include "lf_losses.def"
#undef LF_LOSS
};
#define LOSS_BITS 32
static const char *const *loss_names(void) /* by bit, as the hello writes them; NULL where no loss is */
{
    static const char *names[LOSS_BITS];
    for (int l = 0; l < LF_LOSS_COUNT; l++) {
        names[__builtin_ctz(loss_claims[l].bit)] = loss_claims[l].name;
        if (loss_claims[l].prob_bit) names[__builtin_ctz(loss_claims[l].prob_bit)] = loss_claims[l].prob_name;
    }
    return names;
}
const char *lf_kernel_claims_unreachable(unsigned losses)
{
    /* the options lossfuzz_call has fields for (kernel.h) */
    const unsigned fields = LF_OPT_WEIGHT | LF_OPT_POS_WEIGHT | LF_OPT_IGNORE_INDEX | LF_OPT_LABEL_SMOOTHING |
                            LF_OPT_LINEAR_BIAS | LF_OPT_LLM | LF_OPT_CHUNKED; /* the last two: never sent to C */
    for (int l = 0; l < LF_LOSS_COUNT; l++)
        if ((losses & (loss_claims[l].bit | loss_claims[l].prob_bit)) && (lf_loss_options((lf_loss)l) & ~fields))
            return loss_claims[l].name;
    return NULL;
}
static unsigned all_loss_bits(void)
{
    unsigned bits = 0;
    for (int l = 0; l < LF_LOSS_COUNT; l++) bits |= loss_claims[l].bit | loss_claims[l].prob_bit;
    return bits;
}
static const char *const dtype_names[] = {"float32", "float64", "float16", "bfloat16",
                                          "int64",   "int32",   "uint8",   "bool"};
static const char *const reduction_names[] = {"none", "mean", "sum"};
static const char *const feature_names[] = {"weight",     "ignore_index",    "label_smoothing",
                                            "pos_weight", "contiguous_only", "linear_bias"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

unsigned lf_kernel_claims_targets(const lf_kernel_claims *k, bool *fused_linear)
{
    unsigned kinds = 0;
    *fused_linear = false;
    for (int l = 0; l < LF_LOSS_COUNT; l++) {
        const lf_loss_info *L = lf_loss_of((lf_loss)l);
        if (k->losses & loss_claims[l].prob_bit) kinds |= LF_TAKES(LF_PROB_TARGETS);
        if (!(k->losses & loss_claims[l].bit)) continue;
        if (L->fused_linear)
            *fused_linear = true;
        else /* its plain bit: class indices where it takes them, else its one kind (BCE's binary targets) */
            kinds |= L->targets & LF_TAKES(LF_CLASS_TARGETS) ? LF_TAKES(LF_CLASS_TARGETS) : L->targets;
    }
    return kinds;
}

unsigned lf_kernel_dtype_bit(lf_dtype t)
{
    switch (t) {
    case LF_F32: return LOSSFUZZ_F32;
    case LF_F64: return LOSSFUZZ_F64;
    case LF_F16: return LOSSFUZZ_F16;
    case LF_BF16: return LOSSFUZZ_BF16;
    case LF_I64: return LOSSFUZZ_I64;
    case LF_I32: return LOSSFUZZ_I32;
    case LF_U8: return LOSSFUZZ_U8;
    default: return LOSSFUZZ_BOOL;
    }
}

void lf_kernel_claims_all(lf_kernel_claims *k)
{
    memset(k, 0, sizeof *k);
    snprintf(k->device, sizeof k->device, "cpu");
    k->losses = all_loss_bits();
    k->input_dtypes = k->target_dtypes = (1u << COUNT(dtype_names)) - 1;
    k->reductions = (1u << COUNT(reduction_names)) - 1;
    k->features =
        LOSSFUZZ_WEIGHT | LOSSFUZZ_IGNORE_INDEX | LOSSFUZZ_LABEL_SMOOTHING | LOSSFUZZ_POS_WEIGHT | LOSSFUZZ_LINEAR_BIAS;
    k->max_spatial_dims = LF_MAX_DIMS - 2;
    k->backward = true;
}

void lf_kernel_claims_of_table(const lossfuzz_kernel *t, lf_kernel_claims *k)
{
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", t->name ? t->name : "(unnamed)");
    snprintf(k->device, sizeof k->device, "%s", t->device == kDLCUDA ? "cuda" : "cpu");
    k->guarded = t->guarded != 0;
    k->losses = t->losses;
    k->input_dtypes = t->input_dtypes;
    k->target_dtypes = t->target_dtypes;
    k->reductions = t->reductions;
    k->features = t->features;
    k->max_spatial_dims = t->max_spatial_dims;
    k->backward = t->backward != NULL;
    /* ABI 3: kernel.h's LLM bits are lf_options.def's order, as LF_OPT_* from LF_OPT_LOGIT_SCALE */
    _Static_assert(LF_OPT_LOGIT_SCALE << 4 == LF_OPT_LOSS_MASK && LOSSFUZZ_LOSS_MASK == 0x10u,
                   "kernel.h's llm_options and lf_options.def's order differ");
    k->llm.options = (t->llm_options & 0x1fu) * LF_OPT_LOGIT_SCALE;
    k->llm.outputs = t->outputs & ((1u << LF_OUT_COUNT) - 1);
    k->llm.vocab_last = (t->features & LOSSFUZZ_VOCAB_LAST) != 0;
}

static json_t *names_of(unsigned bits, const char *const *names, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        if ((bits & (1u << i)) && names[i]) json_array_append_new(a, json_string(names[i]));
    return a;
}

json_t *lf_kernel_claims_json(const lf_kernel_claims *k)
{
    json_t *o = json_pack("{s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:i, s:b, s:I}", "name", k->name, "device",
                          k->device, "guarded", k->guarded, "losses", names_of(k->losses, loss_names(), LOSS_BITS),
                          "input_dtypes", names_of(k->input_dtypes, dtype_names, COUNT(dtype_names)), "target_dtypes",
                          names_of(k->target_dtypes, dtype_names, COUNT(dtype_names)), "reductions",
                          names_of(k->reductions, reduction_names, COUNT(reduction_names)), "features",
                          names_of(k->features, feature_names, COUNT(feature_names)), "max_spatial_dims",
                          k->max_spatial_dims, "backward", k->backward, "max_numel", (json_int_t)k->max_numel);
    lf_llm_claims_json(&k->llm, o);
    return o;
}

/* A list of names into bits; false with err for an unknown name or a non-list. */
static bool bits_of(const json_t *o, const char *key, const char *const *names, size_t n, unsigned *bits, char *err,
                    size_t errlen)
{
    const json_t *a = json_object_get(o, key), *v;
    size_t i;
    if (!a) return true; /* not said: the default stands */
    if (!json_is_array(a)) {
        snprintf(err, errlen, "kernel claims: \"%s\" must be a list of names", key);
        return false;
    }
    *bits = 0;
    json_array_foreach(a, i, v)
    {
        size_t b = 0;
        while (b < n && !(json_is_string(v) && names[b] && !strcmp(json_string_value(v), names[b]))) b++;
        if (b == n) {
            snprintf(err, errlen, "kernel claims: \"%s\" has %s%s%s, not one of its names", key,
                     json_is_string(v) ? "\"" : "", json_is_string(v) ? json_string_value(v) : "a non-string",
                     json_is_string(v) ? "\"" : "");
            return false;
        }
        *bits |= 1u << b;
    }
    return true;
}

static bool flag(const json_t *o, const char *key, bool *out, char *err, size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (v && !json_is_boolean(v)) {
        snprintf(err, errlen, "kernel claims: \"%s\" must be true or false", key);
        return false;
    }
    if (v) *out = json_is_true(v);
    return true;
}

static bool count(const json_t *o, const char *key, int64_t *out, char *err, size_t errlen)
{
    const json_t *v = json_object_get(o, key);
    if (v && (!json_is_integer(v) || json_integer_value(v) < 0)) {
        snprintf(err, errlen, "kernel claims: \"%s\" must be a count", key);
        return false;
    }
    if (v) *out = json_integer_value(v);
    return true;
}

/* The deliberate deviations: flags, minimum sizes, and "accept": {PREFIX: REASON}. */
static bool deviations_of(const json_t *o, lf_kernel_deviations *d, char *err, size_t errlen)
{
    if (!flag(o, "grad_in_place", &d->grad_in_place, err, errlen) ||
        !flag(o, "float32_result", &d->float32_result, err, errlen) ||
        !flag(o, "labels_unchecked", &d->labels_unchecked, err, errlen) ||
        !flag(o, "targets_flattened", &d->targets_flattened, err, errlen) ||
        !flag(o, "no_ignore_index", &d->no_ignore_index, err, errlen) ||
        !flag(o, "empty_mean_zero", &d->empty_mean_zero, err, errlen) ||
        !count(o, "min_batch", &d->min_batch, err, errlen) || !count(o, "min_classes", &d->min_classes, err, errlen))
        return false;
    const json_t *accept = json_object_get(o, "accept"), *reason;
    const char *prefix;
    if (accept && !json_is_object(accept)) {
        snprintf(err, errlen, "kernel claims: \"accept\" must map finding signatures (or their start) to reasons");
        return false;
    }
    json_object_foreach((json_t *)accept, prefix, reason)
    {
        if (!json_is_string(reason) || !json_string_length(reason) || d->n_accepted == LF_MAX_ACCEPTED) {
            snprintf(err, errlen, "kernel claims: \"accept\" takes at most %d signatures, each with a reason",
                     LF_MAX_ACCEPTED);
            return false;
        }
        snprintf(d->accepted[d->n_accepted].prefix, sizeof d->accepted[0].prefix, "%s", prefix);
        snprintf(d->accepted[d->n_accepted++].reason, sizeof d->accepted[0].reason, "%s", json_string_value(reason));
    }
    return true;
}

bool lf_kernel_claims_parse(const json_t *o, lf_kernel_claims *k, char *err, size_t errlen)
{
    lf_kernel_claims_all(k); /* what a Python callable does not say, it takes */
    if (!json_is_object(o)) {
        snprintf(err, errlen, "kernel claims: not an object");
        return false;
    }
    const char *name = json_string_value(json_object_get(o, "name"));
    const char *device = json_string_value(json_object_get(o, "device"));
    snprintf(k->name, sizeof k->name, "%s", name ? name : "(unnamed)");
    if (device) snprintf(k->device, sizeof k->device, "%s", device);
    k->guarded = json_is_true(json_object_get(o, "guarded"));
    const json_t *spatial = json_object_get(o, "max_spatial_dims");
    if (spatial && (!json_is_integer(spatial) || json_integer_value(spatial) < 0)) {
        snprintf(err, errlen, "kernel claims: \"max_spatial_dims\" must be a count");
        return false;
    }
    if (spatial) k->max_spatial_dims = (int)json_integer_value(spatial);
    const json_t *backward = json_object_get(o, "backward");
    if (backward && !json_is_boolean(backward)) {
        snprintf(err, errlen, "kernel claims: \"backward\" must be true or false");
        return false;
    }
    if (backward) k->backward = json_is_true(backward);
    const json_t *max_numel = json_object_get(o, "max_numel");
    if (max_numel && (!json_is_integer(max_numel) || json_integer_value(max_numel) < 0)) {
        snprintf(err, errlen, "kernel claims: \"max_numel\" must be a count (0: no limit)");
        return false;
    }
    if (max_numel) k->max_numel = json_integer_value(max_numel);
    return deviations_of(o, &k->deviations, err, errlen) &&
           bits_of(o, "losses", loss_names(), LOSS_BITS, &k->losses, err, errlen) &&
           bits_of(o, "input_dtypes", dtype_names, COUNT(dtype_names), &k->input_dtypes, err, errlen) &&
           bits_of(o, "target_dtypes", dtype_names, COUNT(dtype_names), &k->target_dtypes, err, errlen) &&
           bits_of(o, "reductions", reduction_names, COUNT(reduction_names), &k->reductions, err, errlen) &&
           bits_of(o, "features", feature_names, COUNT(feature_names), &k->features, err, errlen) &&
           lf_llm_claims_parse(o, &k->llm, err, errlen);
}

unsigned lf_kernel_loss_bits(const lf_case *c)
{
    unsigned prob = loss_claims[c->loss].prob_bit, plain = loss_claims[c->loss].bit;
    if (prob && lf_same_shape(&c->input, &c->target)) return prob;
    return prob && lf_dtype_is_float(c->target.dtype) ? plain | prob : plain;
}

unsigned lf_kernel_loss_bit(const lf_case *c, unsigned losses)
{
    unsigned bits = lf_kernel_loss_bits(c), plain = loss_claims[c->loss].bit;
    return bits & plain && (losses & plain || !(losses & bits)) ? plain : bits & ~plain;
}

const char *lf_kernel_claims_skip(const lf_kernel_claims *k, const lf_case *c)
{
    static _Thread_local char why[96];
    unsigned loss = lf_kernel_loss_bit(c, k->losses);
    if (!(k->losses & loss)) {
        snprintf(why, sizeof why, "loss %s", loss_names()[__builtin_ctz(loss)]);
        return why;
    }
    if (!(k->input_dtypes & lf_kernel_dtype_bit(c->input.dtype))) {
        snprintf(why, sizeof why, "input dtype %s", lf_dtype_name(c->input.dtype));
        return why;
    }
    if (!(k->target_dtypes & lf_kernel_dtype_bit(c->target.dtype))) {
        snprintf(why, sizeof why, "target dtype %s", lf_dtype_name(c->target.dtype));
        return why;
    }
    if (c->reduction == LF_REDUCTION_INVALID || !(k->reductions & LOSSFUZZ_REDUCTION_BIT(c->reduction))) {
        snprintf(why, sizeof why, "reduction %s", c->reduction_name[0] ? c->reduction_name : "?");
        return why;
    }
    if (k->max_numel && c->input.numel > k->max_numel) {
        snprintf(why, sizeof why, "input of %lld elements (it claims at most %lld)", (long long)c->input.numel,
                 (long long)k->max_numel);
        return why;
    }
    /* the logits' dims past [N, C]: a fused linear's come from its weight [C, d1..dK, H] */
    int spatial = c->linear_weight.present ? c->linear_weight.ndim - 2 : c->input.ndim - 2;
    if (spatial > k->max_spatial_dims) {
        snprintf(why, sizeof why, "%d spatial dims", spatial);
        return why;
    }
    if (c->weight.present && !(k->features & LOSSFUZZ_WEIGHT)) return "weight";
    if (c->linear_bias.present && !(k->features & LOSSFUZZ_LINEAR_BIAS)) return "linear_bias";
    if (c->pos_weight.present && !(k->features & LOSSFUZZ_POS_WEIGHT)) return "pos_weight";
    if (c->ignore_index != -100 && !(k->features & LOSSFUZZ_IGNORE_INDEX)) return "ignore_index";
    if (k->deviations.no_ignore_index && lf_case_any_ignored(c)) return "ignored labels (no_ignore_index)";
    if (c->label_smoothing != 0 && !(k->features & LOSSFUZZ_LABEL_SMOOTHING)) return "label_smoothing";
    if ((c->input.strided || c->target.strided) && (k->features & LOSSFUZZ_CONTIGUOUS_ONLY)) return "strided";
    return lf_llm_claims_skip(&k->llm, c);
}
