/* lf_fuzz_run.h - one process of a `lossfuzz fuzz` campaign (lf_fuzz_run.c). */
#ifndef LF_FUZZ_RUN_H
#define LF_FUZZ_RUN_H

#include "lf_cli.h"

typedef struct {
    lf_target target;
    double seconds;
    unsigned seed;         /* the mutator's: each job of a campaign has its own */
    const char *seeds_dir; /* the seed corpus */
    const char *out_dir;   /* the campaign's directory (harness/tools/campaign) */
    bool first_only;       /* stop at the first finding */
} lf_fuzz_job;

typedef struct {
    long cases, hits, ran;
} lf_fuzz_counts; /* ran: by the kernel under test (the rest lie outside its claims) */

/* Fuzzes for job->seconds on be, every finding into the campaign's ledger. */
lf_fuzz_counts lf_fuzz_run(const lf_fuzz_job *job, const lf_backend *be);

#endif
