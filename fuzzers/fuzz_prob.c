/* fuzz_prob.c - fuzz target: cross_entropy with probability targets and
 * binary_cross_entropy_with_logits, through spec, reference and guard.
 * Engine-neutral: built for libFuzzer, AFL++ and the replay driver. */
#include "lf_fuzz.h"

const lf_target lf_fuzz_target = LF_TARGET_PROB;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_case c;
    lf_decode(LF_TARGET_PROB, data, size, &c, NULL);
    lf_fuzz_check(&c, data, size);
    lf_case_free(&c);
    return 0;
}
