/* lf_zygote.c - a worker forked by the zygote (lf_zygote.h; the protocol: python/lossfuzz_zygote.py). */
#define _GNU_SOURCE
#include "lf_zygote.h"
#include "lf_clock.h"

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Reads one line from conn into line, by deadline_ms; false on end of file, an error or the deadline. */
static bool read_line(int conn, char *line, size_t cap, double deadline_ms)
{
    size_t n = 0;
    while (n + 1 < cap) {
        double left = deadline_ms - lf_now_ms();
        struct pollfd f = {conn, POLLIN, 0};
        if (left <= 0 || poll(&f, 1, left > 1e6 ? 1000000 : (int)left + 1) == 0) return false;
        ssize_t got = read(conn, line + n, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        if (line[n] == '\n') break;
        n++;
    }
    line[n] = 0;
    return true;
}

static int connect_to(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) return -1;
    strcpy(a.sun_path, path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) return s;
    if (s >= 0) close(s);
    return -1;
}

/* strings as a JSON array; NULL where one is not UTF-8 (a forked worker would not get it: start one). */
static json_t *strings(const char *const *v)
{
    json_t *a = json_array();
    for (int i = 0; a && v[i]; i++) {
        json_t *s = json_string(v[i]);
        if (!s || json_array_append_new(a, s)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* The request: argv, env and the folder, one JSON line, its first bytes carrying the four fds. 1 sent,
 * 0 not sent (the worker is started as usual), -1 sent in part (the zygote may hold the fds: fail). */
static int send_request(int s, const char *const *argv, char *const *env, const int fds[4])
{
    char cwd[4096];
    json_t *a = strings(argv), *e = strings((const char *const *)env);
    if (!a || !e || !getcwd(cwd, sizeof cwd)) {
        json_decref(a);
        json_decref(e);
        return 0;
    }
    json_t *req = json_pack("{s:o, s:o, s:s}", "argv", a, "env", e, "cwd", cwd); /* (a and e: its own) */
    char *text = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!text) return 0;
    size_t len = strlen(text);
    text[len++] = '\n'; /* json_dumps's NUL: a line */
    char control[CMSG_SPACE(4 * sizeof(int))];
    memset(control, 0, sizeof control);
    struct iovec io = {text, len};
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(4 * sizeof(int));
    memcpy(CMSG_DATA(c), fds, 4 * sizeof(int));
    ssize_t n = sendmsg(s, &m, MSG_NOSIGNAL);
    size_t sent = n > 0 ? (size_t)n : 0;
    while (n > 0 && sent < len) /* the rest of a long line, the fds gone with its first bytes */
        if ((n = send(s, text + sent, len - sent, MSG_NOSIGNAL)) > 0) sent += (size_t)n;
    free(text);
    return sent == len ? 1 : sent == 0 ? 0 : -1;
}

int lf_zygote_fork(const char *const *argv, char *const *env, const int fds[4], pid_t *pid)
{
    const char *path = getenv("LOSSFUZZ_ZYGOTE");
    if (!path || !*path) return -1;
    int s = connect_to(path);
    if (s < 0) return -1; /* none listening: started as usual */
    char line[512];
    long got = 0;
    int sent = send_request(s, argv, env, fds);
    bool answered = sent > 0 && read_line(s, line, sizeof line, lf_now_ms() + 10000);
    if (answered && sscanf(line, "pid %ld", &got) == 1 && got > 0) {
        *pid = (pid_t)got;
        return s;
    }
    close(s);
    /* "no WHY" (another Python, other start-up variables), or not sent: the zygote holds none of the fds */
    return sent == 0 || (answered && !strncmp(line, "no ", 3)) ? -1 : -2;
}

bool lf_zygote_kill(int conn, int *status)
{
    shutdown(conn, SHUT_WR); /* the zygote, the worker's parent, kills it then: no pid of ours can be stale */
    if (lf_zygote_reap(conn, lf_now_ms() + 5000, status) == 0) *status = SIGKILL;
    return true;
}

int lf_zygote_reap(int conn, double deadline_ms, int *status)
{
    char line[64];
    if (read_line(conn, line, sizeof line, deadline_ms) && sscanf(line, "status %d", status) == 1) return 1;
    if (lf_now_ms() < deadline_ms) { /* the zygote is gone, and its child with it (PR_SET_PDEATHSIG) */
        *status = SIGKILL;
        return -1;
    }
    return 0;
}
