/* lf_cmd_worker.c - `lossfuzz worker`: the C worker the executor starts
 * (harness/runtime/workers/lf_worker.h); not for people to run by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lf_cli.h"
#include "lf_worker.h"

static const char usage[] = "usage: lossfuzz worker [--backend sim|cuda] [--asserts soft|hard] [--kernel LIB.so]\n"
                            "\n"
                            "A worker process for the executor (harness/runtime/workers): it owns the device and\n"
                            "answers requests on fds 3, 4 and 5 (harness/runtime/workers/lf_wire.h). lossfuzz\n"
                            "starts workers itself (check --asserts hard, --executor, fuzzing with\n"
                            "LOSSFUZZ_ASSERTS=hard); there is no need to run one by hand.\n"
                            "With --kernel it serves only the kernel under test in LIB.so\n"
                            "(include/lossfuzz/kernel.h): check --kernel, LOSSFUZZ_KERNEL.\n";

int lf_cmd_worker(int argc, char **argv)
{
    static const struct option opts[] = {{"backend", required_argument, NULL, 'b'},
                                         {"asserts", required_argument, NULL, 'a'},
                                         {"kernel", required_argument, NULL, 'k'},
                                         LF_CLI_COMMON_OPTIONS,
                                         {0}};
    const char *backend_name = "sim", *kernel_path = NULL;
    bool hard = false;
    for (int o; (o = lf_cli_next_option(argc, argv, opts, usage)) != -1;) {
        if (o == 'h' || o == 'V') return LF_EXIT_PASS;
        if (o == '?') return LF_EXIT_UNUSABLE;
        if (o == 'b')
            backend_name = optarg;
        else if (o == 'k')
            kernel_path = optarg;
        else if (o == 'a' && !lf_cli_parse_asserts("worker", optarg, &hard))
            return LF_EXIT_UNUSABLE;
    }
    const char *why;
    const lf_backend *be = lf_backend_find_asserts(backend_name, hard, &why);
    if (!be) {
        fprintf(stderr, "lossfuzz worker: backend \"%s\": %s\n", backend_name, why);
        return LF_EXIT_UNUSABLE;
    }
    lf_kernel_lib kernel;
    char err[1024];
    if (kernel_path && !lf_kernel_lib_open(kernel_path, &kernel, err, sizeof err)) {
        fprintf(stderr, "lossfuzz worker: %s\n", err);
        return LF_EXIT_UNUSABLE;
    }
    bool on_cpu = kernel_path && kernel.table->device == kDLCPU;
    if (kernel_path && !on_cpu && strcmp(be->name, "cuda")) {
        fprintf(stderr, "lossfuzz worker: kernel %s runs on CUDA: it needs --backend cuda\n", kernel.claims.name);
        return LF_EXIT_UNUSABLE;
    }
    if (!on_cpu) be->release(be->alloc(1)); /* the device context is made now, before the hello */
    char device[64];
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (on_cpu)
        snprintf(device, sizeof device, "cpu");
    else if (strcmp(be->name, "cuda"))
        snprintf(device, sizeof device, "sim");
    else
        snprintf(device, sizeof device, "cuda:%s", visible && *visible ? visible : "0");
    int rc = lf_worker_main(be, device, kernel_path ? &kernel : NULL);
    if (kernel_path) lf_kernel_lib_close(&kernel);
    return rc;
}
