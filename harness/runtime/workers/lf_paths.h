/* lf_paths.h - where the paths of a case run, from the options the
 * CLI and the fuzz targets share: in this process, or through the executor
 * (reference and guard in C workers; PyTorch itself in a Python worker). */
#ifndef LF_EXEC_BACKEND_H
#define LF_EXEC_BACKEND_H

#include "lf_backend.h"
#include "lf_exec.h"

typedef struct {
    const char *backend; /* sim | cuda: where the kernels run */
    bool hard_asserts;   /* real device asserts (implies the executor) */
    bool executor;       /* reference and guard in workers even with soft asserts */
    bool torch;          /* also real PyTorch (CPU, or CUDA with backend cuda) */
    bool no_spare;       /* replace a dead worker only when needed (benchmarks) */
    double timeout_s;    /* the watchdog, per case (0: 60 s) */
    const char *worker;  /* the lossfuzz binary serving as C worker (NULL: $LOSSFUZZ_WORKER, else this
                              * program if it is lossfuzz, else the lossfuzz of its build) */
    const char *kernel;  /* the kernel under test, or NULL: LIB.so (a C worker loads it) or
                              * py:MODULE:FUNCTION (a Python worker imports it); harness/runtime/under_test */
    int world_size;      /* a vocabulary-parallel py: kernel's ranks (0: one process; python/lossfuzz_ranks.py) */
} lf_paths_config;

/* The config from the environment, as the fuzz targets take it:
 * $LOSSFUZZ_BACKEND (sim|cuda), $LOSSFUZZ_ASSERTS (soft|hard),
 * $LOSSFUZZ_EXECUTOR=1, $LOSSFUZZ_TORCH=1, $LOSSFUZZ_TIMEOUT (seconds),
 * $LOSSFUZZ_WORKER, $LOSSFUZZ_KERNEL (LIB.so or py:MODULE:FUNCTION),
 * $LOSSFUZZ_WORLD_SIZE (its ranks). A cuda
 * backend always goes through the executor here: a fuzzing process never
 * initializes CUDA. false with err for a bad value. */
bool lf_paths_config_from_env(lf_paths_config *cfg, char *err, size_t errlen);

/* The backend for cfg, starting its workers; NULL with err when it cannot
 * be had. lf_paths_close stops the workers (a no-op for an in-process one). */
const lf_backend *lf_paths_open(const lf_paths_config *cfg, char *err, size_t errlen);
void lf_paths_close(const lf_backend *be);
/* The claims of the kernel under test (its worker's hello), and the name it gives itself; NULL when be has
 * none. */
const lf_kernel_claims *lf_paths_kernel_claims(const lf_backend *be);
const char *lf_paths_kernel_name(const lf_backend *be);

#endif
