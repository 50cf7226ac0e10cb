/* lf_exec_proc.h - one worker process, as the executor holds it: spawned
 * with its pipes and shared memory on the protocol's fds (lf_wire.h), lines
 * read with a deadline, its stderr kept (the last few KB, and the first CUDA
 * assertion line), and its end reaped. Internal to harness/exec. */
#ifndef LF_EXEC_PROC_H
#define LF_EXEC_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LF_PROC_TAIL 4096
#define LF_PROC_SPIN_MS 0.3 /* how long both sides spin before sleeping on a pipe */

typedef struct {
    pid_t pid;
    int req_fd, ans_fd, err_fd, shm_fd;
    int zygote_fd; /* forked by the zygote (lf_zygote.h): its connection, which says the end; else -1 */
    void *shm;
    size_t shm_size;
    bool ready; /* its hello was read */
    char hello[512];
    char *line; /* the answer being read */
    size_t line_len, line_cap, line_taken;
    char tail[LF_PROC_TAIL]; /* the end of its stderr since the last request */
    size_t tail_len;
    char assert_line[512]; /* the first CUDA assertion line seen, or "" */
    int status;            /* waitpid status once reaped, -1 before */
    bool zygote_gone;      /* its zygote ended before it, and it with it: not the kernel's doing */
} lf_proc;

/* Spawns argv, with CUDA_VISIBLE_DEVICES=device unless device is NULL. */
bool lf_proc_spawn(lf_proc *p, const char *const *argv, const char *device, char *err, size_t errlen);

/* Reads one answer line into p->line (NUL-terminated, no newline) by
 * deadline_ms (lf_now_ms's clock), keeping stderr meanwhile. Returns 1 a
 * line, 0 end of file (the worker is gone), -1 the deadline passed. */
int lf_proc_read_line(lf_proc *p, double deadline_ms);

/* Makes the shared memory at least `size` bytes. */
bool lf_proc_shm_reserve(lf_proc *p, size_t size);

/* Forgets the stderr kept so far (a new request starts). */
void lf_proc_clear_tail(lf_proc *p);

/* After end of file: reads the rest of stderr and reaps the process (killing
 * it after grace_ms). Then a kill (SIGKILL) and reap, for a hang or shutdown. */
void lf_proc_finish(lf_proc *p, double grace_ms);
void lf_proc_kill(lf_proc *p);
/* Closes everything; the process must be reaped or killed first. */
void lf_proc_close(lf_proc *p);

#endif
