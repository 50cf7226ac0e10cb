/* lf_exec.h - the executor: worker processes own the device, the calling
 * process (the fuzzing engine's, or lossfuzz's) never touches CUDA.
 *
 * Each case goes to a worker over the protocol of lf_wire.h. Per request a
 * watchdog (a hang), and the end of the worker (a device assert, a sticky CUDA
 * error, a signal, an exit) are detected; the case's outcome is recorded
 * exactly (for a device assert: the kernel, block, thread and condition from
 * the assertion line the worker left on stderr), the worker is replaced by a
 * warm spare started ahead, and the caller goes on. One worker per visible
 * GPU when there are several (CUDA_VISIBLE_DEVICES set per worker), used in
 * turn. */
#ifndef LF_EXEC_H
#define LF_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "lf_kernel_claims.h"
#include "lf_wire.h"

typedef struct lf_exec lf_exec;

typedef struct {
    const char *name;        /* for messages, e.g. "sim worker", "torch worker" */
    const char *const *argv; /* the worker command, NULL-terminated */
    double timeout_s;        /* a request that takes longer is a hang (0: 60 s) */
    double start_timeout_s;  /* a worker not ready by then failed to start (0: 120 s) */
    int n_devices;           /* workers side by side, one per GPU (0 or 1: one, no pinning) */
    bool no_spare;           /* start a replacement only when needed (the cold figure) */
} lf_exec_options;

typedef struct {
    int64_t requests, worker_starts, deaths, asserts, crashes, hangs, sticky;
    int64_t recoveries;
    double recovery_ms_total, recovery_ms_max; /* a death seen -> the next worker ready */
} lf_exec_stats;

/* Starts the workers and waits for the first to be ready; NULL with err on failure. */
lf_exec *lf_exec_start(const lf_exec_options *o, char *err, size_t errlen);

/* Runs the paths of a case in a worker; r[i] is path i's result. A worker that
 * dies, hangs or breaks gives its path the outcome (host error classes
 * worker_crash, worker_hang, cuda_error, or a device_assert from the assertion
 * line) and is replaced. false (r[] set to error worker_start) only when no
 * worker can be started at all. */
bool lf_exec_run(lf_exec *x, const lf_wire_path *paths, int n_paths, const lf_case *c, lf_result *r);

/* The first worker's hello: its device ("sim", "cuda:0", "cpu") and torch version (or ""). */
const char *lf_exec_device(const lf_exec *x);
const char *lf_exec_torch_version(const lf_exec *x);
const lf_exec_stats *lf_exec_stats_of(const lf_exec *x);
/* The claims of the kernel under test its workers serve (their hello's
 * "kernel"), or NULL for workers of the other paths. */
const lf_kernel_claims *lf_exec_kernel_claims(const lf_exec *x);
void lf_exec_stop(lf_exec *x);
/* Every worker ended and replaced by a fresh one (the warm spare): a case run
 * next meets no state an earlier case left (a compile cache, a recompile
 * limit). false with err when none can be started. */
bool lf_exec_renew(lf_exec *x, char *err, size_t errlen);

/* GPUs visible to CUDA, counted without initializing it ($CUDA_VISIBLE_DEVICES,
 * else /proc/driver/nvidia/gpus); 0 when none is known. */
int lf_exec_visible_gpus(void);

/* The assertion line CUDA prints, parsed: "FILE:LINE: KERNEL: block: [x,y,z],
 * thread: [x,y,z] Assertion `COND` failed." Sets r to that device assert. */
bool lf_exec_parse_assert_line(const char *line, lf_result *r);

#endif
