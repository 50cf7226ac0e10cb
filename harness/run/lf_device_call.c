/* lf_device_call.c - moving one call's tensors to a backend and its results back. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_backend.h"
#include "lf_spec.h"

void *lf_device_copy(const lf_backend *be, const lf_tensor *t)
{
    if (!t->present) return NULL;
    size_t bytes = (size_t)t->numel * lf_dtype_size(t->dtype);
    void *d = be->alloc(bytes);
    if (d && be->to_device(d, t->data, bytes)) { be->release(d); return NULL; }
    return d;
}

bool lf_device_call_open(const lf_backend *be, const lf_case *c, const lf_problem *p,
                         bool with_scratch, lf_device_call *call, char *err, size_t errlen)
{
    bool scalar;
    lf_assert_record rec0 = {0};
    double acc0[LF_ACC_COUNT] = {0};
    memset(call, 0, sizeof *call);
    call->out_bytes = (size_t)lf_plan_out_numel(p, &scalar) * lf_dtype_size((lf_dtype)p->out_dtype);
    call->input = lf_device_copy(be, &c->input);
    call->target = lf_device_copy(be, &c->target);
    call->weight = lf_device_copy(be, &c->weight);
    call->pos_weight = lf_device_copy(be, &c->pos_weight);
    call->out = be->alloc(call->out_bytes);
    call->acc = be->alloc(sizeof acc0);
    call->rec = be->alloc(sizeof rec0);
    if (with_scratch) call->scratch = be->alloc((size_t)c->input.numel * lf_dtype_size(c->input.dtype));
    rec0.index = INT64_MAX;
    if (!call->input || !call->target || (c->weight.present && !call->weight) ||
        (c->pos_weight.present && !call->pos_weight) || !call->out || !call->acc || !call->rec ||
        (with_scratch && !call->scratch) || be->to_device(call->rec, &rec0, sizeof rec0) ||
        be->to_device(call->acc, acc0, sizeof acc0)) {
        snprintf(err, errlen, "%s backend: cannot allocate or copy the case's buffers", be->name);
        lf_device_call_close(be, call);
        return false;
    }
    call->b = (lf_buffers){call->input, call->target, call->weight, call->pos_weight,
                           call->out, call->scratch, call->acc, call->rec};
    return true;
}

bool lf_device_call_collect(const lf_backend *be, const lf_case *c, const lf_problem *p,
                            lf_device_call *call, lf_result *r)
{
    lf_assert_record rec;
    bool scalar;
    int64_t n = lf_plan_out_numel(p, &scalar);
    if (be->to_host(&rec, call->rec, sizeof rec)) return false;
    if (rec.fired) {
        r->kind = LF_OUTCOME_DEVICE_ASSERT;
        r->kernel_id = rec.kernel_id;
        r->cond_id = rec.cond_id;
        r->index = rec.index;
        r->value = lf_load_i64(c->target.data, c->target.dtype, rec.index);
        snprintf(r->error, sizeof r->error, "label_out_of_range");
        snprintf(r->exception, sizeof r->exception, "RuntimeError");
        snprintf(r->message, sizeof r->message, "%s: Assertion `%s` failed (target[%lld] = %lld, %d thread(s))",
                 lf_kernel_name(rec.kernel_id), lf_cond_text(rec.cond_id), (long long)rec.index,
                 (long long)r->value, rec.fired);
        return true;
    }
    char out[8 * 64];
    if (!lf_result_alloc_values(r, n, false)) return false;
    r->kind = LF_OUTCOME_OK;
    r->out_dtype = (lf_dtype)p->out_dtype;
    r->scalar = scalar;
    for (int64_t i = 0; i < n; i += 64) { /* in chunks: outputs can be large */
        int64_t k = n - i < 64 ? n - i : 64;
        size_t esz = lf_dtype_size(r->out_dtype);
        if (be->to_host(out, (char *)call->out + (size_t)i * esz, (size_t)k * esz)) return false;
        for (int64_t j = 0; j < k; j++) r->values[i + j] = lf_load_f64(out, r->out_dtype, j);
    }
    return true;
}

void lf_device_call_close(const lf_backend *be, lf_device_call *call)
{
    void *bufs[] = {call->input, call->target, call->weight, call->pos_weight,
                    call->out, call->scratch, call->acc, call->rec};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) be->release(bufs[i]);
    memset(call, 0, sizeof *call);
}
