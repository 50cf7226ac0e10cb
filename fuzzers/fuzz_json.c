/* fuzz_json.c - fuzz target: the JSON case parser. Any bytes must parse or be
 * refused with a message, never crash; a case that parses goes through the
 * oracle like any other. CTest also replays every regression case through it. */
#include "lf_case_json.h"
#include "lf_fuzz.h"

const lf_target lf_fuzz_target = LF_TARGET_JSON;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_case c;
    char err[512];
    if (!lf_case_parse_json((const char *)data, size, &c, err, sizeof err)) return 0;
    lf_fuzz_check(&c, data, size);
    lf_case_free(&c);
    return 0;
}
