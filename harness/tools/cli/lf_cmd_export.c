/* lf_cmd_export.c - `lossfuzz export`: each entry of a campaign, or a repro,
 * as a standalone plain-torch script, an issue text and (--pytest) one pytest
 * file. The generator is python/lossfuzz_export.py (it writes Python, and
 * imports torch through the scripts' runtime); this command finds it and a
 * python3 as the workers do, and hands it this
 * lossfuzz to ask for the cases' facts (show --values, check --json). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lf_cli.h"
#include "lf_data.h"

static const char *usage =
    "usage: lossfuzz export [--kernel K] [--out DIR] [--pytest FILE] CAMPAIGN_DIR|REPRO.json...\n"
    "\n"
    "Writes each entry of a campaign (its report.json; the folder `lossfuzz fuzz --out`\n"
    "made), or each repro case found in kernel K, as ENTRY.py beside it: a script that\n"
    "needs only torch and the kernel's package, builds the case's tensors exactly, calls\n"
    "the kernel and PyTorch's own function, prints both and exits 1 while the bug shows,\n"
    "0 once it is gone (`python ENTRY.py MODULE:FUNCTION` runs another callable in its\n"
    "place); and ENTRY.md, an issue text for the kernel's tracker.\n"
    "  --kernel K     the kernel a repro file was found in (py:MODULE:FUNCTION)\n"
    "  --out DIR      write them here instead\n"
    "  --pytest FILE  also write the entries as one pytest file, a test per entry that\n"
    "                 fails while its bug shows\n"
    "Uses $LOSSFUZZ_PYTHON, else the project's .venv, else the python3 beside lossfuzz (the environment pip\n"
    "installed it into), else python3: the workers' order.\n";

/* The generator's command line: python3 lossfuzz_export.py --lossfuzz THIS ARGS...; NULL (said) where it is not
 * there. Free with free(). */
static char **generator(int argc, char **argv)
{
    static char script[4096], venv[4096], beside[4096], self[PATH_MAX];
    if (!lf_data_path("python/lossfuzz_export.py", script, sizeof script)) {
        fprintf(stderr, "lossfuzz export: its generator %s is not there\n", script);
        return NULL;
    }
    const char *env = getenv("LOSSFUZZ_PYTHON");
    const char *python = env && *env                                            ? env
                         : lf_data_path(".venv/bin/python3", venv, sizeof venv) ? venv
                         : lf_beside_exe("python3", beside, sizeof beside)      ? beside
                                                                                : "python3";
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    char **args = calloc((size_t)argc + 5, sizeof *args);
    if (!args) return NULL;
    int k = 0;
    args[k++] = (char *)python;
    args[k++] = script;
    args[k++] = "--lossfuzz";
    args[k++] = n > 0 ? self : "lossfuzz";
    for (int i = 0; i < argc; i++) args[k++] = argv[i];
    return args;
}

int lf_cmd_export(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? LF_EXIT_UNUSABLE : LF_EXIT_PASS;
    }
    char **args = generator(argc - 1, argv + 1);
    if (!args) return LF_EXIT_UNUSABLE;
    execvp(args[0], args);
    fprintf(stderr, "lossfuzz export: cannot run %s (set LOSSFUZZ_PYTHON to a python3)\n", args[0]);
    free(args);
    return LF_EXIT_UNUSABLE;
}

bool lf_export_campaign(const char *dir)
{
    char *one[] = {(char *)dir, "--quiet"};
    char **args = generator(2, one);
    int status = -1;
    fflush(NULL);
    pid_t pid = args ? fork() : -1;
    if (pid == 0) {
        execvp(args[0], args);
        _exit(127);
    }
    if (pid > 0) waitpid(pid, &status, 0);
    free(args);
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
