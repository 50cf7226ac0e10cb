/* fuzz_class.c - fuzz target: the losses of harness/model/case/lf_losses.def that
 * take class-index targets (1-D, 2-D and spatial inputs), through spec, reference and guard.
 * Engine-neutral: built for libFuzzer, AFL++ and the replay driver. */
#include "lf_fuzz.h"

const lf_target lf_fuzz_target = LF_TARGET_CLASS;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_fuzz_decoded(lf_fuzz_target, data, size);
    return 0;
}
