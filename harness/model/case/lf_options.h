/* lf_options.h - the keyword options of a loss call (lf_options.def), as the
 * case model reads them: their ids, LF_OPT_* bits and facts. */
#ifndef LF_OPTIONS_H
#define LF_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { LF_TYPE_tensor, LF_TYPE_int64_t, LF_TYPE_double } lf_option_type; /* LF_TYPE_<the row's TYPE> */
typedef enum { LF_PYTORCH, LF_LLM } lf_option_family;

typedef enum {
#define LF_OPTION(ID, ...) LF_OPTION_##ID,
#define LF_TENSOR_OPTION(ID, ...) LF_OPTION_##ID,
#include "lf_options.def"
    LF_OPTION_COUNT
} lf_option;

/* Each row's bit (lf_loss_options: those of the options a loss takes); LF_OPT_LLM: the LLM family's. */
enum {
#define LF_OPTION(ID, ...) LF_OPT_##ID = 1u << LF_OPTION_##ID,
#define LF_TENSOR_OPTION(ID, ...) LF_OPT_##ID = 1u << LF_OPTION_##ID,
#include "lf_options.def"
    LF_OPT_LLM = 0
#define LF_OPTION(ID, NAME, TYPE, DEFAULT, VALID, FAMILY, ...) | ((FAMILY) == LF_LLM ? LF_OPT_##ID : 0)
#define LF_TENSOR_OPTION(ID, NAME, FAMILY, ...) | ((FAMILY) == LF_LLM ? LF_OPT_##ID : 0)
#include "lf_options.def"
};

typedef struct {
    const char *name;
    lf_option_type type;
    lf_option_family family;
    double default_value; /* (an int64_t one's is a small integer: exact) */
    bool ranged;          /* a case file's value must lie in [lo, hi] */
    double lo, hi;
    const char *meaning;
} lf_option_info;

const lf_option_info *lf_option_of(lf_option o);
bool lf_option_parse(const char *name, lf_option *out);
/* Whether o is a scalar, a field of the case (not a tensor). */
bool lf_option_is_scalar(lf_option o);

#endif
