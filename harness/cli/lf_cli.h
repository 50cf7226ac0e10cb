/* lf_cli.h - the lossfuzz command's subcommands and exit statuses. */
#ifndef LF_CLI_H
#define LF_CLI_H

enum { LF_EXIT_PASS = 0, LF_EXIT_FINDING = 1, LF_EXIT_UNUSABLE = 2 };

int lf_cmd_minimize(int argc, char **argv);
int lf_cmd_encode(int argc, char **argv);
int lf_cmd_repro(int argc, char **argv);

#endif
