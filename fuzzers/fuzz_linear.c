/* fuzz_linear.c - fuzz target: fused linear + cross-entropy (hidden states,
 * a weight, a bias; cross_entropy's options), for a kernel under test that
 * claims linear_cross_entropy; without one, the spec alone (and --torch).
 * Engine-neutral: built for libFuzzer, AFL++ and the replay driver. */
#include "lf_fuzz.h"

const lf_target lf_fuzz_target = LF_TARGET_LINEAR;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_fuzz_decoded(lf_fuzz_target, data, size);
    return 0;
}
