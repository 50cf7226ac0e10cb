/* fuzz_llm.c - fuzz target: the LLM cross-entropy family (lf_options.def):
 * cross_entropy with class indices and softcap, logit scale, z-loss, a loss
 * mask, n_items and the class dim last, judged by the spec alone (lossfuzz's
 * own kernels are PyTorch's and have none of them): with a kernel under test
 * that claims them, against it; without one, the spec's own code under the
 * sanitizers. Engine-neutral: built for libFuzzer, AFL++ and the replay driver. */
#include "lf_fuzz.h"

const lf_target lf_fuzz_target = LF_TARGET_LLM;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_fuzz_decoded(lf_fuzz_target, data, size);
    return 0;
}
