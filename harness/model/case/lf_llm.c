/* lf_llm.c - the LLM options' list (lf_llm.def) for the case model. */
#include "lf_llm.h"

#include <string.h>

const char *const lf_llm_names[LF_LLM_COUNT] = {
#define LF_LLM(ID, NAME, ...) NAME,
#include "lf_llm.def"
};
const double lf_llm_defaults[LF_LLM_COUNT] = {
#define LF_LLM(ID, NAME, DEFAULT, ...) DEFAULT,
#include "lf_llm.def"
};
const char *const lf_llm_meanings[LF_LLM_COUNT] = {
#define LF_LLM(ID, NAME, DEFAULT, MEANING) MEANING,
#include "lf_llm.def"
};

const char *const lf_llm_output_names[LF_OUT_COUNT] = {
#define LF_LLM_OUTPUT(ID, NAME, ...) NAME,
#include "lf_llm.def"
};
const char *const lf_llm_output_meanings[LF_OUT_COUNT] = {
#define LF_LLM_OUTPUT(ID, NAME, MEANING) MEANING,
#include "lf_llm.def"
};

bool lf_llm_parse(const char *name, lf_llm_option *out)
{
    for (int k = 0; k < LF_LLM_COUNT; k++)
        if (!strcmp(name, lf_llm_names[k])) {
            *out = (lf_llm_option)k;
            return true;
        }
    return false;
}
