/* lf_finding_sig.c - a finding's signature: its class, plus, for the classes
 * that lump unrelated bugs (a rejection of a valid call, a wrong value, a
 * wrong gradient, shape or dtype), what the call has that decides which bug it
 * is - an empty batch or no classes, the dtype, a strided layout, spatial or
 * 1-D input, the reduction, the options, the upstream gradient. Fine enough
 * that a kernel's empty-batch rejection and its strided-target rejection are
 * two findings; coarse enough that one bug keeps one signature while the
 * minimizer shrinks its case (the traits it keeps are part of it). Campaigns
 * dedupe by it; the fuzz targets print it as libFuzzer's DEDUP_TOKEN. */
#include <stdio.h>
#include <string.h>

#include "lf_oracle.h"

enum {
    T_EMPTY = 1 << 0,  /* no targets, or no classes */
    T_DTYPE = 1 << 1,  /* the input's dtype, the target's where it is not the usual */
    T_LAYOUT = 1 << 2, /* a strided input or target */
    T_RANK = 1 << 3,   /* spatial or 1-D input */
    T_REDUCTION = 1 << 4,
    T_OPTIONS = 1 << 5,  /* weight, pos_weight, label smoothing, ignored targets */
    T_UPSTREAM = 1 << 6, /* the upstream gradient's kind, a frozen input */
    T_LOSS = 1 << 7,     /* which loss of a kernel that takes several */
    T_LLM = 1 << 8,      /* the LLM family's options, loss mask, vocab-last and world size */
};

/* The classes that get traits, and which: one table. */
static const struct {
    const char *prefix;
    unsigned traits;
} split[] = {
    {"false-alarm/", T_EMPTY | T_DTYPE | T_LAYOUT | T_RANK | T_REDUCTION | T_OPTIONS | T_LOSS | T_LLM},
    {"value-mismatch/", T_EMPTY | T_DTYPE | T_LAYOUT | T_RANK | T_REDUCTION | T_OPTIONS | T_LOSS | T_LLM},
    {"output-mismatch/", T_EMPTY | T_DTYPE | T_LAYOUT | T_RANK | T_REDUCTION | T_OPTIONS | T_LOSS | T_LLM},
    {"grad-", T_EMPTY | T_DTYPE | T_LAYOUT | T_RANK | T_REDUCTION | T_OPTIONS | T_UPSTREAM | T_LOSS | T_LLM},
    {"shape-mismatch/", T_EMPTY | T_RANK | T_REDUCTION | T_LOSS | T_LLM},
    {"dtype-mismatch/", T_DTYPE | T_OPTIONS | T_LOSS | T_LLM},
};

static void add(char *out, size_t len, size_t *at, const char *trait)
{
    if (*at + 1 >= len) return;
    int n = snprintf(out + *at, len - *at, "%s%s", *at && out[*at - 1] != '[' ? "," : "", trait);
    if (n > 0) *at += (size_t)n < len - *at ? (size_t)n : len - *at - 1;
}

static void traits(const lf_case *c, unsigned want, char *out, size_t len, size_t *at)
{
    const lf_tensor *in = &c->input, *tg = &c->target;
    bool prob = lf_loss_takes_probs(c->loss) && lf_dtype_is_float(tg->dtype) && in->ndim == tg->ndim;
    char loss[64];
    snprintf(loss, sizeof loss, "%s%s", lf_loss_name(c->loss), prob ? "_prob" : "");
    if (want & T_LOSS) add(out, len, at, loss);
    if ((want & T_EMPTY) && (in->numel == 0 || tg->numel == 0 || lf_case_classes(c) == 0)) /* a fused linear: V */
        add(out, len, at, lf_case_classes(c) == 0 ? "no-classes" : "empty");               /* vocab_last: V, not T */
    if (want & T_DTYPE) {
        add(out, len, at, lf_dtype_name(in->dtype));
        if (tg->dtype != LF_I64 && tg->dtype != in->dtype) add(out, len, at, lf_dtype_name(tg->dtype));
    }
    if ((want & T_LAYOUT) && (in->strided || tg->strided)) add(out, len, at, "strided");
    if ((want & T_RANK) && in->ndim > 2) add(out, len, at, "spatial");
    if ((want & T_RANK) && in->ndim == 1) add(out, len, at, "1-D");
    if (want & T_REDUCTION)
        add(out, len, at,
            c->reduction == LF_REDUCTION_NONE  ? "none"
            : c->reduction == LF_REDUCTION_SUM ? "sum"
                                               : "mean");
    if ((want & T_OPTIONS) && c->weight.present) add(out, len, at, "weight");
    if ((want & T_OPTIONS) && c->pos_weight.present) add(out, len, at, "pos_weight");
    if ((want & T_OPTIONS) && lf_case_has_smoothing(c)) add(out, len, at, "smoothing");
    if ((want & T_OPTIONS) && lf_case_any_ignored(c)) add(out, len, at, "ignored");
    if (want & T_LLM) {
        char w[16];
        for (int o = 0; o < LF_OPTION_COUNT; o++) /* the family's options on (lf_options.def), loss_mask too */
            if ((LF_OPT_LLM >> o & 1) && lf_case_option_on(c, o)) add(out, len, at, lf_option_of(o)->name);
        if (c->vocab_last && in->ndim > 2) add(out, len, at, "vocab_last");
        snprintf(w, sizeof w, "W=%d", c->world_size);
        if (c->world_size > 1) add(out, len, at, w);
    }
    if (want & T_UPSTREAM) {
        add(out, len, at, lf_upstream_name(c->backward.upstream));
        if (!c->backward.input_requires_grad) add(out, len, at, "frozen");
    }
}

static void signature(const lf_case *c, const char *cls, unsigned drop, char *out, size_t len)
{
    size_t at = (size_t)snprintf(out, len, "%s", cls);
    if (at >= len) return;
    for (size_t i = 0; i < sizeof split / sizeof split[0]; i++) {
        if (strncmp(cls, split[i].prefix, strlen(split[i].prefix))) continue;
        if (at + 2 >= len) return;
        out[at++] = '[';
        out[at] = 0;
        traits(c, split[i].traits & ~drop, out, len, &at);
        if (at + 1 < len) out[at++] = ']', out[at] = 0;
        return;
    }
}

void lf_finding_signature(const lf_case *c, const char *cls, char *out, size_t len) { signature(c, cls, 0, out, len); }

/* Without the dtype and the layout: which of them a bug needs, the minimizer
 * finds out (it simplifies them where the finding stays). */
void lf_finding_key(const lf_case *c, const char *cls, char *out, size_t len)
{
    signature(c, cls, T_DTYPE | T_LAYOUT, out, len);
}
