/* loopbench: an A/B measurement harness for long-running servers.
 *
 * main() only dispatches: it finds the subcommand in one table, answers --help and
 * --version, and returns the command's status as the exit code. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "config.h"
#include "lbversion.h"
#include "msg.h"
#include "options.h"
#include "platform/platform.h"
#include "text.h"
#include "util.h"

static const struct command commands[] = {
    {"run", "run an A/B campaign of a target over the settings of one knob", cmd_run_usage, cmd_run,
     true, cmd_run_usage_tail, NULL},
    {"tune", "find which value of the knob to run: the lowest CPU within guards",
     cmd_tune_usage, cmd_tune, true, cmd_tune_usage_tail, cmd_tune_usage_omit},
    {"sample", "measure the CPU of a running process over a window", cmd_sample_usage, cmd_sample,
     true, NULL, NULL},
    {"validate", "check profiles and show what each one will do", cmd_validate_usage, cmd_validate,
     false, NULL, NULL},
    {"compare", "compare two campaigns: regressed, improved, no change or inconclusive",
     cmd_compare_usage, cmd_compare, false, NULL, NULL},
    {"history", "find when a kept history of campaigns changed, and which commits",
     cmd_history_usage, cmd_history, false, NULL, NULL},
    {"report", "write a campaign's results as Markdown, CSV or JSON", cmd_report_usage, cmd_report,
     false, NULL, NULL},
    {"probe", "measure what this host does to an event loop", cmd_probe_usage, cmd_probe, true,
     NULL, NULL},
    {"restore", "put back config files a loopbench that died left edited", cmd_restore_usage,
     cmd_restore, false, NULL, NULL},
    {"publish", "post a report as a pull request comment or to a webhook", cmd_publish_usage,
     cmd_publish, false, NULL, NULL},
    {"exec", "run a command as a target, and kill what it leaves running (CI builds)",
     cmd_exec_usage, cmd_exec, true, NULL, NULL},
};

/* The text of `loopbench help NAME`. */
static void print_usage(const struct command *c)
{
    fputs(c->usage, stdout);
    if (c->usage_tail) {
        cli_spec_usage(stdout, false, c->usage_omit);
        fputs(c->usage_tail[0], stdout);
        cli_spec_usage(stdout, true, c->usage_omit);
        fputs(c->usage_tail[1], stdout);
    }
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* An unknown command, with the nearest one when it looks like a typo. */
static int unknown_command(const char *name)
{
    const char *names[ARRAY_SIZE(commands) + 2];
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        names[i] = commands[i].name;
    names[ARRAY_SIZE(commands)] = "help";
    names[ARRAY_SIZE(commands) + 1] = NULL;
    char *shown = text_shown(name);
    const char *hint = text_closest(name, names);
    if (hint)
        msg_usage_error(NULL, "unknown command '%s' (did you mean '%s'?)", shown, hint);
    else
        msg_usage_error(NULL, "unknown command '%s'", shown);
    free(shown);
    return LB_EXIT_USAGE;
}

static void print_help(FILE *out)
{
    fputs("usage: loopbench [--version] [--help] COMMAND [ARGS]\n"
          "\n"
          "Boot a long-running server again and again under different values of one setting,\n"
          "measure the CPU its process tree uses and scrape the health lines it logs.\n"
          "\n"
          "commands:\n",
          out);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("  help       show a command's usage: loopbench help COMMAND\n"
          "\n"
          "exit status: 0 success, 1 the job failed (compare: a regression), 2 bad usage or\n"
          "input, 3 an inconclusive gate under compare --fail-on inconclusive, 129/130/143\n"
          "interrupted by SIGHUP/SIGINT/SIGTERM (files restored).\n"
          "See docs/cli.md.\n",
          out);
}

static int print_version(void)
{
    char commit[64];
    bool dirty = lbversion_commit(commit, sizeof(commit)) && strstr(commit, "-dirty");
    if (dirty)
        *strstr(commit, "-dirty") = '\0';
    printf("loopbench %s (%s%s%s%s)\n", LOOPBENCH_VERSION, plat_name(), *commit ? ", commit " : "",
           commit, dirty ? ", dirty" : "");
    return LB_EXIT_OK;
}

/* --help or -h anywhere before "--" asks for the command's usage, whatever else is on
 * the line, as git does. */
static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    }
    return 0;
}

static int check_stdout(int status)
{
    /* A report that could not be written is a failure, as git checks. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        msg_error("cannot write to standard output");
        return status == LB_EXIT_OK ? LB_EXIT_FAILURE : status;
    }
    return status;
}

int main(int argc, char **argv)
{
    plat_harden();
    if (argc < 2)
        return msg_usage_error(NULL, "expected a command");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_help(stdout);
        return check_stdout(LB_EXIT_OK);
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0)
        return check_stdout(print_version());
    if (strcmp(name, "help") == 0) {
        if (argc < 3 || strcmp(argv[2], "help") == 0) {
            print_help(stdout);
            return check_stdout(LB_EXIT_OK);
        }
        if (argc > 3)
            return msg_usage_error(NULL, "help: expected one COMMAND, got '%s' and '%s'", argv[2],
                                   argv[3]);
        const struct command *c = find_command(argv[2]);
        if (!c)
            return unknown_command(argv[2]);
        print_usage(c);
        return check_stdout(LB_EXIT_OK);
    }
    if (name[0] == '-')
        return msg_usage_error(NULL,
                               "unknown option '%s': expected a command first (options "
                               "follow it)",
                               name);
    const struct command *c = find_command(name);
    if (!c)
        return unknown_command(name);
    if (wants_help(argc - 1, argv + 1)) {
        print_usage(c);
        return check_stdout(LB_EXIT_OK);
    }
    struct lb_error err;
    if (c->events && plat_events_init(&err) < 0) {
        msg_error("%s", err.msg);
        return LB_EXIT_FAILURE;
    }
    optind = 0;
    opterr = 0;
    return check_stdout(c->run(argc - 1, argv + 1));
}
