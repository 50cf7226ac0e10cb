/* lf_names.c - the names PyTorch users see for the kernels we mirror. */
#include "lf_kernels.h"

static const char *const kernel_names[LF_K_COUNT] = {
    "none",
    "nll_loss_forward_no_reduce_cuda_kernel",
    "nll_loss_forward_reduce_cuda_kernel_1d",
    "nll_loss_forward_reduce_cuda_kernel_2d",
    "nll_loss2d_forward_no_reduce_kernel",
    "nll_loss2d_forward_kernel",
};

static const char *const cond_texts[LF_COND_COUNT] = {
    "none", "t >= 0 && t < n_classes", "t < n_classes", "cur_target >= 0 && cur_target < n_classes",
    "cur_target < n_classes"};

const char *lf_kernel_name(int id) { return id >= 0 && id < LF_K_COUNT ? kernel_names[id] : "?"; }
const char *lf_cond_text(int id) { return id >= 0 && id < LF_COND_COUNT ? cond_texts[id] : "?"; }
