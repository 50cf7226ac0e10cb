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
    const char *why = NULL;
    if (!describe)
        why = "exports no " LOSSFUZZ_KERNEL_SYMBOL " (define it with LOSSFUZZ_KERNEL_ENTRY from lossfuzz/kernel.h)";
    else if (!(k->table = describe(LOSSFUZZ_KERNEL_ABI)))
        why = "refused this lossfuzz's kernel ABI";
    if (why) {
        snprintf(err, errlen, "kernel library %s %s", path, why);
    } else if (k->table->abi != LOSSFUZZ_KERNEL_ABI) {
        snprintf(err, errlen,
                 "kernel library %s was built against kernel ABI %u; this lossfuzz speaks ABI %u: rebuild it with "
                 "this lossfuzz's include/lossfuzz/kernel.h", path, k->table->abi, LOSSFUZZ_KERNEL_ABI);
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
    v->t = (DLTensor){data, dev, src->ndim, dl_dtype(src->dtype), v->shape, v->strides,
                      (uint64_t)(src->strided ? src->offset : 0) * lf_dtype_size(src->dtype)};
}

/* The result's shape as torch.nn.functional gives it: [] when reduced or for
 * one row ([C] input, even with a target of shape [1]), else the target's
 * batch shape (class targets), the input's without the class dim
 * (probability targets) or the input's (BCE). */
static int out_shape(const lf_case *c, int64_t *shape)
{
    const lf_tensor *in = &c->input;
    if (c->reduction != LF_REDUCTION_NONE || (in->ndim == 1 && c->loss != LF_LOSS_BCE_WITH_LOGITS)) return 0;
    if (c->loss == LF_LOSS_BCE_WITH_LOGITS) {
        memcpy(shape, in->shape, sizeof in->shape);
        return in->ndim;
    }
    if (lf_kernel_loss_bit(c) != LOSSFUZZ_CROSS_ENTROPY_PROB) {
        memcpy(shape, c->target.shape, sizeof c->target.shape);
        return c->target.ndim;
    }
    int n = 0;
    for (int d = 0; d < in->ndim; d++)
        if (d != 1 || in->ndim == 1) shape[n++] = in->shape[d];
    return in->ndim == 1 ? 0 : n;
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
    for (int64_t i = 0; i < out->numel; i++) r->values[i] = lf_load_f64(out->data, out->dtype, i);
}

void lf_kernel_lib_run(const lf_kernel_lib *k, const lf_case *c, const lf_backend *mem, lf_result *r)
{
    const lossfuzz_kernel *t = k->table;
    DLDevice dev = {t->device, 0};
    lf_tensor out = {0};
    int64_t shape[LF_MAX_DIMS];
    char err[512] = "";
    lf_dtype out_dtype = lf_dtype_is_float(c->input.dtype) ? c->input.dtype : LF_F32;
    if (!lf_tensor_alloc(&out, out_dtype, out_shape(c, shape), shape, err, sizeof err)) {
        lf_result_error(r, "backend_error", "RuntimeError", "the result: %s", err);
        return;
    }
    lf_canary_list l;
    lf_canary_begin(&l, mem);
    void *in = lf_device_copy(&l, "input", &c->input), *tg = lf_device_copy(&l, "target", &c->target);
    void *w = lf_device_copy(&l, "weight", &c->weight), *pw = lf_device_copy(&l, "pos_weight", &c->pos_weight);
    void *o = lf_canary_add(&l, "out", (size_t)out.numel * lf_dtype_size(out_dtype), out_dtype, NULL);
    if (!in || !tg || (c->weight.present && !w) || (c->pos_weight.present && !pw) || !o) {
        lf_result_error(r, "backend_error", "RuntimeError", "cannot allocate or copy the case's buffers");
    } else {
        dl_view vin, vtg, vw, vpw, vout;
        view_of(&c->input, in, dev, &vin);
        view_of(&c->target, tg, dev, &vtg);
        if (w) view_of(&c->weight, w, dev, &vw);
        if (pw) view_of(&c->pos_weight, pw, dev, &vpw);
        view_of(&out, o, dev, &vout);
        lossfuzz_call call = {lf_kernel_loss_bit(c), (int)c->reduction, c->ignore_index, c->label_smoothing,
                              &vin.t, &vtg.t, w ? &vw.t : NULL, pw ? &vpw.t : NULL, &vout.t, NULL};
        lf_fence_watch(&l);
        int rc = t->forward(&call, err, sizeof err);
        lf_fence_watch(NULL);
        err[sizeof err - 1] = 0;
        if (rc == LOSSFUZZ_OK) collect(mem, &l, &out, o, r);
        else if (rc == LOSSFUZZ_REJECTED) lf_result_error(r, "kernel_rejected", "RuntimeError", "%s", err);
        else lf_result_error(r, "kernel_failed", "RuntimeError", "forward returned %d: %s", rc, err);
        if (rc != LOSSFUZZ_OK) lf_canary_check(&l, r); /* a write out of bounds outranks the answer */
    }
    lf_canary_end(&l);
    lf_tensor_free(&out);
}
