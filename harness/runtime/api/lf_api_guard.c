/* lf_api_guard.c - include/lossfuzz/guard.h: the guard's validation (host
 * checks, the statistics pass over the targets, the diagnosis) on DLPack
 * tensors, in liblossfuzz_guard.so. The tensors become a case that borrows
 * their memory (a non-contiguous CPU one is gathered into a contiguous copy:
 * its layout does not change what PyTorch decides). CPU targets run on the
 * simulation; CUDA targets stay on the GPU and run on the CUDA backend, which
 * reads them where they are (lf_tensor.on_device). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_guard.h"
#include "lf_layout.h"
#include "lossfuzz/guard.h"

unsigned lossfuzz_guard_abi(void) { return LOSSFUZZ_GUARD_ABI; }

const char *lossfuzz_guard_loss(unsigned i)
{
    const unsigned fields =
        LF_OPT_WEIGHT | LF_OPT_POS_WEIGHT | LF_OPT_IGNORE_INDEX | LF_OPT_LABEL_SMOOTHING | LF_OPT_LLM;
    for (int l = 0; l < LF_LOSS_COUNT; l++)
        if (!lf_loss_of((lf_loss)l)->fused_linear && !(lf_loss_options((lf_loss)l) & ~fields) && i-- == 0)
            return lf_loss_name((lf_loss)l);
    return NULL;
}

unsigned lossfuzz_guard_devices(void)
{
    const char *why;
    return LOSSFUZZ_GUARD_CPU | (lf_backend_find("cuda", &why) ? LOSSFUZZ_GUARD_CUDA : 0u);
}

static bool dtype_of(DLDataType t, lf_dtype *out)
{
    if (t.lanes != 1) return false;
    switch (t.code) {
    case kDLFloat:
        *out = t.bits == 64 ? LF_F64 : t.bits == 32 ? LF_F32 : LF_F16;
        return t.bits == 64 || t.bits == 32 || t.bits == 16;
    case kDLBfloat: *out = LF_BF16; return t.bits == 16;
    case kDLInt: *out = t.bits == 64 ? LF_I64 : LF_I32; return t.bits == 64 || t.bits == 32;
    case kDLUInt: *out = LF_U8; return t.bits == 8;
    case 6 /* kDLBool, DLPack >= 0.8 */: *out = LF_BOOL; return t.bits == 8;
    default: return false;
    }
}

/* The DLTensor as a case tensor: borrowed when contiguous, else gathered; a
 * CUDA tensor stays where it is (on_device, its storage and strides), its
 * values read only by the kernels - a target - or not at all. */
static bool borrow(const char *name, const DLTensor *d, bool data_optional, lf_tensor *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (!d) return true; /* absent */
    bool cuda = d->device.device_type == kDLCUDA;
    if (d->device.device_type != kDLCPU && !cuda) {
        snprintf(err, errlen, "%s is on DLPack device type %d: the guard takes CPU and CUDA tensors", name,
                 (int)d->device.device_type);
        return false;
    }
    if (!dtype_of(d->dtype, &t->dtype)) {
        snprintf(err, errlen, "%s: a DLPack dtype (code %u, %u bits) PyTorch has no loss for", name, d->dtype.code,
                 d->dtype.bits);
        return false;
    }
    if (d->ndim < 0 || d->ndim > LF_MAX_DIMS) {
        snprintf(err, errlen, "%s has %d dims: at most %d", name, d->ndim, LF_MAX_DIMS);
        return false;
    }
    t->present = true;
    t->ndim = d->ndim;
    t->numel = 1;
    bool contiguous = true;
    for (int i = d->ndim - 1, expect = 1; i >= 0; i--) {
        t->shape[i] = d->shape[i];
        t->numel *= d->shape[i];
        if (d->strides && d->shape[i] > 1 && d->strides[i] != expect) contiguous = false;
        expect *= (int)(d->shape[i] > 0 ? d->shape[i] : 1);
    }
    if (!d->data) {
        if (data_optional || t->numel == 0) return true;
        snprintf(err, errlen, "%s has no data", name);
        return false;
    }
    size_t es = lf_dtype_size(t->dtype);
    if (cuda) {
        int64_t strides[LF_MAX_DIMS];
        for (int i = 0; i < d->ndim; i++) strides[i] = d->strides ? d->strides[i] : 0;
        if (!d->strides) /* DLPack: NULL strides are row-major */
            for (int i = d->ndim - 1, s = 1; i >= 0; i--) strides[i] = s, s *= (int)(d->shape[i] > 1 ? d->shape[i] : 1);
        t->data = d->data;
        t->borrowed = t->on_device = true;
        return lf_layout_set(t, strides, (int64_t)(d->byte_offset / es), err, errlen);
    }
    const char *base = (const char *)d->data + d->byte_offset;
    if (contiguous) {
        t->data = (void *)base;
        t->borrowed = true;
        return true;
    }
    if (!(t->data = malloc((size_t)t->numel * es + 1))) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    for (int64_t i = 0; i < t->numel; i++) /* gather: row-major index i at its strided offset */
        memcpy((char *)t->data + (size_t)i * es, base + lf_strided_at(d->ndim, d->shape, d->strides, i) * (int64_t)es,
               es);
    return true;
}

static void copy_text(char *dst, size_t len, const char *src) { snprintf(dst, len, "%s", src); }

int lossfuzz_guard_check(const lossfuzz_guard_call *call, lossfuzz_verdict *out)
{
    lf_case c;
    lf_problem p;
    lf_result r;
    const char *why = NULL;
    char err[256] = "";
    memset(out, 0, sizeof *out);
    out->index = -1;
    lf_case_init(&c);
    int rc = -1;
    if (!call || !call->input || !call->target || !call->loss || !lf_loss_parse(call->loss, &c.loss) ||
        lf_loss_of(c.loss)->fused_linear) {
        int n = snprintf(err, sizeof err, "a call needs input, target and a loss the table names (");
        for (int l = 0; l < LF_LOSS_COUNT; l++)
            if (!lf_loss_of((lf_loss)l)->fused_linear && n < (int)sizeof err)
                n += snprintf(err + n, sizeof err - (size_t)n, "%s, ", lf_loss_name((lf_loss)l));
        if (n < (int)sizeof err) snprintf(err + n - 2, sizeof err - (size_t)(n - 2), "; `lossfuzz describe`)");
        goto done;
    }
    bool probs = call->target->dtype.code == kDLFloat || call->target->dtype.code == kDLBfloat;
    bool on_cuda = call->target->device.device_type == kDLCUDA;
    const lf_backend *be = lf_sim_backend();
    if (on_cuda && probs) {
        snprintf(err, sizeof err, "probability targets are read on the host: pass them (and the input) on the CPU");
        goto done;
    }
    if (on_cuda && !(be = lf_backend_find("cuda", &why))) {
        snprintf(err, sizeof err, "target is a CUDA tensor: %s", why);
        goto done;
    }
    /* weights are checked by shape and dtype only: their values may stay unread (data NULL) */
    if (!borrow("input", call->input, !probs, &c.input, err, sizeof err) ||
        !borrow("target", call->target, false, &c.target, err, sizeof err) ||
        !borrow("weight", call->weight, true, &c.weight, err, sizeof err) ||
        !borrow("pos_weight", call->pos_weight, true, &c.pos_weight, err, sizeof err))
        goto done;
    if (!on_cuda && c.target.on_device) {
        snprintf(err, sizeof err, "target is a CUDA tensor but the call was made for the CPU");
        goto done;
    }
    c.ignore_index = call->ignore_index;
    c.has_ignore_index = true;
    copy_text(c.reduction_name, sizeof c.reduction_name, call->reduction ? call->reduction : "mean");
    c.reduction = lf_reduction_parse(c.reduction_name);
    c.has_reduction = true;
    c.label_smoothing = call->label_smoothing;
    c.has_label_smoothing = true;
    out->accepted = lf_guard_validate_case(&c, be, &p, &r);
    copy_text(out->error, sizeof out->error, r.error);
    copy_text(out->message, sizeof out->message, r.message);
    copy_text(out->hint, sizeof out->hint, r.hint);
    copy_text(out->hint_id, sizeof out->hint_id, r.hint_id);
    copy_text(out->warning, sizeof out->warning, r.warning);
    copy_text(out->warning_id, sizeof out->warning_id, r.warning_id);
    if (!out->accepted && r.index >= 0) {
        out->index = r.index;
        out->value = r.value;
    }
    lf_result_free(&r);
    rc = 0;
done:
    if (rc) copy_text(out->message, sizeof out->message, err);
    lf_case_free(&c);
    return rc;
}
