/* What run and tune share of a campaign's command line (both run one through run.c,
 * the spec's options bound by cli_getopt_spec): their options about this loopbench
 * (--resume, --keep-going, --quiet) and its format, the PROFILE operand and --resume's
 * refusal beside what shapes a campaign, the command line as recorded, and the campaign
 * begun. */
#ifndef LOOPBENCH_RUN_CLI_H
#define LOOPBENCH_RUN_CLI_H

#include "options.h"
#include "run.h"
#include "spec.h"

/* cli_run_flag's answer for an option that is not one of them */
#define CLI_RUN_NOT_MINE (-1)

/* --resume, --keep-going or --quiet (c) into o: LB_EXIT_OK, else CLI_RUN_NOT_MINE. */
int cli_run_flag(int c, const char *arg, struct run_opts *o);
/* Any other option c of cmd: -f/--format or --json into *format, one of allowed (a set of
 * CLI_FORMATS); else a usage error, a spec option's refused value (OPT_REFUSED) having
 * been said already. LB_EXIT_OK, or LB_EXIT_USAGE after saying why. */
int cli_run_format_option(const char *cmd, int c, const char *arg, unsigned allowed,
                          enum cli_format *format, int argc, char **argv);
/* After the options: at most one PROFILE into spec, and --resume with neither a profile
 * nor shaping (the first option that shapes a campaign); own names what --resume takes
 * from the campaign ("profile, settings and output directory"). LB_EXIT_OK, or
 * LB_EXIT_USAGE after saying why. */
int cli_run_operands(const char *cmd, int argc, char **argv, struct campaign_spec *spec,
                     const struct run_opts *o, const char *shaping, const char *own);
/* "loopbench ARG..." as typed, for results.json (new string). */
char *cli_command_line(int argc, char **argv);
/* runner_begin, its notes said as warnings; -1 after saying why. */
int cli_run_begin(const struct run_opts *o, struct runner *rn);

#endif
