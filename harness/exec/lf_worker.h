/* lf_worker.h - the C worker's loop (`lossfuzz worker`, lf_wire.h). */
#ifndef LF_WORKER_H
#define LF_WORKER_H

#include "lf_backend.h"
#include "lf_wire.h"

/* Says hello naming `device`, then answers requests until end of file (0),
 * a broken device (3: it answered "dead") or a broken pipe or request (2). */
int lf_worker_main(const lf_backend *be, const char *device);

#endif
