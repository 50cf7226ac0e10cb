/* lf_sim.c - the CPU simulation backend: the kernels of kernels/reference,
 * kernels/guarded and kernels/lf_common.inc compiled as C, launched over a
 * simulated grid one thread at a time. Every memory access is the kernel's own,
 * so ASan/UBSan builds watch the real kernel logic. A failed kernel assert is
 * recorded in the lf_assert_record (lf_port.h) and ends that thread. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_kernels.h"

_Thread_local int64_t lf_sim_thread_index, lf_sim_thread_count;
_Thread_local int lf_sim_block_lanes = 32;
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
static int64_t sim_threads(int64_t work) { return work < 1 ? 1 : work < LF_SIM_THREADS ? work : LF_SIM_THREADS; }

/* Whole simulated warps of groups, as CUDA's blocks are whole warps: a
 * flush's block (lf_block_group) then has 1 warp, or 2 past 4 groups. */
static int64_t sim_group_threads(int64_t groups) { return groups > LF_SIM_WARP ? LF_SIM_THREADS : LF_SIM_WARP; }

int lf_sim_flush_lane(int threads)
{
    if (threads > LF_SIM_THREADS || (threads > LF_SIM_WARP ? threads % LF_SIM_WARP : threads & (threads - 1))) {
        fprintf(stderr,
                "lf_sim: a flush over %d threads, not whole warps of %d (at most %d): launch the kernel "
                "with LF_LAUNCH_GROUPS\n",
                threads, LF_SIM_WARP, LF_SIM_THREADS);
        abort();
    }
    return (int)lf_sim_thread_index;
}

/* A block group's lanes, picked by the problem: 32 (CUDA's 8 warps, scaled)
 * or 8 (2 warps), by a hash of its sizes and options, so that each count
 * meets every option and a case, its JSON repro too, always gets the same. */
static int sim_block_lanes(const lf_problem *p)
{
    uint64_t h = (uint64_t)p->N * 0x9E3779B97F4A7C15u ^ (uint64_t)p->C * 0xC2B2AE3D27D4EB4Fu ^ (uint64_t)p->S;
    uint64_t eps;
    memcpy(&eps, &p->label_smoothing, sizeof eps);
    h ^= (uint64_t)p->ignore_index * 0x165667B19E3779F9u ^ eps;
    h ^= (uint64_t)(p->targets | p->log_softmax << 2 | p->reduction << 3 | p->in_dtype << 5 | p->tgt_dtype << 9 |
                    p->has_weight << 13 | p->one_d << 14)
         << 17;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 29;
    return h & 1 ? 32 : 8;
}

#define LF_FN(name) lf_sim_##name
#define LF_SIM_RUN(kernel, threads, ...)                                                                               \
    do {                                                                                                               \
        lf_sim_thread_count = (threads);                                                                               \
        for (lf_sim_thread_index = 0; lf_sim_thread_index < lf_sim_thread_count; lf_sim_thread_index++)                \
            kernel(__VA_ARGS__);                                                                                       \
    } while (0)
#define LF_LAUNCH(kernel, work, ...) LF_SIM_RUN(kernel, sim_threads(work), __VA_ARGS__)
/* A simulated thread runs a whole group, its lanes in turn (lf_group.h); the
 * problem (every launch's first argument) picks a block group's lanes. */
#define LF_SIM_PROBLEM(p, ...) (p)
#define LF_LAUNCH_GROUPS(kernel, groups, lanes, ...)                                                                   \
    do {                                                                                                               \
        lf_sim_block_lanes = sim_block_lanes(&LF_SIM_PROBLEM(__VA_ARGS__));                                            \
        LF_SIM_RUN(kernel, sim_group_threads(groups), __VA_ARGS__);                                                    \
    } while (0)
#define LF_LAUNCH_CHECK() 0

#include "lf_common.inc"
#include "reference/lf_reference.inc"
#include "guarded/lf_guarded.inc"
#include "lf_launch.inc"
