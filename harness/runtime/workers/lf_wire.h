/* lf_wire.h - the one worker protocol: how the executor (lf_exec.h) hands a
 * case to a worker process and gets each path's result back. The C worker
 * (`lossfuzz worker`: reference and guard kernels, sim or CUDA) and the Python
 * worker (python/lossfuzz_worker.py: real PyTorch) speak it alike.
 *
 * File descriptors, set up by the executor before exec:
 *   3  requests, one JSON object per line (read)
 *   4  answers, one JSON object per line (write)
 *   5  shared memory (a memfd): the case's tensors, and room for the values
 *   1, 2  both go to a pipe the executor reads: CUDA's assertion lines and
 *      sanitizer reports land there, and stray prints never touch fd 4.
 *
 * A worker first writes a hello, once it is ready (CUDA context made, torch
 * imported):
 *   {"hello": "lossfuzz-worker", "protocol": 1, "paths": ["reference", "guard"],
 *    "device": "sim" | "cuda:0" | "cpu", "torch": "2.11.0" (Python only),
 *    "kernel": {...}}   (a worker serving the kernel under test: its claims,
 *                        harness/runtime/under_test/lf_kernel_claims.h)
 * Then, per request:
 *   {"id": 7, "paths": ["reference", "guard"], "shm_size": 8192,
 *    "out_at": 4096, "out_cap": 64,
 *    "case": {"loss": "cross_entropy", "reduction": "mean", "ignore_index": 3,
 *             "label_smoothing": 0.1,          (the scalar options given: lf_options.def)
 *             "input":  {"dtype": "float32", "shape": [4, 3], "at": 0},
 *             "target": {"dtype": "int64", "shape": [4], "at": 64},
 *             "weight": {...}, "pos_weight": {...},        (absent when absent)
 *             "linear_weight": {...}, "linear_bias": {...}, (fused linear + CE)
 *             "backward": {"upstream": {"dtype": "float64", "shape": [4], "at": 96},
 *                          "input_requires_grad": true, "linear_weight_requires_grad": true,
 *                          "linear_bias_requires_grad": true, "through_softmax": false}}
 *                                      (the kernel path, when it claims backward: lf_backward)
 * Tensors' values are contiguous, row-major, at byte offset `at` of the shared
 * memory (8-byte aligned); a tensor the kernels get strided also has
 * "strides" and "offset" (PyTorch's, in elements: lf_layout.h). The worker maps fd 5 with shm_size bytes (again when it
 * changes), runs each path, writes path i's values as float64 at
 * out_at + 8 * out_cap * i, and answers:
 *   {"id": 7, "results": [R, ...]}   one R per path, in order, where R is
 *   {"outcome": "ok", "n": 4, "scalar": false, "dtype": "float32"}
 *   (the kernel path also: "changed": "input (in forward)" for a tensor it
 *    changed in place; with backward "grads": {"input": {"state": "ok",
 *    "n": 12, "dtype": "float32"}, "linear_weight": {"state": "missing" |
 *    "error", "message": "..."}}, the values of each "ok" one after the
 *    result's, in the order input, linear_weight, linear_bias; with
 *    through_softmax, "through_softmax": "..." when the input's gradient
 *    through softmax went wrong; a Python kernel's worker adds "reference":
 *    {"n": 4}, PyTorch's result on the same call, its values after the
 *    gradients')
 *   {"outcome": "host_error", "error": "target_dtype", "exception": "RuntimeError",
 *    "message": "...", "hint": "...", "hint_id": "...", "warning": "...", "warning_id": "...",
 *    "index": 3, "value": 5}   (the guard's first offending target, when it names one)
 *   {"outcome": "device_assert", "kernel": "nll_loss_forward_reduce_cuda_kernel_2d",
 *    "cond": "t >= 0 && t < n_classes", "index": 3, "value": 5, "message": "..."}
 * (only the keys that apply; "error": "result_too_large" when n > out_cap).
 * A worker whose device is broken (a sticky CUDA error) answers
 *   {"id": 7, "dead": "CUDA error: device-side assert triggered"}
 * and exits. A hard device assert on the simulation prints CUDA's assertion
 * line on stderr and aborts, exactly as the process would end on a GPU:
 *   FILE:LINE: KERNEL: block: [0,0,0], thread: [3,0,0] Assertion `COND` failed.
 * End of file on fd 3: the worker exits 0. */
#ifndef LF_WIRE_H
#define LF_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "lf_kernels.h" /* kernel and condition names, both ways */
#include "lf_result.h"

#define LF_WIRE_PROTOCOL 1
enum { LF_FD_REQUESTS = 3, LF_FD_ANSWERS = 4, LF_FD_SHM = 5 };

/* The paths a worker can run. */
/* kernel: the kernel under test (harness/runtime/under_test), in a worker started with --kernel. */
typedef enum { LF_WIRE_REFERENCE, LF_WIRE_GUARD, LF_WIRE_TORCH, LF_WIRE_KERNEL, LF_WIRE_PATH_COUNT } lf_wire_path;
const char *lf_wire_path_name(lf_wire_path p);
#define LF_WIRE_MAX_PATHS 2

/* Bytes of shared memory a case needs: its tensors, then out_cap float64
 * values for each of the n_paths results (a kernel's gradients included,
 * and on a bfloat16/float16 call PyTorch's result that its worker adds). */
typedef struct {
    size_t shm_size, out_at;
    int64_t out_cap;
} lf_wire_layout;
void lf_wire_layout_of(const lf_case *c, const lf_wire_path *paths, int n_paths, lf_wire_layout *l);

/* The request line (malloc'd, ends in "\n"); copies the tensors into shm,
 * which has l->shm_size bytes. */
char *lf_wire_request(uint64_t id, const lf_wire_path *paths, int n_paths, const lf_case *c, const lf_wire_layout *l,
                      void *shm);
/* A request read back by a worker: the case borrows its tensors from the
 * shared memory, which is mapped (again) when the request's shm_size differs. */
typedef struct {
    uint64_t id;
    lf_wire_path paths[LF_WIRE_MAX_PATHS];
    int n_paths;
    lf_wire_layout layout;
} lf_wire_request_info;
typedef struct {
    int fd;
    void *base;
    size_t size;
} lf_wire_shm;
bool lf_wire_parse_request(const char *line, lf_wire_request_info *info, lf_case *c, lf_wire_shm *shm, char *err,
                           size_t errlen);

/* The answer line for results r[0..n) (malloc'd, ends in "\n"): values go to shm. */
char *lf_wire_answer(uint64_t id, const lf_result *r, int n, const lf_wire_layout *l, void *shm);
/* Writes a whole line to fd; false when its reader is gone. */
bool lf_wire_send(int fd, const char *line);

/* Reads an answer into r[0..n); false when it is not one (err says why). A
 * "dead" answer returns true with *dead set to its text (static buffer of the caller). */
bool lf_wire_parse_answer(const char *line, uint64_t id, lf_result *r, int n, const lf_wire_layout *l, const void *shm,
                          char *dead, size_t deadlen, char *err, size_t errlen);

#endif
