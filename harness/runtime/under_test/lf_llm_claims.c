/* lf_llm_claims.c - what a kernel claims of the LLM cross-entropy family
 * (lf_kernel_claims.h, lf_llm_claims): its options and their keywords, its
 * outputs, the class dim last, vocabulary parallelism. */
#include <stdio.h>
#include <string.h>

#include "lf_kernel_claims.h"

static bool fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "kernel claims: %s", what);
    return false;
}

static int option_bit(const char *name) /* an LF_OPT_* bit by its name, or 0 */
{
    for (int k = 0; k < LF_OPT_COUNT; k++)
        if (!strcmp(name, lf_option_names[k])) return 1 << k;
    return 0;
}

bool lf_llm_claims_parse(const json_t *o, lf_llm_claims *l, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    const json_t *opts = json_object_get(o, "options"), *v, *outputs = json_object_get(o, "outputs");
    const char *name;
    size_t i;
    if (opts && !json_is_object(opts)) return fail(err, errlen, "\"options\" maps lossfuzz's option names to keywords");
    json_object_foreach((json_t *)opts, name, v)
    {
        int bit = option_bit(name);
        if (!bit || !json_is_string(v)) {
            snprintf(err, errlen,
                     "kernel claims: \"options\" has \"%.60s\", not an option of lossfuzz's (%s, ...) "
                     "mapped to a keyword",
                     name, lf_llm_names[0]);
            return false;
        }
        l->options |= (unsigned)bit & LF_OPT_LLM;
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
    if (vp && !json_is_object(vp))
        return fail(err, errlen, "\"vocab_parallel\" is {\"group\": KEYWORD, \"uneven_shards\": BOOL}");
    l->vocab_parallel = vp != NULL;
    l->uneven_shards = json_is_true(json_object_get(vp, "uneven_shards"));
    if (ws && (!json_is_integer(ws) || json_integer_value(ws) < 1 || json_integer_value(ws) > LF_MAX_WORLD))
        return fail(err, errlen, "\"world_size\" is 1 to 8");
    l->world_size = ws ? (int)json_integer_value(ws) : 0;
    return true;
}

void lf_llm_claims_json(const lf_llm_claims *l, json_t *o)
{
    json_t *opts = json_object(), *outputs = json_array();
    for (int k = 0; k < LF_OPT_COUNT; k++)
        if (l->options & (1u << k)) json_object_set_new(opts, lf_option_names[k], json_string(lf_option_names[k]));
    json_array_append_new(outputs, json_string("loss"));
    for (int k = 0; k < LF_OUT_COUNT; k++)
        if (l->outputs & (1u << k)) json_array_append_new(outputs, json_string(lf_llm_output_names[k]));
    json_object_set_new(o, "options", opts);
    json_object_set_new(o, "outputs", outputs);
    if (l->vocab_last) json_object_set_new(o, "vocab_last", json_true());
    if (l->vocab_parallel)
        json_object_set_new(o, "vocab_parallel", json_pack("{s:b}", "uneven_shards", l->uneven_shards));
    if (l->world_size) json_object_set_new(o, "world_size", json_integer(l->world_size));
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
    for (int k = 0; k < LF_LLM_COUNT; k++)
        if ((c->llm_given >> k & 1) && !(l->options & LF_OPT_OF_LLM(k))) return lf_llm_names[k];
    if (c->loss_mask.present && !(l->options & LF_OPT_LOSS_MASK)) return "loss_mask";
    if (c->input.ndim >= 3 && !lf_loss_of(c->loss)->fused_linear && c->vocab_last != l->vocab_last)
        return c->vocab_last ? "the class dim last" : "the class dim 1 (it claims vocab_last)";
    int want = l->vocab_parallel && l->world_size ? l->world_size : 1;
    if (c->world_size != want) {
        snprintf(why, sizeof why, "world size %d (its worker runs %d)", c->world_size, want);
        return why;
    }
    if (uneven(c) && !l->uneven_shards) return "uneven shards";
    if (l->vocab_parallel && lf_dtype_is_float(c->target.dtype)) return "probabilities under vocabulary parallelism";
    return NULL;
}

void lf_llm_claims_fit(const lf_llm_claims *l, lf_case *c)
{
    for (int k = 0; k < LF_LLM_COUNT; k++)
        if (!(l->options & LF_OPT_OF_LLM(k))) {
            c->llm_given &= ~(1u << k);
            c->llm[k] = lf_llm_defaults[k];
        }
    if (!(l->options & LF_OPT_LOSS_MASK) && c->loss_mask.present) lf_tensor_free(&c->loss_mask);
    if (c->llm[LF_LLM_N_ITEMS] > 0 && c->reduction == LF_REDUCTION_NONE) { /* n_items divides a sum */
        c->llm_given &= ~(1u << LF_LLM_N_ITEMS);
        c->llm[LF_LLM_N_ITEMS] = 0;
    }
    c->vocab_last = l->vocab_last;
    c->world_size = l->vocab_parallel && l->world_size ? l->world_size : 1;
    int64_t V = lf_case_classes(c);
    c->n_shards = 0;
    if (c->world_size > 1 && l->uneven_shards && V > 0 && (c->backward.seed & 1)) {
        /* uneven: cuts from the case's seed, empty shards included */
        uint64_t s = c->backward.seed;
        int64_t left = V;
        for (int r = 0; r < c->world_size; r++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            c->shards[r] = r == c->world_size - 1 ? left : (int64_t)((s >> 33) % (uint64_t)(left + 1));
            left -= c->shards[r];
        }
        c->n_shards = c->world_size;
    }
}
