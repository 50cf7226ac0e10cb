/* lf_torch_known.c - where PyTorch on another device or version answers
 * differently from the spec by design: the spec models PyTorch 2.x on CUDA
 * (measured with 2.11 on an H100), while CI's live PyTorch is Debian's 1.13
 * on the CPU. The same list as ci/conformance/cpu_torch.py's KNOWN_DIFFERENCES,
 * which judges that bulk run. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lf_oracle.h"
#include "lf_problem.h"

static bool any_non_finite(const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return true;
    return false;
}

/* t has NaN where the spec has a number or an infinity. */
static bool nan_where_number(const lf_result *s, const lf_result *t)
{
    for (int64_t i = 0; i < t->n && i < s->n; i++)
        if (isnan(t->values[i]) && !isnan(s->values[i])) return true;
    return false;
}

/* t has inf or NaN where the spec has a number. */
static bool non_finite_where_finite(const lf_result *s, const lf_result *t)
{
    for (int64_t i = 0; i < t->n && i < s->n; i++)
        if (!isfinite(t->values[i]) && isfinite(s->values[i])) return true;
    return false;
}

/* A spatial mean or sum (nll_loss2d_forward_kernel) with a label past int32's range. */
static bool reads_int32_labels(const lf_case *c)
{
    if (!lf_loss_has_classes(c->loss) || c->input.ndim < 3 || c->reduction == LF_REDUCTION_NONE) return false;
    for (int64_t i = 0; i < c->target.numel; i++) {
        int64_t v = lf_load_i64(c->target.data, c->target.dtype, i);
        if (v != (int32_t)v) return true;
    }
    return false;
}

/* PyTorch's version (torch.__version__, "2.11.0+cu130") is older than MAJOR.MINOR. */
static bool torch_before(const char *version, int major, int minor)
{
    int a, b;
    if (sscanf(version, "%d.%d", &a, &b) != 2) return false;
    return a < major || (a == major && b < minor);
}

static bool has_label(const lf_case *c, int64_t label)
{
    for (int64_t i = 0; i < c->target.numel; i++)
        if (lf_load_i64(c->target.data, c->target.dtype, i) == label) return true;
    return false;
}

const char *lf_torch_known_difference(const lf_case *c, const lf_result *s, const lf_result *t, const char *device,
                                      const char *version)
{
    /* A fused linear + CE is cross_entropy on its logits: the same differences, judged on their shape. */
    lf_case logits;
    if (lf_loss_of(c->loss)->fused_linear) {
        logits = *c;
        logits.loss = LF_LOSS_CROSS_ENTROPY;
        logits.input.strided = false;
        logits.input.shape[logits.input.ndim - 1] = c->linear_weight.ndim ? c->linear_weight.shape[0] : 0;
        c = &logits;
    }
    bool cpu = !strncmp(device, "cpu", 3), torch1 = !strncmp(version, "1.", 2);
    bool both_ok = s->kind == LF_OUTCOME_OK && t->kind == LF_OUTCOME_OK;
    bool margin = c->loss == LF_LOSS_MULTI_MARGIN;
    bool class_loss = lf_loss_has_classes(c->loss) && !margin; /* nll_loss's family: the differences below */
    if (torch1 && margin && s->kind == LF_OUTCOME_HOST_ERROR && !strcmp(s->error, "weight_shape") &&
        t->kind == LF_OUTCOME_OK)
        return "torch 1.13's multi_margin_loss does not check the weight's size; PyTorch main does "
               "(multi_margin_loss_shape_check, which the spec follows)";
    if (cpu && margin && t->kind == LF_OUTCOME_DEVICE_ASSERT && s->kind == LF_OUTCOME_OK &&
        !strcmp(s->silent, "label_truncated"))
        return "CUDA's MultiMarginLoss_forward_kernel reads the label as int (static_cast<int>), so 2^32+k is "
               "class k, no assert; the CPU raises (the spec models CUDA)";
    if (cpu && both_ok && class_loss && c->input.ndim == 1 && c->target.numel == 1 &&
        lf_load_i64(c->target.data, c->target.dtype, 0) == c->ignore_index && c->reduction == LF_REDUCTION_MEAN &&
        t->n == 1 && isnan(t->values[0]))
        return "CUDA's nll_loss_forward_reduce_cuda_kernel_1d returns 0 for an ignored target under mean; "
               "the CPU returns NaN (the spec models CUDA)";
    if (torch1 && !both_ok && class_loss && c->input.ndim == 1 && c->target.ndim == 1 &&
        (c->loss == LF_LOSS_NLL || c->target.shape[0] != c->input.shape[0]))
        return "1-D input with a 1-D target: 2.x accepts shape [1] only, 1.13 accepts [C] and rejects [1] "
               "unless C == 1 (the spec models 2.x)";
    if (cpu && s->kind == LF_OUTCOME_OK && t->kind == LF_OUTCOME_HOST_ERROR && lf_class_dtype_checks_skipped(c) &&
        (!strcmp(t->error, "target_dtype") || !strcmp(t->error, "weight_dtype")))
        return "CUDA's nll_loss2d returns for a target without elements before it reads the target's or the weight's "
               "dtype (NLLLoss2d.cu); the CPU checks them (the spec models CUDA)";
    bool before_2_13 = torch_before(version, 2, 13); /* PR 175151: nll_loss's meta function checks the target first */
    if (before_2_13 && s->kind == LF_OUTCOME_HOST_ERROR && !strcmp(s->error, "target_dtype") && c->input.ndim <= 2 &&
        c->target.numel == 0 && t->kind == LF_OUTCOME_OK)
        return "nll_loss's meta function checks the target's dtype on an empty batch too since PyTorch 2.13 (PR "
               "175151); 2.12 and older return the empty result (2.11 on an H200; the spec models PyTorch main)";
    if (before_2_13 && class_loss && s->kind == LF_OUTCOME_HOST_ERROR && !strcmp(s->error, "target_dtype") &&
        t->kind == LF_OUTCOME_HOST_ERROR && !strncmp(t->error, "weight_", 7))
        return "torch 1.13 checks the class weight (its size, its dtype) before the target's dtype; PyTorch main's "
               "nll_loss meta function checks the target's dtype first (PR 175151), which the spec follows (not "
               "measured on a GPU)";
    if (t->kind == LF_OUTCOME_HOST_ERROR && !strcmp(t->error, "unsupported"))
        return "this PyTorch has no kernel for these dtypes on this device (\"not implemented for\"): "
               "nothing to compare";
    if (cpu && !margin && t->kind == LF_OUTCOME_DEVICE_ASSERT &&
        ((s->kind == LF_OUTCOME_OK && !strcmp(s->silent, "label_truncated")) ||
         (s->kind == LF_OUTCOME_HOST_ERROR && reads_int32_labels(c)))) /* CUDA reaches a later host error */
        return "CUDA's nll_loss2d_forward_kernel reads int64 labels as int32, so 2^32+k is class k, no assert "
               "(PyTorch 2.11, H100); the CPU raises (the spec models CUDA)";
    if (cpu && !margin && both_ok && !strcmp(s->silent, "label_truncated"))
        return "CUDA's nll_loss2d_forward_kernel narrows a label equal to an ignore_index past 2^31 into a class "
               "it counts; the CPU ignores it (the spec models CUDA)";
    if (cpu && s->kind == LF_OUTCOME_DEVICE_ASSERT && s->kernel_id == LF_K_NLL2D_REDUCE && t->kind == LF_OUTCOME_OK &&
        c->ignore_index != (int32_t)c->ignore_index)
        return "CUDA's nll_loss2d_forward_kernel narrows the labels to int32 but not ignore_index, so a label equal "
               "to an ignore_index past 2^31 asserts (PyTorch 2.11, H100); the CPU ignores it (the spec models CUDA)";
    if (cpu && torch1 && both_ok && c->input.dtype == LF_BF16 && c->input.ndim >= 3 &&
        (non_finite_where_finite(s, t) || any_non_finite(t->grad[LF_GRAD_INPUT].values, t->grad[LF_GRAD_INPUT].n)))
        return "torch 1.13's CPU bfloat16 log_softmax over the class dim of a spatial input returns inf or NaN at "
               "some positions, in its result or its gradient (the spec gives finite values, as 2.x does)";
    if (cpu && torch1 && both_ok && t->out_dtype == LF_F16 && c->reduction != LF_REDUCTION_NONE && t->n >= 1 &&
        isinf(t->values[0]))
        return "torch 1.13's CPU sums float16 in float16 and overflows; CUDA and the spec accumulate in float32";
    if (torch1 && both_ok && !lf_loss_has_classes(c->loss) && nan_where_number(s, t))
        return "torch 1.13's BCE-with-logits (max_val + log(exp(-max_val) + exp(-x - max_val))) gives NaN for an "
               "infinite logit, or one past the target dtype's range, where 2.x's log_sigmoid chain, which the "
               "spec follows, gives a number or inf";
    if (cpu && torch1 && both_ok && t->grad[LF_GRAD_INPUT].state == LF_GRAD_ERROR && c->input.strided &&
        strstr(t->grad[LF_GRAD_INPUT].message, "grad_input must be contiguous"))
        return "torch 1.13's CPU nll_loss2d backward refuses a non-contiguous input (\"grad_input must be "
               "contiguous\"); 2.x not yet measured";
    if (torch1 && c->loss == LF_LOSS_CROSS_ENTROPY && c->target.dtype == LF_U8 && c->label_smoothing > 0 &&
        (c->ignore_index < 0 || c->ignore_index > 255) && has_label(c, (uint8_t)c->ignore_index))
        return "torch 1.13 wraps an ignore_index outside uint8's range into it (2^31 is 0, -100 is 156) when label "
               "smoothing masks uint8 targets (so its mean may gather none), nll_loss does not (2.x not yet measured; "
               "the spec does not wrap)";
    return NULL;
}
