/* lf_run.h - running a case through the kernel paths on a backend. */
#ifndef LF_RUN_H
#define LF_RUN_H

#include "lf_backend.h"

/* The reference kernels (PyTorch's behaviour, device asserts included). */
void lf_reference_run(const lf_case *c, const lf_backend *be, lf_result *r);

#endif
