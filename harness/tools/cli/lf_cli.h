/* lf_cli.h - the lossfuzz command's subcommands, exit statuses, and what they
 * share: option parsing (getopt_long, the same messages everywhere), the
 * version, and progress on long cases. */
#ifndef LF_CLI_H
#define LF_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "lf_paths.h"
#include "lf_bytes.h"
#include "lf_oracle.h"

/* When a run has both findings and unusable files, 2 wins: the run did not check everything. */
enum { LF_EXIT_PASS = 0, LF_EXIT_FINDING = 1, LF_EXIT_UNUSABLE = 2 };

int lf_cmd_check(int argc, char **argv);
int lf_cmd_show(int argc, char **argv);
int lf_cmd_minimize(int argc, char **argv);
int lf_cmd_encode(int argc, char **argv);
int lf_cmd_repro(int argc, char **argv);
int lf_cmd_worker(int argc, char **argv);
int lf_cmd_fuzz(int argc, char **argv);
int lf_cmd_report(int argc, char **argv);
int lf_cmd_export(int argc, char **argv);
/* A campaign's entries as plain-torch scripts beside their repros (lf_cmd_export.c); false, said, on failure. */
bool lf_export_campaign(const char *dir);

/* A campaign's report in DIR (and, with junit, as JUnit XML): the number of
 * findings (-1: not written, said on stderr); *entries counts the accepted too. */
int lf_cli_campaign_report(const char *dir, const lf_backend *be, const char *kernel, const char *title,
                           const char *junit, int *entries);

/* Options every command takes. */
#define LF_CLI_COMMON_OPTIONS                                                                                          \
    {"help", no_argument, NULL, 'h'}, { "version", no_argument, NULL, 'V' }

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
/* Where the paths run, for every command that runs cases (lf_paths.h). */
#define LF_CLI_PATH_OPTIONS                                                                                            \
    {"backend", required_argument, NULL, 'b'}, {"asserts", required_argument, NULL, 'a'},                              \
        {"executor", no_argument, NULL, 'E'}, {"torch", no_argument, NULL, 'T'},                                       \
        {"timeout", required_argument, NULL, 'W'}, {"world-size", required_argument, NULL, 'R'},                       \
    {                                                                                                                  \
        "kernel", required_argument, NULL, 'K'                                                                         \
    }
#define LF_CLI_PATH_HELP                                                                                               \
    "  --backend B     where kernels run: sim (the CPU simulation, default) or cuda\n"                                 \
    "  --asserts M     soft (default: a failed kernel assert is recorded) or hard (a real\n"                           \
    "                  device assert, as PyTorch users hit it: run in worker processes\n"                              \
    "                  that die with it and are replaced)\n"                                                           \
    "  --executor      run the kernels in worker processes even with soft asserts\n"                                   \
    "  --torch         also run real PyTorch (a Python worker; CUDA with --backend cuda)\n"                            \
    "                  and check it against the spec\n"                                                                \
    "  --timeout S     a worker that takes longer than S seconds on a case is a hang (60)\n"                           \
    "  --kernel K      the kernel under test, judged against the spec: LIB.so (a library\n"                            \
    "                  built against include/lossfuzz/kernel.h) or py:MODULE:FUNCTION\n"                               \
    "  --world-size W  a vocabulary-parallel py: kernel, run on W ranks in one torch.distributed\n"                    \
    "                  group, each given its shard of the classes (docs/llm-cross-entropy.md)\n"
/* Handles option o of LF_CLI_PATH_OPTIONS into cfg: 1 handled, 0 not one of
 * them, -1 a bad value (printed, naming the command). */
int lf_cli_path_option(const char *command, int o, const char *arg, lf_paths_config *cfg);
void lf_cli_paths_default(lf_paths_config *cfg);
bool lf_cli_parse_asserts(const char *command, const char *name, bool *hard);
/* The backend for cfg (workers started), or NULL after printing why it cannot be had. */
const lf_backend *lf_cli_backend(const char *command, const lf_paths_config *cfg);

/* Progress on stderr for a case that takes seconds: its size once loaded, the
 * oracle's stages with their times (lf_oracle_check_progress's callback), and
 * a heartbeat line every few seconds, from begin to end ($LOSSFUZZ_PROGRESS:
 * always, never, or by default once a case has taken a second). */
typedef struct {
    const char *command, *file;
    double start_ms, stage_ms;
    const char *stage;
    int mode; /* 1 always, -1 never, 0 auto */
} lf_cli_progress;
void lf_cli_progress_begin(lf_cli_progress *p, const char *command, const char *file);
void lf_cli_progress_loaded(lf_cli_progress *p, const lf_case *c);
void lf_cli_progress_stage(void *progress, const char *stage);
void lf_cli_progress_end(lf_cli_progress *p);

#endif
