/* fuzz_npy.c - fuzz target: the .npy parser (lf_dump.h) on arbitrary bytes:
 * bad magic, lying header lengths, descr and shape literals, Fortran order,
 * truncated data must give an error, never a crash. */
#include <stdlib.h>

#include "lf_dump.h"
#include "lf_fuzz.h"

const lf_target lf_fuzz_target = LF_TARGET_RAW;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lf_array a;
    char err[512];
    if (lf_npy_parse(data, size, "input", &a, err, sizeof err)) {
        double sum = 0; /* touch every element the parser vouched for */
        for (int64_t i = 0; !a.is_text && i < a.numel; i++) sum += lf_load_f64(a.data, a.dtype, i);
        (void)sum;
    }
    free(a.owned);
    return 0;
}
