/* What run and tune share of a campaign's command line (both run one through run.c): the
 * runner's options, parsed one way for both, the PROFILE operand, the refusal of
 * --resume beside anything that shapes a campaign, the command line as recorded and the
 * start of the campaign. */
#ifndef LOOPBENCH_RUN_OPTIONS_H
#define LOOPBENCH_RUN_OPTIONS_H

#include "run.h"

/* cli_run_option's answer when c is none of the runner's options */
#define CLI_RUN_NOT_MINE (-1)

/* Option c (its value arg) into o when it is one of the runner's options (warm-up,
 * window, CPUs, seed, interval, log limit, output, resume, keep-going, quiet): LB_EXIT_OK,
 * LB_EXIT_USAGE after saying why, or CLI_RUN_NOT_MINE. *shaping keeps the first option
 * seen that shapes a campaign (what --resume cannot take), whoever parses it. */
int cli_run_option(const char *cmd, int c, const char *arg, struct run_opts *o,
                   const char **shaping);
/* After the options: at most one PROFILE into o, and --resume with neither a profile nor
 * an option that shapes a campaign (what names the campaign's own: "profile, settings
 * and output directory"). LB_EXIT_OK or LB_EXIT_USAGE after saying why. */
int cli_run_operands(const char *cmd, int argc, char **argv, struct run_opts *o,
                     const char *shaping, const char *own);
/* "A,B,C" (--settings, --pass-env) into out, new strings; -1 when one is empty. */
int cli_split_list(const char *arg, struct strv *out);
/* "loopbench ARG..." as typed, for results.json (new string). */
char *cli_command_line(int argc, char **argv);
/* runner_begin, its notes said as warnings; -1 after saying why. */
int cli_run_begin(const struct run_opts *o, struct runner *rn);

#endif
