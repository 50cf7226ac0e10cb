/* lf_signature.c - what minimization keeps: a case's signature (its finding
 * class, else its spec outcome, error class and the guard's hint) and the
 * guard's hint on its own, found in a child process so that a case that
 * crashes the kernels has a signature too. */
#include "lf_minimize.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdio.h>
#include <string.h>

#include "lf_oracle.h"

void lf_signature_of(const lf_result *spec, const lf_result *guard, char *out, size_t len)
{
    /* the guard's hint too: a void-255 repro must not shrink into some other bad label */
    snprintf(out, len, "%s/%s%s%s", lf_outcome_name(spec->kind), spec->error[0] ? spec->error : "none",
             guard->hint_id[0] ? "/" : "", guard->hint_id);
}

bool lf_signature_is_finding(const char *sig)
{
    static const char *const outcomes[] = {"ok/", "host_error/", "device_assert/"};
    for (int i = 0; i < 3; i++)
        if (!strncmp(sig, outcomes[i], strlen(outcomes[i]))) return false;
    return true;
}

static void probe_in_process(const lf_case *c, const lf_backend *be, char *out, size_t len, char *hint, size_t hintlen,
                             bool *skipped)
{
    lf_verdict v;
    lf_case probe = *c; /* the recorded expectations must not decide the signature */
    probe.expect = LF_OUTCOME_NONE;
    probe.expect_error[0] = 0;
    probe.expect_hint[0] = 0;
    probe.expect_value = NULL;
    lf_oracle_check(&probe, be, &v);
    if (v.finding)
        snprintf(out, len, "%s", v.signature);
    else
        lf_signature_of(&v.spec, &v.guard, out, len);
    snprintf(hint, hintlen, "%s", v.guard.hint_id);
    if (skipped) *skipped = v.kernel_skip[0] != 0;
    lf_verdict_free(&v);
}

/* In a child process, so a case that crashes the kernels (an ASan report, a
 * segfault) has a signature too: "crash/<how>", and the minimizer survives it.
 * With workers (harness/runtime/workers) they are what crashes, and the executor already
 * names it; a fork would share their pipes with the child: no fork then.
 * The child writes "signature\0hint\0". */
void lf_signature_hint(const lf_case *c, const lf_backend *be, char *out, size_t len, char *hint, size_t hintlen)
{
    int fds[2];
    char buf[LF_SIGNATURE_MAX + 64];
    hint[0] = 0;
    if (be->exec || be->torch || be->kernel) {
        probe_in_process(c, be, out, len, hint, hintlen, NULL);
        return;
    }
    fflush(NULL);
    if (pipe(fds) != 0) {
        probe_in_process(c, be, out, len, hint, hintlen, NULL);
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        probe_in_process(c, be, out, len, hint, hintlen, NULL);
        return;
    }
    if (pid == 0) {
        char sig[LF_SIGNATURE_MAX], h[64];
        close(fds[0]);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2); /* the crash report of every candidate is noise */
        probe_in_process(c, be, sig, sizeof sig, h, sizeof h, NULL);
        int n = snprintf(buf, sizeof buf, "%s%c%s", sig, 0, h);
        ssize_t w = write(fds[1], buf, (size_t)n + 1);
        _exit(w > 0 ? 0 : 1);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n;
    while (got + 1 < sizeof buf && (n = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)n;
    buf[got] = 0;
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (got == 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status))
            snprintf(out, len, "crash/signal-%d", WTERMSIG(status));
        else
            snprintf(out, len, "crash/exit-%d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return;
    }
    snprintf(out, len, "%s", buf);
    size_t at = strlen(buf) + 1;
    if (at < got) snprintf(hint, hintlen, "%s", buf + at);
}

void lf_signature(const lf_case *c, const lf_backend *be, char *out, size_t len)
{
    char hint[64];
    lf_signature_hint(c, be, out, len, hint, sizeof hint);
}

void lf_signature_probe(const lf_case *c, const lf_backend *be, char *out, size_t len, bool *kernel_skipped)
{
    char hint[64];
    *kernel_skipped = false;
    if (be->kernel) /* a kernel under test runs in its worker: nothing here to crash */
        probe_in_process(c, be, out, len, hint, sizeof hint, kernel_skipped);
    else
        lf_signature_hint(c, be, out, len, hint, sizeof hint);
}
