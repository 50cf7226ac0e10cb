/* lf_minimize.h - structural minimization of a case: fewer dims, smaller
 * batch, fewer classes, simpler dtypes, default options, simpler values, as
 * long as the case keeps its signature: its finding class when it has one
 * (a fuzzer's crash), else its spec outcome, error class and the guard's hint
 * (a user's repro: a void-255 mask stays a void-255 mask). */
#ifndef LF_MINIMIZE_H
#define LF_MINIMIZE_H

#include "lf_backend.h"

typedef struct {
    char signature[128];   /* "guard-miss/label_out_of_range", or "device_assert/label_out_of_range/void_255" */
    int steps;             /* accepted simplifications */
    int tries;             /* oracle runs */
} lf_minimize_stats;

/* The case's signature (what minimization keeps). */
void lf_signature(const lf_case *c, const lf_backend *be, char *out, size_t len);

/* Minimizes *c in place; returns false only when out of memory. */
bool lf_minimize(lf_case *c, const lf_backend *be, lf_minimize_stats *stats);

/* Crops a large case to one row and one spatial position (all classes kept):
 * the one holding flat target position `focus` (an assert's index), or the
 * first. Done before minimizing a real-size dump, which would be slow whole. */
bool lf_crop(lf_case *c, int64_t focus);

/* Sets expect / expect_error from the spec and a note naming the signature,
 * and makes small tensors explicit lists, so the case reads as a regression. */
void lf_make_regression(lf_case *c, const char *signature);

/* lf_make_regression, then writes the case atomically as
 * DIR/<signature>-<content hash>.json; `path` gets that path, `existed` whether
 * it was there already (minimizing a minimized case changes nothing). */
bool lf_save_regression(lf_case *c, const char *signature, const char *dir, char *path, size_t len, bool *existed);

#endif
