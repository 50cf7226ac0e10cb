/* lf_llm.c - the LLM family's outputs (lf_llm.def) for the case model. */
#include "lf_llm.h"

const char *const lf_llm_output_names[LF_OUT_COUNT] = {
#define LF_LLM_OUTPUT(ID, NAME, ...) NAME,
#include "lf_llm.def"
};
const char *const lf_llm_output_meanings[LF_OUT_COUNT] = {
#define LF_LLM_OUTPUT(ID, NAME, MEANING) MEANING,
#include "lf_llm.def"
};
