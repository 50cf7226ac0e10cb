/* lf_names.c - the asserts' list (lf_kernels.def) on the host: kernel and
 * condition names (lf_names.h), back from the text of an assertion line to
 * ids, and what each kernel's assert means. */
#include <stddef.h>
#include <string.h>

#include "lf_kernels.h"

static const struct {
    const char *old_text;
    int kernel, names;
} conds[] = {
#define LF_ASSERT_KERNEL(ID, NAME, COND, NARROWS, ERROR)
#define LF_ASSERT_COND(ID, TEXT, OLD_TEXT, KERNEL, NAMES) {OLD_TEXT, LF_K_##KERNEL, NAMES},
#include "lf_kernels.def"
#undef LF_ASSERT_KERNEL
#undef LF_ASSERT_COND
};

static const char *const errors[] = {
#define LF_ASSERT_KERNEL(ID, NAME, COND, NARROWS, ERROR) ERROR,
#define LF_ASSERT_COND(ID, TEXT, OLD_TEXT, KERNEL, NAMES)
#include "lf_kernels.def"
#undef LF_ASSERT_KERNEL
#undef LF_ASSERT_COND
};

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
        if (!strcmp(text, lf_cond_text_at(id)) || (conds[id].old_text && !strcmp(text, conds[id].old_text))) return id;
    return LF_COND_NONE;
}

int lf_assert_kernel_of(const char *name, int cond_id)
{
    int known = cond_id > 0 && cond_id < LF_COND_COUNT ? conds[cond_id].kernel : LF_K_NONE;
    return known != LF_K_NONE ? known : lf_kernel_id_of(name);
}

const char *lf_assert_error(int kernel_id)
{
    return kernel_id > 0 && kernel_id < LF_K_COUNT ? errors[kernel_id] : "label_out_of_range";
}

int lf_cond_names(int cond_id)
{
    return cond_id > 0 && cond_id < LF_COND_COUNT ? conds[cond_id].names : LF_NAMES_LABEL;
}
