/* lf_load.c - any file a user hands lossfuzz, as a case (lf_load.h): the
 * format from the file's name, checked against its magic bytes, or from the
 * magic bytes alone; a crash file only when asked or where engines put them. */
#include "lf_load.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lf_case_json.h"

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && !strcmp(s + n - k, suffix);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Whether the directory holding `path` is named `dir`. */
static bool in_directory(const char *path, const char *dir)
{
    const char *base = base_name(path);
    size_t n = strlen(dir);
    return (size_t)(base - path) > n && !strncmp(base - n - 1, dir, n) && base[-1] == '/' &&
           (base - n - 1 == path || base[-n - 2] == '/');
}

/* Where libFuzzer (crash-<sha1>, leak-, timeout-, oom-: no extension), AFL++
 * (crashes/id:..., hangs/id:...) or ci/fuzz.sh (findings/NAME.bin, afl-crash-...)
 * leave an input. */
static bool crash_location(const char *path)
{
    static const char *const prefixes[] = {"crash-", "leak-", "timeout-", "oom-", "slow-unit-", "afl-crash-"};
    const char *base = base_name(path);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(base, prefixes[i], strlen(prefixes[i])) && !strchr(base, '.')) return true;
    if (!strncmp(base, "id:", 3) && (in_directory(path, "crashes") || in_directory(path, "hangs"))) return true;
    return in_directory(path, "findings") && has_suffix(base, ".bin");
}

/* The fuzz target a crash file's path names: a directory called
 * fuzz_class, or fuzz_class-<mutant> (fuzz-out/fuzz_prob/findings/...). */
static bool target_of_path(const char *path, lf_target *t)
{
    lf_target input;
    for (int i = 0; i < lf_fuzz_target_count(); i++) {
        const char *name = lf_fuzz_target_at(i, &input, NULL);
        size_t n = strlen(name);
        if (input == LF_TARGET_RAW) continue; /* a loader's crash file is a dump: read by its name */
        for (const char *at = strstr(path, name); at; at = strstr(at + 1, name))
            if ((at == path || at[-1] == '/') && (at[n] == '/' || at[n] == '-')) {
                *t = input;
                return true;
            }
    }
    return false;
}

/* A directory of .npy files: one array per file, named by the file. */
static bool load_npy_dir(const char *path, lf_loaded *l, lf_case *c, char *err, size_t errlen)
{
    DIR *dir = opendir(path);
    char file[4096], why[300];
    if (!dir) {
        snprintf(err, errlen, "cannot open the directory");
        return false;
    }
    l->kind = LF_INPUT_DUMP;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".npy")) continue;
        if (l->n_maps == LF_DUMP_MAX_ARRAYS) {
            snprintf(err, errlen, "more than %d .npy files", LF_DUMP_MAX_ARRAYS);
            closedir(dir);
            return false;
        }
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        lf_mapped *m = &l->maps[l->n_maps];
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n - 4 < 63 ? n - 4 : 63), e->d_name);
        if (!lf_map_file(file, m, why, sizeof why) ||
            (l->n_maps++, !lf_npy_parse(m->base, m->size, name, &l->dump.arrays[l->dump.n], why, sizeof why))) {
            snprintf(err, errlen, "%s: %s", e->d_name, why);
            closedir(dir);
            return false;
        }
        l->dump.n++;
    }
    closedir(dir);
    if (l->dump.n == 0) {
        snprintf(err, errlen, "no .npy files in this directory");
        return false;
    }
    return lf_dump_to_case(&l->dump, c, err, errlen);
}

static bool load_crash(const lf_mapped *m, lf_target t, lf_loaded *l, lf_case *c, char *err, size_t errlen)
{
    l->kind = LF_INPUT_CRASH;
    l->crash_target = t;
    if (t == LF_TARGET_JSON) return lf_case_parse_json(m->base, m->size, c, err, errlen); /* case files */
    if (lf_decode(t, m->base, m->size, c, NULL)) return true;
    snprintf(err, errlen,
             "its loss byte names no loss of %s in this lossfuzz (lf_losses.def's CODE): written by a newer one?",
             lf_target_name(t));
    return false;
}

bool lf_load(const char *path, lf_target target, lf_loaded *l, lf_case *c, char *err, size_t errlen)
{
    struct stat st;
    memset(l, 0, sizeof *l);
    lf_case_init(c);
    char names[256]; /* for the messages about crash files */
    if (target == LF_TARGET_RAW) {
        lf_fuzz_target_list(names, sizeof names, true);
        snprintf(err, errlen,
                 "--target: crash files of %s can be read; a loader target's crash file is itself the "
                 "dump (pass it by its name)",
                 names);
        return false;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return load_npy_dir(path, l, c, err, errlen);
    lf_mapped *m = &l->maps[0];
    if (!lf_map_file(path, m, err, errlen)) return false;
    l->n_maps = 1;
    lf_format named = lf_format_of_name(path), seen = lf_format_of_bytes(m->base, m->size);
    if (m->size == 0) {
        snprintf(err, errlen, "empty file%s%s", named ? ": not a " : "", named ? lf_format_name(named) : "");
        return false;
    }
    if (named == LF_FORMAT_NONE) {
        lf_target t = target;
        if (target != LF_TARGET_COUNT || (crash_location(path) && target_of_path(path, &t)))
            return load_crash(m, t, l, c, err, errlen);
        if (crash_location(path)) {
            lf_fuzz_target_list(names, sizeof names, true);
            snprintf(err, errlen, "a fuzzer's crash file: name the target that wrote it with --target (%s)", names);
            return false;
        }
        if (seen == LF_FORMAT_NONE) {
            snprintf(err, errlen,
                     "not a file lossfuzz reads: a JSON case, .npz, .safetensors, a directory of "
                     ".npy files, or a fuzzer's crash file with --target");
            return false;
        }
        named = seen;
    } else if (seen != named) {
        if (seen)
            snprintf(err, errlen, "named like a %s, but it is a %s", lf_format_name(named), lf_format_name(seen));
        else
            snprintf(err, errlen, "not a %s: it does not start with %s", lf_format_name(named), lf_format_start(named));
        return false;
    }
    if (named == LF_FORMAT_JSON) {
        l->kind = LF_INPUT_JSON;
        return lf_case_parse_json(m->base, m->size, c, err, errlen);
    }
    l->kind = LF_INPUT_DUMP;
    return lf_dump_load(m, path, &l->dump, c, err, errlen);
}

void lf_unload(lf_loaded *l, lf_case *c)
{
    lf_case_free(c);
    if (l->kind == LF_INPUT_DUMP) lf_dump_free(&l->dump);
    for (int i = 0; i < l->n_maps; i++) lf_unmap(&l->maps[i]);
    memset(l, 0, sizeof *l);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void append(char ***list, int *n, char *path)
{
    *list = realloc(*list, sizeof(char *) * (size_t)(*n + 1));
    (*list)[(*n)++] = path;
}

bool lf_load_expand(const char *arg, char ***list, int *n, char *err, size_t errlen)
{
    struct stat st;
    if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode)) {
        append(list, n, strdup(arg));
        return true;
    }
    DIR *d = opendir(arg);
    if (!d) {
        snprintf(err, errlen, "cannot read the directory");
        return false;
    }
    int first = *n, arrays = 0;
    size_t dir_len = strlen(arg);
    while (dir_len > 1 && arg[dir_len - 1] == '/') dir_len--;
    for (struct dirent *e; (e = readdir(d));) {
        arrays += has_suffix(e->d_name, ".npy");
        if (!has_suffix(e->d_name, ".json")) continue;
        char *path = malloc(dir_len + strlen(e->d_name) + 2);
        sprintf(path, "%.*s/%s", (int)dir_len, arg, e->d_name);
        append(list, n, path);
    }
    closedir(d);
    if (*n > first && arrays) { /* which was meant is not ours to guess */
        for (int i = first; i < *n; i++) free((*list)[i]);
        *n = first;
        snprintf(err, errlen,
                 "holds both .json cases and .npy arrays: put the arrays of a dump in a directory of their own");
        return false;
    }
    if (*n > first)
        qsort(*list + first, (size_t)(*n - first), sizeof(char *), cmp_str);
    else if (arrays)
        append(list, n, strdup(arg));
    else {
        snprintf(err, errlen, "no .json case files and no .npy arrays in this directory");
        return false;
    }
    return true;
}

void lf_load_free_list(char **list, int n)
{
    for (int i = 0; i < n; i++) free(list[i]);
    free(list);
}
