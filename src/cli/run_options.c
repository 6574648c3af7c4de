#include "run_options.h"

#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

int cli_run_option(const char *cmd, int c, const char *arg, struct run_opts *o,
                   const char **shaping)
{
    if (!*shaping && c != OPT_RESUME && c != OPT_KEEP_GOING && c != OPT_JSON &&
        c != OPT_FORMAT && c != OPT_QUIET)
        *shaping = cli_option_name(c);
    const char *expected = NULL;
    int64_t seed;
    long l;
    switch (c) {
    case OPT_WARMUP:
        return cli_warmup(cmd, c, arg, RUN_WARMUP_AUTO_MAX, &o->warmup_s, &o->warmup_auto);
    case OPT_SAMPLE:
        return cli_seconds(cmd, c, arg, WINDOW_MIN_S, WINDOW_MAX_S, &o->sample_s);
    case OPT_CPUS:
        o->cpus = arg;
        break;
    case OPT_HOLD_IDLE:
        o->hold_idle = true;
        break;
    case OPT_SEED:
        if (parse_int64(arg, 0, (INT64_C(1) << 53) - 1, &seed) < 0)
            expected = "a whole number from 0 to 2^53-1";
        o->seed = (uint64_t)seed;
        o->seed_set = true;
        break;
    case OPT_INTERVAL:
        if (parse_long(arg, 10, 3600000, &l) < 0)
            expected = "milliseconds from 10";
        o->interval_ms = (unsigned)l;
        break;
    case OPT_LOG_LIMIT:
        if (profile_log_limit_parse(arg, &o->log_limit) < 0)
            expected = "bytes from 4k, a whole number with an optional k, M or G suffix";
        break;
    case OPT_OUTPUT:
        if (cli_output_parent(cmd, c, arg, false) != LB_EXIT_OK)
            return LB_EXIT_USAGE;
        o->out_dir = arg;
        break;
    case OPT_RESUME:
        o->resume_dir = arg;
        break;
    case OPT_KEEP_GOING:
        o->keep_going = true;
        break;
    case OPT_CPU_SOURCE:
        if (cpu_source_parse(arg, &o->cpu_source) < 0)
            expected = "auto, perf or tree";
        break;
    case OPT_QUIET:
        msg_set_quiet(1);
        break;
    default:
        return CLI_RUN_NOT_MINE;
    }
    return expected ? cli_bad_value(cmd, c, arg, expected) : LB_EXIT_OK;
}

int cli_run_operands(const char *cmd, int argc, char **argv, struct run_opts *o,
                     const char *shaping, const char *own)
{
    if (argc - optind > 1)
        return msg_usage_error(cmd, "%s: expected at most one PROFILE, got '%s' and '%s'", cmd,
                               argv[optind], argv[optind + 1]);
    o->profile_path = optind < argc ? argv[optind] : NULL;
    if (o->resume_dir && (shaping || o->profile_path))
        return msg_usage_error(cmd, "%s: --resume takes the campaign's own %s: '%s' cannot be "
                                    "combined with it",
                               cmd, own, shaping ? shaping : o->profile_path);
    return LB_EXIT_OK;
}

int cli_split_list(const char *arg, struct strv *out)
{
    for (const char *p = arg;;) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return -1;
        strv_push_owned(out, xstrndup(p, len));
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
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
