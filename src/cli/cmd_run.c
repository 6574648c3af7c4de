/* loopbench run: the A/B campaign. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "report.h"
#include "run.h"
#include "run_cli.h"
#include "summary.h"

const char cmd_run_usage[] =
    "usage: loopbench run [PROFILE] [options]\n"
    "\n"
    "Boot the target of PROFILE (default: the built-in refshard profile) once per setting\n"
    "and repeat, wait until it is ready, warm it up, measure the CPU of its whole process\n"
    "tree over a window and scrape its health lines; write DIR/results.json and print a\n"
    "summary table. The target's config files are restored afterwards.\n"
    "\n";

/* Between the spec's options and after them (cli_spec_usage). */
const char *const cmd_run_usage_tail[2] = {
    "      --resume DIR           continue the interrupted campaign of DIR: the runs that\n"
    "                             completed are kept, the others run, with the same\n"
    "                             profile (refused if it changed), settings and order\n"
    "      --keep-going           go on after a failed run\n",
    "  -f, --format text|json     the summary as a table (default) or as JSON\n"
    "      --json                 the same as --format json\n"
    "  -q, --quiet                print nothing but errors and the summary\n"
    "  -h, --help                 show this help\n"
    "\n"
    "exit status: 0 all runs completed, 1 a run or the campaign failed, 2 bad usage or\n"
    "profile, 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (files restored).\n"};

static void print_tail(const char *tail)
{
    for (const char *line = tail; *line;) {
        size_t len = strcspn(line, "\n");
        fprintf(stderr, "  | %.*s\n", (int)len, line);
        line += len + (line[len] == '\n');
    }
}

int cmd_run(int argc, char **argv)
{
    static const enum cli_option accepts[] = {OPT_RESUME, OPT_KEEP_GOING, OPT_FORMAT,
                                              OPT_JSON,   OPT_QUIET,      OPT_END};
    struct run_opts o = {0};
    struct campaign_spec spec;
    campaign_spec_init(&spec);
    enum cli_format format = CLI_TEXT;
    int status = LB_EXIT_USAGE;
    /* The first option that shapes a campaign: --resume takes the campaign's own. */
    const char *shaping = NULL;
    int c;
    while ((c = cli_getopt_spec(argc, argv, accepts, "run", &spec, &shaping)) != -1) {
        if (cli_run_flag(c, optarg, &o) == LB_EXIT_OK)
            continue;
        if (cli_run_format_option("run", c, optarg, CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_JSON),
                                  &format, argc, argv) != LB_EXIT_OK)
            goto out;
    }
    if (cli_run_operands("run", argc, argv, &spec, &o, shaping,
                         "profile, settings and output directory") != LB_EXIT_OK)
        goto out;
    if (spec.n_variants == 1) {
        msg_usage_error("run",
                        "run: --variant '%s=%s': expected two or more variants to "
                        "compare",
                        spec.variants[0].name, spec.variants[0].dir);
        goto out;
    }
    char *command_line = cli_command_line(argc, argv);
    o.command_line = command_line;

    struct runner rn;
    struct lb_error err;
    int set =
        o.resume_dir ? runner_setup_resume(&o, &rn, &err) : runner_setup(&o, &spec, &rn, &err);
    if (set < 0) {
        msg_error("%s", err.msg);
        runner_release(&rn);
        free(command_line);
        goto out;
    }
    if (cli_run_begin(&o, &rn) < 0) {
        status = LB_EXIT_FAILURE;
        runner_release(&rn);
        free(command_line);
        goto out;
    }
    int rc = runner_run(&o, &rn, &err);
    const struct campaign *camp = &rn.c;
    if (rc < 0) {
        msg_error("%s", err.msg);
        for (size_t i = 0; i < camp->n_runs; i++) {
            const struct run_record *r = &camp->runs[i];
            if (r->status == RUN_FAILED && r->log_tail && !msg_quiet()) {
                fprintf(stderr, "loopbench: last lines of its log (%s/%s):\n", camp->out_dir,
                        r->dir);
                print_tail(r->log_tail);
                break;
            }
        }
    }
    if (camp->out_dir && camp->spec.values.n) {
        if (format == CLI_JSON) {
            json_t *summary = summary_json(camp);
            json_dumpf(summary, stdout, JSON_INDENT(2));
            fputc('\n', stdout);
            json_decref(summary);
        } else if (rc == 0 || camp->interrupted_by || o.keep_going) {
            report_terminal(camp, stdout);
        }
    }
    status = rc == 0 ? LB_EXIT_OK
             : camp->interrupted_by ? lb_exit_for_signal(camp->interrupted_by)
                                    : LB_EXIT_FAILURE;
    runner_release(&rn);
    free(command_line);
out:
    campaign_spec_release(&spec);
    return status;
}
