/* lf_names.c - kernel and condition names (lf_names.h) on the host, and back
 * from the text of an assertion line to ids. */
#include <string.h>

#include "lf_kernels.h"

const char *lf_kernel_name(int id) { return lf_kernel_name_at(id); }
const char *lf_cond_text(int id) { return lf_cond_text_at(id); }

int lf_kernel_id_of(const char *name)
{
    for (int id = 0; id < LF_K_COUNT; id++)
        if (!strcmp(name, lf_kernel_name_at(id))) return id;
    return LF_K_NONE;
}

int lf_cond_id_of(const char *text)
{
    for (int id = 0; id < LF_COND_COUNT; id++)
        if (!strcmp(text, lf_cond_text_at(id))) return id;
    /* the gather's text before CUDA_KERNEL_ASSERT_VERBOSE (PyTorch 1.x) */
    if (!strcmp(text, "idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"")) return LF_COND_GATHER;
    return LF_COND_NONE;
}

int lf_assert_kernel_of(const char *name, int cond_id)
{
    if (cond_id == LF_COND_BCE_INPUT || cond_id == LF_COND_BCE_TARGET) return LF_K_BCE;
    return lf_kernel_id_of(name);
}

const char *lf_assert_error(int kernel_id) { return kernel_id == LF_K_BCE ? "bce_out_of_range" : "label_out_of_range"; }
