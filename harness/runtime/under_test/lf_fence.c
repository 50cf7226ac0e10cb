/* lf_fence.c - fenced host memory and the fault handler that names the
 * buffer a stray access hit (lf_fence.h). */
#define _GNU_SOURCE /* REG_ERR: whether a fault was a write */
#include "lf_fence.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/* Live allocations: a buffer's mapping, found by the pointer handed out. */
#define SLOTS 64
static struct {
    char *user, *map;
    size_t len;
} slots[SLOTS];

static size_t page_size(void)
{
    static size_t page;
    if (!page) page = (size_t)sysconf(_SC_PAGESIZE);
    return page;
}

/* [page, no access][data pages: the n bytes end at their end][page, no access] */
static void *fence_alloc(size_t n)
{
    size_t page = page_size(), data = (n + page - 1) / page * page, len = data + 2 * page;
    int slot = 0;
    while (slot < SLOTS && slots[slot].user) slot++;
    if (slot == SLOTS) return NULL;
    char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return NULL;
    if (mprotect(map, page, PROT_NONE) || mprotect(map + page + data, page, PROT_NONE)) {
        munmap(map, len);
        return NULL;
    }
    slots[slot].map = map;
    slots[slot].len = len;
    slots[slot].user = map + page + data - n;
    return slots[slot].user;
}

static void fence_release(void *p)
{
    for (int i = 0; p && i < SLOTS; i++)
        if (slots[i].user == p) {
            munmap(slots[i].map, slots[i].len);
            memset(&slots[i], 0, sizeof slots[i]);
            return;
        }
}

static int fence_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
    return 0;
}

static const lf_backend fence_backend = {
    .name = "cpu",
    .alloc = fence_alloc,
    .release = fence_release,
    .to_device = fence_copy,
    .to_host = fence_copy,
    .fenced = true,
};

const lf_backend *lf_fence_backend(void) { return &fence_backend; }

static const lf_canary_list *volatile watched;
static struct sigaction previous_segv, previous_bus;

void lf_fence_watch(const lf_canary_list *l) { watched = l; }

/* Where a faulting address lies while a kernel runs: "4 bytes past the end
 * of target (it holds 32 bytes)", or in none of its buffers; false when no
 * kernel runs (a fault of lossfuzz's own). */
static bool attribute(const char *addr, char *where, size_t len)
{
    const lf_canary_list *l = watched;
    size_t page = page_size();
    for (int i = 0; l && i < l->n; i++) {
        const char *data = l->buf[i].data, *end = data + l->buf[i].bytes;
        if (addr >= end && addr < end + l->buf[i].back + page) {
            snprintf(where, len, "%zu bytes past the end of %s (it holds %zu bytes)", (size_t)(addr - end) + 1,
                     l->buf[i].name, l->buf[i].bytes);
            return true;
        }
        if (addr < data && addr + LF_CANARY_BYTES + page >= data) {
            snprintf(where, len, "%zu bytes before the start of %s (it holds %zu bytes)", (size_t)(data - addr),
                     l->buf[i].name, l->buf[i].bytes);
            return true;
        }
    }
    /* Anywhere else while the kernel runs: a wild access (a label far out of range). */
    if (!l) return false;
    snprintf(where, len, "address %p is in none of the kernel's buffers", (const void *)addr);
    return true;
}

static void on_fault(int sig, siginfo_t *info, void *context)
{
    char where[200], line[300];
    bool write_access = false;
#if defined(__x86_64__) && defined(REG_ERR)
    write_access = (((ucontext_t *)context)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)context;
#endif
    if (attribute(info->si_addr, where, sizeof where)) {
        int n = snprintf(line, sizeof line, "\n" LF_FENCE_LINE "%s: %s\n", write_access ? "write" : "read", where);
        (void)!write(2, line, (size_t)n);
        signal(sig, SIG_DFL); /* the access runs again and ends the worker */
        return;
    }
    /* Not near a buffer: whoever handled it before (ASan) reports it. */
    sigaction(sig, sig == SIGSEGV ? &previous_segv : &previous_bus, NULL);
}

void lf_fence_install(void)
{
    static bool done;
    if (done) return;
    done = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previous_segv);
    sigaction(SIGBUS, &sa, &previous_bus);
}
