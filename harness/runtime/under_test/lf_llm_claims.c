/* lf_llm_claims.c - what a kernel claims of the LLM cross-entropy family
 * (lf_kernel_claims.h, lf_llm_claims): its options and their keywords, its
 * outputs, the class dim last, vocabulary parallelism. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_kernel_claims.h"

static bool fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "kernel claims: %s", what);
    return false;
}

/* The family's scalar option (lf_options.def) by its name: false for another name. */

/* The options a kernel claims by keyword: the LLM family's and the chunked path's (LinearCrossEntropyOptions) */
#define CLAIMABLE (LF_OPT_LLM | LF_OPT_CHUNKED)
/* The case's options of those that the kernel is not sent */
static bool withheld(const lf_llm_claims *l, lf_option o) { return (CLAIMABLE & ~l->options) >> o & 1; }

static bool parse_ranges(const json_t *ranges, lf_llm_claims *l, char *err, size_t errlen);

/* The splits' names in claims (lf_split) */
static const char *const splits[] = {
    [LF_SPLIT_EVEN] = "even", [LF_SPLIT_DIVISIBLE] = "divisible", [LF_SPLIT_ANY] = "any"};

bool lf_llm_claims_parse(const json_t *o, lf_llm_claims *l, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    const json_t *opts = json_object_get(o, "options"), *v, *outputs = json_object_get(o, "outputs");
    const char *name;
    size_t i;
    if (opts && !json_is_object(opts)) return fail(err, errlen, "\"options\" maps lossfuzz's option names to keywords");
    json_object_foreach((json_t *)opts, name, v)
    {
        lf_option opt;
        if (!lf_option_parse(name, &opt) || !json_is_string(v)) {
            snprintf(err, errlen,
                     "kernel claims: \"options\" has \"%.60s\", not an option of lossfuzz's (%s, ...) "
                     "mapped to a keyword",
                     name, lf_option_of(LF_OPTION_LOGIT_SCALE)->name);
            return false;
        }
        l->options |= (1u << opt) & CLAIMABLE;
    }
    if (outputs && !json_is_array(outputs))
        return fail(err, errlen, "\"outputs\" is a list: \"loss\", \"z_loss\", \"lse\"");
    json_array_foreach(outputs, i, v)
    {
        int k = 0;
        while (k < LF_OUT_COUNT && !(json_is_string(v) && !strcmp(json_string_value(v), lf_llm_output_names[k]))) k++;
        if (k < LF_OUT_COUNT)
            l->outputs |= 1u << k;
        else if (!json_is_string(v) || strcmp(json_string_value(v), "loss"))
            return fail(err, errlen, "\"outputs\" names \"loss\", \"z_loss\" or \"lse\"");
    }
    l->vocab_last = json_is_true(json_object_get(o, "vocab_last"));
    const json_t *vp = json_object_get(o, "vocab_parallel"), *ws = json_object_get(o, "world_size");
    const char *vp_form = "\"vocab_parallel\" is {\"group\": KEYWORD, \"split\": \"divisible\", \"even\" or "
                          "\"any\", \"empty_shards\": BOOL}";
    if (vp && !json_is_object(vp)) return fail(err, errlen, vp_form);
    l->vocab_parallel = vp != NULL;
    /* "uneven_shards": true, the first form of the claim: any cuts, empty shards included */
    bool any = json_is_true(json_object_get(vp, "uneven_shards"));
    const json_t *split = json_object_get(vp, "split"), *empty = json_object_get(vp, "empty_shards");
    l->split = any ? LF_SPLIT_ANY : LF_SPLIT_EVEN;
    for (int k = 0; split && k <= LF_SPLIT_ANY; k++)
        if (json_is_string(split) && !strcmp(json_string_value(split), splits[k])) l->split = (lf_split)k, split = NULL;
    if (split || (empty && !json_is_boolean(empty))) return fail(err, errlen, vp_form);
    l->empty_shards = empty ? json_is_true(empty) : any;
    if (ws && (!json_is_integer(ws) || json_integer_value(ws) < 1 || json_integer_value(ws) > LF_MAX_WORLD))
        return fail(err, errlen, "\"world_size\" is 1 to 8");
    l->world_size = ws ? (int)json_integer_value(ws) : 0;
    return parse_ranges(json_object_get(o, "ranges"), l, err, errlen);
}

/* "ranges": {NAME: [LOW, HIGH]}, a scalar option each - the family's or PyTorch's (TransformerEngine documents
 * label_smoothing in [0, 1]) - with LOW <= its default <= HIGH (a kernel takes the option off) */
static bool parse_ranges(const json_t *ranges, lf_llm_claims *l, char *err, size_t errlen)
{
    const char *name;
    const json_t *v;
    if (ranges && !json_is_object(ranges)) return fail(err, errlen, "\"ranges\" maps options to [LOW, HIGH]");
    json_object_foreach((json_t *)ranges, name, v)
    {
        lf_option k;
        bool known = lf_option_parse(name, &k) && lf_option_is_scalar(k);
        bool pair = json_is_array(v) && json_array_size(v) == 2 && json_is_number(json_array_get(v, 0)) &&
                    json_is_number(json_array_get(v, 1));
        double lo = pair ? json_number_value(json_array_get(v, 0)) : 0,
               hi = pair ? json_number_value(json_array_get(v, 1)) : 0;
        if (!known || !pair || !(lo <= lf_option_of(k)->default_value && lf_option_of(k)->default_value <= hi)) {
            snprintf(err, errlen,
                     "kernel claims: \"ranges\" has \"%.40s\": a scalar option (%s, %s, ...) and [LOW, HIGH] "
                     "around its default",
                     name, lf_option_of(LF_OPTION_LABEL_SMOOTHING)->name, lf_option_of(LF_OPTION_LOGIT_SCALE)->name);
            return false;
        }
        l->lo[k] = lo, l->hi[k] = hi;
        l->ranged |= 1u << k;
    }
    return true;
}

void lf_llm_claims_json(const lf_llm_claims *l, json_t *o)
{
    json_t *opts = json_object(), *outputs = json_array();
    for (int k = 0; k < LF_OPTION_COUNT; k++)
        if (l->options >> k & 1) json_object_set_new(opts, lf_option_of(k)->name, json_string(lf_option_of(k)->name));
    json_array_append_new(outputs, json_string("loss"));
    for (int k = 0; k < LF_OUT_COUNT; k++)
        if (l->outputs & (1u << k)) json_array_append_new(outputs, json_string(lf_llm_output_names[k]));
    json_object_set_new(o, "options", opts);
    json_object_set_new(o, "outputs", outputs);
    if (l->vocab_last) json_object_set_new(o, "vocab_last", json_true());
    if (l->vocab_parallel)
        json_object_set_new(o, "vocab_parallel",
                            json_pack("{s:s, s:b}", "split", splits[l->split], "empty_shards", l->empty_shards));
    if (l->world_size) json_object_set_new(o, "world_size", json_integer(l->world_size));
    json_t *ranges = json_object();
    for (int k = 0; k < LF_OPTION_COUNT; k++)
        if (l->ranged >> k & 1)
            json_object_set_new(ranges, lf_option_of(k)->name, json_pack("[f, f]", l->lo[k], l->hi[k]));
    json_object_set_new(o, "ranges", ranges);
}

/* The case's split of its classes is not the even one. */
static bool uneven(const lf_case *c)
{
    int64_t V = lf_case_classes(c), first;
    lf_case even = *c;
    even.n_shards = 0;
    for (int r = 0; r < c->n_shards; r++)
        if (c->shards[r] != lf_case_shard(&even, V, r, &first)) return true;
    return false;
}

const char *lf_llm_claims_skip(const lf_llm_claims *l, const lf_case *c)
{
    static _Thread_local char why[96];
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_option_is_scalar(o) && lf_case_given(c, o) && withheld(l, o)) return lf_option_of(o)->name;
    for (int o = 0; o < LF_OPTION_COUNT; o++) {
        double v = lf_option_is_scalar(o) ? lf_case_option_value(c, o) : 0;
        if ((l->ranged >> o & 1) && lf_case_given(c, o) && !(v >= l->lo[o] && v <= l->hi[o])) {
            snprintf(why, sizeof why, "%s %g (it claims %g to %g)", lf_option_of(o)->name, v, l->lo[o], l->hi[o]);
            return why;
        }
    }
    if (c->loss_mask.present && withheld(l, LF_OPTION_LOSS_MASK)) return "loss_mask";
    if (c->input.ndim >= 3 && !lf_loss_of(c->loss)->fused_linear && c->vocab_last != l->vocab_last)
        return c->vocab_last ? "the class dim last" : "the class dim 1 (it claims vocab_last)";
    int want = l->vocab_parallel && l->world_size ? l->world_size : 1;
    if (c->world_size != want) {
        snprintf(why, sizeof why, "world size %d (its worker runs %d)", c->world_size, want);
        return why;
    }
    if (uneven(c) && l->split != LF_SPLIT_ANY) return "uneven shards";
    int64_t V = lf_case_classes(c), first;
    if (c->world_size > 1 && l->split == LF_SPLIT_DIVISIBLE && V % c->world_size) {
        snprintf(why, sizeof why, "%lld classes over %d ranks (it claims divisible splits)", (long long)V,
                 c->world_size);
        return why;
    }
    for (int r = 0; c->world_size > 1 && !l->empty_shards && r < c->world_size; r++) /* V = 0: every shard */
        if (lf_case_shard(c, V, r, &first) == 0) return "an empty shard (it does not claim empty_shards)";
    if (l->vocab_parallel && lf_dtype_is_float(c->target.dtype)) return "probabilities under vocabulary parallelism";
    return NULL;
}

/* A loss mask of the rows' shape once the class dim moved (vocab_last as the kernel claims): the values again,
 * in their order, or no mask where there is nothing to fill it with. */
static void fit_mask(lf_case *c)
{
    int64_t shape[LF_MAX_DIMS];
    char err[128];
    int n = lf_case_row_shape(c, shape);
    lf_tensor *m = &c->loss_mask, old = *m;
    if (!m->present || (m->ndim == n && !memcmp(m->shape, shape, sizeof(int64_t) * (size_t)n))) return;
    memset(m, 0, sizeof *m);
    if (old.numel > 0 && lf_tensor_alloc(m, old.dtype, n, shape, err, sizeof err))
        for (int64_t i = 0; i < m->numel; i++)
            lf_store_f64(m->data, m->dtype, i, lf_load_f64(old.data, old.dtype, i % old.numel));
    lf_tensor_free(&old);
}

void lf_llm_claims_fit(const lf_llm_claims *l, lf_case *c)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++) /* the loss mask too */
        if (withheld(l, o)) lf_case_option_off(c, o);
    for (int o = 0; o < LF_OPTION_COUNT; o++) /* a value outside the claimed range: the nearest inside */
        if ((l->ranged >> o & 1) && lf_case_given(c, o))
            lf_case_set_option(c, o, fmin(fmax(lf_case_option_value(c, o), l->lo[o]), l->hi[o]));
    if (c->n_items > 0 && c->reduction == LF_REDUCTION_NONE) /* n_items divides a sum */
        lf_case_option_off(c, LF_OPTION_N_ITEMS);
    c->vocab_last = l->vocab_last;
    fit_mask(c);
    c->world_size = l->vocab_parallel && l->world_size ? l->world_size : 1;
    int64_t V = lf_case_classes(c);
    c->n_shards = 0;
    /* a rank at least where empty shards are not claimed (fewer classes than ranks: the even split, skipped) */
    int64_t least = l->empty_shards ? 0 : 1;
    if (c->world_size > 1 && l->split == LF_SPLIT_ANY && V >= least * c->world_size && (c->backward.seed & 1)) {
        /* uneven: cuts from the case's seed */
        uint64_t s = c->backward.seed;
        int64_t left = V - least * c->world_size;
        for (int r = 0; r < c->world_size; r++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            int64_t extra = r == c->world_size - 1 ? left : (int64_t)((s >> 33) % (uint64_t)(left + 1));
            c->shards[r] = least + extra;
            left -= extra;
        }
        c->n_shards = c->world_size;
    }
}
