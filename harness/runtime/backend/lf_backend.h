/* lf_backend.h - where kernels run: the CPU simulation ("sim") or, in builds
 * that have it, the GPU ("cuda"). The harness moves a case's tensors into
 * backend memory of exactly their size, so a kernel that strays outside a
 * buffer is caught: by ASan on the simulation, by red zones on the GPU
 * (lf_canary.h). */
#ifndef LF_BACKEND_H
#define LF_BACKEND_H

#include <stddef.h>

#include "lf_canary.h"
#include "lf_case.h"
#include "lf_kernels.h"
#include "lf_result.h"

typedef struct lf_backend {
    const char *name;
    void *(*alloc)(size_t bytes); /* zeroed */
    void (*release)(void *p);
    int (*to_device)(void *dst, const void *src, size_t bytes);
    int (*to_host)(void *dst, const void *src, size_t bytes);
    int (*reference_forward)(const lf_problem *p, const lf_buffers *b);
    int (*guarded_validate)(const lf_problem *p, const void *target, int64_t n, lf_target_stats *s);
    int (*guarded_forward)(const lf_problem *p, const lf_buffers *b);
    int (*reference_backward)(const lf_problem *p, const lf_buffers *b);
    /* Why the device can do no more work (a sticky CUDA error: a device
     * assert, an illegal address), or NULL while it can. NULL: never breaks. */
    const char *(*broken)(void);
    /* Out of process (harness/runtime/workers): the reference and guard paths run in
     * executor workers, PyTorch itself in a Python worker. NULL: in process. */
    struct lf_exec *exec, *torch;
    /* Out of process: the kernel under test (harness/runtime/under_test), or NULL. */
    struct lf_exec *kernel;
    /* Allocations end at an inaccessible page (lf_fence.h): the back canary
     * only pads a buffer to LF_CANARY_BYTES' alignment. */
    bool fenced;
    /* Device to device (the benchmark's copy bandwidth); NULL: none. */
    int (*copy)(void *dst, const void *src, size_t bytes);
} lf_backend;

/* The backend of that name ("sim" or "cuda"), or NULL with the reason in *why.
 * Hard asserts end the process at the first failed kernel assert (CUDA: the
 * context dies; sim: CUDA's line and abort): only for executor workers. */
const lf_backend *lf_backend_find(const char *name, const char **why);
const lf_backend *lf_backend_find_asserts(const char *name, bool hard_asserts, const char **why);

/* Whether this build has the CUDA kernels (nvcc was found when it was configured). */
bool lf_backend_cuda_built(void);
const lf_backend *lf_sim_backend(void);
const lf_backend *lf_cuda_backend(bool hard_asserts); /* NULL without a usable GPU; only in CUDA builds */

/* One call's buffers in backend memory. */
typedef struct {
    lf_buffers b;
    lf_canary_list mem; /* the same buffers, for the guard check and release */
} lf_device_call;

/* Whether a call of this case gets backward too: the oracle handed it an
 * upstream gradient (lf_backward.values) and its input requires grad. */
bool lf_device_call_wants_grad(const lf_case *c);

/* Copies the case in and allocates outputs (with the upstream gradient and
 * d input where lf_device_call_wants_grad) (a log-probability scratch when
 * with_scratch). Returns false with a message on failure. */
bool lf_device_call_open(const lf_backend *be, const lf_case *c, const lf_problem *p, bool with_scratch,
                         lf_device_call *call, char *err, size_t errlen);
/* Reads the assert record and the output back into r (values, and d input
 * where asked, or a device assert), or error oob_write when a kernel wrote
 * outside its buffers. */
bool lf_device_call_collect(const lf_backend *be, const lf_case *c, const lf_problem *p, lf_device_call *call,
                            lf_result *r);
void lf_device_call_close(const lf_backend *be, lf_device_call *call);

/* A device copy of one tensor in l (for the guard's validation pass); NULL
 * for an absent tensor or on failure. */
void *lf_device_copy(lf_canary_list *l, const char *name, const lf_tensor *t);

#endif
