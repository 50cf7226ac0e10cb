/* lf_device_call.c - moving one call's tensors to a backend and its results back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_backend.h"
#include "lf_layout.h"
#include "lf_spec.h"

void *lf_device_copy(lf_canary_list *l, const char *name, const lf_tensor *t)
{
    if (!t->present) return NULL;
    if (t->on_device) return t->data; /* already there: the caller's, not the list's */
    if (!t->strided) return lf_canary_add(l, name, (size_t)t->numel * lf_dtype_size(t->dtype), t->dtype, t->data);
    size_t bytes; /* the storage its strides describe, the gaps poisoned */
    void *storage = lf_layout_storage(t, &bytes);
    void *dev = storage ? lf_canary_add(l, name, bytes, t->dtype, storage) : NULL;
    free(storage);
    return dev;
}

bool lf_device_call_wants_grad(const lf_case *c)
{
    return c->backward.values && lf_grad_required(c, LF_GRAD_INPUT) && c->input.numel > 0 &&
           !lf_loss_of(c->loss)->fused_linear;
}

/* The upstream gradient in the result's dtype (its values are exact in every float dtype). */
static void *upstream_copy(lf_canary_list *l, const lf_case *c, const lf_problem *p)
{
    size_t es = lf_dtype_size((lf_dtype)p->out_dtype);
    char *host = malloc((size_t)c->backward.n_values * es + 1);
    if (!host) return NULL;
    for (int64_t i = 0; i < c->backward.n_values; i++)
        lf_store_f64(host, (lf_dtype)p->out_dtype, i, c->backward.values[i]);
    void *dev = lf_canary_add(l, "grad_out", (size_t)c->backward.n_values * es, (lf_dtype)p->out_dtype, host);
    free(host);
    return dev;
}

bool lf_device_call_open(const lf_backend *be, const lf_case *c, const lf_problem *p, bool with_scratch,
                         lf_device_call *call, char *err, size_t errlen)
{
    bool scalar;
    lf_assert_record rec0 = {0};
    double acc0[LF_ACC_COUNT] = {0};
    lf_dtype out_dtype = (lf_dtype)p->out_dtype;
    lf_canary_list *l = &call->mem;
    memset(call, 0, sizeof *call);
    lf_canary_begin(l, be);
    rec0.index = rec0.site = INT64_MAX;
    lf_buffers *b = &call->b;
    b->input = lf_device_copy(l, "input", &c->input);
    b->target = lf_device_copy(l, "target", &c->target);
    b->weight = lf_device_copy(l, "weight", &c->weight);
    b->pos_weight = lf_device_copy(l, "pos_weight", &c->pos_weight);
    b->out = lf_canary_add(l, "out", (size_t)lf_plan_out_numel(p, &scalar) * lf_dtype_size(out_dtype), out_dtype, NULL);
    b->acc = lf_canary_add(l, "acc", sizeof acc0, LF_F64, acc0);
    b->rec = lf_canary_add(l, "rec", sizeof rec0, LF_I64, &rec0);
    if (with_scratch)
        b->scratch = lf_canary_add(l, "scratch", (size_t)p->N * p->C * p->S * lf_dtype_size(c->input.dtype),
                                   c->input.dtype, NULL);
    bool grad = lf_device_call_wants_grad(c);
    if (grad) {
        b->grad_out = upstream_copy(l, c, p);
        b->grad_in = lf_canary_add(l, "grad_input", (size_t)c->input.numel * lf_dtype_size(c->input.dtype),
                                   c->input.dtype, NULL);
    }
    if (!b->input || !b->target || (c->weight.present && !b->weight) || (c->pos_weight.present && !b->pos_weight) ||
        !b->out || !b->acc || !b->rec || (with_scratch && !b->scratch) || (grad && (!b->grad_out || !b->grad_in))) {
        snprintf(err, errlen, "%s backend: cannot allocate or copy the case's buffers", be->name);
        lf_device_call_close(be, call);
        return false;
    }
    return true;
}

/* n values of dtype t from backend memory, in chunks: outputs can be large. */
static bool read_values(const lf_backend *be, const void *src, lf_dtype t, int64_t n, double *dst)
{
    char chunk[8 * 64];
    size_t esz = lf_dtype_size(t);
    for (int64_t i = 0; i < n; i += 64) {
        int64_t k = n - i < 64 ? n - i : 64;
        if (be->to_host(chunk, (const char *)src + (size_t)i * esz, (size_t)k * esz)) return false;
        for (int64_t j = 0; j < k; j++) dst[i + j] = lf_load_f64(chunk, t, j);
    }
    return true;
}

/* d input, in the input's logical order and dtype. */
static bool read_grad(const lf_backend *be, const lf_case *c, const void *src, lf_grad *g)
{
    g->dtype = c->input.dtype;
    g->n = c->input.numel;
    g->values = calloc((size_t)g->n + 1, sizeof(double));
    if (!g->values || !read_values(be, src, g->dtype, g->n, g->values)) return false;
    g->state = LF_GRAD_OK;
    return true;
}

bool lf_device_call_collect(const lf_backend *be, const lf_case *c, const lf_problem *p, lf_device_call *call,
                            lf_result *r)
{
    lf_assert_record rec;
    bool scalar;
    int64_t n = lf_plan_out_numel(p, &scalar);
    if (!lf_canary_check(&call->mem, r)) return true; /* r: oob_write */
    if (be->to_host(&rec, call->b.rec, sizeof rec)) return false;
    if (rec.fired) { /* named by the kernel's record alone: its kernel, condition and element */
        char detail[32];
        snprintf(detail, sizeof detail, "%d thread(s)", rec.fired);
        lf_result_device_assert(r, c, rec.kernel_id, (int)(rec.site % LF_ASSERT_SITE), rec.index, detail, "");
        return true;
    }
    if (!lf_result_alloc_values(r, n, false)) return false;
    r->kind = LF_OUTCOME_OK;
    r->out_dtype = (lf_dtype)p->out_dtype;
    r->scalar = scalar;
    return read_values(be, call->b.out, r->out_dtype, n, r->values) &&
           (!call->b.grad_in || read_grad(be, c, call->b.grad_in, &r->grad[LF_GRAD_INPUT]));
}

void lf_device_call_close(const lf_backend *be, lf_device_call *call)
{
    (void)be; /* the list knows its backend */
    lf_canary_end(&call->mem);
    memset(call, 0, sizeof *call);
}
