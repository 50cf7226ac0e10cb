/* lf_worker.c - the C worker (`lossfuzz worker`): owns the device, answers
 * requests on the protocol's fds (lf_wire.h) with the reference and guard
 * paths run in this process, and ends when its device can do no more. */
#include "lf_worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lf_guard.h"
#include "lf_run.h"

static bool write_line(const char *text)
{
    size_t len = strlen(text);
    while (len) {
        ssize_t n = write(LF_FD_ANSWERS, text, len);
        if (n <= 0) return false;
        text += n;
        len -= (size_t)n;
    }
    return write(LF_FD_ANSWERS, "\n", 1) == 1;
}

static void run_path(lf_wire_path path, const lf_case *c, const lf_backend *be, lf_result *r)
{
    if (path == LF_WIRE_REFERENCE) lf_reference_run(c, be, r);
    else if (path == LF_WIRE_GUARD) lf_guard_run(c, be, r);
    else lf_result_error(r, "unsupported_path", "RuntimeError", "this worker runs the reference and guard paths");
}

int lf_worker_main(const lf_backend *be, const char *device)
{
    char hello[256];
    snprintf(hello, sizeof hello,
             "{\"hello\": \"lossfuzz-worker\", \"protocol\": %d, \"paths\": [\"reference\", \"guard\"], \"device\": \"%s\"}",
             LF_WIRE_PROTOCOL, device);
    if (!write_line(hello)) return 2;
    FILE *requests = fdopen(LF_FD_REQUESTS, "r");
    if (!requests) {
        fprintf(stderr, "lossfuzz worker: no request pipe on fd %d (the executor starts workers)\n", LF_FD_REQUESTS);
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    lf_wire_shm shm = {LF_FD_SHM, NULL, 0};
    int rc = 0;
    while (getline(&line, &cap, requests) > 0) {
        lf_wire_request_info info;
        lf_case c;
        char err[256];
        if (!lf_wire_parse_request(line, &info, &c, &shm, err, sizeof err)) {
            fprintf(stderr, "lossfuzz worker: a bad request (%s)\n", err);
            rc = 2;
            break;
        }
        lf_result r[LF_WIRE_MAX_PATHS];
        const char *broken = NULL;
        for (int i = 0; i < info.n_paths; i++) {
            lf_result_init(&r[i]);
            if (!broken) run_path(info.paths[i], &c, be, &r[i]);
            if (!broken && be->broken) broken = be->broken();
        }
        char *answer;
        if (broken) { /* a sticky error: this process can use the device no more */
            char dead[300];
            snprintf(dead, sizeof dead, "{\"id\": %llu, \"dead\": \"CUDA error: %s\"}", (unsigned long long)info.id, broken);
            answer = strdup(dead);
        } else {
            answer = lf_wire_answer(info.id, r, info.n_paths, &info.layout, shm.base);
        }
        bool sent = answer && write_line(answer);
        free(answer);
        for (int i = 0; i < info.n_paths; i++) lf_result_free(&r[i]);
        lf_case_free(&c);
        if (broken) { rc = 3; break; }
        if (!sent) { rc = 2; break; }
    }
    free(line);
    fclose(requests);
    return rc;
}
