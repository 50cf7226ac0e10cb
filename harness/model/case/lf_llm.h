/* lf_llm.h - the LLM cross-entropy family's outputs (lf_llm.def), as the case
 * model reads them; its options are lf_options.def's. */
#ifndef LF_LLM_H
#define LF_LLM_H

typedef enum {
#define LF_LLM_OUTPUT(ID, ...) LF_OUT_##ID,
#include "lf_llm.def"
    LF_OUT_COUNT
} lf_llm_output;
extern const char *const lf_llm_output_names[LF_OUT_COUNT];
extern const char *const lf_llm_output_meanings[LF_OUT_COUNT];

/* Vocabulary-parallel cases: up to this many ranks. */
#define LF_MAX_WORLD 8

#endif
