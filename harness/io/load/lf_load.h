/* lf_load.h - the one loader: any file a user hands lossfuzz, as a case.
 *
 * A file is read as what its name says (.json, .npz, .safetensors, .npy) and
 * must then be that (its magic bytes checked); a file with another name is read
 * as what its magic bytes say. A directory is a dump of .npy files. A fuzzer's
 * crash file has no magic: it is taken only when asked (--target) or when it
 * sits where an engine writes one (libFuzzer's crash-*, AFL++'s crashes/id:*,
 * a campaign's findings/), never as a fallback for a file nothing else fits. */
#ifndef LF_LOAD_H
#define LF_LOAD_H

#include "lf_dump.h"
#include "lf_bytes.h"

typedef enum { LF_INPUT_JSON, LF_INPUT_DUMP, LF_INPUT_CRASH } lf_input_kind;

/* What backs a loaded case: dump tensors borrow the mappings. */
typedef struct {
    lf_input_kind kind;
    lf_target crash_target; /* for LF_INPUT_CRASH: whose byte format */
    lf_mapped maps[LF_DUMP_MAX_ARRAYS];
    int n_maps;
    lf_dump dump;
} lf_loaded;

/* `target`: the fuzz target named with --target, or LF_TARGET_COUNT when none
 * was. false: err says what the file is not, or what is wrong with it. */
bool lf_load(const char *path, lf_target target, lf_loaded *l, lf_case *c, char *err, size_t errlen);
void lf_unload(lf_loaded *l, lf_case *c);

/* The inputs an argument names: a file; a directory's *.json cases (sorted);
 * or a directory of .npy arrays, itself one input. Appends to *list (each
 * malloc'd); false with err for a directory holding neither. */
bool lf_load_expand(const char *arg, char ***list, int *n, char *err, size_t errlen);
void lf_load_free_list(char **list, int n);

#endif
