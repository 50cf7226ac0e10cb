/* lf_cli_progress.c - signs of life on a long case: its size once loaded,
 * each stage's time, and a heartbeat every few seconds from a timer (loading
 * a generated 2^28-element case alone takes 13 s). LOSSFUZZ_PROGRESS=always
 * shows them for every case, =never for none; by default they start once a
 * case has taken a second. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "lf_cli.h"
#include "lf_clock.h"

#define AUTO_AFTER_MS 1000.0 /* auto mode: quiet for cases that take less */
#define HEARTBEAT_SECONDS 5

/* What the heartbeat says: written outside the handler with SIGALRM blocked. */
static char heartbeat_line[700];
static volatile sig_atomic_t heartbeat_len, heartbeat_ticks;

static void on_heartbeat(int sig)
{
    (void)sig;
    int saved_errno = errno;
    char secs[16];
    int n = 0;
    heartbeat_ticks++;
    for (long s = (long)heartbeat_ticks * HEARTBEAT_SECONDS; s > 0 && n < 15; s /= 10)
        secs[15 - ++n] = (char)('0' + s % 10);
    ssize_t w = write(2, heartbeat_line, (size_t)heartbeat_len);
    w += write(2, secs + 15 - n, (size_t)n);
    w += write(2, " s since the start\n", 19);
    (void)w;
    errno = saved_errno;
}

static void set_heartbeat(const lf_cli_progress *p, const char *stage)
{
    sigset_t alarm, old;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    sigprocmask(SIG_BLOCK, &alarm, &old);
    int n =
        snprintf(heartbeat_line, sizeof heartbeat_line, "lossfuzz %s: %s: still in %s, ", p->command, p->file, stage);
    heartbeat_len = n < (int)sizeof heartbeat_line ? n : (int)sizeof heartbeat_line - 1;
    sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The handler is in place before the timer starts, and the timer stopped
 * before the handler goes: a SIGALRM with the default action kills. */
static void arm(bool on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on ? on_heartbeat : SIG_DFL;
    sa.sa_flags = SA_RESTART;
    struct itimerval t = {{on ? HEARTBEAT_SECONDS : 0, 0}, {on ? HEARTBEAT_SECONDS : 0, 0}};
    if (on) sigaction(SIGALRM, &sa, NULL);
    setitimer(ITIMER_REAL, &t, NULL);
    if (!on) sigaction(SIGALRM, &sa, NULL);
}

/* LOSSFUZZ_PROGRESS: always, never, or (default) auto: once a case has taken a second. */
static int progress_mode(void)
{
    const char *m = getenv("LOSSFUZZ_PROGRESS");
    return !m || !*m ? 0 : !strcmp(m, "always") ? 1 : !strcmp(m, "never") ? -1 : 0;
}

void lf_cli_progress_begin(lf_cli_progress *p, const char *command, const char *file)
{
    memset(p, 0, sizeof *p);
    p->command = command;
    p->file = file;
    p->mode = progress_mode();
    p->start_ms = p->stage_ms = lf_now_ms();
    if (p->mode < 0) return;
    set_heartbeat(p, "loading");
    heartbeat_ticks = 0;
    arm(true);
}

static bool showing(const lf_cli_progress *p, double now)
{
    return p->mode > 0 || (p->mode == 0 && now - p->start_ms >= AUTO_AFTER_MS);
}

void lf_cli_progress_loaded(lf_cli_progress *p, const lf_case *c)
{
    p->stage_ms = lf_now_ms();
    if (showing(p, p->stage_ms))
        fprintf(stderr, "lossfuzz %s: %s: %lld elements, loaded in %.1f s\n", p->command, p->file,
                (long long)(c->input.numel + c->target.numel), (p->stage_ms - p->start_ms) / 1e3);
}

void lf_cli_progress_stage(void *progress, const char *stage)
{
    lf_cli_progress *p = progress;
    double t = lf_now_ms();
    if (showing(p, t) && p->stage)
        fprintf(stderr, "lossfuzz %s: %s: %s done in %.1f s\n", p->command, p->file, p->stage, (t - p->stage_ms) / 1e3);
    if (showing(p, t) && !stage)
        fprintf(stderr, "lossfuzz %s: %s: done in %.1f s\n", p->command, p->file, (t - p->start_ms) / 1e3);
    if (stage && p->mode >= 0) set_heartbeat(p, stage);
    p->stage = stage;
    p->stage_ms = t;
}

void lf_cli_progress_end(lf_cli_progress *p)
{
    if (p->mode >= 0) arm(false);
}
