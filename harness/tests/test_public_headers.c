/* test_public_headers.c - a guarded kernel that uses the guard library
 * includes both public headers: they must compile together (the guard's call
 * and the kernel's call were both lossfuzz_call once), and the library must
 * speak the guard header's ABI. */
#include <stdio.h>

#include "lossfuzz/guard.h"
#include "lossfuzz/kernel.h"

int main(void)
{
    lossfuzz_guard_call g = {.loss = "cross_entropy", .ignore_index = -100, .reduction = "mean"};
    lossfuzz_call k = {.ignore_index = -100, .reduction = LOSSFUZZ_MEAN};
    if (lossfuzz_guard_abi() != LOSSFUZZ_GUARD_ABI) {
        fprintf(stderr, "the guard library speaks ABI %u, guard.h %u\n", lossfuzz_guard_abi(), LOSSFUZZ_GUARD_ABI);
        return 1;
    }
    printf("guard.h (ABI %u) and kernel.h (ABI %u) compile together: %s, ignore_index %lld\n", LOSSFUZZ_GUARD_ABI,
           LOSSFUZZ_KERNEL_ABI, g.loss, (long long)k.ignore_index);
    return 0;
}
