/* lf_names.h - the names PyTorch users see for the kernels we mirror and their
 * asserted conditions, usable on the device: a hard assert prints them in
 * CUDA's assertion line (lf_port.h), so the line a worker leaves on stderr
 * names PyTorch's kernel and condition, and the executor reads them back. */
#ifndef LF_NAMES_H
#define LF_NAMES_H

LF_DEVICE const char *lf_kernel_name_at(int id)
{
    switch (id) {
    case LF_K_NONE: return "none";
    case LF_K_NLL_NO_REDUCE: return "nll_loss_forward_no_reduce_cuda_kernel";
    case LF_K_NLL_REDUCE_1D: return "nll_loss_forward_reduce_cuda_kernel_1d";
    case LF_K_NLL_REDUCE_2D: return "nll_loss_forward_reduce_cuda_kernel_2d";
    case LF_K_NLL2D_NO_REDUCE: return "nll_loss2d_forward_no_reduce_kernel";
    case LF_K_NLL2D_REDUCE: return "nll_loss2d_forward_kernel";
    case LF_K_NLL_BWD_NO_REDUCE: return "nll_loss_backward_no_reduce_cuda_kernel";
    case LF_K_NLL_BWD_REDUCE_1D: return "nll_loss_backward_reduce_cuda_kernel_1d";
    case LF_K_NLL_BWD_REDUCE_2D: return "nll_loss_backward_reduce_cuda_kernel_2d";
    case LF_K_NLL2D_BWD_NO_REDUCE: return "nll_loss2d_backward_no_reduce_kernel";
    case LF_K_NLL2D_BWD_REDUCE: return "nll_loss2d_backward_kernel";
    case LF_K_GATHER: return "operator()";
    case LF_K_MULTI_MARGIN: return "MultiMarginLoss_forward_kernel";
    case LF_K_BCE: return "operator()";
    default: return "?";
    }
}

LF_DEVICE const char *lf_cond_text_at(int id)
{
    switch (id) {
    case LF_COND_NONE: return "none";
    case LF_COND_T_RANGE: return "t >= 0 && t < n_classes";
    case LF_COND_T_UPPER: return "t < n_classes";
    case LF_COND_CUR_RANGE: return "cur_target >= 0 && cur_target < n_classes";
    case LF_COND_CUR_UPPER: return "cur_target < n_classes";
    case LF_COND_GATHER: /* ScatterGatherKernel.cu's CUDA_KERNEL_ASSERT_VERBOSE (PyTorch 2.11, measured on an H200) */
        return "idx_dim >= 0 && idx_dim < index_size && \"scatter gather kernel index out of bounds\"";
    case LF_COND_MULTI_MARGIN: return "target_k >= 0 && target_k < dim && \"target index is out of bounds\"";
    case LF_COND_BCE_INPUT: return "input_val >= zero && input_val <= one";
    case LF_COND_BCE_TARGET: return "target_val >= zero && target_val <= one";
    default: return "?";
    }
}

#endif
