/* lf_minimize.c - greedy structural minimization to a fixpoint: each pass
 * tries every simplification in turn (options to defaults, dims dropped,
 * slices removed, dtypes simplified, values zeroed) and keeps one only when the
 * case's signature is unchanged, so the same bug is kept and nothing else. */
#include "lf_minimize.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_case_json.h"
#include "lf_file.h"
#include "lf_hash.h"
#include "lf_oracle.h"
#include "lf_spec.h"
#include "lf_tensor_ops.h"

void lf_signature_of(const lf_result *spec, const lf_result *guard, char *out, size_t len)
{
    /* the guard's hint too: a void-255 repro must not shrink into some other bad label */
    snprintf(out, len, "%s/%s%s%s", lf_outcome_name(spec->kind), spec->error[0] ? spec->error : "none",
             guard->hint_id[0] ? "/" : "", guard->hint_id);
}

bool lf_signature_is_finding(const char *sig)
{
    static const char *const outcomes[] = {"ok/", "host_error/", "device_assert/"};
    for (int i = 0; i < 3; i++)
        if (!strncmp(sig, outcomes[i], strlen(outcomes[i]))) return false;
    return true;
}

static void signature_in_process(const lf_case *c, const lf_backend *be, char *out, size_t len)
{
    lf_verdict v;
    lf_case probe = *c; /* the recorded expectations must not decide the signature */
    probe.expect = LF_OUTCOME_NONE;
    probe.expect_error[0] = 0;
    probe.expect_hint[0] = 0;
    probe.expect_value = NULL;
    lf_oracle_check(&probe, be, &v);
    if (v.finding) snprintf(out, len, "%s", v.finding_class);
    else lf_signature_of(&v.spec, &v.guard, out, len);
    lf_verdict_free(&v);
}

/* In a child process, so a case that crashes the kernels (an ASan report, a
 * segfault) has a signature too: "crash/<how>", and the minimizer survives it.
 * With workers (harness/exec) they are what crashes, and the executor already
 * names it; a fork would share their pipes with the child: no fork then. */
void lf_signature(const lf_case *c, const lf_backend *be, char *out, size_t len)
{
    int fds[2];
    if (be->exec || be->torch) { signature_in_process(c, be, out, len); return; }
    fflush(NULL);
    if (pipe(fds) != 0) { signature_in_process(c, be, out, len); return; }
    pid_t pid = fork();
    if (pid < 0) { close(fds[0]); close(fds[1]); signature_in_process(c, be, out, len); return; }
    if (pid == 0) {
        char sig[128];
        close(fds[0]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2); /* the crash report of every candidate is noise */
        signature_in_process(c, be, sig, sizeof sig);
        ssize_t w = write(fds[1], sig, strlen(sig) + 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < len && (n = read(fds[0], out + got, len - 1 - got)) > 0) got += (size_t)n;
    out[got] = 0;
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (got == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status)) snprintf(out, len, "crash/signal-%d", WTERMSIG(status));
        else snprintf(out, len, "crash/exit-%d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

typedef struct {
    const lf_backend *be;
    const char *signature;
    bool keep_layout;
    lf_minimize_stats *stats;
} ctx;

/* Keeps `cand` (replacing *c) when it has the same signature, else frees it. */
static bool try_candidate(ctx *x, lf_case *c, lf_case *cand)
{
    char sig[128];
    x->stats->tries++;
    lf_signature(cand, x->be, sig, sizeof sig);
    if (strcmp(sig, x->signature)) {
        lf_case_free(cand);
        return false;
    }
    lf_case_free(c);
    *c = *cand;
    x->stats->steps++;
    return true;
}

/* Which dim of `t` follows input dim d (-1: none), for slicing a case consistently. */
static int follower_dim(const lf_case *c, const lf_tensor *t, bool is_target, int d)
{
    const lf_tensor *in = &c->input;
    bool same_shape = c->loss == LF_LOSS_BCE_WITH_LOGITS ||
                      (in->ndim == c->target.ndim && !memcmp(in->shape, c->target.shape, sizeof(int64_t) * (size_t)in->ndim));
    int class_dim = in->ndim == 1 ? 0 : 1, k = -1;
    if (!t->present) return -1;
    if (is_target) k = same_shape ? d : (in->ndim == 1 ? -1 : d == 0 ? 0 : d == class_dim ? -1 : d - 1);
    else if (c->loss == LF_LOSS_BCE_WITH_LOGITS) k = d - (in->ndim - t->ndim); /* trailing broadcast */
    else k = d == class_dim && t->ndim == 1 ? 0 : -1;
    return k >= 0 && k < t->ndim && t->shape[k] == in->shape[d] ? k : -1;
}

/* After removing class i, labels above it move down one: a label that was C
 * (out of range by one) stays C, so the bug is kept while C shrinks. */
static void shift_labels_after(const lf_case *c, int d, int64_t i, lf_case *out)
{
    bool class_targets = c->loss != LF_LOSS_BCE_WITH_LOGITS && follower_dim(c, &c->target, true, d) < 0 &&
                         d == (c->input.ndim == 1 ? 0 : 1) && !lf_dtype_is_float(c->target.dtype);
    if (!class_targets) return;
    for (int64_t k = 0; k < out->target.numel; k++) {
        int64_t t = lf_load_i64(out->target.data, out->target.dtype, k);
        if (t > i && t != c->ignore_index) lf_store_i64(out->target.data, out->target.dtype, k, t - 1);
    }
    out->target.generated = false;
}

/* The case with input dim d cut (drop: the whole dim; else slice i removed). */
static bool cut(const lf_case *c, int d, bool drop, int64_t i, lf_case *out)
{
    if (!lf_case_copy(c, out)) return false;
    lf_tensor *ts[4] = {&out->input, &out->target, &out->weight, &out->pos_weight};
    const lf_tensor *orig[4] = {&c->input, &c->target, &c->weight, &c->pos_weight};
    for (int k = 0; k < 4; k++) {
        int dim = k == 0 ? d : follower_dim(c, orig[k], k == 1, d);
        if (dim < 0) continue;
        lf_tensor next;
        bool ok = drop ? lf_tensor_drop_dim(orig[k], dim, &next) : lf_tensor_remove_index(orig[k], dim, i, &next);
        if (!ok) { lf_case_free(out); return false; }
        lf_tensor_free(ts[k]);
        *ts[k] = next;
    }
    if (!drop) shift_labels_after(c, d, i, out);
    return true;
}

/* The case with input dim d (and the dims that follow it) reduced to slice i.
 * Only what is sliced is copied: a mapped 352 MB dump is never copied whole. */
static bool slice_case(lf_case *c, int d, int64_t i)
{
    lf_tensor *ts[4] = {&c->input, &c->target, &c->weight, &c->pos_weight}, next[4];
    int dims[4];
    for (int k = 0; k < 4; k++) dims[k] = k == 0 ? d : follower_dim(c, ts[k], k == 1, d);
    for (int k = 0; k < 4; k++) {
        bool ok = dims[k] < 0 ? lf_tensor_copy(ts[k], &next[k]) : lf_tensor_slice(ts[k], dims[k], i, &next[k]);
        if (!ok) {
            for (int j = 0; j < k; j++) lf_tensor_free(&next[j]);
            return false;
        }
    }
    for (int k = 0; k < 4; k++) {
        lf_tensor_free(ts[k]);
        *ts[k] = next[k];
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

static bool shrink_shapes(ctx *x, lf_case *c)
{
    lf_case cand;
    int class_dim = c->input.ndim == 1 ? 0 : 1;
    for (int d = c->input.ndim - 1; d >= 2 && !x->keep_layout; d--) /* fewer spatial dims */
        if (cut(c, d, true, 0, &cand) && try_candidate(x, c, &cand)) return true;
    for (int d = 0; d < c->input.ndim; d++) {
        if (x->keep_layout && (d == class_dim || c->input.shape[d] <= 1)) continue; /* the user's classes, and one slice, stay */
        for (int64_t i = c->input.shape[d] - 1; i >= 0; i--) /* from the end: labels stay put */
            if (cut(c, d, false, i, &cand) && try_candidate(x, c, &cand)) return true;
    }
    return false;
}

static bool simplify_options(ctx *x, lf_case *c)
{
    lf_case cand;
    for (int k = 0; k < 5; k++) {
        if (!lf_case_copy(c, &cand)) return false;
        bool changed = true;
        switch (k) {
        case 0: changed = cand.weight.present; lf_tensor_free(&cand.weight); break;
        case 1: changed = cand.pos_weight.present; lf_tensor_free(&cand.pos_weight); break;
        case 2: changed = cand.has_ignore_index; cand.has_ignore_index = false; cand.ignore_index = -100; break;
        case 3: changed = cand.has_label_smoothing; cand.has_label_smoothing = false; cand.label_smoothing = 0; break;
        default:
            changed = cand.has_reduction;
            cand.has_reduction = false;
            cand.reduction = LF_REDUCTION_MEAN;
            strcpy(cand.reduction_name, "mean");
        }
        if (changed && try_candidate(x, c, &cand)) return true;
        if (!changed) lf_case_free(&cand);
    }
    return false;
}

/* Input and weights to float32, targets to int64 (class) or float32. */
static bool simplify_dtypes(ctx *x, lf_case *c)
{
    lf_case cand;
    const lf_dtype want[4] = {LF_F32, lf_dtype_is_float(c->target.dtype) ? LF_F32 : LF_I64, LF_F32, LF_F32};
    for (int k = 0; k < 4; k++) {
        lf_tensor *src = k == 0 ? &c->input : k == 1 ? &c->target : k == 2 ? &c->weight : &c->pos_weight;
        if (!src->present || src->dtype == want[k] || !lf_case_copy(c, &cand)) continue;
        lf_tensor *dst = k == 0 ? &cand.input : k == 1 ? &cand.target : k == 2 ? &cand.weight : &cand.pos_weight;
        lf_tensor cast;
        if (!lf_tensor_cast(src, want[k], &cast)) { lf_case_free(&cand); continue; }
        lf_tensor_free(dst);
        *dst = cast;
        if (try_candidate(x, c, &cand)) return true;
    }
    return false;
}

/* Values: zero a range of the input (halves first), then round to integers. */
static bool simplify_values(ctx *x, lf_case *c)
{
    lf_case cand;
    int64_t n = c->input.numel;
    for (int64_t len = n; len >= 1; len /= 2)
        for (int64_t at = 0; at < n; at += len) {
            bool nonzero = false;
            for (int64_t i = at; i < at + len && i < n && !nonzero; i++)
                nonzero = lf_load_f64(c->input.data, c->input.dtype, i) != 0;
            if (!nonzero || !lf_case_copy(c, &cand)) continue;
            for (int64_t i = at; i < at + len && i < n; i++) lf_store_f64(cand.input.data, cand.input.dtype, i, 0);
            cand.input.generated = false;
            if (try_candidate(x, c, &cand)) return true;
            if (len == 1 && n > 64) break; /* single elements only for small inputs */
        }
    const lf_tensor *tg = &c->target; /* class labels to 0 where the bug does not need them */
    for (int64_t i = 0; !lf_dtype_is_float(tg->dtype) && tg->numel <= 64 && i < tg->numel; i++) {
        if (lf_load_i64(tg->data, tg->dtype, i) == 0 || !lf_case_copy(c, &cand)) continue;
        lf_store_i64(cand.target.data, cand.target.dtype, i, 0);
        cand.target.generated = false;
        if (try_candidate(x, c, &cand)) return true;
    }
    bool fractional = false;
    for (int64_t i = 0; i < n && !fractional; i++) {
        double v = lf_load_f64(c->input.data, c->input.dtype, i);
        fractional = isfinite(v) && v != round(v);
    }
    if (fractional && lf_case_copy(c, &cand)) {
        for (int64_t i = 0; i < n; i++)
            lf_store_f64(cand.input.data, cand.input.dtype, i, round(lf_load_f64(c->input.data, c->input.dtype, i)));
        cand.input.generated = false;
        if (try_candidate(x, c, &cand)) return true;
    }
    return false;
}

bool lf_minimize(lf_case *c, const lf_backend *be, const lf_minimize_opts *opts, lf_minimize_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (opts && opts->keep) snprintf(stats->signature, sizeof stats->signature, "%s", opts->keep);
    else lf_signature(c, be, stats->signature, sizeof stats->signature);
    ctx x = {be, stats->signature, opts && opts->keep_layout, stats};
    for (int pass = 0; pass < 10000; pass++)
        if (!simplify_options(&x, c) && !shrink_shapes(&x, c) && !simplify_dtypes(&x, c) && !simplify_values(&x, c))
            break;
    return true;
}

void lf_make_regression(lf_case *c, const char *signature)
{
    lf_result spec;
    lf_spec_run(c, &spec);
    c->expect = spec.kind;
    snprintf(c->expect_error, sizeof c->expect_error, "%s", spec.error);
    /* an outcome's signature ends with the guard's hint (lf_signature_of): the regression keeps it */
    const char *hint = lf_signature_is_finding(signature) ? NULL : strchr(signature, '/');
    hint = hint ? strchr(hint + 1, '/') : NULL;
    snprintf(c->expect_hint, sizeof c->expect_hint, "%s", hint ? hint + 1 : "");
    snprintf(c->note, sizeof c->note, "minimized by lossfuzz; signature %s", signature);
    lf_result_free(&spec);
    free(c->expect_value);
    c->expect_value = NULL;
    c->n_expect_value = 0;
    lf_tensor *ts[4] = {&c->input, &c->target, &c->weight, &c->pos_weight};
    for (int k = 0; k < 4; k++)
        if (ts[k]->numel <= 256) ts[k]->generated = false; /* small: show the numbers */
}

bool lf_save_regression(lf_case *c, const char *signature, const char *dir, char *path, size_t len, bool *existed)
{
    char stem[200], name[220];
    lf_make_regression(c, signature);
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
