/* lf_loss_row.h - a loss's home (harness/losses/lf_loss_NAME.c) as every
 * floor reads it: the hooks and lists that differ between losses, in one row
 * the home defines with designated initializers. The homes sit above the
 * oracle; the spec, the guard and the oracle below reach them through
 * lf_loss_row_of alone, from the table harness/losses/lf_loss_rows.c installs
 * when the program loads, so neither an include nor a call goes up (each
 * floor's library links without those above it: harness/CMakeLists.txt): the
 * types of the floors above are named here as incomplete structs.
 * docs/architecture.md: "Add a loss". */
#ifndef LF_LOSS_ROW_H
#define LF_LOSS_ROW_H

#include "lf_case.h"
#include "lf_kernels.h"
#include "lf_result.h"

struct lf_backend;    /* lf_backend.h */
struct lf_known_rule; /* lf_oracle.h: a known difference and its rule */

/* One of PyTorch's messages and the error class it is (the Python side's table). */
typedef struct {
    const char *pattern, *error; /* a Python regular expression; the class */
} lf_torch_message;

/* One of the guard's hints (lf_hints.def's form). */
typedef struct {
    const char *id, *what;
} lf_hint_row;

typedef struct lf_loss_row {
    /* The spec (lf_spec.h): PyTorch's host checks in its order, then the
     * routing into the problem its kernels run (false: r holds the error);
     * the values; the gradients (lf_spec_grad). */
    bool (*plan)(const lf_case *c, lf_problem *p, lf_result *r);
    void (*run)(const lf_case *c, lf_result *r);
    void (*grad)(const lf_case *c, const double *upstream, lf_result g[LF_GRAD_PARTS]);
    /* A host error PyTorch raises after the loss's kernel ran (NULL: none of its own). */
    bool (*error_after)(const lf_case *c, const lf_problem *p, lf_result *r);
    /* The guard: its own host checks, which end with the routing (NULL: the
     * class-index checks of lf_guard_check.c; needs_data: the hint depends on
     * the target's values); its verdict on the elements its pass found out of
     * range (NULL: the targets' statistics judge), which replaces r where it
     * rejects; false: a read failed. */
    bool (*guard_check)(const lf_case *c, lf_problem *p, lf_result *r, bool *needs_data);
    bool (*guard_verdict)(const lf_case *c, const struct lf_backend *be, const lf_problem *p, const lf_buffers *b,
                          const lf_target_stats *st, lf_result *r);
    const lf_hint_row *hints; /* the hints its verdicts give, n_hints of them */
    int n_hints;
    /* PyTorch's messages only it raises, matched before the shared table
     * (python/lossfuzz_torch.py), and the exception, message and error class
     * (NULL: the label's) of the CPU's check where CUDA asserts (NULL: the
     * shared IndexError). */
    const lf_torch_message *messages;
    int n_messages;
    const char *cpu_assert_exception, *cpu_assert_pattern, *cpu_assert_error;
    /* The known differences only it shows (lf_torch_known.def has the shared ones). */
    const struct lf_known_rule *known;
    int n_known;
} lf_loss_row;

const lf_loss_row *lf_loss_row_of(lf_loss l);
/* The table lf_loss_row_of reads (lf_loss_rows.c's, at load). */
void lf_loss_rows_install(const lf_loss_row *const rows[LF_LOSS_COUNT]);

#define LF_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
