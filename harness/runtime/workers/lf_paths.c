/* lf_paths.c - options -> a backend whose paths run in this process or
 * in executor workers (lf_paths.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "lf_paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lf_data.h"
#include "lf_describe.h"

static bool env_flag(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0");
}

bool lf_paths_config_from_env(lf_paths_config *cfg, char *err, size_t errlen)
{
    const char *be = getenv("LOSSFUZZ_BACKEND"), *asserts = getenv("LOSSFUZZ_ASSERTS"), *t = getenv("LOSSFUZZ_TIMEOUT");
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = be && *be ? be : "sim";
    if (strcmp(cfg->backend, "sim") && strcmp(cfg->backend, "cuda")) {
        snprintf(err, errlen, "LOSSFUZZ_BACKEND=%s: expected sim or cuda", cfg->backend);
        return false;
    }
    if (asserts && *asserts && strcmp(asserts, "soft") && strcmp(asserts, "hard")) {
        snprintf(err, errlen, "LOSSFUZZ_ASSERTS=%s: expected soft or hard", asserts);
        return false;
    }
    cfg->hard_asserts = asserts && !strcmp(asserts, "hard");
    cfg->executor = env_flag("LOSSFUZZ_EXECUTOR") || !strcmp(cfg->backend, "cuda");
    cfg->torch = env_flag("LOSSFUZZ_TORCH");
    const char *kernel = getenv("LOSSFUZZ_KERNEL"), *world = getenv("LOSSFUZZ_WORLD_SIZE");
    cfg->kernel = kernel && *kernel ? kernel : NULL;
    char *end = NULL;
    cfg->world_size = world && *world ? (int)strtol(world, &end, 10) : 0;
    if (world && *world && (*end || cfg->world_size < 1 || cfg->world_size > LF_MAX_WORLD)) {
        snprintf(err, errlen, "LOSSFUZZ_WORLD_SIZE=%s: expected 1 to %d ranks", world, LF_MAX_WORLD);
        return false;
    }
    cfg->timeout_s = t && *t ? strtod(t, &end) : 0;
    if (t && *t && (*end || cfg->timeout_s <= 0)) {
        snprintf(err, errlen, "LOSSFUZZ_TIMEOUT=%s: expected a number of seconds", t);
        return false;
    }
    return true;
}

/* The C worker: the lossfuzz binary named, else this program when it is
 * lossfuzz, else the lossfuzz of this program's build: beside it (build/
 * bench_exec) or one folder up (DIR/fuzzers/fuzz_x -> DIR/lossfuzz), with the
 * same kernels, planted bug and sanitizers. */
static bool worker_binary(const lf_paths_config *cfg, char *out, size_t outlen, char *err, size_t errlen)
{
    const char *w = cfg->worker ? cfg->worker : getenv("LOSSFUZZ_WORKER");
    if (w && *w) {
        snprintf(out, outlen, "%s", w);
    } else {
        char self[4000]; /* room for "/lossfuzz" in a 4096-byte path */
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        char *slash = n > 0 ? (self[n] = 0, strrchr(self, '/')) : NULL;
        if (!slash) {
            snprintf(err, errlen, "cannot find this program to start workers");
            return false;
        }
        snprintf(out, outlen, "%s", self);
        if (strcmp(slash + 1, "lossfuzz")) { /* not lossfuzz: beside it, else one folder up */
            *slash = 0;
            snprintf(out, outlen, "%s/lossfuzz", self);
            if (access(out, X_OK) && (slash = strrchr(self, '/'))) {
                *slash = 0;
                snprintf(out, outlen, "%s/lossfuzz", self);
            }
        }
    }
    if (access(out, X_OK)) {
        snprintf(err, errlen, "worker %s is not an executable lossfuzz (set LOSSFUZZ_WORKER)", out);
        return false;
    }
    return true;
}

/* An interpreter by name: as given when it has a slash, else found on $PATH. */
static bool find_program(const char *name, char *out, size_t outlen)
{
    if (strchr(name, '/')) {
        snprintf(out, outlen, "%s", name);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(out, outlen, "%.*s/%s", (int)len, path, name);
        if (len && access(out, X_OK) == 0) return true;
        path += len + (path[len] == ':');
    }
    return false;
}

/* A Python worker under the first interpreter that has torch:
 * $LOSSFUZZ_PYTHON, else the project's .venv (ci/setup.sh: torch 2.15 and its
 * triton), else the python3 beside the lossfuzz executable (the virtual
 * environment pip installed it into), else python3 on $PATH, else
 * /usr/bin/python3. It serves PyTorch itself, or with kernel
 * (py:MODULE:FUNCTION) that callable. */
static lf_exec *start_python(const lf_paths_config *cfg, const char *kernel, char *err, size_t errlen)
{
    const char *script = getenv("LOSSFUZZ_PYTHON_WORKER");
    char path[4096], tried[1024] = "", worker[4096], venv[4096], beside[4096];
    lf_data_path("python/lossfuzz_worker.py", worker, sizeof worker); /* the source tree's, or the installed one */
    bool has_venv = lf_data_path(".venv/bin/python3", venv, sizeof venv);
    bool in_env = lf_beside_exe("python3", beside, sizeof beside);
    if (!script || !*script) script = worker;
    const char *env_py = getenv("LOSSFUZZ_PYTHON");
    const char *candidates[] = {env_py && *env_py ? env_py : NULL, has_venv ? venv : NULL, in_env ? beside : NULL,
                                "python3", "/usr/bin/python3"};
    const char *device = strcmp(cfg->backend, "cuda") ? "cpu" : "cuda";
    json_t *facts = lf_describe(); /* the loss table: the worker keeps no copy */
    char *describe = json_dumps(facts, JSON_COMPACT);
    json_decref(facts);
    lf_exec *started = NULL;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (!candidates[i] || !find_program(candidates[i], path, sizeof path)) continue;
        char world[16];
        snprintf(world, sizeof world, "%d", cfg->world_size);
        const char *argv[] = {path,
                              script,
                              "--describe",
                              describe ? describe : "",
                              "--device",
                              device,
                              kernel ? "--kernel" : NULL,
                              kernel,
                              cfg->world_size && kernel ? "--world-size" : NULL,
                              world,
                              NULL};
        lf_exec_options o = {kernel ? "kernel worker" : "torch worker", argv, cfg->timeout_s, 0, 0, cfg->no_spare};
        char why[400];
        if ((started = lf_exec_start(&o, why, sizeof why))) break;
        const char *kernel_error = kernel ? strstr(why, "--kernel ") : NULL;
        if (kernel_error) { /* torch is there; the kernel does not load, and would not under another Python */
            snprintf(err, errlen, "%s (under %s)", kernel_error, path);
            free(describe);
            return NULL;
        }
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s  %.200s: %.300s", used ? "\n" : "", path, why);
        if (env_py && *env_py) break; /* the one asked for, or none */
    }
    free(describe);
    if (started) return started;
    snprintf(err, errlen, "no Python with torch could run the %s (set LOSSFUZZ_PYTHON):\n%s",
             kernel ? "kernel under test" : "PyTorch worker", tried[0] ? tried : "  no python3 found");
    return NULL;
}

/* The kernel under test in its own worker: a Python worker that imports
 * py:MODULE:FUNCTION, or a C worker that loads LIB.so, given by its absolute
 * path (workers may run elsewhere). */
static lf_exec *start_kernel_under_test(const lf_paths_config *cfg, char *err, size_t errlen)
{
    char bin[4096], lib[4096];
    if (!strncmp(cfg->kernel, "py:", 3)) return start_python(cfg, cfg->kernel + 3, err, errlen);
    if (!realpath(cfg->kernel, lib)) {
        snprintf(err, errlen, "kernel library %s: %s", cfg->kernel, strerror(errno));
        return NULL;
    }
    if (!worker_binary(cfg, bin, sizeof bin, err, errlen)) return NULL;
    const char *argv[] = {bin, "worker", "--backend", cfg->backend, "--kernel", lib, NULL};
    lf_exec_options o = {"kernel worker", argv, cfg->timeout_s, 0, 0, cfg->no_spare};
    return lf_exec_start(&o, err, errlen);
}

static lf_exec *start_kernels(const lf_paths_config *cfg, char *err, size_t errlen)
{
    char bin[4096];
    if (!worker_binary(cfg, bin, sizeof bin, err, errlen)) return NULL;
    const char *argv[] = {bin, "worker", "--backend", cfg->backend, "--asserts", cfg->hard_asserts ? "hard" : "soft",
                          NULL};
    int gpus = strcmp(cfg->backend, "cuda") ? 0 : lf_exec_visible_gpus();
    lf_exec_options o = {
        strcmp(cfg->backend, "cuda") ? "sim worker" : "cuda worker", argv, cfg->timeout_s, 0, gpus, cfg->no_spare};
    return lf_exec_start(&o, err, errlen);
}

const lf_backend *lf_paths_open(const lf_paths_config *cfg, char *err, size_t errlen)
{
    const char *why;
    bool out_of_process = cfg->executor || cfg->hard_asserts;
    const lf_backend *base = out_of_process ? lf_sim_backend() : lf_backend_find(cfg->backend, &why);
    if (!base) {
        snprintf(err, errlen, "%s", why);
        return NULL;
    }
    if (!out_of_process && !cfg->torch && !cfg->kernel) return base;
    lf_backend *be = malloc(sizeof *be);
    *be = *base; /* with exec set, the oracle sends the kernel paths to workers, never to these */
    be->name = cfg->backend;
    be->exec = be->torch = be->kernel = NULL;
    if ((out_of_process && !(be->exec = start_kernels(cfg, err, errlen))) ||
        (cfg->torch && !(be->torch = start_python(cfg, NULL, err, errlen))) ||
        (cfg->kernel && !(be->kernel = start_kernel_under_test(cfg, err, errlen)))) {
        lf_exec_stop(be->exec);
        lf_exec_stop(be->torch);
        free(be);
        return NULL;
    }
    return be;
}

void lf_paths_close(const lf_backend *be)
{
    if (!be || (!be->exec && !be->torch && !be->kernel)) return; /* a static backend, in process */
    lf_exec_stop(be->exec);
    lf_exec_stop(be->torch);
    lf_exec_stop(be->kernel);
    free((void *)be);
}

const lf_kernel_claims *lf_paths_kernel_claims(const lf_backend *be)
{
    return be && be->kernel ? lf_exec_kernel_claims(be->kernel) : NULL;
}

const char *lf_paths_kernel_name(const lf_backend *be)
{
    const lf_kernel_claims *k = lf_paths_kernel_claims(be);
    return k ? k->name : NULL;
}
