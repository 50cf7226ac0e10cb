/* lf_minimize.h - structural minimization of a case: fewer dims, smaller
 * batch, fewer classes, simpler dtypes, default options, simpler values, as
 * long as the case keeps its signature: its finding class when it has one
 * (a fuzzer's crash), else its spec outcome, error class and the guard's hint
 * (a user's repro: a void-255 mask stays a void-255 mask). */
#ifndef LF_MINIMIZE_H
#define LF_MINIMIZE_H

#include "lf_backend.h"
#include "lf_oracle.h"

typedef struct {
    char signature
        [LF_SIGNATURE_MAX]; /* "guard-miss/label_out_of_range", or "device_assert/label_out_of_range/void_255" */
    char hint[32];          /* the guard's hint id, kept too ("": none); part of an outcome's signature already */
    int steps;              /* accepted simplifications */
    int tries;              /* oracle runs */
    int64_t elements;       /* input + target elements of the case now */
    double elapsed_ms;
    bool cut_short; /* stopped at max_ms: the smallest case so far, not a fixpoint */
} lf_minimize_stats;

/* The case's signature (what minimization keeps), run in a child process. */
void lf_signature(const lf_case *c, const lf_backend *be, char *out, size_t len);
/* The same, and the guard's hint id (a finding's signature does not name it). */
void lf_signature_hint(const lf_case *c, const lf_backend *be, char *out, size_t len, char *hint, size_t hintlen);
/* The same, and whether the kernel under test was not sent the case (it
 * does not claim what the case uses): then no finding says nothing of it. */
void lf_signature_probe(const lf_case *c, const lf_backend *be, char *out, size_t len, bool *kernel_skipped);
/* The signature of a case without a finding, from its spec and guard results. */
void lf_signature_of(const lf_result *spec, const lf_result *guard, char *out, size_t len);
/* Whether a signature names a finding (guard-miss/..., crash/...), not an outcome. */
bool lf_signature_is_finding(const char *sig);

typedef struct {
    const char *keep; /* the signature to keep; NULL: the case's own */
    bool keep_class;  /* keep only its finding class: the call's traits may go (a campaign's
                            * canonical signature is the minimized case's: lf_finding_signature) */
    bool keep_layout; /* a user's repro: keep the rank (so the kernel), the classes, and
                            * one slice of every dim; only rows and positions go */
    double max_ms;    /* stop trying after this long (0: no bound), keeping the smallest case so far */
    void (*progress)(void *arg, const lf_minimize_stats *st); /* after every try */
    void *progress_arg;
} lf_minimize_opts;

/* The case with an input (and target, mask) without elements given a row: 1 in each empty dim, 2 classes,
 * labels 0, logits apart; the class weights go with no classes. false where it cannot (a fused linear). */
bool lf_case_fill_empty(lf_case *x);
/* Whether the target is probabilities shaped as the input (or BCE's): their class dim is the input's. */
bool lf_case_prob_shaped(const lf_case *c);

/* Minimizes *c in place (opts may be NULL); returns false only when out of
 * memory. A candidate is kept when it has the same signature and the same
 * guard hint as *c: a finding keeps the hint it was found with. */
bool lf_minimize(lf_case *c, const lf_backend *be, const lf_minimize_opts *opts, lf_minimize_stats *stats);

/* Crops a large case to one row (all classes kept) and, unless whole_rows, one
 * spatial position: the one holding flat target position `focus` (an
 * assert's index), or the first. */
bool lf_crop(lf_case *c, int64_t focus, bool whole_rows);

/* A crop of a user's batch that keeps its diagnosis `signature` (or shows a
 * finding): one row and one position at `focus`, else one whole row, else
 * the batch itself when it is small. *out gets its own copies, sig the crop's
 * signature. false with err when none does, or when out of memory. */
bool lf_crop_keeping(const lf_case *c, const lf_backend *be, const char *signature, int64_t focus, lf_case *out,
                     char *sig, size_t siglen, char *err, size_t errlen);

/* *out: a copy of c cropped to one row and one position at `focus`. */
bool lf_crop_copy(const lf_case *c, int64_t focus, lf_case *out);

/* Where in a batch to crop: the asserting target, or the guard's first bad one. */
int64_t lf_batch_focus(const lf_result *spec, const lf_result *guard);

/* lf_crop_keeping for a user's batch whose spec and guard results are given:
 * the crop keeps their signature (lf_signature_of), focused where they point. */
bool lf_batch_crop(const lf_case *batch, const lf_backend *be, const lf_result *spec, const lf_result *guard,
                   lf_case *out, char *sig, size_t siglen, char *err, size_t errlen);

/* Minimizes such a crop in place keeping `sig` and its layout; false with err
 * when there is nothing to keep (PyTorch accepts the batch, no path
 * disagrees: spec is the batch's) or when out of memory. `limits` (may be
 * NULL) gives max_ms and progress; its keep and keep_layout are not used. */
bool lf_minimize_crop(lf_case *crop, const char *sig, const lf_result *spec, const lf_backend *be,
                      const lf_minimize_opts *limits, lf_minimize_stats *st, char *err, size_t errlen);

/* lf_batch_crop, then lf_minimize_crop: a user's batch as a regression case. */
bool lf_minimize_batch(const lf_case *batch, const lf_backend *be, const lf_result *spec, const lf_result *guard,
                       const lf_minimize_opts *limits, lf_case *out, lf_minimize_stats *st, char *err, size_t errlen);

/* Sets expect / expect_error from the spec and a note naming the signature
 * (and the kernel under test, when not NULL), and makes small tensors
 * explicit lists, so the case reads as a regression. */
void lf_make_regression(lf_case *c, const char *signature, const char *kernel);

/* lf_make_regression, then writes the case atomically as
 * DIR/<signature>-<content hash>.json; `path` gets that path, `existed` whether
 * it was there already (minimizing a minimized case changes nothing). */
bool lf_save_regression(lf_case *c, const char *signature, const char *kernel, const char *dir, char *path, size_t len,
                        bool *existed);

#endif
