/* lf_exec.c - the executor's pool: an active worker and a warm spare per
 * device, requests with a watchdog, and a dead worker's case given its
 * outcome before the spare takes over (lf_exec.h). */
#include "lf_exec.h"
#include "lf_clock.h"

#include <dirent.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lf_exec_proc.h"
#include "lf_fence.h" /* LF_FENCE_LINE: a kernel worker's out-of-bounds line */

typedef struct {
    lf_proc active, spare;
    bool has_active, has_spare;
    char device[32]; /* CUDA_VISIBLE_DEVICES for its workers, "": not pinned */
} slot;

struct lf_exec {
    lf_exec_options o;
    char **argv;
    slot *slots;
    int n_slots, next_slot;
    uint64_t next_id;
    lf_exec_stats stats;
    int ends_shown; /* worker ends told on stderr: a campaign meets thousands */
    char device[64], torch[32];
    lf_kernel_claims claims; /* the hello's "kernel" object, when it has one */
    bool has_claims;
};

static double timeout_ms(const lf_exec *x) { return (x->o.timeout_s > 0 ? x->o.timeout_s : 60) * 1e3; }
static double start_ms(const lf_exec *x) { return (x->o.start_timeout_s > 0 ? x->o.start_timeout_s : 120) * 1e3; }

/* The last line of what a worker printed that says the most: a sanitizer's
 * report first, else its last non-empty line. */
static void key_line(const lf_proc *p, char *out, size_t outlen)
{
    const char *pick = strstr(p->tail, "ERROR: AddressSanitizer");
    if (!pick) pick = strstr(p->tail, "runtime error:");
    if (!pick) {
        const char *end = p->tail + p->tail_len;
        while (end > p->tail && (end[-1] == '\n' || end[-1] == ' ')) end--;
        pick = end;
        while (pick > p->tail && pick[-1] != '\n') pick--;
        snprintf(out, outlen, "%.*s", (int)(end - pick), pick);
        return;
    }
    const char *nl = strchr(pick, '\n');
    snprintf(out, outlen, "%.*s", nl ? (int)(nl - pick) : (int)strlen(pick), pick);
}

static bool spawn(lf_exec *x, slot *s, lf_proc *p, char *err, size_t errlen)
{
    x->stats.worker_starts++;
    return lf_proc_spawn(p, (const char *const *)x->argv, s->device[0] ? s->device : NULL, err, errlen);
}

/* Reads the worker's hello; false (the worker ended) with what it printed. */
static bool await_ready(lf_exec *x, lf_proc *p, char *err, size_t errlen)
{
    if (p->ready) return true;
    int got = lf_proc_read_line(p, lf_now_ms() + start_ms(x));
    json_error_t je;
    json_t *h = got == 1 ? json_loads(p->line, 0, &je) : NULL;
    const char *hello = json_string_value(json_object_get(h, "hello"));
    if (hello && !strcmp(hello, "lossfuzz-worker") &&
        json_integer_value(json_object_get(h, "protocol")) == LF_WIRE_PROTOCOL) {
        const char *dev = json_string_value(json_object_get(h, "device"));
        const char *tv = json_string_value(json_object_get(h, "torch"));
        snprintf(x->device, sizeof x->device, "%s", dev ? dev : "?");
        snprintf(x->torch, sizeof x->torch, "%s", tv ? tv : "");
        const json_t *claims = json_object_get(h, "kernel");
        if (claims && !lf_kernel_claims_parse(claims, &x->claims, err, errlen)) {
            json_decref(h);
            lf_proc_kill(p);
            lf_proc_close(p);
            return false;
        }
        x->has_claims = claims != NULL;
        p->ready = true;
        json_decref(h);
        return true;
    }
    json_decref(h);
    if (got == -1)
        lf_proc_kill(p);
    else
        lf_proc_finish(p, 2000);
    char last[512];
    key_line(p, last, sizeof last);
    snprintf(err, errlen, "%s (%s) did not start%s%s", x->o.name, x->argv[0],
             got == -1  ? ": no hello in time"
             : got == 1 ? ": not a lossfuzz worker"
                        : "",
             last[0] ? ": " : "");
    size_t used = strlen(err);
    snprintf(err + used, errlen - used, "%s", last);
    lf_proc_close(p);
    return false;
}

/* The spare takes over (or a fresh worker, without one), and a new spare starts. */
static bool take_over(lf_exec *x, slot *s, char *err, size_t errlen)
{
    if (s->has_active) lf_proc_close(&s->active);
    s->has_active = false;
    if (s->has_spare) {
        s->active = s->spare;
        s->has_spare = false;
    } else if (!spawn(x, s, &s->active, err, errlen)) {
        return false;
    }
    if (!x->o.no_spare) s->has_spare = spawn(x, s, &s->spare, err, errlen);
    if (!await_ready(x, &s->active, err, errlen)) return false;
    s->has_active = true;
    return true;
}

/* The i-th GPU the process may use: the i-th item of $CUDA_VISIBLE_DEVICES, else i. */
static void visible_device(const char *visible, int i, char *out, size_t outlen)
{
    snprintf(out, outlen, "%d", i);
    for (int k = 0; visible && *visible; k++) {
        size_t len = strcspn(visible, ",");
        if (k == i) {
            snprintf(out, outlen, "%.*s", (int)len, visible);
            return;
        }
        visible += len + (visible[len] == ',');
    }
}

lf_exec *lf_exec_start(const lf_exec_options *o, char *err, size_t errlen)
{
    signal(SIGPIPE, SIG_IGN); /* a worker gone mid-write is seen as EPIPE, not our death */
    lf_exec *x = calloc(1, sizeof *x);
    int n = 0;
    while (o->argv[n]) n++;
    x->o = *o;
    x->argv = calloc((size_t)n + 1, sizeof *x->argv);
    for (int i = 0; i < n; i++) x->argv[i] = strdup(o->argv[i]);
    x->n_slots = o->n_devices > 1 ? o->n_devices : 1;
    x->slots = calloc((size_t)x->n_slots, sizeof *x->slots);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    for (int i = 0; i < x->n_slots; i++) {
        if (x->n_slots > 1) visible_device(visible, i, x->slots[i].device, sizeof x->slots[i].device);
        if (!take_over(x, &x->slots[i], err, errlen)) {
            lf_exec_stop(x);
            return NULL;
        }
    }
    return x;
}

static void path_error(lf_result *r, const char *error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void path_error(lf_result *r, const char *error, const char *fmt, ...)
{
    char text[sizeof r->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    lf_result_init(r);
    lf_result_error(r, error, "RuntimeError", "%s", text);
}

bool lf_exec_parse_assert_line(const char *line, lf_result *r)
{
    /* CUDA: "FILE:LINE: KERNEL: block: [..], thread: [..] Assertion `COND` failed."
     * glibc's assert() (a kernel under test on the CPU):
     * "PROG: FILE:LINE: FUNCTION: Assertion `COND' failed." */
    const char *block = strstr(line, ": block: [");
    const char *a = strstr(line, "Assertion `");
    const char *b = !a ? NULL : block ? strchr(a + 11, '`') : strstr(a + 11, "' failed");
    const char *kend = block ? block : a && a - line >= 2 && a[-2] == ':' ? a - 2 : NULL;
    if (!kend || !b) return false;
    const char *k = kend; /* an identifier, or a lambda's "operator()" (the gather kernel) */
    while (k > line && (k[-1] == '_' || k[-1] == '(' || k[-1] == ')' || (k[-1] >= '0' && k[-1] <= '9') ||
                        ((k[-1] | 32) >= 'a' && (k[-1] | 32) <= 'z')))
        k--;
    char kernel[128], cond[256];
    snprintf(kernel, sizeof kernel, "%.*s", (int)(kend - k), k);
    snprintf(cond, sizeof cond, "%.*s", (int)(b - a - 11), a + 11);
    lf_result_init(r);
    r->kind = LF_OUTCOME_DEVICE_ASSERT;
    r->cond_id = lf_cond_id_of(cond);
    r->kernel_id = lf_assert_kernel_of(kernel, r->cond_id);
    r->index = -1; /* CUDA's line names the block and thread, not the element */
    snprintf(r->error, sizeof r->error, "%s", lf_assert_error(r->kernel_id));
    snprintf(r->exception, sizeof r->exception, "RuntimeError");
    snprintf(r->message, sizeof r->message, "%s (the worker's context died): %.400s",
             block ? "device-side assert" : "assert() failed", k);
    return true;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGABRT: return "SIGABRT";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
    }
}

typedef enum { END_EOF, END_HANG, END_DEAD, END_GARBLED } end_kind;

/* What a worker's end means for the one path it was running. */
static void outcome_of_end(lf_exec *x, lf_proc *p, end_kind how, const char *dead, lf_result *r)
{
    char last[512], what[128];
    const char *oob;
    key_line(p, last, sizeof last);
    if (how == END_HANG) {
        x->stats.hangs++;
        /* %g: 0.4 s, not "0 s" */
        path_error(r, "worker_hang", "no answer in %g s: the worker was killed (a hang)", timeout_ms(x) / 1e3);
        return;
    }
    if (how == END_DEAD) {
        x->stats.sticky++;
        path_error(r, "cuda_error", "%s (the worker's context is broken; it was replaced)", dead);
    } else if (p->zygote_gone) { /* the zygote ended, and its worker with it (a test tier's end, a kill) */
        path_error(r, "worker_lost", "the worker zygote ($LOSSFUZZ_ZYGOTE) ended, and the worker with it");
    } else if (how == END_GARBLED) {
        x->stats.crashes++;
        path_error(r, "worker_crash", "the worker broke the protocol: %s", dead);
    } else if ((oob = strstr(p->tail, LF_FENCE_LINE))) { /* a fenced buffer's neighbour (lf_fence.h) */
        x->stats.crashes++;
        bool write_access = !strncmp(oob + strlen(LF_FENCE_LINE), "write", 5);
        const char *text = oob + strlen("lossfuzz: "); /* "out-of-bounds read: ..." */
        path_error(r, write_access ? "oob_write" : "oob_read", "%.*s", (int)strcspn(text, "\n"), text);
    } else {
        x->stats.crashes++;
        if (p->status >= 0 && WIFSIGNALED(p->status))
            snprintf(what, sizeof what, "the worker died of %s", signal_name(WTERMSIG(p->status)));
        else if (p->status >= 0 && WIFEXITED(p->status))
            snprintf(what, sizeof what, "the worker exited with status %d", WEXITSTATUS(p->status));
        else
            snprintf(what, sizeof what, "the worker closed its answers");
        path_error(r, "worker_crash", "%s%s%s", what, last[0] ? ": " : "", last);
    }
    enum { SHOWN = 3 }; /* the rest are counted: each one's result says what happened */
    if (x->ends_shown < SHOWN)
        fprintf(stderr, "lossfuzz: %s %s; its last output:\n%s\n", x->o.name, r->message, p->tail);
    if (++x->ends_shown == SHOWN) fprintf(stderr, "lossfuzz: %s: further worker ends are not shown\n", x->o.name);
}

static bool run_on(lf_exec *x, slot *s, const lf_wire_path *paths, int n, const lf_case *c, lf_result *r);

/* The worker ended during a request: give the paths their outcomes, replace it. */
static bool worker_ended(lf_exec *x, slot *s, end_kind how, const char *dead, const lf_wire_path *paths, int n,
                         const lf_case *c, lf_result *r)
{
    double seen = lf_now_ms();
    lf_proc *p = &s->active;
    if (how == END_HANG)
        lf_proc_kill(p);
    else
        lf_proc_finish(p, 2000);
    x->stats.deaths++;
    lf_result died;
    int done = -1; /* the path the end is pinned on, when it is known */
    if (p->assert_line[0] && lf_exec_parse_assert_line(p->assert_line, &died)) {
        x->stats.asserts++;
        for (int i = 0; i < n && done < 0; i++)
            if (paths[i] != LF_WIRE_GUARD || n == 1) done = i; /* the guard never asserts */
    } else if (n == 1) {
        outcome_of_end(x, p, how, dead, &died);
        done = 0;
    }
    char err[512];
    bool ok = take_over(x, s, err, sizeof err);
    double ms = lf_now_ms() - seen;
    x->stats.recoveries++;
    x->stats.recovery_ms_total += ms;
    if (ms > x->stats.recovery_ms_max) x->stats.recovery_ms_max = ms;
    if (done >= 0) r[done] = died;
    /* The other paths run again, one at a time, so an end is pinned on the
     * path that caused it. */
    for (int i = 0; i < n; i++) {
        if (i == done) continue;
        if (!ok)
            path_error(&r[i], "worker_start", "%s", err);
        else
            ok = run_on(x, s, &paths[i], 1, c, &r[i]);
    }
    return ok;
}

static bool run_on(lf_exec *x, slot *s, const lf_wire_path *paths, int n, const lf_case *c, lf_result *r)
{
    char err[512];
    for (int attempt = 0;; attempt++) {
        if (!s->has_active && !take_over(x, s, err, sizeof err)) break;
        lf_proc *p = &s->active;
        lf_wire_layout l;
        lf_wire_layout_of(c, paths, n, &l);
        if (!lf_proc_shm_reserve(p, l.shm_size)) {
            snprintf(err, sizeof err, "cannot make %zu bytes of shared memory for the case", l.shm_size);
            break;
        }
        l.shm_size = p->shm_size;
        uint64_t id = ++x->next_id;
        char *req = lf_wire_request(id, paths, n, c, &l, p->shm);
        if (!req) {
            snprintf(err, sizeof err, "the case cannot be encoded for a worker (out of memory)");
            break;
        }
        lf_proc_clear_tail(p);
        bool sent = lf_wire_send(p->req_fd, req);
        free(req);
        if (!sent) { /* it ended before this case reached it: not this case's doing */
            lf_proc_finish(p, 2000);
            s->has_active = false;
            lf_proc_close(p);
            if (attempt < 2) continue;
            snprintf(err, sizeof err, "%s: workers end before taking a request", x->o.name);
            break;
        }
        x->stats.requests++;
        int got = lf_proc_read_line(p, lf_now_ms() + timeout_ms(x));
        if (got == 0) return worker_ended(x, s, END_EOF, "", paths, n, c, r);
        if (got < 0) return worker_ended(x, s, END_HANG, "", paths, n, c, r);
        char dead[256], why[256];
        if (!lf_wire_parse_answer(p->line, id, r, n, &l, p->shm, dead, sizeof dead, why, sizeof why)) {
            lf_proc_kill(p);
            return worker_ended(x, s, END_GARBLED, why, paths, n, c, r);
        }
        if (dead[0]) return worker_ended(x, s, END_DEAD, dead, paths, n, c, r);
        return true;
    }
    for (int i = 0; i < n; i++) path_error(&r[i], "worker_start", "%s", err);
    return false;
}

bool lf_exec_run(lf_exec *x, const lf_wire_path *paths, int n_paths, const lf_case *c, lf_result *r)
{
    slot *s = &x->slots[x->next_slot];
    x->next_slot = (x->next_slot + 1) % x->n_slots;
    return run_on(x, s, paths, n_paths, c, r);
}

const char *lf_exec_device(const lf_exec *x) { return x->device; }
const char *lf_exec_torch_version(const lf_exec *x) { return x->torch; }
const lf_kernel_claims *lf_exec_kernel_claims(const lf_exec *x) { return x->has_claims ? &x->claims : NULL; }
const lf_exec_stats *lf_exec_stats_of(const lf_exec *x) { return &x->stats; }

bool lf_exec_renew(lf_exec *x, char *err, size_t errlen)
{
    for (int i = 0; i < x->n_slots; i++) {
        slot *s = &x->slots[i];
        if (s->has_active) { /* end of file: it exits 0 */
            close(s->active.req_fd);
            s->active.req_fd = -1;
            lf_proc_finish(&s->active, 1000);
        }
        if (!take_over(x, s, err, errlen)) return false;
    }
    return true;
}

void lf_exec_stop(lf_exec *x)
{
    if (!x) return;
    for (int i = 0; i < x->n_slots; i++) {
        slot *s = &x->slots[i];
        lf_proc *ps[2] = {s->has_active ? &s->active : NULL, s->has_spare ? &s->spare : NULL};
        for (int k = 0; k < 2; k++) {
            if (!ps[k]) continue;
            close(ps[k]->req_fd); /* end of file: a worker exits 0 */
            ps[k]->req_fd = -1;
            lf_proc_finish(ps[k], 1000);
            lf_proc_close(ps[k]);
        }
    }
    for (int i = 0; x->argv && x->argv[i]; i++) free(x->argv[i]);
    free(x->argv);
    free(x->slots);
    free(x);
}

int lf_exec_visible_gpus(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    int n = 0;
    if (v) {
        if (!*v) return 0;
        for (n = 1; *v; v++) n += *v == ',';
        return n;
    }
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}
