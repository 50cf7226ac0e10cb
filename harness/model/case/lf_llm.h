/* lf_llm.h - the LLM cross-entropy family's options (lf_llm.def), its loss
 * mask and layouts, as the case model reads them. */
#ifndef LF_LLM_H
#define LF_LLM_H

#include <stdbool.h>

typedef enum {
#define LF_LLM(ID, ...) LF_LLM_##ID,
#include "lf_llm.def"
    LF_LLM_COUNT
} lf_llm_option;
typedef enum {
#define LF_LLM_OUTPUT(ID, ...) LF_OUT_##ID,
#include "lf_llm.def"
    LF_OUT_COUNT
} lf_llm_output;
extern const char *const lf_llm_output_names[LF_OUT_COUNT];
extern const char *const lf_llm_output_meanings[LF_OUT_COUNT];

extern const char *const lf_llm_names[LF_LLM_COUNT];
extern const double lf_llm_defaults[LF_LLM_COUNT];
extern const char *const lf_llm_meanings[LF_LLM_COUNT];
bool lf_llm_parse(const char *name, lf_llm_option *out);

/* Vocabulary-parallel cases: up to this many ranks. */
#define LF_MAX_WORLD 8

#endif
