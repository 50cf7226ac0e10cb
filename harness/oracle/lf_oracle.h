/* lf_oracle.h - the properties every case must satisfy, and the findings when
 * one does not. Per case: the guard rejects whatever PyTorch raises for or
 * asserts on (else guard-miss), accepts whatever PyTorch accepts (else
 * false-alarm), rejects it the way PyTorch does - the same error class and
 * first offending element (else diagnosis-mismatch) - the reference behaves
 * like PyTorch (else reference-mismatch),
 * accepted cases give the spec's numbers on every path within the dtype's
 * tolerance, NaN-safe (else value-mismatch), and a case's recorded `expect`
 * still holds (else expect-mismatch). Where the case asks for backward, both
 * paths give the spec's d input (else grad-mismatch/reference,
 * grad-mismatch/guard, grad-missing/...), and the reference's backward
 * kernels assert where PyTorch's do (spec_backward; else reference-mismatch). Memory safety is watched by ASan on the
 * simulation: a stray access aborts the process with its report.
 * With a torch worker (lf_paths.h), PyTorch itself is a fourth path,
 * judged against the spec (else torch-mismatch) unless a documented version
 * or device difference explains it (lf_torch_known.c).
 * With a kernel under test, it is judged against the spec too
 * (lf_kernel_verdict.c): the same numbers on valid calls (value-mismatch/kernel,
 * shape-mismatch/kernel, dtype-mismatch/kernel) and no rejection there
 * (false-alarm/kernel); on calls PyTorch rejects, a guarded kernel must reject
 * (kernel-miss/<class>) for PyTorch's class of error (diagnosis-mismatch/kernel:
 * a Python kernel's exception class) and never assert (kernel-assert/<class>),
 * and an unguarded one must not return a number (kernel-silent/<class>) and may
 * assert only where PyTorch asserts; an exception on the CPU is a rejection,
 * never an assert (a real device assert kills the worker); a kernel that claims backward must leave
 * every tensor it is given as it was (input-modified/kernel) and give the
 * spec's gradients (grad-mismatch/kernel, grad-missing/kernel, grad-error/kernel,
 * grad-shape-mismatch/kernel, grad-dtype-mismatch/kernel), also when its input
 * is an output softmax saved (upstream-grad-mismatch/kernel); an out-of-bounds access
 * (oob-read/kernel, oob-write/kernel), a crash or a hang is a finding always.
 * A worker that crashed, hung or broke its device on a path is a finding of
 * its own (crash/, hang/, cuda-error/<path>); a real device assert (hard
 * asserts) is compared by kernel and condition, CUDA's line naming no element.
 * Where PyTorch returns a number that is not the loss the labels ask for (the
 * spec's `silent`, e.g. label_truncated), the guard must reject the call under
 * that class: a pass of its own (guarded_silent), never a false alarm.
 * A finding is named "<property>/<detail>", e.g. guard-miss/label_out_of_range:
 * the fuzzers' crash signature and a regression's name. */
#ifndef LF_ORACLE_H
#define LF_ORACLE_H

#include "lf_backend.h"
#include "lf_kernel_claims.h"

/* The finding classes' one list (lf_findings.def): the entry a class or
 * signature ("PROPERTY/DETAIL...") belongs to, or -1; the i-th entry's
 * property (NULL past the last), harm rank (LF_HARM_*: a campaign report's
 * order) and meaning. */
enum { LF_HARM_SILENT, LF_HARM_MEMORY, LF_HARM_CRASH, LF_HARM_REJECTION, LF_HARM_COUNT };
int lf_finding_find(const char *cls);
const char *lf_finding_at(int i, int *harm, const char **what);
/* Whether a finding of class cls is a mechanism of its own in a report (lf_findings.def's CAUSE: OWN). */
bool lf_finding_own_cause(const char *cls);
const char *lf_harm_label(int harm); /* a rank's heading: "Silent wrong values or gradients", ... */

#define LF_SIGNATURE_MAX 192 /* a finding's signature, NUL included (lf_finding_signature) */

/* A known difference (lf_torch_known.def): where PyTorch on a device or version answers otherwise by design. */
typedef struct {
    const char *id, *device, *since, *until, *source, *what;
} lf_known_difference;
/* An entry and its rule: whether a case and PyTorch's answer t (or a kernel's, on a PyTorch of its own) are
 * the difference it describes, against the spec's s. A loss's own are in its row (lf_loss_row.h). */
typedef struct lf_known_rule {
    lf_known_difference entry;
    bool (*rule)(const lf_case *c, const lf_result *s, const lf_result *t);
} lf_known_rule;
/* The rules' shared questions: both answers ok; r a host error of class `error` (NULL: any), or a kernel's
 * rejection in its own words where PyTorch's own is not "unsupported". */
bool lf_known_both_ok(const lf_result *s, const lf_result *t);
bool lf_known_host_error(const lf_result *r, const char *error);

typedef struct {
    /* The results first: lf_oracle_check initializes each (lf_result_init)
     * and zeroes every field from backward_asked on. */
    lf_result spec, reference, guard;
    lf_result torch;  /* real PyTorch, when the backend has a torch worker */
    lf_result kernel; /* the kernel under test (harness/runtime/under_test), when the backend has one */
    lf_result spec_grad[LF_GRAD_PARTS]; /* the spec's gradients, when the kernel returned one (lf_spec_grad) */
    /* The built-in paths were asked for backward (an upstream gradient, an
     * input that requires grad): their d input is judged against spec_grad,
     * and the reference's backward asserts against spec_backward (kind NONE
     * where PyTorch's backward kernels assert nothing). */
    lf_result spec_backward;
    bool backward_asked;
    bool has_torch;
    bool has_kernel;      /* it ran on the case */
    char kernel_skip[96]; /* it was not sent the case: what the case uses that it does not claim */
    /* a known PyTorch version or device difference explains the answer of torch (or of a Python kernel, on the
     * PyTorch it runs on): lf_torch_known.def's entry */
    const lf_known_difference *torch_known;
    bool finding;
    bool guarded_silent; /* a pass: the guard rejects what PyTorch silently miscomputes */
    char finding_class[96];
    char signature
        [LF_SIGNATURE_MAX]; /* the class, and what the call has where the class lumps bugs (lf_finding_sig.c) */
    /* A deviation the kernel's claims explain (no finding then): its
     * signature and the claims' reason; "" when none. */
    char accepted_signature[LF_SIGNATURE_MAX], accepted[256];
    char detail[512];
} lf_verdict;

/* Runs the three paths on the backend and judges them. */
void lf_oracle_check(const lf_case *c, const lf_backend *be, lf_verdict *v);

/* The same, calling progress(ctx, path) before each path and (ctx, NULL) after
 * the last: a case of 2^28 elements takes a while. */
typedef void (*lf_progress_fn)(void *ctx, const char *stage);
void lf_oracle_check_progress(const lf_case *c, const lf_backend *be, lf_verdict *v, lf_progress_fn progress,
                              void *ctx);
void lf_verdict_free(lf_verdict *v);

/* The known difference that explains PyTorch's answer on that device and
 * version (the spec models PyTorch 2.15 on CUDA), or NULL (lf_torch_known.c). */
const lf_known_difference *lf_torch_known_difference(const lf_case *c, const lf_result *spec, const lf_result *torch,
                                                     const char *device, const char *version);
/* The list's i-th entry, then the leniencies' (lf_leniency_at), NULL past their end. */
const lf_known_difference *lf_known_difference_at(int i);
/* Where PyTorch accepts a call its documentation excludes (lf_leniency.def): the entry whose rule picks the case,
 * when a kernel (k) refuses such a call PyTorch accepts (s), else NULL; lf_leniency_at: the i-th entry or NULL. */
const lf_known_difference *lf_leniency_of(const lf_case *c, const lf_result *s, const lf_result *k);
const lf_known_difference *lf_leniency_at(int i);

/* A finding's signature: its class, plus, for the classes that lump
 * unrelated bugs (false-alarm, value-, grad-, shape-, dtype-mismatch), the
 * traits of the call that tell them apart, e.g.
 * "false-alarm/kernel[cross_entropy,empty,float32,mean]". */
void lf_finding_signature(const lf_case *c, const char *cls, char *out, size_t len);
/* The same without the dtype and layout traits: a campaign minimizes the
 * first case of each key (keeping the class), and the minimized case's
 * signature is the one it reports: the traits the bug needs, and only those. */
void lf_finding_key(const lf_case *c, const char *cls, char *out, size_t len);

/* The check a kernel lacks where it answers a call PyTorch refuses with
 * `error` (its class): that class, but for a kernel whose claims say it
 * flattens its targets (targets_flattened) "target_count", the one count
 * behind all of PyTorch's target shape refusals, and for a kernel sent a float
 * target of another shape as probabilities "prob_target_shape" (PyTorch
 * reads it as class indices: target_dtype, target_shape, ...). k may be NULL. */
const char *lf_missing_check(const lf_case *c, const lf_kernel_claims *k, const char *error);

/* NaN-safe closeness of a path's value to the spec's, per output dtype. */
bool lf_values_close(double spec, double scale, double got, lf_dtype out_dtype);

#endif
