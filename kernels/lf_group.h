/* lf_group.h - block-level kernels, still written once: a row's columns spread
 * over a group of `lanes` threads, each lane looping over its share (a lane
 * loop), then the lanes' partial results combined (a group reduction).
 *
 * Groups are 1 thread (a spatial position: neighbouring threads read
 * neighbouring positions, coalesced), a warp of 32 (rows of up to
 * LF_BLOCK_ROW classes) or a whole block of LF_BLOCK (wider rows: every LLM
 * vocabulary). lf_row_lanes picks one by the row's width.
 *
 * On CUDA every thread is one lane: LF_EACH_LANE runs its body once, for this
 * thread's lane, and LF_GROUP_COMBINE merges the lanes with warp shuffles, then
 * through shared memory across the warps of a block. On the simulation one
 * thread runs a whole group: LF_EACH_LANE loops over its lanes, each lane's
 * state in slot LF_SLOT(lane) of an array, and LF_GROUP_COMBINE merges the
 * slots as CUDA does, a butterfly within each warp, then the warps' results
 * in order (LF_WARPS_MERGE, shared by both), so the split and both steps of
 * the combine run under ASan and the fuzzers. The simulation's warp is
 * LF_SIM_WARP lanes, below.
 *
 * Rules for kernels: per-lane state lives in arrays of LF_LANE_SLOTS indexed by
 * LF_SLOT(lane); every lane of a group reaches every combine, so a branch around
 * one is decided by the row, never by the lane; a kernel of groups is launched
 * with LF_LAUNCH_GROUPS (blocks of exactly LF_BLOCK threads) and returns only
 * at its end. A MERGE function must be commutative bit for bit (every lane of a
 * warp then ends with the same value). */
#ifndef LF_GROUP_H
#define LF_GROUP_H

#include "lf_elem.h"

#define LF_BLOCK 256
#define LF_WARP 32
#define LF_BLOCK_ROW 2048 /* rows wider than this get a block: a warp would take 64 elements a lane */

typedef struct {
    int lanes;            /* lanes of this group (simulation: the slots it runs) */
    int lane;             /* this thread's lane (CUDA); 0 on the simulation, but for a flush's followers */
    int64_t index, count; /* this group, and the groups in the grid (grid-stride over rows) */
    int flush;            /* simulation: the block of a flush, its lanes the launch's threads */
} lf_group;

/* The warps' results (one value each, in order) merged into dst: the step
 * across warps of a block group's combine, on CUDA through shared memory. */
#define LF_WARPS_MERGE(dst, warps, n_warps, MERGE)                                                                     \
    do {                                                                                                               \
        (dst) = (warps)[0];                                                                                            \
        for (int lf_w_ = 1; lf_w_ < (n_warps); lf_w_++) MERGE(&(dst), &(warps)[lf_w_]);                                \
    } while (0)

/* The lanes a row of C classes gets, its classes cs elements apart: a thread
 * per row where classes are apart and rows side by side (the spatial layout:
 * neighbouring threads read neighbouring positions), else a warp, or a block
 * for rows wider than a warp's 64 elements a lane. */
LF_HOST_DEVICE int lf_row_lanes(int64_t C, int64_t cs, int64_t rows)
{
    if (cs != 1 && rows >= LF_WARP) return 1;
    return C > LF_BLOCK_ROW ? LF_BLOCK : LF_WARP;
}

#if LF_IS_CUDA
#define LF_LANE_SLOTS 1
#define LF_WARP_LANES LF_WARP /* the lanes of a warp */
#define LF_EACH_LANE(g, lane) for (int lane = (g).lane, lf_once_ = 1; lf_once_; lf_once_ = 0)
#define LF_SLOT(lane) 0

LF_DEVICE lf_group lf_group_here(int lanes)
{
    lf_group g;
    int64_t t = lf_thread_index();
    if (blockDim.x != LF_BLOCK) __trap(); /* launched other than by LF_LAUNCH_GROUPS: the combines would misread */
    g.lanes = lanes;
    g.lane = (int)(t % lanes);
    g.index = t / lanes;
    g.count = lf_thread_count() / lanes;
    return g;
}

/* The whole block as one group: for a kernel's last step, flushing its sums. */
LF_DEVICE lf_group lf_block_group(void)
{
    lf_group g = {LF_BLOCK, (int)threadIdx.x, blockIdx.x, gridDim.x};
    return g;
}

/* A value of n 32-bit words from the lane `off` away (xor). */
LF_DEVICE void lf_shfl_xor_words(void *dst, const void *src, int n, int off)
{
    const uint32_t *s = (const uint32_t *)src;
    uint32_t *d = (uint32_t *)dst;
    for (int i = 0; i < n; i++) d[i] = __shfl_xor_sync(0xffffffffu, s[i], off);
}

#define LF_GROUP_COMBINE(g, T, slots, MERGE)                                                                           \
    do {                                                                                                               \
        int lf_width_ = (g).lanes < LF_WARP ? (g).lanes : LF_WARP;                                                     \
        for (int lf_off_ = lf_width_ / 2; lf_off_ > 0; lf_off_ /= 2) {                                                 \
            T lf_other_;                                                                                               \
            lf_shfl_xor_words(&lf_other_, &(slots)[0], (int)(sizeof(T) / 4), lf_off_);                                 \
            MERGE(&(slots)[0], &lf_other_);                                                                            \
        }                                                                                                              \
        if ((g).lanes > LF_WARP) { /* the group is the block: warp results via shared memory */                        \
            __shared__ T lf_warps_[LF_BLOCK / LF_WARP];                                                                \
            if (threadIdx.x % LF_WARP == 0) lf_warps_[threadIdx.x / LF_WARP] = (slots)[0];                             \
            __syncthreads();                                                                                           \
            LF_WARPS_MERGE((slots)[0], lf_warps_, LF_BLOCK / LF_WARP, MERGE);                                          \
            __syncthreads(); /* lf_warps_ is reused by the next row */                                                 \
        }                                                                                                              \
    } while (0)
#else
/* The simulation's warp: 4 lanes, CUDA's 32 scaled down by 8 as its block of
 * 32 lanes is CUDA's 256, so that a block group has CUDA's 8 warps and the
 * step across them runs with a handful of lanes (a warp of 32 would need 64
 * lanes for a second one). A warp group is one simulated warp; a block group
 * gets 32 lanes or, as the launch picks per problem (lf_sim.c), 8: 2 warps,
 * a smaller block, so both counts meet every option. The lanes run in turn,
 * the same columns a lane at a time as CUDA's threads do at once. */
#define LF_SIM_WARP 4
#define LF_SIM_THREADS 8 /* the most threads a simulated launch runs: 2 warps of groups */
#define LF_LANE_SLOTS 32
#define LF_WARP_LANES LF_SIM_WARP
#define LF_EACH_LANE(g, lane) for (int lane = 0; lane < (g).lanes; lane++)
#define LF_SLOT(lane) (lane)

extern _Thread_local int lf_sim_block_lanes; /* a block group's lanes in this launch (lf_sim.c) */
int lf_sim_flush_lane(int threads);          /* checks a flush's block; this thread's lane in it */

LF_DEVICE lf_group lf_group_here(int lanes)
{
    lf_group g = {lanes > LF_WARP ? lf_sim_block_lanes
                  : lanes > 1     ? LF_SIM_WARP
                                  : 1,
                  0, lf_thread_index(), lf_thread_count(), 0};
    return g;
}

/* The block a kernel's last step flushes its sums through: the launch's
 * threads (LF_LAUNCH_GROUPS runs whole warps of them), each one lane, so the
 * flush combines them as CUDA combines a block's threads, across 2 warps
 * once a launch has more than 4 groups. */
LF_DEVICE lf_group lf_block_group(void)
{
    lf_group g = {(int)lf_thread_count(), 0, lf_thread_index(), lf_thread_count(), 1};
    return g;
}

/* A flush's lanes are threads that run one after another: each leaves its
 * value in the block's slots (lf_block_) and only the last, which finds them
 * all there, combines them and leads; the others are not leaders. A swap
 * merges lane l with lane l ^ off both ways, as a shuffle does. */
#define LF_GROUP_COMBINE(g, T, slots, MERGE)                                                                           \
    do {                                                                                                               \
        static _Thread_local T lf_block_[LF_SIM_THREADS];                                                              \
        T *lf_s_ = (slots), lf_t_;                                                                                     \
        int lf_n_ = (g).lanes;                                                                                         \
        if ((g).flush && lf_n_ > 0) { /* lanes > 0: the compiler then sees slot 0 written */                           \
            lf_block_[lf_sim_flush_lane(lf_n_)] = (slots)[0];                                                          \
            (g).lane = (int)(lf_n_ - 1 - lf_thread_index());                                                           \
            if ((g).lane != 0) break;                                                                                  \
            lf_s_ = lf_block_;                                                                                         \
        }                                                                                                              \
        for (int lf_off_ = (lf_n_ < LF_SIM_WARP ? lf_n_ : LF_SIM_WARP) / 2; lf_off_ > 0; lf_off_ /= 2)                 \
            for (int lf_l_ = 0; lf_l_ < lf_n_; lf_l_++) {                                                              \
                if (lf_l_ & lf_off_) continue;                                                                         \
                lf_t_ = lf_s_[lf_l_];                                                                                  \
                MERGE(&lf_s_[lf_l_], &lf_s_[lf_l_ | lf_off_]);                                                         \
                MERGE(&lf_s_[lf_l_ | lf_off_], &lf_t_);                                                                \
            }                                                                                                          \
        if (lf_n_ > LF_SIM_WARP) { /* the warps' first lanes through the block's "shared memory" */                    \
            T lf_warps_[LF_LANE_SLOTS / LF_SIM_WARP];                                                                  \
            for (int lf_w_ = 0; lf_w_ < lf_n_ / LF_SIM_WARP; lf_w_++) lf_warps_[lf_w_] = lf_s_[lf_w_ * LF_SIM_WARP];   \
            LF_WARPS_MERGE(lf_s_[0], lf_warps_, lf_n_ / LF_SIM_WARP, MERGE);                                           \
        }                                                                                                              \
        (slots)[0] = lf_s_[0];                                                                                         \
    } while (0)
#endif

/* The lane that stores a group's result. */
LF_DEVICE int lf_group_leader(lf_group g) { return g.lane == 0; }

/* MERGE functions for a double: a sum, and a max in which a NaN wins (as
 * PyTorch's reductions propagate it). */
LF_DEVICE void lf_add_merge(double *a, const double *b) { *a += *b; }
LF_DEVICE void lf_max_merge(double *a, const double *b) { *a = (*b > *a || *b != *b) ? *b : *a; }

/* Sums of a few doubles (a kernel's accumulators, a row's partial sums). */
#define LF_SUMS_MAX 6
typedef struct {
    double v[LF_SUMS_MAX];
} lf_sums;
LF_DEVICE void lf_sums_merge(lf_sums *a, const lf_sums *b)
{
    for (int i = 0; i < LF_SUMS_MAX; i++) a->v[i] += b->v[i];
}

/* Online log-sum-exp of a row, as (max, sum of exp(x - max)). PyTorch's
 * semantics survive the merge: a NaN anywhere poisons the sum, and two halves
 * whose max is -inf (all masked) merge to a sum of 0, never exp(-inf - -inf). */
typedef struct {
    double max, sum;
} lf_lse_part;
LF_DEVICE void lf_lse_merge(lf_lse_part *a, const lf_lse_part *b)
{
    double m = a->max > b->max ? a->max : b->max;
    double sa = a->max == m ? a->sum : a->sum * exp(a->max - m);
    double sb = b->max == m ? b->sum : b->sum * exp(b->max - m);
    a->max = m;
    a->sum = sa + sb;
}

/* 16 bytes at byte offset `at` of p, aligned: one vector load on CUDA. */
LF_DEVICE void lf_load16(const void *p, int64_t at, uint32_t w[4])
{
#if LF_IS_CUDA
    uint4 v = *(const uint4 *)((const char *)p + at);
    w[0] = v.x;
    w[1] = v.y;
    w[2] = v.z;
    w[3] = v.w;
#else
    memcpy(w, (const char *)p + at, 16);
#endif
}

/* 16 bytes to byte offset `at` of p, aligned: one vector store on CUDA. */
LF_DEVICE void lf_store16(void *p, int64_t at, const uint32_t w[4])
{
#if LF_IS_CUDA
    *(uint4 *)((char *)p + at) = make_uint4(w[0], w[1], w[2], w[3]);
#else
    memcpy((char *)p + at, w, 16);
#endif
}

#endif
