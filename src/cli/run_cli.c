#include "run_cli.h"

#include <getopt.h>
#include <stdlib.h>

#include "options.h"

int cli_run_flag(int c, const char *arg, struct run_opts *o)
{
    switch (c) {
    case OPT_RESUME:
        o->resume_dir = arg;
        return LB_EXIT_OK;
    case OPT_KEEP_GOING:
        o->keep_going = true;
        return LB_EXIT_OK;
    case OPT_QUIET:
        msg_set_quiet(1);
        return LB_EXIT_OK;
    default:
        return CLI_RUN_NOT_MINE;
    }
}

int cli_run_format_option(const char *cmd, int c, const char *arg, unsigned allowed,
                          enum cli_format *format, int argc, char **argv)
{
    switch (c) {
    case OPT_FORMAT:
    case OPT_JSON:
        return cli_format(cmd, c, arg, allowed, format);
    case OPT_REFUSED:
        return LB_EXIT_USAGE;
    default:
        return cli_bad_option(cmd, argc, argv);
    }
}

int cli_run_operands(const char *cmd, int argc, char **argv, struct campaign_spec *spec,
                     const struct run_opts *o, const char *shaping, const char *own)
{
    if (argc - optind > 1)
        return msg_usage_error(cmd, "%s: expected at most one PROFILE, got '%s' and '%s'", cmd,
                               argv[optind], argv[optind + 1]);
    if (optind < argc)
        spec->profile_path = xstrdup(argv[optind]);
    if (o->resume_dir && (shaping || spec->profile_path))
        return msg_usage_error(cmd,
                               "%s: --resume takes the campaign's own %s: '%s' cannot be "
                               "combined with it",
                               cmd, own, shaping ? shaping : spec->profile_path);
    return LB_EXIT_OK;
}

char *cli_command_line(int argc, char **argv)
{
    char *s = xstrdup("loopbench");
    for (int i = 0; i < argc; i++) {
        char *longer = xasprintf("%s %s", s, argv[i]);
        free(s);
        s = longer;
    }
    return s;
}

int cli_run_begin(const struct run_opts *o, struct runner *rn)
{
    struct strv notes = {0};
    struct lb_error err;
    /* locks the config files and puts back what a loopbench that died left edited,
     * before reading any original */
    int begun = runner_begin(o, rn, &notes, &err);
    for (size_t i = 0; i < notes.n; i++)
        msg_warn("%s", notes.v[i]);
    strv_release(&notes);
    if (begun < 0)
        msg_error("%s", err.msg);
    return begun;
}
