/* lf_replay_main.c - the replay driver: runs a fuzz target's
 * LLVMFuzzerTestOneInput over files and directories without any fuzzing
 * engine (gcc is enough). Each input runs in a child process with a timeout,
 * so a crash, an abort (a finding) or a hang fails that input only; the driver
 * names the input, goes on, and ends with "N passed, N failed" (style.md #10).
 *
 *   replay_fuzz_class [--timeout SECONDS] FILE|DIR... */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static const char *current; /* the input being run, for the fatal-signal message */

static void on_fatal(int sig)
{
    static const char msg[] = "\nreplay: fatal signal while running ";
    (void)!write(2, msg, sizeof msg - 1);
    (void)!write(2, current, strlen(current));
    (void)!write(2, "\n", 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int run_child(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 2;
    }
    size_t cap = 1 << 16, size = 0, n;
    uint8_t *data = malloc(cap);
    while (data && (n = fread(data + size, 1, cap - size, f)) > 0) {
        size += n;
        if (size == cap) data = realloc(data, cap *= 2);
    }
    fclose(f);
    if (!data) return 2;
    current = path;
    int sigs[] = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], on_fatal);
    uint8_t *exact = malloc(size ? size : 1); /* exact size: ASan sees any overread */
    memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 0;
}

/* 0 passed; otherwise prints why. */
static int replay_one(const char *path, unsigned timeout)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("replay: fork");
        return 1;
    }
    if (pid == 0) {
        alarm(timeout);
        _exit(run_child(path));
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        fprintf(stderr, "FAIL %s: timeout after %u s\n", path, timeout);
    else if (WIFSIGNALED(status))
        fprintf(stderr, "FAIL %s: signal %d (%s)\n", path, WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        fprintf(stderr, "FAIL %s: exit status %d\n", path, WEXITSTATUS(status));
    return 1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void replay_path(const char *path, unsigned timeout, int *passed, int *failed)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        replay_one(path, timeout) ? (*failed)++ : (*passed)++;
        return;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "FAIL %s: cannot open directory\n", path);
        (*failed)++;
        return;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "CMakeLists.txt") || !strcmp(e->d_name, "README.md")) continue;
        names = realloc(names, sizeof *names * (n + 1));
        names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
        sprintf(names[n++], "%s/%s", path, e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        replay_one(names[i], timeout) ? (*failed)++ : (*passed)++;
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    unsigned timeout = 30;
    int passed = 0, failed = 0, first = 1;
    if (argc > 2 && !strcmp(argv[1], "--timeout")) {
        timeout = (unsigned)atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: %s [--timeout SECONDS] FILE|DIR...\n", argv[0]);
        return first >= argc ? 2 : 0;
    }
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (int i = first; i < argc; i++) replay_path(argv[i], timeout ? timeout : 30, &passed, &failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
