/* fuzz_json.c - fuzz target: the JSON case parser. Any bytes must parse or be
 * refused with a message, never crash; a case that parses goes through the
 * oracle like any other, its `expect` keys ignored (a mutation leaves them
 * stale). CTest also replays every regression through it, expectations judged
 * (LOSSFUZZ_EXPECT=1). */
#include <stdlib.h>

#include "lf_case_json.h"
#include "lf_fuzz.h"

const lf_target lf_fuzz_target = LF_TARGET_JSON;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_case c;
    char err[512];
    if (!lf_case_parse_json((const char *)data, size, &c, err, sizeof err)) return 0;
    if (lf_fuzz_judge_expectations == 0) { /* a mutated case keeps stale `expect` keys */
        c.expect = LF_OUTCOME_NONE;
        c.expect_error[0] = 0;
        c.expect_hint[0] = 0;
        free(c.expect_value);
        c.expect_value = NULL;
    }
    lf_fuzz_check(&c, data, size);
    lf_case_free(&c);
    return 0;
}
