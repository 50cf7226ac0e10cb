/* lf_fuzz_hooks.c - libFuzzer's optional hooks, shared by every target: the
 * size limit, and the structure-aware mutator (lf_mutate.c) for the target
 * named by `lf_fuzz_target`. Harmless in the replay and AFL++ builds, which
 * never call them. */
#include <stddef.h>
#include <stdint.h>

#include "lf_fuzz.h"

#include <stdlib.h>
#include <string.h>

extern const lf_target lf_fuzz_target;
int lf_fuzz_judge_expectations;

/* Present only when linked with libFuzzer. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *expect = getenv("LOSSFUZZ_EXPECT");
    lf_numel_limit = lf_fuzz_numel_limit(lf_fuzz_target);
    lf_fuzz_judge_expectations = expect && !strcmp(expect, "1");
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return lf_mutate(lf_fuzz_target, data, size, max_size, seed, LLVMFuzzerMutate);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *a, size_t a_size, const uint8_t *b, size_t b_size, uint8_t *out,
                                 size_t max_out_size, unsigned int seed)
{
    return lf_cross_over(a, a_size, b, b_size, out, max_out_size, seed);
}
