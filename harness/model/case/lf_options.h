/* lf_options.h - the keyword options of a loss call (lf_options.def), as the
 * case model reads them: their ids, LF_OPT_* bits and facts. */
#ifndef LF_OPTIONS_H
#define LF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* lf_choice: an index in the row's LF_NAMES, written by its name (the name "None": JSON null, Python None) */
typedef int64_t lf_choice;
typedef enum { LF_TYPE_tensor, LF_TYPE_int64_t, LF_TYPE_double, LF_TYPE_lf_choice } lf_option_type; /* LF_TYPE_<TYPE> */
typedef enum { LF_PYTORCH, LF_LLM, LF_CHUNKED } lf_option_family;

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
    ,
    LF_OPT_CHUNKED = 0 /* torch 2.15's LinearCrossEntropyOptions fields */
#define LF_OPTION(ID, NAME, TYPE, DEFAULT, VALID, FAMILY, ...) | ((FAMILY) == LF_CHUNKED ? LF_OPT_##ID : 0)
#include "lf_options.def"
};

typedef struct {
    const char *name;
    lf_option_type type;
    lf_option_family family;
    double default_value; /* (an int64_t one's is a small integer: exact) */
    bool ranged;          /* a case file's value must lie in [lo, hi] */
    double lo, hi;
    const char *const *names; /* an lf_choice's, n_names of them; else NULL */
    int n_names;
    const char *meaning;
} lf_option_info;

const lf_option_info *lf_option_of(lf_option o);
bool lf_option_parse(const char *name, lf_option *out);
/* Whether o is a scalar, a field of the case (not a tensor). */
bool lf_option_is_scalar(lf_option o);
/* Whether o's field is an int64_t (an int64_t option's or an lf_choice's). */
bool lf_option_is_integer(lf_option o);
/* An lf_choice's name of index i ("?" outside its names), and its index of a name (NULL: "None"). */
const char *lf_option_choice_name(lf_option o, int64_t i);
bool lf_option_choice_parse(lf_option o, const char *name, int64_t *out);
/* Its value as a case file, the wire and Python hold it: its name, or NULL for "None" (JSON null, Python None). */
const char *lf_option_choice_value(lf_option o, int64_t i);
/* Its names as a message lists them: 'auto', 'accurate', 'compact'. */
void lf_option_choice_list(lf_option o, char *buf, size_t n);

#endif
