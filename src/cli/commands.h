/* The subcommands, dispatched from one table in main.c.
 *
 * Adding a command: write src/cli/cmd_<name>.c exporting cmd_<name>() and its usage text
 * cmd_<name>_usage[], declare both here (COMMAND(name)), add them with a one-line summary
 * to the table in src/cli/main.c (with whether it turns signals into events) and to
 * cmd_src in meson.build, list its options from src/cli/options.c (a new one added there
 * and in options.h), give it a test in tests/e2e/cli.sh (bad arguments exit 2), a section
 * in docs/cli.md and one in man/loopbench.1 (tests/e2e/manpage.sh holds it to --help). */
#ifndef LOOPBENCH_COMMANDS_H
#define LOOPBENCH_COMMANDS_H

#include <stdbool.h>

#include "options.h"

struct command {
    const char *name;
    const char *summary; /* one line for `loopbench --help` */
    const char *usage;   /* the full text of `loopbench help NAME`, ending in a newline */
    /* argv[0] is the command's name; returns an exit status (enum lb_exit). main has
     * already answered --help. */
    int (*run)(int argc, char **argv);
    /* Signals become events (plat_events_init) before it runs: it has processes to stop
     * or files to put back when interrupted. */
    bool events;
    /* A command that fills a campaign spec: its help goes on with the spec's options
     * (cli_spec_usage), usage_tail[0], the spec's later options, then usage_tail[1]; NULL
     * for the others. usage_omit: the spec's options its help leaves out (NULL: none). */
    const char *const *usage_tail;
    const enum cli_option *usage_omit;
};

/* Each command: its entry point (argv[0] is its name; returns an exit status) and the
 * text of `loopbench help NAME`. */
#define COMMAND(name)                                                                      \
    int cmd_##name(int argc, char **argv);                                                 \
    extern const char cmd_##name##_usage[]
COMMAND(run);
COMMAND(sample);
COMMAND(validate);
COMMAND(compare);
COMMAND(history);
COMMAND(report);
COMMAND(probe);
COMMAND(restore);
COMMAND(publish);
COMMAND(tune);
COMMAND(exec);
#undef COMMAND
extern const char *const cmd_run_usage_tail[2];
extern const char *const cmd_tune_usage_tail[2];
extern const enum cli_option cmd_tune_usage_omit[];

#endif
