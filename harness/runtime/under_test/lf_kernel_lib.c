/* lf_kernel_lib.c - loading a kernel library and calling it on a case (lf_kernel_lib.h). */
#include "lf_kernel_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "lf_fence.h"
#include "lf_layout.h"

bool lf_kernel_lib_open(const char *path, lf_kernel_lib *k, char *err, size_t errlen)
{
    char local[4096];
    memset(k, 0, sizeof *k);
    snprintf(local, sizeof local, "%s%s", strchr(path, '/') ? "" : "./", path);
    k->handle = dlopen(local, RTLD_NOW | RTLD_LOCAL);
    if (!k->handle) {
        snprintf(err, errlen, "cannot load kernel library %s: %s", path, dlerror());
        return false;
    }
    lossfuzz_kernel_describe_fn describe;
    *(void **)&describe = dlsym(k->handle, LOSSFUZZ_KERNEL_SYMBOL);
    const char *why = NULL, *unreachable;
    if (!describe)
        why = "exports no " LOSSFUZZ_KERNEL_SYMBOL " (define it with LOSSFUZZ_KERNEL_ENTRY from lossfuzz/kernel.h)";
    else if (!(k->table = describe(LOSSFUZZ_KERNEL_ABI)))
        why = "refused this lossfuzz's kernel ABI";
    if (why) {
        snprintf(err, errlen, "kernel library %s %s", path, why);
    } else if (k->table->abi != LOSSFUZZ_KERNEL_ABI) {
        snprintf(err, errlen,
                 "kernel library %s was built against kernel ABI %u; this lossfuzz speaks ABI %u: rebuild it with "
                 "this lossfuzz's include/lossfuzz/kernel.h",
                 path, k->table->abi, LOSSFUZZ_KERNEL_ABI);
    } else if ((unreachable = lf_kernel_claims_unreachable(k->table->losses))) {
        snprintf(err, errlen,
                 "kernel library %s claims %s: some of its options reach Python kernels only (lossfuzz_call has "
                 "no field for them yet)",
                 path, unreachable);
    } else if (!k->table->forward || !k->table->losses) {
        snprintf(err, errlen, "kernel library %s: its table has no forward function or claims no loss", path);
    } else if (k->table->device != kDLCPU && k->table->device != kDLCUDA) {
        snprintf(err, errlen, "kernel library %s: device type %d (kDLCPU or kDLCUDA only)", path,
                 (int)k->table->device);
    } else {
        lf_kernel_claims_of_table(k->table, &k->claims);
        return true;
    }
    lf_kernel_lib_close(k);
    return false;
}

void lf_kernel_lib_close(lf_kernel_lib *k)
{
    if (k->handle) dlclose(k->handle);
    memset(k, 0, sizeof *k);
}

static DLDataType dl_dtype(lf_dtype t)
{
    switch (t) {
    case LF_F64: return (DLDataType){kDLFloat, 64, 1};
    case LF_F32: return (DLDataType){kDLFloat, 32, 1};
    case LF_F16: return (DLDataType){kDLFloat, 16, 1};
    case LF_BF16: return (DLDataType){kDLBfloat, 16, 1};
    case LF_I64: return (DLDataType){kDLInt, 64, 1};
    case LF_I32: return (DLDataType){kDLInt, 32, 1};
    default: return (DLDataType){kDLUInt, 8, 1}; /* uint8, and bool (DLPack 0.6 has no bool code) */
    }
}

/* A DLTensor and the shape and strides it points to. */
typedef struct {
    DLTensor t;
    int64_t shape[LF_MAX_DIMS], strides[LF_MAX_DIMS];
} dl_view;

static void view_of(const lf_tensor *src, void *data, DLDevice dev, dl_view *v)
{
    memset(v, 0, sizeof *v);
    memcpy(v->shape, src->shape, sizeof src->shape);
    lf_layout_strides(src, v->strides);
    v->t = (DLTensor){data,
                      dev,
                      src->ndim,
                      dl_dtype(src->dtype),
                      v->shape,
                      v->strides,
                      (uint64_t)(src->strided ? src->offset : 0) * lf_dtype_size(src->dtype)};
}

static void collect(const lf_backend *mem, const lf_canary_list *l, const lf_tensor *out, const void *dev_out,
                    lf_result *r)
{
    if (!lf_canary_check(l, r)) return; /* r: oob_write */
    size_t bytes = (size_t)out->numel * lf_dtype_size(out->dtype);
    if (mem->to_host(out->data, dev_out, bytes) || !lf_result_alloc_values(r, out->numel, false)) {
        lf_result_error(r, "backend_error", "RuntimeError", "cannot read the kernel's result back");
        return;
    }
    r->kind = LF_OUTCOME_OK;
    r->out_dtype = out->dtype;
    r->scalar = out->ndim == 0;
    r->dims.known = true; /* the buffer it was given: its shape is the call's */
    r->dims.ndim = out->ndim;
    memcpy(r->dims.shape, out->shape, sizeof out->shape);
    for (int64_t i = 0; i < out->numel; i++) r->values[i] = lf_load_f64(out->data, out->dtype, i);
}

/* An LLM output the kernel filled (ABI 3), into r->outputs[o]. */
static void collect_output(const lf_backend *mem, lf_tensor *t, const void *dev, int o, lf_result *r)
{
    if (mem->to_host(t->data, dev, (size_t)t->numel * lf_dtype_size(t->dtype)) ||
        !(r->outputs[o].values = malloc(sizeof(double) * ((size_t)t->numel + 1))))
        return; /* not read back: not compared */
    for (int64_t i = 0; i < t->numel; i++) r->outputs[o].values[i] = lf_load_f64(t->data, t->dtype, i);
    r->outputs[o].n = t->numel;
}

/* The case's tensors as the kernel gets them, each with its buffer. */
typedef struct {
    const char *name;
    const lf_tensor *t;
    void *dev;
} given;

/* Whether a buffer still holds, bit for bit, what was copied in (its
 * strided storage, gaps included: those are the caller's memory too). */
static bool unchanged(const lf_backend *mem, const given *g)
{
    const lf_tensor *t = g->t;
    size_t bytes = (size_t)t->numel * lf_dtype_size(t->dtype);
    void *want = t->strided ? lf_layout_storage(t, &bytes) : t->data, *got = malloc(bytes + 1);
    bool same = want && got && !mem->to_host(got, g->dev, bytes) && !memcmp(got, want, bytes);
    if (t->strided) free(want);
    free(got);
    return same;
}

/* r->changed names the first tensor the call wrote into, "input (in forward)". */
static void check_unchanged(const lf_backend *mem, const given *g, int n, const char *when, lf_result *r)
{
    for (int i = 0; i < n && !r->changed[0]; i++)
        if (g[i].dev && !unchanged(mem, &g[i])) snprintf(r->changed, sizeof r->changed, "%s (%s)", g[i].name, when);
}

/* The backward call after an ok forward: the upstream gradient in out's
 * dtype, each gradient asked for (lf_grad_required: d input, and a fused
 * linear's d weight and d bias) into a NaN-filled buffer, the others NULL;
 * r's grad parts say how it went. */
static void run_backward(const lossfuzz_kernel *t, const lf_case *c, const lf_backend *mem, lf_canary_list *l,
                         lossfuzz_call *call, const lf_tensor *out, lf_result *r)
{
    lf_tensor up = {0}, grad[LF_GRAD_PARTS] = {{0}};
    void *dev[LF_GRAD_PARTS] = {NULL};
    dl_view vup, vgrad[LF_GRAD_PARTS];
    DLTensor **slot[LF_GRAD_PARTS] = {&call->grad_input, &call->grad_linear_weight, &call->grad_linear_bias};
    char err[512] = "";
    int64_t n = c->backward.n_values;
    bool ok = n == out->numel && lf_tensor_alloc(&up, out->dtype, out->ndim, out->shape, err, sizeof err);
    void *dup = NULL;
    if (ok) {
        for (int64_t i = 0; i < n; i++) lf_store_f64(up.data, up.dtype, i, c->backward.values[i]);
        ok = (dup = lf_canary_add(l, "grad_out", (size_t)n * lf_dtype_size(up.dtype), up.dtype, up.data)) != NULL;
    }
    for (int p = 0; ok && p < LF_GRAD_PARTS; p++) {
        const lf_tensor *of = lf_grad_tensor(c, (lf_grad_part)p);
        if (!lf_grad_required(c, (lf_grad_part)p)) continue;
        ok = lf_tensor_alloc(&grad[p], of->dtype, of->ndim, of->shape, err, sizeof err);
        for (int64_t i = 0; ok && i < grad[p].numel; i++) lf_store_f64(grad[p].data, grad[p].dtype, i, NAN);
        static const char *const names[] = {"grad_input", "grad_linear_weight", "grad_linear_bias"};
        ok = ok && (dev[p] = lf_canary_add(l, names[p], (size_t)grad[p].numel * lf_dtype_size(grad[p].dtype),
                                           grad[p].dtype, grad[p].data)) != NULL;
        if (ok) view_of(&grad[p], dev[p], call->input->device, &vgrad[p]);
        if (ok) *slot[p] = &vgrad[p].t;
    }
    if (!ok) {
        lf_result_error(r, "backend_error", "RuntimeError", "the backward buffers: %s",
                        err[0] ? err : "cannot allocate them, or the upstream gradient does not fit the result");
        goto out;
    }
    view_of(&up, dup, call->input->device, &vup);
    call->grad_out = &vup.t;
    lf_fence_watch(l);
    int rc = t->backward(call, err, sizeof err);
    lf_fence_watch(NULL);
    err[sizeof err - 1] = 0;
    if (!lf_canary_check(l, r)) goto out; /* r: oob_write */
    for (int p = 0; p < LF_GRAD_PARTS; p++) {
        lf_grad *g = &r->grad[p];
        size_t bytes = (size_t)grad[p].numel * lf_dtype_size(grad[p].dtype);
        if (!dev[p]) continue;
        if (rc != LOSSFUZZ_OK) {
            g->state = LF_GRAD_ERROR;
            snprintf(g->message, sizeof g->message, "backward returned %d%s: %s", rc,
                     rc == LOSSFUZZ_REJECTED ? " (rejected)" : "", err);
            continue;
        }
        if (mem->to_host(grad[p].data, dev[p], bytes) ||
            !(g->values = malloc(sizeof(double) * ((size_t)grad[p].numel + 1)))) {
            lf_result_error(r, "backend_error", "RuntimeError", "cannot read the kernel's gradient back");
            goto out;
        }
        for (int64_t i = 0; i < grad[p].numel; i++) g->values[i] = lf_load_f64(grad[p].data, grad[p].dtype, i);
        g->n = grad[p].numel;
        g->dtype = grad[p].dtype;
        g->state = LF_GRAD_OK;
    }
out:
    call->grad_out = NULL;
    for (int p = 0; p < LF_GRAD_PARTS; p++) *slot[p] = NULL;
    lf_tensor_free(&up);
    for (int p = 0; p < LF_GRAD_PARTS; p++) lf_tensor_free(&grad[p]);
}

void lf_kernel_lib_run(const lf_kernel_lib *k, const lf_case *c, const lf_backend *mem, lf_result *r)
{
    const lossfuzz_kernel *t = k->table;
    DLDevice dev = {t->device, 0};
    lf_tensor out = {0};
    int64_t shape[LF_MAX_DIMS];
    char err[512] = "";
    lf_dtype out_dtype = lf_dtype_is_float(c->input.dtype) ? c->input.dtype : LF_F32;
    if (!lf_tensor_alloc(&out, out_dtype, lf_case_result_shape(c, shape), shape, err, sizeof err)) {
        lf_result_error(r, "backend_error", "RuntimeError", "the result: %s", err);
        return;
    }
    lf_canary_list l;
    lf_canary_begin(&l, mem);
    given g[LF_CASE_TENSORS];
    bool copied = true;
    for (int i = 0; i < LF_CASE_TENSORS; i++) {
        g[i] = (given){lf_case_tensor_names[i], lf_case_tensor_const(c, i), NULL};
        g[i].dev = lf_device_copy(&l, g[i].name, g[i].t);
        copied &= !g[i].t->present || g[i].dev;
    }
    void *o = lf_canary_add(&l, "out", (size_t)out.numel * lf_dtype_size(out_dtype), out_dtype, NULL);
    if (!copied || !o) {
        lf_result_error(r, "backend_error", "RuntimeError", "cannot allocate or copy the case's buffers");
    } else {
        dl_view v[LF_CASE_TENSORS], vout;
        const DLTensor *dl[LF_CASE_TENSORS];
        for (int i = 0; i < LF_CASE_TENSORS; i++) {
            if (g[i].dev) view_of(g[i].t, g[i].dev, dev, &v[i]);
            dl[i] = g[i].dev ? &v[i].t : NULL;
        }
        view_of(&out, o, dev, &vout);
        lossfuzz_call call = {lf_kernel_loss_bit(c, t->losses),
                              (int)c->reduction,
                              c->ignore_index,
                              c->label_smoothing,
                              dl[LF_T_INPUT],
                              dl[LF_T_TARGET],
                              dl[LF_T_WEIGHT],
                              dl[LF_T_POS_WEIGHT],
                              &vout.t,
                              NULL,
                              NULL,
                              NULL,
                              dl[LF_T_LINEAR_WEIGHT],
                              dl[LF_T_LINEAR_BIAS],
                              NULL,
                              NULL,
                              c->logit_scale,
                              c->softcap,
                              c->z_loss_scale,
                              c->n_items,
                              dl[LF_T_LOSS_MASK],
                              NULL,
                              NULL};
        /* ABI 3: a buffer for each output it claims (z_loss: out's shape; lse: a value per row) */
        lf_tensor extra[LF_OUT_COUNT] = {{0}};
        void *extra_dev[LF_OUT_COUNT] = {NULL};
        dl_view vextra[LF_OUT_COUNT];
        DLTensor **extra_slot[LF_OUT_COUNT] = {&call.out_z_loss, &call.out_lse};
        for (int x = 0; x < LF_OUT_COUNT; x++) {
            if (!(t->outputs & (1u << x))) continue;
            int64_t rows[LF_MAX_DIMS];
            int n = x == LF_OUT_Z_LOSS ? out.ndim : lf_case_row_shape(c, rows);
            if (!lf_tensor_alloc(&extra[x], out_dtype, n, x == LF_OUT_Z_LOSS ? out.shape : rows, err, sizeof err) ||
                !(extra_dev[x] = lf_canary_add(&l, lf_llm_output_names[x],
                                               (size_t)extra[x].numel * lf_dtype_size(out_dtype), out_dtype, NULL)))
                continue; /* not given: not compared */
            view_of(&extra[x], extra_dev[x], dev, &vextra[x]);
            *extra_slot[x] = &vextra[x].t;
        }
        lf_fence_watch(&l);
        int rc = t->forward(&call, err, sizeof err);
        lf_fence_watch(NULL);
        err[sizeof err - 1] = 0;
        if (rc == LOSSFUZZ_OK) collect(mem, &l, &out, o, r);
        for (int x = 0; rc == LOSSFUZZ_OK && r->kind == LF_OUTCOME_OK && x < LF_OUT_COUNT; x++)
            if (extra_dev[x]) collect_output(mem, &extra[x], extra_dev[x], x, r);
        for (int x = 0; x < LF_OUT_COUNT; x++) lf_tensor_free(&extra[x]);
        if (rc == LOSSFUZZ_REJECTED)
            lf_result_error(r, "kernel_rejected", "RuntimeError", "%s", err);
        else if (rc != LOSSFUZZ_OK)
            lf_result_error(r, "kernel_failed", "RuntimeError", "forward returned %d: %s", rc, err);
        if (rc != LOSSFUZZ_OK) lf_canary_check(&l, r); /* a write out of bounds outranks the answer */
        if (r->kind == LF_OUTCOME_OK) check_unchanged(mem, g, LF_CASE_TENSORS, "in forward", r);
        /* Backward when asked for: a call with a tensor that requires grad. */
        bool wanted = false;
        for (int p = 0; p < LF_GRAD_PARTS; p++) wanted |= lf_grad_required(c, (lf_grad_part)p);
        if (r->kind == LF_OUTCOME_OK && t->backward && c->backward.values && wanted) {
            run_backward(t, c, mem, &l, &call, &out, r);
            if (r->kind == LF_OUTCOME_OK) check_unchanged(mem, g, LF_CASE_TENSORS, "in backward", r);
        }
    }
    lf_canary_end(&l);
    lf_tensor_free(&out);
}
