/* lf_sim.c - the CPU simulation backend: the kernels of kernels/reference,
 * kernels/guarded and kernels/lf_common.inc compiled as C, launched over a
 * simulated grid one thread at a time. Every memory access is the kernel's own,
 * so ASan/UBSan builds watch the real kernel logic. A failed kernel assert is
 * recorded in the lf_assert_record (lf_port.h) and ends that thread. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lf_kernels.h"

_Thread_local int64_t lf_sim_thread_index, lf_sim_thread_count;
int lf_sim_hard_asserts;

void lf_sim_set_hard_asserts(int on) { lf_sim_hard_asserts = on; }

/* What a real device assert leaves behind: CUDA's line on stderr, a dead process. */
void lf_sim_assert_abort(const char *file, int line, int kernel_id, int cond_id)
{
    fprintf(stderr, "%s:%d: %s: block: [0,0,0], thread: [%lld,0,0] Assertion `%s` failed.\n", file, line,
            lf_kernel_name(kernel_id), (long long)lf_sim_thread_index, lf_cond_text(cond_id));
    fflush(stderr);
    abort();
}

/* A few threads are enough to exercise the grid-stride loops; more only costs time. */
static int64_t sim_threads(int64_t work) { return work < 1 ? 1 : work < 8 ? work : 8; }

#define LF_FN(name) lf_sim_##name
#define LF_LAUNCH(kernel, work, ...)                                                   \
    do {                                                                               \
        lf_sim_thread_count = sim_threads(work);                                       \
        for (lf_sim_thread_index = 0; lf_sim_thread_index < lf_sim_thread_count;       \
             lf_sim_thread_index++)                                                    \
            kernel(__VA_ARGS__);                                                       \
    } while (0)
/* A simulated thread runs a whole group, its lanes in turn (lf_group.h). */
#define LF_LAUNCH_GROUPS(kernel, groups, lanes, ...) LF_LAUNCH(kernel, groups, __VA_ARGS__)
#define LF_LAUNCH_CHECK() 0

#include "lf_common.inc"
#include "reference/lf_reference.inc"
#include "guarded/lf_guarded.inc"
#include "lf_launch.inc"
