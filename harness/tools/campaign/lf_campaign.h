/* lf_campaign.h - a campaign that keeps going: every distinct finding
 * signature (lf_finding_signature) is kept once - its first case, then
 * minimized - and later hits are counted, not saved again. On disk, so that
 * every process of a campaign (lossfuzz fuzz, libFuzzer's -fork children,
 * AFL++ instances) shares one ledger:
 *   DIR/start           the campaign's start, wall-clock ms
 *   DIR/ledger          a line per hit: "<ms since the start>\t<signature>\t<accepted reason or ->"
 *   DIR/first/STEM.json the first case of a signature, created exclusively (the first process wins)
 *   DIR/keys/HASH       "<finding key>\t<signature>": what a key's first case minimized to
 *   DIR/repros/         the minimized cases (lossfuzz minimize), each a regression forever
 *   DIR/excused         a line per case a listed PyTorch difference excused: its id (lf_torch_known.def)
 * lf_campaign_report reads them back into DIR/report.md and DIR/report.json. */
#ifndef LF_CAMPAIGN_H
#define LF_CAMPAIGN_H

#include "lf_backend.h"
#include "lf_oracle.h"

typedef struct {
    char signature[LF_SIGNATURE_MAX];
    char accepted[256]; /* the claims' reason where the kernel deviates on purpose; "" otherwise */
    long hits;
    double first_s; /* seconds from the campaign's start to its first hit */
} lf_campaign_entry;

/* Starts a campaign in DIR (made if missing): its start time goes to
 * DIR/start (wall-clock ms; a script may write it first, `date +%s%3N`),
 * unless a process of the same campaign wrote it already. fresh: an earlier
 * campaign's ledger, first cases and report go first (its repros stay).
 * false: DIR unwritable. */
bool lf_campaign_begin(const char *dir, bool fresh);

/* Seconds since the campaign in DIR began (its DIR/start). */
double lf_campaign_elapsed_s(const char *dir);

/* Records a hit of `signature` (c: its case); *is_new says whether it is the
 * signature's first, whose case went to DIR/first. false: DIR unwritable. */
bool lf_campaign_record(const char *dir, const char *signature, const char *accepted, const lf_case *c, bool *is_new);

/* Records a case a listed PyTorch difference (lf_torch_known.def) excused:
 * a line "<id>" in DIR/excused, counted in the report. false: DIR unwritable. */
bool lf_campaign_excuse(const char *dir, const char *known_id);

/* One process's part in a campaign (lf_campaign_hit.c): the keys of the
 * findings it met, each with the signature its first case minimized to. */
typedef struct lf_campaign lf_campaign;
/* minimize_ms: how long a key's first case may be minimized (within the
 * engine's time limit for one input, in a fuzz target). NULL: out of memory. */
lf_campaign *lf_campaign_open(const char *dir, double minimize_ms);
void lf_campaign_close(lf_campaign *k);
/* A case's verdict into the campaign: a finding (its key's first case
 * minimized, into DIR/repros, and said on stdout) or an accepted deviation
 * (recorded as it is), counted in the ledger. c may be minimized in place.
 * true: a signature the campaign had not met. */
bool lf_campaign_hit(lf_campaign *k, lf_case *c, const lf_verdict *v, const lf_backend *be);
/* How many finding keys this process met. */
int lf_campaign_keys(const lf_campaign *k);

/* The ledger's signatures, in the order first found, with their hits;
 * *n of them into a malloc'ed array (NULL, 0 without a ledger). */
lf_campaign_entry *lf_campaign_read(const char *dir, int *n);

/* The case file of an entry: a finding's minimized repro in DIR/repros (the
 * one whose note names the signature), else its first case in DIR/first. */
void lf_campaign_case_file(const char *dir, const lf_campaign_entry *e, char *out, size_t len);

/* The file stem of a signature's first case: an accepted hit's is its own,
 * so that a finding of the same signature is never hidden behind it. */
void lf_campaign_first_stem(const char *signature, bool accepted, char *stem, size_t len);

/* Harm rank of a signature for the report's order (lf_finding_harm.c):
 * 0 silent wrong values or gradients, 1 corrupted inputs and out-of-bounds
 * access, 2 crashes and hangs, 3 rejections of valid calls; what the
 * kernel's claims accept comes after all of them. Its heading in *label. */
int lf_finding_harm(const char *signature, const char **label);

/* A ledger signature re-checked for the report: its case file (the
 * minimized repro, else its first case), PyTorch's answer and the kernel's
 * now, and the entry it folds into. */
typedef struct {
    const lf_campaign_entry *e;
    char file[4600];
    char one_line[700];
    char pytorch[400], kernel[400], detail[512];
    int64_t size;    /* elements of its case: an entry's repro is its smallest variant's */
    char group[640]; /* what folds it with others: a cause, a missing check, a claim */
    char needs[192]; /* the cause's needed traits (lf_cause.h's key; "" none, or not a cause) */
    char kind[24];   /* how its numbers are wrong (a NaN as a number, ...): what tells apart causes needing nothing */
    int loss;        /* its case's loss (causes nest within a loss) */
    char cause[420];
    int harm;
    char flaky[600]; /* what each replay gave, where its case does not replay as the ledger says; "" else */
} lf_campaign_variant;

/* A report's entry: one cause (lf_cause.h: its minimal needs, every harm
 * that shows them; a finding of no needed trait, one harm), or one missing
 * check (the same bad call answered with numbers on some cases and a crash on
 * others), or one claim of the kernel's that accepts deviations. */
typedef struct {
    int harm; /* its most harmful variant's */
    const char *harm_label;
    bool accepted;
    int *members, n_members; /* its variants, first found first */
    int repro;               /* the smallest of them: the entry's case */
    long hits;
    double first_s;
    char cause[420]; /* in words: what the findings need, or the check missing, or the claim */
} lf_campaign_group;

typedef struct {
    lf_campaign_entry *ledger;
    lf_campaign_variant *v;
    int n_v;
    lf_campaign_group *g; /* most harmful first, accepted last */
    int n_g;
    struct {
        const lf_known_difference *known;
        long hits;
    } excused[64]; /* the listed differences that excused cases, in the list's order */
    int n_excused;
    int not_applied; /* ablations the causes could not apply (lf_cause.h) */
    int replays;     /* oracle runs the causes took */
    int changed;     /* of those, the ones where an ablation showed another finding (changed the bug) */
    double cause_ms; /* and their time */
} lf_campaign_entries;

/* The campaign in DIR re-checked on be and folded into entries
 * (lf_campaign_entries.c). false: out of memory. */
bool lf_campaign_entries_build(const char *dir, const lf_backend *be, lf_campaign_entries *out);
void lf_campaign_entries_free(lf_campaign_entries *x);
/* The number of entries that are findings (not accepted). */
int lf_campaign_findings(const lf_campaign_entries *x);

/* DIR/report.md and DIR/report.json: one entry per cause, by harm, each with
 * what it needs, its smallest repro in one line, PyTorch's answer beside the
 * kernel's, the command that replays it and its variants (the ledger's
 * signatures). `kernel` is the --kernel argument (NULL for lossfuzz's own
 * paths). Returns the number of entries that are findings, -1 on error. */
int lf_campaign_report(const char *dir, const lf_campaign_entries *x, const char *kernel, const char *title);

#endif
