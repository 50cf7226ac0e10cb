/* lf_guard_run.c - the guarded path end to end: host validation, then the
 * fused kernels, whose one pass gives the loss and the targets' statistics;
 * the statistics reject the call or let its loss through. */
#include <stdio.h>
#include <string.h>

#include "lf_guard.h"
#include "lf_loss_row.h"
#include "lf_problem.h"
#include "lf_spec.h"

/* The labels at first_bad, first_narrowed and first_gathered, read from the target's buffer
 * in backend memory (storage element lf_tg_at: strided targets too), into
 * the statistics: the diagnosis never reads the target on the host. */
static bool read_named_labels(const lf_backend *be, const lf_problem *q, const void *target, lf_target_stats *st)
{
    int64_t *const idx[3] = {&st->first_bad, &st->first_narrowed, &st->first_gathered};
    int64_t *const val[3] = {&st->first_bad_value, &st->first_narrowed_value, &st->first_gathered_value};
    size_t es = lf_dtype_size((lf_dtype)q->tgt_dtype);
    for (int k = 0; k < 3; k++) {
        char one[8];
        if (*idx[k] == INT64_MAX) continue;
        if (be->to_host(one, (const char *)target + (size_t)lf_tg_at(q, *idx[k]) * es, es)) return false;
        *val[k] = lf_load_i64(one, (lf_dtype)q->tgt_dtype, 0);
    }
    return true;
}

bool lf_guard_target_stats(const lf_case *c, const lf_backend *be, int targets, const lf_problem *p,
                           lf_target_stats *st, lf_result *r)
{
    lf_problem q = *p;
    const lf_tensor *tg = &c->target;
    int64_t n = tg->numel;
    lf_problem_views(c, &q); /* also for a call the host check rejected */
    q.targets = targets;
    q.tgt_dtype = tg->dtype;
    q.ignore_index = lf_case_ignored_label(c);
    if (targets == LF_PROB_TARGETS) { /* rows of the target's own (N, C, S) layout */
        q.N = tg->ndim >= 2 ? tg->shape[0] : 1;
        q.C = tg->ndim >= 2 ? tg->shape[1] : tg->ndim == 1 ? tg->shape[0] : 1;
        q.S = (q.N * q.C) != 0 ? tg->numel / (q.N * q.C) : 0;
        q.one_d = tg->ndim == 1;
        q.ndim = tg->ndim; /* rows in the target's own dims */
        memcpy(q.shape, tg->shape, sizeof(int64_t) * (size_t)tg->ndim);
    } else if (p->one_d) {
        n = n ? 1 : 0; /* a 1-D input reads target[0] only */
    }
    lf_stats_init(st);
    lf_canary_list mem;
    lf_canary_begin(&mem, be);
    void *target = lf_device_copy(&mem, "target", tg);
    void *dst = lf_canary_add(&mem, "target_stats", sizeof *st, LF_I64, st);
    bool ok = target && dst && !be->guarded_validate(&q, target, n, (lf_target_stats *)dst) &&
              lf_canary_check(&mem, r) && !be->to_host(st, dst, sizeof *st) && read_named_labels(be, &q, target, st);
    lf_canary_end(&mem);
    return ok;
}

/* The host's checks; for a call they reject whose hint depends on the
 * target's values, the device pass that gives it. true: accepted so far. */
static bool host_check(const lf_case *c, const lf_backend *be, lf_problem *p, lf_result *r)
{
    bool needs_data;
    lf_result_init(r);
    if (!lf_guard_check(c, p, r, &needs_data)) {
        if (!needs_data) return false;
        lf_target_stats st;
        lf_problem q = *p;
        q.C = c->input.ndim ? c->input.shape[c->input.ndim == 1 ? 0 : 1] : 0;
        int targets = !strcmp(r->error, "prob_target_dtype") ? LF_PROB_TARGETS : LF_CLASS_TARGETS;
        if (lf_guard_target_stats(c, be, targets, &q, &st, r)) lf_guard_hint_from_data(c, &st, r);
        return false;
    }
    r->kind = LF_OUTCOME_OK;
    return true;
}

/* The targets' statistics turned into the verdict on a call the host
 * accepted: a rejection, or warnings. true: accepted. */
static bool judge_stats(const lf_case *c, const lf_backend *be, const lf_problem *p, const lf_target_stats *st,
                        lf_result *r)
{
    if (p->targets == LF_CLASS_TARGETS) {
        lf_guard_diagnose_labels(c, p, st, r);
        /* PyTorch raises its errors after the kernels even where they read a
         * truncated label without a word (before label smoothing's gather
         * reads it as int64): the error is the one to name then. */
        bool truncated = r->kind == LF_OUTCOME_HOST_ERROR && st->n_bad > 0 && st->n_narrowed_silently == st->n_bad;
        lf_result after;
        lf_result_init(&after);
        after.kind = LF_OUTCOME_OK;
        if ((r->kind != LF_OUTCOME_HOST_ERROR || truncated) && !lf_guard_check_after_labels(c, p, &after)) *r = after;
    } else if (lf_guard_all_one_hot(p, st)) {
        lf_case eq;
        double weight_sum;
        if (lf_guard_one_hot_indices(c, p, &eq, &weight_sum)) { /* the class-index loss, where the two differ */
            lf_result q;
            lf_guard_run(&eq, be, &q);
            lf_guard_warn_one_hot(p, &q, weight_sum, r);
            lf_result_free(&q);
            lf_tensor_free(&eq.target);
        } else
            lf_guard_warn_one_hot(p, NULL, 0, r);
    } else
        lf_guard_warn_probs(p, st, r);
    return r->kind != LF_OUTCOME_HOST_ERROR;
}

bool lf_guard_validate_case(const lf_case *c, const lf_backend *be, lf_problem *p, lf_result *r)
{
    lf_target_stats st;
    if (!host_check(c, be, p, r)) return false;
    if (lf_loss_row_of(c->loss)->guard_verdict) { /* a loss that checks its values in its own pass: its verdict */
        lf_guard_run(c, be, r);
        lf_result_free_values(r);
        return r->kind != LF_OUTCOME_HOST_ERROR;
    }
    if (p->targets == LF_BINARY_TARGETS) return true;
    if (!lf_guard_target_stats(c, be, p->targets, p, &st, r)) {
        if (r->kind != LF_OUTCOME_HOST_ERROR) /* else oob_write */
            lf_result_error(r, "backend_error", "RuntimeError", "%s backend: target validation failed", be->name);
        return false;
    }
    return judge_stats(c, be, p, &st, r);
}

/* Validation fused into the loss: the kernels compute the loss (and, where
 * the case asks for backward, d input) and gather the targets' statistics in
 * one pass (they never trust a label), and the statistics decide whether the
 * loss is the answer or the call is rejected. */
void lf_guard_run(const lf_case *c, const lf_backend *be, lf_result *r)
{
    lf_problem p;
    lf_device_call call;
    lf_target_stats st;
    char err[160];
    if (!host_check(c, be, &p, r)) return;
    if (!lf_device_call_open(be, c, &p, false, &call, err, sizeof err)) {
        lf_result_error(r, "backend_error", "RuntimeError", "%s", err);
        return;
    }
    lf_stats_init(&st);
    const lf_loss_row *row = lf_loss_row_of(c->loss);
    bool probs = row->guard_verdict != NULL;               /* its elements' verdict, its row's */
    bool judged = p.targets != LF_BINARY_TARGETS || probs; /* BCE-with-logits has no values to judge */
    if (judged) call.b.stats = lf_canary_add(&call.mem, "target_stats", sizeof st, LF_I64, &st);
    int rc = judged && !call.b.stats ? -1 : be->guarded_forward(&p, &call.b);
    if (rc || !lf_device_call_collect(be, c, &p, &call, r) ||
        (call.b.stats && r->kind == LF_OUTCOME_OK &&
         (be->to_host(&st, call.b.stats, sizeof st) || (probs ? !row->guard_verdict(c, be, &p, &call.b, &st, r)
                                                              : !read_named_labels(be, &p, call.b.target, &st))))) {
        lf_result_free_values(r);
        lf_result_error(r, "backend_error", "RuntimeError", "%s backend failed (code %d)", be->name, rc);
    } else if (call.b.stats && r->kind == LF_OUTCOME_OK && !probs) {
        lf_result verdict; /* the host check's warning, then the statistics' */
        lf_result_init(&verdict);
        verdict.kind = LF_OUTCOME_OK;
        memcpy(verdict.warning, r->warning, sizeof r->warning);
        memcpy(verdict.warning_id, r->warning_id, sizeof r->warning_id);
        if (!judge_stats(c, be, &p, &st, &verdict)) {
            lf_result_free(r); /* its loss and gradient were computed on targets it rejects */
            *r = verdict;
        } else {
            memcpy(r->warning, verdict.warning, sizeof r->warning);
            memcpy(r->warning_id, verdict.warning_id, sizeof r->warning_id);
        }
    }
    lf_device_call_close(be, &call);
}
