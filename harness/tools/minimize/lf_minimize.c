/* lf_minimize.c - greedy structural minimization to a fixpoint: a pass tries
 * every simplification once (options to defaults, dims dropped, slices removed
 * - halves first, then quarters, down to single slices - dtypes simplified,
 * values zeroed), keeps each that leaves the case's signature and guard hint
 * unchanged, and goes on from there; passes repeat until one changes nothing
 * or the time is up. (Starting over after every kept step, and cutting one
 * slice at a time, took a 2x2048 case 78,000 oracle runs.) */
#include "lf_minimize.h"
#include "lf_clock.h"

#include <unistd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_case_json.h"
#include "lf_file.h"
#include "lf_hash.h"
#include "lf_layout.h"
#include "lf_spec.h"
#include "lf_tensor_ops.h"

typedef struct {
    const lf_backend *be;
    const char *signature, *hint; /* hint NULL: any */
    bool keep_layout;
    double start_ms;
    const lf_minimize_opts *opts; /* max_ms and progress; NULL: none */
    lf_minimize_stats *stats;
    bool empty; /* the case had no elements: its candidates must have none either (keep_class) */
} ctx;

/* Whether the time is up: then every loop ends and the case so far stands. */
static bool stopped(ctx *x)
{
    lf_minimize_stats *st = x->stats;
    st->elapsed_ms = lf_now_ms() - x->start_ms;
    if (x->opts && x->opts->max_ms > 0 && st->elapsed_ms >= x->opts->max_ms) st->cut_short = true;
    return st->cut_short;
}

/* Whether a signature's traits (lf_finding_signature) have this one. */
static bool has_trait(const char *sig, const char *trait)
{
    size_t n = strlen(trait);
    for (const char *at = strchr(sig, '['); at; at = strchr(at + 1, ','))
        if (!strncmp(at + 1, trait, n) && (at[1 + n] == ',' || at[1 + n] == ']')) return true;
    return false;
}

/* Whether a candidate's signature is the one minimization keeps: all of
 * it, or (keep_class) its finding class, the other traits free to go but
 * an empty batch or no classes, which a smaller case would otherwise reach
 * for: a bug on real batches must not shrink into a degenerate one. */
static bool no_elements(const lf_case *c) { return c->input.numel == 0 || c->target.numel == 0; }

static bool keeps(const ctx *x, const char *sig, const lf_case *cand)
{
    if (!(x->opts && x->opts->keep_class)) return !strcmp(sig, x->signature);
    size_t n = strcspn(x->signature, "[");
    /* (the case's own emptiness too: a class without traits, kernel-silent/target_dtype, names none) */
    return strcspn(sig, "[") == n && !strncmp(sig, x->signature, n) &&
           has_trait(sig, "empty") == has_trait(x->signature, "empty") &&
           has_trait(sig, "no-classes") == has_trait(x->signature, "no-classes") && no_elements(cand) == x->empty;
}

/* Keeps `cand` (replacing *c) when it has the same signature and guard hint, else frees it. */
static bool try_candidate(ctx *x, lf_case *c, lf_case *cand)
{
    char sig[LF_SIGNATURE_MAX], hint[64];
    if (stopped(x) || !lf_case_check_options(cand, sig, sizeof sig)) { /* a case no file could hold */
        lf_case_free(cand);
        return false;
    }
    x->stats->tries++;
    lf_signature_hint(cand, x->be, sig, sizeof sig, hint, sizeof hint);
    bool same = keeps(x, sig, cand) && (!x->hint || !strcmp(hint, x->hint));
    if (same) {
        lf_case_free(c);
        *c = *cand;
        x->stats->steps++;
        x->stats->elements = c->input.numel + c->target.numel;
    } else {
        lf_case_free(cand);
    }
    x->stats->elapsed_ms = lf_now_ms() - x->start_ms;
    if (x->opts && x->opts->progress) x->opts->progress(x->opts->progress_arg, x->stats);
    return same;
}

/* A tensor without elements given 1 (the class dim 2) in each empty dim, its layout kept (lf_layout_refit). */
static bool refill(lf_tensor *t, int class_dim, double value)
{
    char err[160];
    int64_t shape[LF_MAX_DIMS];
    if (!t->present || t->numel > 0) return true;
    for (int d = 0; d < t->ndim; d++) shape[d] = t->shape[d] ? t->shape[d] : d == class_dim ? 2 : 1;
    lf_tensor was = *t; /* its layout, for the refilled tensor (the values are gone) */
    was.data = NULL;
    lf_tensor_free(t);
    memset(t, 0, sizeof *t);
    if (!lf_tensor_alloc(t, was.dtype, was.ndim, shape, err, sizeof err)) return false;
    for (int64_t i = 0; i < t->numel; i++)
        lf_store_f64(t->data, was.dtype, i, value < 0 ? 0.25 * (double)(i % 7) : value); /* labels 0, logits apart */
    lf_layout_refit(t, &was);
    return true;
}

bool lf_case_prob_shaped(const lf_case *c)
{
    bool classes = lf_loss_has_classes(c->loss) && !lf_dtype_is_float(c->target.dtype);
    return !classes && c->target.ndim == c->input.ndim;
}

bool lf_case_fill_empty(lf_case *x)
{
    if (lf_loss_of(x->loss)->fused_linear) { /* a vocabulary of 0 given 2 classes; the hidden states' sizes move */
        if (x->input.numel == 0 || x->target.numel == 0 || x->linear_weight.shape[0] != 0) return false; /* with it */
        lf_tensor_free(&x->weight);
        return refill(&x->linear_weight, 0, -1) && refill(&x->linear_bias, 0, 0);
    }
    int cd = lf_case_class_dim(x);
    bool classes_were_0 = x->input.ndim > cd && x->input.shape[cd] == 0;
    if (!refill(&x->input, cd, -1) ||
        !refill(&x->target, lf_case_prob_shaped(x) ? cd : -1, lf_case_prob_shaped(x) ? 0.5 : 0) ||
        !refill(&x->loss_mask, -1, 1))
        return false;
    if (classes_were_0) { /* the class weights follow the classes */
        lf_tensor_free(&x->weight);
        lf_tensor_free(&x->pos_weight);
    }
    return true;
}

/* Which dim of the case's tensor `which` (lf_case_tensor) follows input dim
 * d (-1: none), for slicing a case consistently. A fused linear's input
 * dim 1 is the hidden size: its weight's dim 1 follows it, and nothing
 * follows the vocabulary (the class weight, the bias). */
static int follower_dim(const lf_case *c, int which, int d)
{
    const lf_tensor *in = &c->input, *t = lf_case_tensor_const(c, which);
    bool same_shape =
        !lf_loss_has_classes(c->loss) ||
        (in->ndim == c->target.ndim && !memcmp(in->shape, c->target.shape, sizeof(int64_t) * (size_t)in->ndim));
    bool linear = lf_loss_of(c->loss)->fused_linear;
    int class_dim = lf_case_class_dim(c), k = -1;
    int row_dim = in->ndim == 1 || d == class_dim ? -1 : d < class_dim ? d : d - 1; /* in the rows' shape */
    if (!t->present) return -1;
    if (which == LF_T_INPUT)
        k = d;
    else if (which == LF_T_TARGET)
        k = same_shape ? d : row_dim;
    else if (which == LF_T_LOSS_MASK) /* a value per row: the rows' shape (a fused linear's: [N]) */
        k = linear ? (d == 0 ? 0 : -1) : row_dim;
    else if (linear)
        k = which == LF_T_LINEAR_WEIGHT && d == class_dim ? 1 : -1;
    else if (!lf_loss_has_classes(c->loss))
        k = d - (in->ndim - t->ndim); /* trailing broadcast */
    else
        k = d == class_dim && t->ndim == 1 ? 0 : -1;
    return k >= 0 && k < t->ndim && t->shape[k] == in->shape[d] ? k : -1;
}

/* After removing classes [lo, hi), labels above them move down by hi - lo and
 * labels inside them to lo, as one class at a time from the top would: a
 * label that was C (out of range by one) stays C, so the bug is kept while C
 * shrinks. */
static void shift_labels(const lf_case *c, int64_t lo, int64_t hi, lf_case *out)
{
    for (int64_t k = 0; k < out->target.numel; k++) {
        int64_t t = lf_load_i64(out->target.data, out->target.dtype, k);
        if (t <= lo || t == c->ignore_index) continue;
        lf_store_i64(out->target.data, out->target.dtype, k, t >= hi ? t - (hi - lo) : lo);
    }
    out->target.generated = false;
}

static void shift_labels_after(const lf_case *c, int d, int64_t lo, int64_t hi, lf_case *out)
{
    bool class_targets = lf_loss_has_classes(c->loss) && !lf_loss_of(c->loss)->fused_linear &&
                         follower_dim(c, LF_T_TARGET, d) < 0 && d == lf_case_class_dim(c) &&
                         !lf_dtype_is_float(c->target.dtype);
    if (class_targets) shift_labels(c, lo, hi, out);
}

/* A fused linear's vocabulary without entries [lo, hi): rows of its weight,
 * of its bias and of the class weight (each where it has V of them), and
 * the labels above them moved down, as shift_labels moves them. */
static bool cut_vocabulary(const lf_case *c, int64_t lo, int64_t hi, lf_case *out)
{
    int64_t V = c->linear_weight.ndim == 2 ? c->linear_weight.shape[0] : -1;
    if (V < 0 || !lf_case_copy(c, out)) return false;
    static const int vocabulary[] = {LF_T_LINEAR_WEIGHT, LF_T_LINEAR_BIAS, LF_T_WEIGHT};
    for (int k = 0; k < 3; k++) {
        const lf_tensor *orig = lf_case_tensor_const(c, vocabulary[k]);
        lf_tensor next;
        if (!orig->present || orig->ndim < 1 || orig->shape[0] != V) continue;
        if (!lf_tensor_remove_range(orig, 0, lo, hi, &next)) {
            lf_case_free(out);
            return false;
        }
        lf_tensor_free(lf_case_tensor(out, vocabulary[k]));
        *lf_case_tensor(out, vocabulary[k]) = next;
    }
    if (!lf_dtype_is_float(c->target.dtype)) shift_labels(c, lo, hi, out);
    return true;
}

/* The case with input dim d cut (drop: the whole dim; else slices [lo, hi) removed). */
static bool cut(const lf_case *c, int d, bool drop, int64_t lo, int64_t hi, lf_case *out)
{
    if (!lf_case_copy(c, out)) return false;
    for (int k = 0; k < LF_CASE_TENSORS; k++) {
        const lf_tensor *orig = lf_case_tensor_const(c, k);
        int dim = follower_dim(c, k, d);
        if (dim < 0) continue;
        lf_tensor next;
        bool ok = drop ? lf_tensor_drop_dim(orig, dim, &next) : lf_tensor_remove_range(orig, dim, lo, hi, &next);
        if (!ok) {
            lf_case_free(out);
            return false;
        }
        lf_tensor_free(lf_case_tensor(out, k));
        *lf_case_tensor(out, k) = next;
    }
    if (!drop) shift_labels_after(c, d, lo, hi, out);
    return true;
}

/* The case with input dim d (and the dims that follow it) reduced to slice i.
 * Only what is sliced is copied: a mapped 352 MB dump is never copied whole. */
static bool slice_case(lf_case *c, int d, int64_t i)
{
    lf_tensor next[LF_CASE_TENSORS];
    int dims[LF_CASE_TENSORS];
    for (int k = 0; k < LF_CASE_TENSORS; k++) dims[k] = follower_dim(c, k, d);
    for (int k = 0; k < LF_CASE_TENSORS; k++) {
        lf_tensor *t = lf_case_tensor(c, k);
        bool ok = dims[k] < 0 ? lf_tensor_copy(t, &next[k]) : lf_tensor_slice(t, dims[k], i, &next[k]);
        if (!ok) {
            for (int j = 0; j < k; j++) lf_tensor_free(&next[j]);
            return false;
        }
    }
    for (int k = 0; k < LF_CASE_TENSORS; k++) {
        lf_tensor_free(lf_case_tensor(c, k));
        *lf_case_tensor(c, k) = next[k];
    }
    return true;
}

bool lf_crop(lf_case *c, int64_t focus, bool whole_rows)
{
    const lf_tensor *in = &c->input;
    if (in->ndim < 2) return true;
    int64_t inner = 1, coord[LF_MAX_DIMS];
    for (int d = 2; d < in->ndim; d++) inner *= in->shape[d];
    if (inner == 0 || in->shape[0] == 0) return true; /* nothing to crop to */
    if (focus < 0 || inner == 0 || focus >= in->shape[0] * inner) focus = 0;
    coord[0] = focus / inner;
    int64_t s = focus % inner; /* the position, unraveled over the spatial dims */
    for (int d = in->ndim - 1; d >= 2; d--) {
        coord[d] = s % in->shape[d];
        s /= in->shape[d];
    }
    for (int d = 0; d < (whole_rows ? 1 : in->ndim); d++) {
        if (d == 1 || c->input.shape[d] <= 1) continue; /* classes stay whole */
        if (!slice_case(c, d, coord[d])) return false;
    }
    return true;
}

/* Fewer spatial dims, then fewer slices of each dim: halves first, then
 * quarters, down to single slices, each from the end (labels stay put). */
static bool shrink_shapes(ctx *x, lf_case *c)
{
    lf_case cand;
    bool changed = false;
    int class_dim = lf_case_class_dim(c);
    for (int d = c->input.ndim - 1; d >= 1 && !x->keep_layout && !stopped(x); d--) /* the spatial dims */
        if (d != class_dim && (d >= 2 || class_dim != 1) && cut(c, d, true, 0, 0, &cand) && try_candidate(x, c, &cand))
            changed = true;
    for (int d = 0; d < c->input.ndim && !stopped(x); d++) {
        if (x->keep_layout && d == class_dim) continue; /* the user's classes stay */
        for (int64_t k = c->input.shape[d] > 1 ? c->input.shape[d] / 2 : 1; k >= 1 && !stopped(x); k /= 2)
            for (int64_t hi = c->input.shape[d]; hi > 0 && !stopped(x);) {
                int64_t lo = hi > k ? hi - k : 0;
                bool whole = hi - lo == c->input.shape[d]; /* keep_layout keeps one slice of every dim */
                if (!(x->keep_layout && whole) && cut(c, d, false, lo, hi, &cand) && try_candidate(x, c, &cand))
                    changed = true;
                hi = lo;
            }
    }
    /* a fused linear's vocabulary, the user's classes kept as shrink_shapes keeps them */
    for (int64_t k = c->linear_weight.ndim == 2 ? c->linear_weight.shape[0] / 2 : 0;
         k >= 1 && !x->keep_layout && !stopped(x); k /= 2)
        for (int64_t hi = c->linear_weight.shape[0]; hi > 0 && !stopped(x);) {
            int64_t lo = hi > k ? hi - k : 0;
            if (cut_vocabulary(c, lo, hi, &cand) && try_candidate(x, c, &cand)) changed = true;
            hi = lo;
        }
    return changed;
}

/* What simplify_options takes away, besides the options (lf_options.def). */
enum { S_REDUCTION = -1, S_INPUT_LAYOUT = -2, S_TARGET_LAYOUT = -3 };

/* One at a time, each kept where the case does without it: the weights, PyTorch's scalar options (each back to
 * its default), reduction, contiguous memory, then the LLM family's loss mask and options, the chunked path's. */
static bool simplify_options(ctx *x, lf_case *c)
{
    int steps[LF_OPTION_COUNT + 3], n = 0;
    steps[n++] = LF_OPTION_WEIGHT;
    steps[n++] = LF_OPTION_POS_WEIGHT;
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_option_is_scalar(o) && lf_option_of(o)->family == LF_PYTORCH) steps[n++] = o;
    steps[n++] = S_REDUCTION;
    steps[n++] = S_INPUT_LAYOUT;
    steps[n++] = S_TARGET_LAYOUT;
    steps[n++] = LF_OPTION_LOSS_MASK;
    for (int o = 0; o < LF_OPTION_COUNT; o++)
        if (lf_option_is_scalar(o) && lf_option_of(o)->family != LF_PYTORCH) steps[n++] = o;
    lf_case cand;
    bool changed = false;
    for (int k = 0; k < n && !stopped(x); k++) {
        if (!lf_case_copy(c, &cand)) return changed;
        bool differs;
        switch (steps[k]) {
        case S_REDUCTION:
            differs = cand.has_reduction;
            cand.has_reduction = false;
            cand.reduction = LF_REDUCTION_MEAN;
            strcpy(cand.reduction_name, "mean");
            break;
        case S_INPUT_LAYOUT:
            differs = cand.input.strided;
            cand.input.strided = false;
            break;
        case S_TARGET_LAYOUT:
            differs = cand.target.strided;
            cand.target.strided = false;
            break;
        default: differs = lf_case_given(&cand, steps[k]); lf_case_option_off(&cand, steps[k]);
        }
        if (differs && try_candidate(x, c, &cand)) changed = true;
        if (!differs) lf_case_free(&cand);
    }
    return changed;
}

/* Input and weights to float32, targets to int64 (class) or float32; a
 * fused linear's weight and bias with its input (one dtype). */
static bool simplify_dtypes(ctx *x, lf_case *c)
{
    lf_case cand;
    bool changed = false;
    for (int k = LF_T_INPUT; k <= LF_T_POS_WEIGHT && !stopped(x); k++) {
        const lf_dtype want = k == LF_T_TARGET && !lf_dtype_is_float(c->target.dtype) ? LF_I64 : LF_F32;
        const lf_tensor *src = lf_case_tensor_const(c, k);
        if (!src->present || src->dtype == want || !lf_case_copy(c, &cand)) continue;
        /* the input takes a fused linear's weight and bias along */
        int with[3] = {k, k == LF_T_INPUT ? LF_T_LINEAR_WEIGHT : -1, k == LF_T_INPUT ? LF_T_LINEAR_BIAS : -1};
        bool ok = true;
        for (int j = 0; j < 3 && ok; j++) {
            lf_tensor cast;
            if (with[j] < 0 || !lf_case_tensor_const(c, with[j])->present) continue;
            ok = lf_tensor_cast(lf_case_tensor_const(c, with[j]), want, &cast);
            if (ok) {
                lf_tensor_free(lf_case_tensor(&cand, with[j]));
                *lf_case_tensor(&cand, with[j]) = cast;
            }
        }
        if (!ok) {
            lf_case_free(&cand);
            continue;
        }
        if (try_candidate(x, c, &cand)) changed = true;
    }
    return changed;
}

/* Values: zero ranges of the input (halves first), then round to integers. */
static bool simplify_values(ctx *x, lf_case *c)
{
    lf_case cand;
    bool changed = false;
    int64_t n = c->input.numel;
    for (int64_t len = n; len >= 1 && !stopped(x); len /= 2)
        for (int64_t at = 0; at < n && !stopped(x); at += len) {
            bool nonzero = false;
            for (int64_t i = at; i < at + len && i < n && !nonzero; i++)
                nonzero = lf_load_f64(c->input.data, c->input.dtype, i) != 0;
            if (!nonzero || !lf_case_copy(c, &cand)) continue;
            for (int64_t i = at; i < at + len && i < n; i++) lf_store_f64(cand.input.data, cand.input.dtype, i, 0);
            cand.input.generated = false;
            lf_layout_settle(&cand.input); /* an expanded input repeats its first slice */
            if (try_candidate(x, c, &cand)) changed = true;
            if (len == 1 && n > 64) break; /* single elements only for small inputs */
        }
    const lf_tensor *tg = &c->target; /* class labels to 0 where the bug does not need them */
    for (int64_t i = 0; !lf_dtype_is_float(tg->dtype) && tg->numel <= 64 && i < tg->numel && !stopped(x); i++) {
        if (lf_load_i64(tg->data, tg->dtype, i) == 0 || !lf_case_copy(c, &cand)) continue;
        lf_store_i64(cand.target.data, cand.target.dtype, i, 0);
        cand.target.generated = false;
        lf_layout_settle(&cand.target);
        if (try_candidate(x, c, &cand)) changed = true;
    }
    bool fractional = false;
    for (int64_t i = 0; i < n && !fractional; i++) {
        double v = lf_load_f64(c->input.data, c->input.dtype, i);
        fractional = isfinite(v) && v != round(v);
    }
    if (fractional && !stopped(x) && lf_case_copy(c, &cand)) {
        for (int64_t i = 0; i < n; i++)
            lf_store_f64(cand.input.data, cand.input.dtype, i, round(lf_load_f64(c->input.data, c->input.dtype, i)));
        cand.input.generated = false;
        lf_layout_settle(&cand.input);
        if (try_candidate(x, c, &cand)) changed = true;
    }
    return changed;
}

bool lf_minimize(lf_case *c, const lf_backend *be, const lf_minimize_opts *opts, lf_minimize_stats *stats)
{
    char own[128];
    memset(stats, 0, sizeof *stats);
    ctx x = {be, stats->signature, stats->hint, opts && opts->keep_layout, lf_now_ms(), opts, stats, false};
    lf_signature_hint(c, be, own, sizeof own, stats->hint, sizeof stats->hint);
    snprintf(stats->signature, sizeof stats->signature, "%s", opts && opts->keep ? opts->keep : own);
    if (strcmp(own, stats->signature))
        x.hint = NULL; /* kept for another case's signature: its hint is not this one's */
    x.empty = no_elements(c);
    /* a case without elements whose finding's class shows on a row too: the row, where a bug of real batches is
     * shown (an int32 target on [1, 2], not on [0, 0]) */
    lf_case filled;
    if (x.empty && opts && opts->keep_class && !opts->keep && lf_case_copy(c, &filled)) {
        char sig[LF_SIGNATURE_MAX] = "";
        if (lf_case_fill_empty(&filled))
            lf_signature_hint(&filled, be, sig, sizeof sig, stats->hint, sizeof stats->hint);
        size_t n = strcspn(own, "[");
        if (!no_elements(&filled) && lf_signature_is_finding(sig) && strcspn(sig, "[") == n && !strncmp(sig, own, n)) {
            lf_case_free(c);
            *c = filled;
            snprintf(stats->signature, sizeof stats->signature, "%s", sig);
            x.empty = false;
        } else {
            lf_signature_hint(c, be, own, sizeof own, stats->hint, sizeof stats->hint); /* its own hint again */
            lf_case_free(&filled);
        }
    }
    stats->elements = c->input.numel + c->target.numel;
    for (int pass = 0; pass < 10000; pass++) {
        bool changed = simplify_options(&x, c);
        changed |= shrink_shapes(&x, c);
        changed |= simplify_dtypes(&x, c);
        changed |= simplify_values(&x, c);
        if (!changed || stopped(&x)) break;
    }
    return true;
}

void lf_make_regression(lf_case *c, const char *signature, const char *kernel)
{
    lf_result spec;
    lf_spec_run(c, &spec);
    c->expect = spec.kind;
    snprintf(c->expect_error, sizeof c->expect_error, "%s", spec.error);
    /* an outcome's signature ends with the guard's hint (lf_signature_of): the regression keeps it */
    const char *hint = lf_signature_is_finding(signature) ? NULL : strchr(signature, '/');
    hint = hint ? strchr(hint + 1, '/') : NULL;
    snprintf(c->expect_hint, sizeof c->expect_hint, "%s", hint ? hint + 1 : "");
    snprintf(c->note, sizeof c->note, "minimized by lossfuzz; signature %s%s%s", signature,
             kernel ? "; kernel under test: " : "", kernel ? kernel : "");
    /* a finding of the backward half spells out its upstream gradient and requires_grad flags */
    if (kernel && (strstr(signature, "grad-") || strstr(signature, "input-modified"))) c->backward.given = true;
    lf_result_free(&spec);
    free(c->expect_value);
    c->expect_value = NULL;
    c->n_expect_value = 0;
    for (int k = 0; k < LF_CASE_TENSORS; k++)
        if (lf_case_tensor(c, k)->numel <= 256) lf_case_tensor(c, k)->generated = false; /* small: show the numbers */
}

bool lf_save_regression(lf_case *c, const char *signature, const char *kernel, const char *dir, char *path, size_t len,
                        bool *existed)
{
    char stem[200], name[220];
    lf_make_regression(c, signature, kernel);
    char *json = lf_case_to_json(c);
    if (!json) return false;
    lf_finding_file_stem(stem, sizeof stem, signature, lf_hash_bytes(json, strlen(json)));
    snprintf(name, sizeof name, "%s.json", stem);
    snprintf(path, len, "%s/%s", dir, name);
    *existed = access(path, F_OK) == 0;
    bool ok = lf_write_atomically(dir, name, json, strlen(json));
    free(json);
    return ok;
}
