/* lf_worker.h - the C worker's loop (`lossfuzz worker`, lf_wire.h). */
#ifndef LF_WORKER_H
#define LF_WORKER_H

#include "lf_backend.h"
#include "lf_kernel_lib.h"
#include "lf_wire.h"

/* Says hello naming `device`, then answers requests until end of file (0),
 * a broken device (3: it answered "dead") or a broken pipe or request (2).
 * With a kernel under test it serves only the path "kernel" (its hello
 * carries the kernel's claims); else the reference and guard paths. */
int lf_worker_main(const lf_backend *be, const char *device, const lf_kernel_lib *kernel);

#endif
