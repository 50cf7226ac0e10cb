/* lf_zygote.h - a PyTorch worker forked by the zygote (python/lossfuzz_zygote.py) that $LOSSFUZZ_ZYGOTE
 * names, instead of started: `import torch` paid once for a whole run of checks. Internal to
 * harness/runtime/workers (lf_exec_proc.c). */
#ifndef LF_ZYGOTE_H
#define LF_ZYGOTE_H

#include <stdbool.h>
#include <sys/types.h>

/* Asks the zygote for argv (a Python worker) with env and the worker's fds (stderr, requests, answers,
 * shared memory). Returns the connection its end is said on, and *pid; -1 where there is no zygote, or it
 * declines (the caller starts the worker itself on the same fds); -2 where the zygote took the request and
 * did not answer (it may hold the fds: the start fails). */
int lf_zygote_fork(const char *const *argv, char *const *env, const int fds[4], pid_t *pid);

/* Waits for the forked worker's end on conn, until deadline_ms (lf_now_ms's clock): 1 and *status
 * (waitpid's) once said; -1 where the zygote is gone first, its workers with it (they die with their parent:
 * *status then says a SIGKILL); 0 where the deadline passed. */
int lf_zygote_reap(int conn, double deadline_ms, int *status);

/* Has the zygote kill the worker (lossfuzz's kill: a hang, the end of a run) and waits for its status. */
bool lf_zygote_kill(int conn, int *status);

#endif
