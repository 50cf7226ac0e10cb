/* lf_worker.c - the C worker (`lossfuzz worker`): owns the device, answers
 * requests on the protocol's fds (lf_wire.h) with the reference and guard
 * paths run in this process, and ends when its device can do no more. */
#include "lf_worker.h"
#include "lf_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lf_exec_proc.h" /* LF_PROC_SPIN_MS */

#include <jansson.h>

#include "lf_fence.h"
#include "lf_guard.h"
#include "lf_run.h"

/* The "dead" answer: this process can use its device no more (a sticky CUDA error). */
static void send_dead(uint64_t id, const char *why)
{
    char text[300];
    snprintf(text, sizeof text, "{\"id\": %llu, \"dead\": \"CUDA error: %s\"}\n", (unsigned long long)id, why);
    lf_wire_send(LF_FD_ANSWERS, text);
}

/* Requests, a line at a time, read without stdio so a short spin can catch
 * the next one before sleeping (as the executor does, lf_exec_proc.c). */
typedef struct {
    char *buf;
    size_t len, cap, taken;
} lf_line_reader;

static char *next_request(lf_line_reader *r)
{
    if (r->taken) { /* the previous request: dropped (never memmove a NULL buffer: UBSan) */
        memmove(r->buf, r->buf + r->taken, r->len - r->taken);
        r->len -= r->taken;
        r->taken = 0;
    }
    double spin_until = lf_now_ms() + LF_PROC_SPIN_MS;
    for (;;) {
        char *nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
        if (nl) {
            *nl = 0;
            r->taken = (size_t)(nl - r->buf) + 1;
            return r->buf;
        }
        if (r->cap - r->len < 4096) {
            char *grown = realloc(r->buf, r->cap ? r->cap * 2 : 65536);
            if (!grown) return NULL;
            r->buf = grown;
            r->cap = r->cap ? r->cap * 2 : 65536;
        }
        ssize_t n = read(LF_FD_REQUESTS, r->buf + r->len, r->cap - r->len - 1);
        if (n > 0) {
            r->len += (size_t)n;
            continue;
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) return NULL;
        if (lf_now_ms() < spin_until) continue;
        struct pollfd f = {LF_FD_REQUESTS, POLLIN, 0};
        poll(&f, 1, -1);
    }
}

/* $LOSSFUZZ_WORKER_FAULTS=1 (the executor's tests): a case whose ignore_index
 * is one of these makes the worker fail that way, so every way a worker can
 * end is tested without a GPU. */
enum { FAULT_SEGV = -7001, FAULT_HANG = -7002, FAULT_EXIT = -7003, FAULT_GARBLE = -7004, FAULT_DEAD = -7005 };

static bool inject_fault(const lf_case *c, uint64_t id)
{
    static int enabled = -1;
    if (enabled < 0) enabled = getenv("LOSSFUZZ_WORKER_FAULTS") && !strcmp(getenv("LOSSFUZZ_WORKER_FAULTS"), "1");
    if (!enabled) return false;
    switch (c->ignore_index) {
    case FAULT_SEGV: raise(SIGSEGV); return true;
    case FAULT_HANG:
        for (;;) pause();
    case FAULT_EXIT: exit(1);
    case FAULT_GARBLE: return lf_wire_send(LF_FD_ANSWERS, "{\"not\": \"an answer\"\n");
    case FAULT_DEAD: send_dead(id, "an illegal memory access was encountered"); exit(3);
    default: return false;
    }
}

static void run_path(lf_wire_path path, const lf_case *c, const lf_backend *be, const lf_kernel_lib *kernel,
                     lf_result *r)
{
    if (kernel && path == LF_WIRE_KERNEL)
        lf_kernel_lib_run(kernel, c, kernel->table->device == kDLCUDA ? be : lf_fence_backend(), r);
    else if (!kernel && path == LF_WIRE_REFERENCE)
        lf_reference_run(c, be, r);
    else if (!kernel && path == LF_WIRE_GUARD)
        lf_guard_run(c, be, r);
    else
        lf_result_error(r, "unsupported_path", "RuntimeError", "this worker runs the %s",
                        kernel ? "kernel path" : "reference and guard paths");
}

/* The hello line (malloc'd): the paths served, the device, a kernel's claims. */
static char *hello_line(const char *device, const lf_kernel_lib *kernel)
{
    json_t *h = json_pack("{s:s, s:i, s:[s], s:s}", "hello", "lossfuzz-worker", "protocol", LF_WIRE_PROTOCOL, "paths",
                          kernel ? "kernel" : "reference", "device", device);
    if (kernel)
        json_object_set_new(h, "kernel", lf_kernel_claims_json(&kernel->claims));
    else
        json_array_append_new(json_object_get(h, "paths"), json_string("guard"));
    char *text = json_dumps(h, JSON_COMPACT), *line = text ? malloc(strlen(text) + 2) : NULL;
    if (line) sprintf(line, "%s\n", text);
    free(text);
    json_decref(h);
    return line;
}

int lf_worker_main(const lf_backend *be, const char *device, const lf_kernel_lib *kernel)
{
    /* Run by hand, without the executor's fds: say so (the hello would go nowhere). */
    if (fcntl(LF_FD_ANSWERS, F_GETFD) < 0 || fcntl(LF_FD_SHM, F_GETFD) < 0 ||
        fcntl(LF_FD_REQUESTS, F_SETFL, O_NONBLOCK)) {
        fprintf(stderr, "lossfuzz worker: no protocol fds %d, %d and %d (the executor starts workers)\n",
                LF_FD_REQUESTS, LF_FD_ANSWERS, LF_FD_SHM);
        return 2;
    }
    if (kernel && kernel->table->device == kDLCPU) lf_fence_install();
    char *hello = hello_line(device, kernel);
    bool greeted = hello && lf_wire_send(LF_FD_ANSWERS, hello);
    free(hello);
    if (!greeted) return 2;
    lf_line_reader in = {0};
    char *line;
    lf_wire_shm shm = {LF_FD_SHM, NULL, 0};
    int rc = 0;
    while ((line = next_request(&in))) {
        lf_wire_request_info info;
        lf_case c;
        char err[256];
        if (!lf_wire_parse_request(line, &info, &c, &shm, err, sizeof err)) {
            fprintf(stderr, "lossfuzz worker: a bad request (%s)\n", err);
            rc = 2;
            break;
        }
        if (inject_fault(&c, info.id)) {
            lf_case_free(&c);
            continue;
        }
        lf_result r[LF_WIRE_MAX_PATHS];
        const char *broken = NULL;
        for (int i = 0; i < info.n_paths; i++) {
            lf_result_init(&r[i]);
            if (!broken) run_path(info.paths[i], &c, be, kernel, &r[i]);
            if (!broken && be->broken) broken = be->broken();
        }
        bool sent = true;
        if (broken) {
            send_dead(info.id, broken);
        } else {
            char *answer = lf_wire_answer(info.id, r, info.n_paths, &info.layout, shm.base);
            sent = answer && lf_wire_send(LF_FD_ANSWERS, answer);
            free(answer);
        }
        for (int i = 0; i < info.n_paths; i++) lf_result_free(&r[i]);
        lf_case_free(&c);
        if (broken) {
            rc = 3;
            break;
        }
        if (!sent) {
            rc = 2;
            break;
        }
    }
    free(in.buf);
    return rc;
}
