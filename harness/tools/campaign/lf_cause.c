/* lf_cause.c - a finding's cause (lf_cause.h): each trait of its case taken
 * away, the case replayed. One table of traits; the reduction and the dtype,
 * which have more than one way back, are tried after it. */
#include "lf_cause.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_campaign.h"
#include "lf_clock.h"
#include "lf_layout.h"
#include "lf_minimize.h"
#include "lf_tensor_ops.h"

static bool fused(const lf_case *c) { return lf_loss_of(c->loss)->fused_linear; }

/* ---- the traits: whether the case has it, and the case without it (cand: a copy of c) */

static bool has_strided_input(const lf_case *c) { return c->input.strided; }
static bool no_strided_input(lf_case *x)
{
    x->input.strided = false;
    return true;
}
static bool has_strided_target(const lf_case *c) { return c->target.strided; }
static bool no_strided_target(lf_case *x)
{
    x->target.strided = false;
    return true;
}

/* PyTorch's mean divides by the rows' weights, and an ignored label is a row of weight 0:
 * a class weight and an ignored label are one trait, rows weighted unevenly. */
static bool has_row_weights(const lf_case *c) { return c->weight.present || lf_case_any_ignored(c); }
static bool no_ignored(lf_case *x)
{
    int64_t C = lf_case_classes(x), free_label = x->ignore_index == 0 ? 1 : 0;
    if (!lf_case_any_ignored(x)) return true;
    if (x->ignore_index >= 0 && x->ignore_index < C) { /* a class: its rows count once ignore_index moves */
        x->ignore_index = -100;
        x->has_ignore_index = false;
        return !lf_case_any_ignored(x);
    }
    if (free_label >= C) return false; /* no other class to give the row */
    for (int64_t i = 0; i < x->target.numel; i++)
        if (lf_load_i64(x->target.data, x->target.dtype, i) == x->ignore_index)
            lf_store_i64(x->target.data, x->target.dtype, i, free_label);
    x->target.generated = false;
    lf_layout_settle(&x->target);
    return true;
}
static bool no_row_weights(lf_case *x)
{
    lf_tensor_free(&x->weight);
    return no_ignored(x);
}

static bool has_pos_weight(const lf_case *c) { return c->pos_weight.present; }
static bool no_pos_weight(lf_case *x)
{
    lf_tensor_free(&x->pos_weight);
    return true;
}
/* Label smoothing by the class of its value: a kernel that takes a negative smoothing and one that fails on NaN
 * are two bugs, so each class is a trait of its own (taken away the same way, to 0). */
static bool smoothing_in(const lf_case *c, double lo, double hi) /* lo < eps < hi */
{
    return lf_case_has_smoothing(c) && c->label_smoothing > lo && c->label_smoothing < hi;
}
static bool has_smoothing_negative(const lf_case *c) { return smoothing_in(c, -INFINITY, 0); }
static bool has_smoothing(const lf_case *c) { return smoothing_in(c, 0, 1); }
static bool has_smoothing_one(const lf_case *c) { return lf_case_has_smoothing(c) && c->label_smoothing == 1; }
static bool has_smoothing_above_one(const lf_case *c) { return smoothing_in(c, 1, INFINITY); }
static bool has_smoothing_nan(const lf_case *c) { return lf_case_has_smoothing(c) && isnan(c->label_smoothing); }
static bool no_smoothing(lf_case *x)
{
    x->label_smoothing = 0;
    x->has_label_smoothing = false;
    return true;
}
static bool has_upstream(const lf_case *c) { return c->backward.upstream != LF_UPSTREAM_EQUAL; }
static bool no_upstream(lf_case *x)
{
    x->backward.upstream = LF_UPSTREAM_EQUAL; /* one value everywhere */
    x->backward.given = true;
    return true;
}
static bool has_frozen(const lf_case *c) { return !c->backward.input_requires_grad; }
static bool no_frozen(lf_case *x)
{
    x->backward.input_requires_grad = true;
    x->backward.given = true;
    return true;
}

/* One tensor of the case replaced by `rows` of it (its class dim last) or, class_dim < 0, flattened. */
static bool as_rows(lf_case *x, int k, int class_dim)
{
    lf_tensor *t = lf_case_tensor(x, k), moved;
    if (!t->present) return true;
    if (!(class_dim >= 0 ? lf_tensor_rows(t, class_dim, &moved) : lf_tensor_flat(t, &moved))) return false;
    lf_layout_refit(&moved, t); /* a strided tensor stays strided: the layout is another trait's to take */
    lf_tensor_free(t);
    *t = moved;
    return true;
}

/* The input's class dim `dim` moved into rows, a probability target's with it (decided before the input
 * changes), class labels and the loss mask flattened. A loss without classes (BCE) has no layout to move. */
static bool classes_as_rows(lf_case *x, int dim)
{
    bool prob = lf_case_prob_shaped(x);
    int tdim = dim == 0 ? 0 : dim == x->input.ndim - 1 ? x->target.ndim - 1 : dim;
    return as_rows(x, LF_T_INPUT, dim) && as_rows(x, LF_T_TARGET, prob ? tdim : -1) && as_rows(x, LF_T_LOSS_MASK, -1);
}
static bool laid_out(const lf_case *c) { return lf_loss_has_classes(c->loss) && !fused(c); }
static bool has_spatial(const lf_case *c) { return laid_out(c) && !c->vocab_last && c->input.ndim > 2; }
static bool no_spatial(lf_case *x) { return classes_as_rows(x, 1); }
static bool has_vocab_last(const lf_case *c) { return laid_out(c) && c->vocab_last && c->input.ndim > 2; }
static bool no_vocab_last(lf_case *x)
{
    x->vocab_last = false;
    return classes_as_rows(x, x->input.ndim - 1);
}
static bool has_one_dim(const lf_case *c) { return laid_out(c) && c->input.ndim == 1; }
static bool no_one_dim(lf_case *x) { return classes_as_rows(x, 0); }

/* An empty batch and no classes are one trait: an input without elements (a fused linear's: a vocabulary of 0). */
static bool has_empty(const lf_case *c)
{
    return c->input.numel == 0 || c->target.numel == 0 || lf_case_classes(c) == 0;
}
static bool no_empty(lf_case *x) { return lf_case_fill_empty(x); }
static bool has_loss_mask(const lf_case *c) { return c->loss_mask.present; }
static bool no_loss_mask(lf_case *x)
{
    lf_tensor_free(&x->loss_mask);
    return true;
}

/* In the order they are taken away: the layout first (a reshape makes a
 * tensor contiguous), then the shape (an empty input given a row lets the
 * labels go next), the options after it. */
static const struct {
    const char *name, *words;
    bool (*has)(const lf_case *);
    bool (*without)(lf_case *);
} traits[] = {
    {"strided-input", "a strided input", has_strided_input, no_strided_input},
    {"strided-target", "a strided target", has_strided_target, no_strided_target},
    {"empty", "an input without elements (an empty batch or no classes)", has_empty, no_empty},
    {"1-D", "a 1-D input", has_one_dim, no_one_dim},
    {"spatial", "a spatial input", has_spatial, no_spatial},
    {"vocab_last", "the classes last (vocab_last)", has_vocab_last, no_vocab_last},
    {"upstream", "an upstream gradient that differs across the result", has_upstream, no_upstream},
    {"frozen", "an input that does not require grad", has_frozen, no_frozen},
    {"smoothing", "label smoothing in (0, 1)", has_smoothing, no_smoothing},
    {"smoothing-negative", "a negative label smoothing", has_smoothing_negative, no_smoothing},
    {"smoothing-1", "label smoothing 1.0", has_smoothing_one, no_smoothing},
    {"smoothing-above-1", "label smoothing above 1", has_smoothing_above_one, no_smoothing},
    {"smoothing-nan", "a NaN label smoothing", has_smoothing_nan, no_smoothing},
    {"pos_weight", "a pos_weight", has_pos_weight, no_pos_weight},
    {"loss_mask", "a loss mask", has_loss_mask, no_loss_mask},
    {"row-weights", "rows weighted unevenly", has_row_weights, no_row_weights},
};

/* ---- replaying: each trait taken away from the case so far; where the
 * finding stays, the simpler case is kept and the next trait taken from it */

/* A finding's family: its class, but wrong numbers in the result (value,
 * other outputs) are one family and wrong numbers anywhere (the gradients
 * too) another: a wrong gradient stays while its case shows it as a wrong
 * value (one far off in float32 may fail float64's tighter tolerance on the
 * value first), but a wrong value does not stay as a wrong gradient alone,
 * which is another bug's (a backward that drops the upstream gradient). */
static void family(const char *sig, bool result_only, char *out, size_t len)
{
    static const struct {
        const char *prefix;
        bool result;
    } numbers[] = {{"value-mismatch/", true},
                   {"output-mismatch/", true},
                   {"grad-mismatch/", false}}; /* (a gradient through softmax's saved output: its own mechanism) */
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        if (!strncmp(sig, numbers[i].prefix, strlen(numbers[i].prefix)) && (numbers[i].result || !result_only)) {
            const char *path = sig + strlen(numbers[i].prefix);
            snprintf(out, len, "numbers/%.*s", (int)strcspn(path, "[/"), path);
            return;
        }
    snprintf(out, len, "%.*s", (int)strcspn(sig, "["), sig);
}

static bool result_class(const char *sig) { return !strncmp(sig, "value-", 6) || !strncmp(sig, "output-", 7); }

typedef struct {
    const lf_backend *be;
    char cls[96];     /* the finding's family (family()), which a candidate must still show */
    bool result_only; /* a wrong value must stay one: set once the case so far shows it */
    bool may_switch;  /* a wrong gradient may show as a wrong value: only as float64's tolerance tightens */
    char last[LF_SIGNATURE_MAX];
    lf_case cur;
    lf_cause *out;
} ctx;

/* Whether the candidate still shows the finding's class; a candidate the
 * kernel was not sent, or no file could hold, tells nothing: false, with
 * *told false. */
static bool stays(ctx *x, const lf_case *cand, bool *told)
{
    char sig[LF_SIGNATURE_MAX], err[256];
    bool skipped = false;
    *told = false;
    if (!lf_case_check_options(cand, err, sizeof err)) return false;
    x->out->replays++;
    lf_signature_probe(cand, x->be, sig, sizeof sig, &skipped);
    if (skipped) return false;
    snprintf(x->last, sizeof x->last, "%s", sig);
    *told = true;
    char fam[96];
    family(sig, x->result_only, fam, sizeof fam);
    /* a wrong value where a trait was taken from a wrong gradient's case is another bug's (a value bug the trait
     * hid); only the dtype's widening may show the gradient's bug as its value */
    bool same = !strcmp(fam, x->cls) && (x->result_only || x->may_switch || !result_class(sig));
    if (!same && lf_signature_is_finding(sig)) x->out->changed++; /* another finding, not none */
    return same;
}

/* Tries cand (taken from x->cur): kept as the case so far where the finding
 * stays; true where its removal made the finding go (the trait is needed). */
static bool needed(ctx *x, lf_case *cand)
{
    bool told, same = stays(x, cand, &told);
    if (same) {
        lf_case_free(&x->cur);
        x->cur = *cand;
        if (!x->result_only && result_class(x->last)) { /* the gradient's bug shows in the value now: hold to it */
            x->result_only = true;
            family(x->last, true, x->cls, sizeof x->cls);
        }
        return false;
    }
    lf_case_free(cand);
    return told;
}

static void need(lf_cause *out, const char *name, const char *words)
{
    size_t k = strlen(out->key), w = strlen(out->words);
    snprintf(out->key + k, sizeof out->key - k, "%s%s", k ? ";" : "", name);
    snprintf(out->words + w, sizeof out->words - w, "%s%s", w ? "; " : "", words);
}

/* A needed strided layout of several kinds (transposed with gaps): the first kind that shows the finding alone
 * is the one needed, and the case keeps it alone; else all of them are. */
static lf_layout_kinds needed_layout(ctx *x, int k)
{
    lf_layout_kinds all = lf_layout_kinds_of(lf_case_tensor(&x->cur, k));
    lf_layout_kinds one[4] = {{.permuted = true}, {.expanded = true}, {.gaps = true}, {.offset = true}};
    bool has[4] = {all.permuted, all.expanded, all.gaps, all.offset};
    if (has[0] + has[1] + has[2] + has[3] < 2) return all;
    for (int i = 0; i < 4; i++) {
        lf_case cand;
        if (!has[i] || !lf_case_copy(&x->cur, &cand)) continue;
        lf_layout_apply(lf_case_tensor(&cand, k), one[i], lf_case_tensor(&x->cur, k)->offset);
        const void *before = lf_case_tensor(&x->cur, k)->data;
        needed(x, &cand);
        if (lf_case_tensor(&x->cur, k)->data != before) return one[i]; /* it stayed: the case has this kind alone */
    }
    return all;
}

/* Needed uneven row weights of both kinds (a class weight and an ignored label): the kind that shows the
 * finding alone is the one needed, and the case keeps it alone - Liger-Kernel's NaN class weight and its
 * all-ignored mean are two bugs; else both are. "weight", "ignored" or "weight+ignored". */
static const char *needed_row_weights(ctx *x)
{
    bool weight = x->cur.weight.present, ignored = lf_case_any_ignored(&x->cur);
    if (!weight || !ignored) return weight ? "weight" : "ignored";
    lf_case cand;
    const void *before = x->cur.target.data;
    if (lf_case_copy(&x->cur, &cand) && no_ignored(&cand)) { /* the class weight alone */
        needed(x, &cand);
        if (x->cur.target.data != before) return "weight";
    }
    const void *had = x->cur.weight.data;
    if (lf_case_copy(&x->cur, &cand)) { /* the ignored labels alone */
        lf_tensor_free(&cand.weight);
        needed(x, &cand);
        if (x->cur.weight.data != had) return "ignored";
    }
    return "weight+ignored";
}

/* The case's floats (input, weights, a fused linear's, probabilities) in dtype. */
static bool cast_floats(const lf_case *c, lf_dtype dtype, lf_case *out)
{
    if (!lf_case_copy(c, out)) return false;
    for (int k = 0; k < LF_CASE_TENSORS; k++) {
        lf_tensor *t = lf_case_tensor(out, k), cast;
        if (!t->present || !lf_dtype_is_float(t->dtype) || t->dtype == dtype) continue;
        if (!lf_tensor_cast(t, dtype, &cast)) {
            lf_case_free(out);
            return false;
        }
        lf_tensor_free(t);
        *t = cast;
    }
    return true;
}

static void dtype_cause(ctx *x)
{
    lf_case cand;
    lf_dtype in = x->cur.input.dtype;
    x->may_switch = true;
    if (!lf_dtype_is_float(in) || in == LF_F64 || !cast_floats(&x->cur, LF_F64, &cand) || !needed(x, &cand)) return;
    if ((in == LF_F16 || in == LF_BF16) && cast_floats(&x->cur, LF_F32, &cand) && needed(x, &cand))
        need(x->out, "16-bit", "a 16-bit float input (float16 or bfloat16)");
    else
        need(x->out, "below-float64", "a float input below float64");
}

/* The reductions that show it, where not all three do (another bug that
 * shows under every call of one reduction can hide here: the report takes
 * that reduction out again, lf_campaign_entries.c). */
static void reduction_cause(ctx *x)
{
    static const char *const names[] = {"none", "mean", "sum"};
    bool kept[3] = {false};
    int n_kept = 0;
    if (x->cur.reduction == LF_REDUCTION_INVALID) return;
    for (int r = LF_REDUCTION_NONE; r <= LF_REDUCTION_SUM; r++) {
        lf_case cand;
        bool told = true;
        if (r == (int)x->cur.reduction)
            kept[r] = true;
        else if (lf_case_copy(&x->cur, &cand)) {
            cand.reduction = (lf_reduction)r;
            cand.has_reduction = true;
            snprintf(cand.reduction_name, sizeof cand.reduction_name, "%s", names[r]);
            /* a reduction where another bug's finding shows instead (a result shape wrong on every call of
             * reduction none) hides whether this one shows there: kept, as one never told */
            kept[r] = stays(x, &cand, &told) || !told || lf_signature_is_finding(x->last);
            lf_case_free(&cand);
        }
        n_kept += kept[r];
    }
    if (n_kept == 3) return;
    char name[48] = "reduction=", words[64] = "reduction ";
    for (int r = 0, first = 1; r < 3; r++)
        if (kept[r]) {
            strcat(name, first ? "" : "|");
            strcat(words, first ? "" : " or ");
            strcat(name, names[r]);
            strcat(words, names[r]);
            first = 0;
        }
    need(x->out, name, words);
}

static void llm_cause(ctx *x)
{
    for (int o = 0; o < LF_OPTION_COUNT; o++) { /* the family's scalar options (lf_options.def) */
        lf_case cand;
        if (!lf_option_is_scalar(o) || !(LF_OPT_LLM >> o & 1) || !lf_case_option_on(&x->cur, o) ||
            !lf_case_copy(&x->cur, &cand))
            continue;
        lf_case_option_off(&cand, o);
        if (needed(x, &cand)) need(x->out, lf_option_of(o)->name, lf_option_of(o)->name);
    }
}

void lf_cause_of(const lf_case *c, const lf_backend *be, const char *signature, lf_cause *out)
{
    double t0 = lf_now_ms();
    memset(out, 0, sizeof *out);
    ctx x = {.be = be, .out = out};
    x.result_only = result_class(signature);
    family(signature, x.result_only, x.cls, sizeof x.cls);
    if (!lf_case_copy(c, &x.cur)) return; /* (a repro's recorded expectations: the probe sets them aside) */
    for (size_t i = 0; i < sizeof traits / sizeof traits[0]; i++) {
        lf_case cand;
        if (!traits[i].has(&x.cur) || !lf_case_copy(&x.cur, &cand)) continue;
        if (!traits[i].without(&cand)) { /* kept, and said: the cause may need it or not */
            /* in the key as if needed: a variant that could not lose it is not a cause needing nothing (an empty
             * batch of a fused linear, which the vocabulary of 0 of the same bug shows too) */
            size_t k = strlen(out->key);
            snprintf(out->key + k, sizeof out->key - k, "%s%s", k ? ";" : "", traits[i].name);
            size_t n = strlen(out->not_applied_names);
            snprintf(out->not_applied_names + n, sizeof out->not_applied_names - n, "%s%s", n ? ", " : "",
                     traits[i].name);
            out->not_applied++;
            lf_case_free(&cand);
            continue;
        }
        if (!needed(&x, &cand)) continue;
        char words[160], name[64], kind[48] = "";
        /* a strided tensor's words name the kind of layout its case keeps (the first that shows the finding
         * alone); its key does not: a kernel that reads a strided input as contiguous is one bug whatever the
         * layout (transposed, expanded, with gaps), met as wrong numbers on one and an error on another */
        const lf_tensor *laid = traits[i].has == has_strided_input    ? &x.cur.input
                                : traits[i].has == has_strided_target ? &x.cur.target
                                                                      : NULL;
        if (laid)
            lf_layout_kinds_name(needed_layout(&x, laid == &x.cur.input ? LF_T_INPUT : LF_T_TARGET), kind, sizeof kind);
        bool weights = traits[i].has == has_row_weights; /* its kind in its key, its words say it: "(here: ...)" */
        if (weights) snprintf(kind, sizeof kind, "%s", needed_row_weights(&x));
        snprintf(name, sizeof name, "%s%s%s", traits[i].name, weights && kind[0] ? "=" : "", weights ? kind : "");
        snprintf(words, sizeof words, "%s%s%s%s%s", traits[i].words, kind[0] && !weights ? " (" : "",
                 weights ? "" : kind, kind[0] && !weights ? ")" : "",
                 traits[i].has != has_row_weights ? ""
                 : !x.cur.weight.present          ? " (here: an ignored label)"
                 : lf_case_any_ignored(&x.cur)    ? " (here: a class weight and an ignored label)"
                                                  : " (here: a class weight)");
        need(out, name, words);
    }
    llm_cause(&x);
    dtype_cause(&x);
    reduction_cause(&x);
    lf_case_free(&x.cur);
    snprintf(out->family, sizeof out->family, "%s", x.cls);
    if (!out->words[0])
        snprintf(out->words, sizeof out->words, "%s",
                 out->not_applied ? "no trait that could be taken away"
                                  : "any call of its kind (no trait of the case is needed)");
    size_t w = strlen(out->words);
    if (out->not_applied)
        snprintf(out->words + w, sizeof out->words - w, " (not taken away: %s)", out->not_applied_names);
    out->ms = lf_now_ms() - t0;
}
