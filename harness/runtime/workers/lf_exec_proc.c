/* lf_exec_proc.c - one worker process: spawn, lines, stderr, end (lf_exec_proc.h). */
#define _GNU_SOURCE
#include "lf_exec_proc.h"
#include "lf_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lf_wire.h"
#include "lf_zygote.h"

extern char **environ;

/* The environment, with CUDA_VISIBLE_DEVICES pinned unless device is NULL. */
static char **worker_env(const char *device, char *pin, size_t pinlen)
{
    size_t n = 0;
    while (environ[n]) n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!device || strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21)) env[k++] = environ[i];
    if (device) {
        snprintf(pin, pinlen, "CUDA_VISIBLE_DEVICES=%s", device);
        env[k++] = pin;
    }
    return env;
}

/* fds the child gets are moved above the protocol's numbers first, so each
 * dup2 in the child has a distinct source and target. */
static int high_fd(int fd)
{
    int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return h;
}

bool lf_proc_spawn(lf_proc *p, const char *const *argv, const char *device, char *err, size_t errlen)
{
    int req[2] = {-1, -1}, ans[2] = {-1, -1}, errp[2] = {-1, -1};
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->status = -1;
    p->req_fd = p->ans_fd = p->err_fd = p->shm_fd = p->zygote_fd = -1;
    if (pipe2(req, O_CLOEXEC) || pipe2(ans, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) ||
        (p->shm_fd = memfd_create("lossfuzz-worker", MFD_CLOEXEC)) < 0) {
        snprintf(err, errlen, "cannot make the worker's pipes: %s", strerror(errno));
        goto fail;
    }
    req[0] = high_fd(req[0]);
    ans[1] = high_fd(ans[1]);
    errp[1] = high_fd(errp[1]);
    p->shm_fd = high_fd(p->shm_fd);
    char pin[64];
    char **env = worker_env(device, pin, sizeof pin);
    const char *script = argv[0] && argv[1] ? strrchr(argv[1], '/') : NULL;
    if (env && script && !strcmp(script, "/lossfuzz_worker.py")) { /* a PyTorch worker: the zygote's, if one runs */
        int fds[4] = {errp[1], req[0], ans[1], p->shm_fd};
        p->zygote_fd = lf_zygote_fork(argv, env, fds, &p->pid);
    }
    if (p->zygote_fd >= 0 || p->zygote_fd == -2) {
        free(env);
        if (p->zygote_fd >= 0) goto started;
        p->zygote_fd = -1;
        p->pid = -1;
        snprintf(err, errlen, "the worker zygote at $LOSSFUZZ_ZYGOTE=%s took the request and did not answer",
                 getenv("LOSSFUZZ_ZYGOTE"));
        goto fail;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
    posix_spawn_file_actions_adddup2(&fa, req[0], LF_FD_REQUESTS);
    posix_spawn_file_actions_adddup2(&fa, ans[1], LF_FD_ANSWERS);
    posix_spawn_file_actions_adddup2(&fa, p->shm_fd, LF_FD_SHM);
    int rc = env ? posix_spawn(&p->pid, argv[0], &fa, NULL, (char *const *)argv, env) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    if (rc) {
        p->pid = -1;
        snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(rc));
        goto fail;
    }
started:
    close(req[0]);
    close(ans[1]);
    close(errp[1]);
    p->req_fd = req[1];
    p->ans_fd = ans[0];
    p->err_fd = errp[0];
    fcntl(p->err_fd, F_SETFL, O_NONBLOCK);
    fcntl(p->ans_fd, F_SETFL, O_NONBLOCK);
    return true;
fail:
    for (int i = 0; i < 2; i++) {
        if (req[i] >= 0) close(req[i]);
        if (ans[i] >= 0) close(ans[i]);
        if (errp[i] >= 0) close(errp[i]);
    }
    if (p->shm_fd >= 0) close(p->shm_fd);
    p->shm_fd = -1;
    return false;
}

/* Keeps what the worker printed: the last LF_PROC_TAIL bytes, and the first
 * line CUDA prints for a failed device assert. Returns false at end of file. */
static bool drain_stderr(lf_proc *p)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(p->err_fd, buf, sizeof buf);
        if (n == 0) return false;
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno == EAGAIN;
        }
        const char *from = buf;
        if ((size_t)n > LF_PROC_TAIL - 1) {
            from += (size_t)n - (LF_PROC_TAIL - 1);
            n = LF_PROC_TAIL - 1;
        }
        if (p->tail_len + (size_t)n > LF_PROC_TAIL - 1) { /* drop the oldest bytes */
            size_t drop = p->tail_len + (size_t)n - (LF_PROC_TAIL - 1);
            memmove(p->tail, p->tail + drop, p->tail_len - drop);
            p->tail_len -= drop;
        }
        memcpy(p->tail + p->tail_len, from, (size_t)n);
        p->tail_len += (size_t)n;
        p->tail[p->tail_len] = 0;
        if (!p->assert_line[0]) {
            char *a = strstr(p->tail, "Assertion `");
            char *end = a ? strchr(a, '\n') : NULL;
            if (a && end) {
                char *start = a;
                while (start > p->tail && start[-1] != '\n') start--;
                snprintf(p->assert_line, sizeof p->assert_line, "%.*s", (int)(end - start), start);
            }
        }
    }
}

void lf_proc_clear_tail(lf_proc *p)
{
    p->tail_len = 0;
    p->tail[0] = 0;
    p->assert_line[0] = 0;
}

/* Takes one line out of the answer buffer, if a whole one is there. */
static bool take_line(lf_proc *p, size_t *consumed)
{
    char *nl = p->line_len ? memchr(p->line, '\n', p->line_len) : NULL;
    if (!nl) return false;
    *nl = 0;
    *consumed = (size_t)(nl - p->line) + 1;
    return true;
}

/* Reads what is there on the answer pipe: 1 some bytes, 0 end of file, -1 none yet. */
static int read_answers(lf_proc *p)
{
    if (p->line_cap - p->line_len < 4096) {
        size_t cap = p->line_cap ? p->line_cap * 2 : 8192;
        char *grown = realloc(p->line, cap);
        if (!grown) return 0;
        p->line = grown;
        p->line_cap = cap;
    }
    ssize_t n = read(p->ans_fd, p->line + p->line_len, p->line_cap - p->line_len - 1);
    if (n > 0) p->line_len += (size_t)n;
    return n > 0 ? 1 : n == 0 ? 0 : errno == EAGAIN || errno == EINTR ? -1 : 0;
}

int lf_proc_read_line(lf_proc *p, double deadline_ms)
{
    if (p->line_taken) { /* the previous call's line was handed out: drop it */
        memmove(p->line, p->line + p->line_taken, p->line_len - p->line_taken);
        p->line_len -= p->line_taken;
        p->line_taken = 0;
    }
    /* A blocked read wakes up tens of microseconds late (57 us a round trip
     * on a 2-core VM, 1.5 us spinning): small cases are answered sooner than
     * that, so spin a little before sleeping in poll. */
    double spin_until = lf_now_ms() + LF_PROC_SPIN_MS;
    for (;;) {
        if (take_line(p, &p->line_taken)) return 1;
        int got = read_answers(p);
        if (got == 0) return 0;
        if (got > 0) continue;
        double now = lf_now_ms(), left = deadline_ms - now;
        if (left <= 0) return -1;
        if (now < spin_until) continue;
        struct pollfd fds[2] = {{p->ans_fd, POLLIN, 0}, {p->err_fd, POLLIN, 0}};
        int nfds = p->err_fd >= 0 ? 2 : 1;
        int rc = poll(fds, (nfds_t)nfds, left > 1e6 ? 1000000 : (int)left + 1);
        if (rc < 0 && errno != EINTR) return 0;
        if (nfds == 2 && fds[1].revents && !drain_stderr(p)) {
            close(p->err_fd);
            p->err_fd = -1;
        }
    }
}

bool lf_proc_shm_reserve(lf_proc *p, size_t size)
{
    if (size <= p->shm_size && p->shm) return true;
    size_t want = size < 65536 ? 65536 : size + size / 2;
    if (p->shm) munmap(p->shm, p->shm_size);
    p->shm = NULL;
    p->shm_size = 0;
    if (ftruncate(p->shm_fd, (off_t)want)) return false;
    void *m = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_SHARED, p->shm_fd, 0);
    if (m == MAP_FAILED) return false;
    p->shm = m;
    p->shm_size = want;
    return true;
}

static bool reap(lf_proc *p, double deadline_ms)
{
    if (p->pid > 0 && p->zygote_fd >= 0) { /* not our child: the zygote says its end */
        int said = lf_zygote_reap(p->zygote_fd, deadline_ms, &p->status);
        if (said == 0) return false;
        p->zygote_gone = said < 0;
        p->pid = -1;
        return true;
    }
    while (p->pid > 0) {
        pid_t r = waitpid(p->pid, &p->status, WNOHANG);
        if (r == p->pid || (r < 0 && errno != EINTR)) {
            p->pid = -1;
            return true;
        }
        if (lf_now_ms() >= deadline_ms) return false;
        usleep(1000);
    }
    return true;
}

void lf_proc_finish(lf_proc *p, double grace_ms)
{
    double deadline = lf_now_ms() + grace_ms;
    while (p->err_fd >= 0 && lf_now_ms() < deadline) { /* stderr closes when the process ends */
        struct pollfd f = {p->err_fd, POLLIN, 0};
        if (poll(&f, 1, 50) > 0 && !drain_stderr(p)) {
            close(p->err_fd);
            p->err_fd = -1;
        }
    }
    if (!reap(p, deadline)) lf_proc_kill(p);
}

void lf_proc_kill(lf_proc *p)
{
    if (p->pid > 0) {
        if (p->zygote_fd >= 0) { /* the zygote's child, not ours */
            lf_zygote_kill(p->zygote_fd, &p->status);
        } else {
            kill(p->pid, SIGKILL);
            while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR) {}
        }
        p->pid = -1;
    }
}

void lf_proc_close(lf_proc *p)
{
    int *fds[] = {&p->req_fd, &p->ans_fd, &p->err_fd, &p->shm_fd, &p->zygote_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
    if (p->shm) munmap(p->shm, p->shm_size);
    p->shm = NULL;
    free(p->line);
    p->line = NULL;
    p->line_len = p->line_cap = 0;
}
