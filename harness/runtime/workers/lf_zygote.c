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

/* The request: argv, env and the folder, one JSON line, with the four fds attached. */
static bool send_request(int s, const char *const *argv, char *const *env, const int fds[4])
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) return false;
    json_t *a = json_array(), *e = json_array();
    for (int i = 0; argv[i]; i++) json_array_append_new(a, json_string(argv[i]));
    for (int i = 0; env[i]; i++) json_array_append_new(e, json_string(env[i]));
    json_t *req = json_pack("{s:o, s:o, s:s}", "argv", a, "env", e, "cwd", cwd);
    char *text = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!text) return false;
    char control[CMSG_SPACE(4 * sizeof(int))];
    memset(control, 0, sizeof control);
    struct iovec io = {text, strlen(text)};
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(4 * sizeof(int));
    memcpy(CMSG_DATA(c), fds, 4 * sizeof(int));
    ssize_t sent = sendmsg(s, &m, MSG_NOSIGNAL);
    bool ok = sent == (ssize_t)io.iov_len;
    free(text);
    return ok;
}

int lf_zygote_fork(const char *const *argv, char *const *env, const int fds[4], pid_t *pid)
{
    const char *path = getenv("LOSSFUZZ_ZYGOTE");
    if (!path || !*path) return -1;
    int s = connect_to(path);
    if (s < 0) return -1; /* none listening: started as usual */
    char line[512];
    long got = 0;
    if (!send_request(s, argv, env, fds) || !read_line(s, line, sizeof line, lf_now_ms() + 10000) ||
        sscanf(line, "pid %ld", &got) != 1 || got <= 0) {
        close(s); /* "no WHY" (another Python, other start-up variables) or a broken zygote */
        return -1;
    }
    *pid = (pid_t)got;
    return s;
}

bool lf_zygote_reap(int conn, double deadline_ms, int *status)
{
    char line[64];
    if (read_line(conn, line, sizeof line, deadline_ms) && sscanf(line, "status %d", status) == 1) return true;
    if (lf_now_ms() < deadline_ms) { /* the zygote is gone, and its child with it */
        *status = SIGKILL;
        return true;
    }
    return false;
}
