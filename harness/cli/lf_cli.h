/* lf_cli.h - the lossfuzz command's subcommands, exit statuses, and what they
 * share: option parsing (getopt_long, the same messages everywhere), the
 * version, and progress on long cases. */
#ifndef LF_CLI_H
#define LF_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "lf_fuzz.h"
#include "lf_oracle.h"

/* When a run has both findings and unusable files, 2 wins: the run did not check everything. */
enum { LF_EXIT_PASS = 0, LF_EXIT_FINDING = 1, LF_EXIT_UNUSABLE = 2 };

int lf_cmd_check(int argc, char **argv);
int lf_cmd_show(int argc, char **argv);
int lf_cmd_minimize(int argc, char **argv);
int lf_cmd_encode(int argc, char **argv);
int lf_cmd_repro(int argc, char **argv);

/* Options every command takes. */
#define LF_CLI_COMMON_OPTIONS {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}

/* getopt_long over a command's arguments (argv[0] is the command's name;
 * options and files may mix, --opt=value works). Returns the next option's
 * val, or -1 after the last (then argv[optind..] are the files). --help and
 * --version are printed here and return 'h' / 'V'; a bad option is reported
 * and returns '?'. */
int lf_cli_next_option(int argc, char **argv, const struct option *opts, const char *usage);

void lf_cli_print_version(void);

/* --target T: a fuzz target whose crash files a command may read. false: the
 * problem is printed, naming the command. */
bool lf_cli_parse_target(const char *command, const char *name, lf_target *out);
/* --backend B: the backend, or NULL after printing why it cannot be had. */
const lf_backend *lf_cli_backend(const char *command, const char *name);

/* Progress on stderr for a case that takes seconds: its size once loaded, the
 * oracle's stages with their times (lf_oracle_check_progress's callback), and
 * a heartbeat line every few seconds, from begin to end ($LOSSFUZZ_PROGRESS:
 * always, never, or by default once a case has taken a second). */
typedef struct {
    const char *command, *file;
    double start_ms, stage_ms;
    const char *stage;
    int mode;              /* 1 always, -1 never, 0 auto */
} lf_cli_progress;
double lf_cli_now_ms(void);
void lf_cli_progress_begin(lf_cli_progress *p, const char *command, const char *file);
void lf_cli_progress_loaded(lf_cli_progress *p, const lf_case *c);
void lf_cli_progress_stage(void *progress, const char *stage);
void lf_cli_progress_end(lf_cli_progress *p);

#endif
