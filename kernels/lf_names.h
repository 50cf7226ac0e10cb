/* lf_names.h - the names PyTorch users see for the kernels we mirror and their
 * asserted conditions (lf_kernels.def), usable on the device: a hard assert
 * prints them in CUDA's assertion line (lf_port.h), so the line a worker leaves
 * on stderr names PyTorch's kernel and condition, and the executor reads them
 * back. */
#ifndef LF_NAMES_H
#define LF_NAMES_H

LF_DEVICE const char *lf_kernel_name_at(int id)
{
    switch (id) {
#define LF_ASSERT_KERNEL(ID, NAME, COND, NARROWS, ERROR)                                                               \
    case LF_K_##ID:                                                                                                    \
        return NAME;
#define LF_ASSERT_COND(ID, TEXT, OLD_TEXT, KERNEL, NAMES)
#include "lf_kernels.def"
#undef LF_ASSERT_KERNEL
#undef LF_ASSERT_COND
    default: return "?";
    }
}

LF_DEVICE const char *lf_cond_text_at(int id)
{
    switch (id) {
#define LF_ASSERT_KERNEL(ID, NAME, COND, NARROWS, ERROR)
#define LF_ASSERT_COND(ID, TEXT, OLD_TEXT, KERNEL, NAMES)                                                              \
    case LF_COND_##ID:                                                                                                 \
        return TEXT;
#include "lf_kernels.def"
#undef LF_ASSERT_KERNEL
#undef LF_ASSERT_COND
    default: return "?";
    }
}

#endif
