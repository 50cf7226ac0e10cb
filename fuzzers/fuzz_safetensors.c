/* fuzz_safetensors.c - fuzz target: the .safetensors loader (lf_dump.h) on arbitrary bytes:
 * truncated files, lying headers, huge sizes and offsets must give an error,
 * never a crash; what loads goes through the oracle. */
#include "lf_fuzz_dump.h"

const lf_target lf_fuzz_target = LF_TARGET_RAW;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_fuzz_dump(lf_safetensors_parse, data, size);
    return 0;
}
