/* lf_fence.h - host memory for a kernel under test on the CPU: every buffer
 * ends where an inaccessible page begins and starts after one, so a read or
 * write past either end faults at once, whatever the kernel was compiled
 * with. The fault is named: the handler finds the buffer the address is
 * next to and prints, before the worker dies of it,
 *   lossfuzz: out-of-bounds read: 4 bytes past the end of target (it holds 32 bytes)
 * which the executor turns into the path's oob_read / oob_write result. A
 * fault far from every buffer while the kernel runs (a wild label) is named
 * as such. */
#ifndef LF_FENCE_H
#define LF_FENCE_H

#include "lf_backend.h"

/* How the line the handler prints begins; "read: " or "write: " follows. */
#define LF_FENCE_LINE "lossfuzz: out-of-bounds "

/* The fenced host backend: memory only (alloc, release, copies), fenced = true. */
const lf_backend *lf_fence_backend(void);

/* The buffers a fault is attributed to, while a kernel runs (NULL after). */
void lf_fence_watch(const lf_canary_list *l);

/* Installs the fault handler (SIGSEGV, SIGBUS); once per process. */
void lf_fence_install(void);

#endif
