#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "text.h"
#include "util.h"

static const struct option catalogue[] = {
    {"alpha", required_argument, NULL, OPT_ALPHA},
    {"api-url", required_argument, NULL, OPT_API_URL},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"commit", required_argument, NULL, OPT_COMMIT},
    {"cpu-source", required_argument, NULL, OPT_CPU_SOURCE},
    {"cpus", required_argument, NULL, OPT_CPUS},
    {"drift", required_argument, NULL, OPT_DRIFT},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},
    {"force", no_argument, NULL, OPT_FORCE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"github", required_argument, NULL, OPT_GITHUB},
    {"hold-idle", no_argument, NULL, OPT_HOLD_IDLE},
    {"interval", required_argument, NULL, OPT_INTERVAL},
    {"json", no_argument, NULL, OPT_JSON},
    {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
    {"log", required_argument, NULL, OPT_LOG},
    {"log-limit", required_argument, NULL, OPT_LOG_LIMIT},
    {"marker", required_argument, NULL, OPT_MARKER},
    {"max-increase", required_argument, NULL, OPT_MAX_INCREASE},
    {"max-p", required_argument, NULL, OPT_MAX_P},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"min-magnitude", required_argument, NULL, OPT_MIN_MAGNITUDE},
    {"min-segment", required_argument, NULL, OPT_MIN_SEGMENT},
    {"no-charts", no_argument, NULL, OPT_NO_CHARTS},
    {"no-plots", no_argument, NULL, OPT_NO_PLOTS},
    {"order", required_argument, NULL, OPT_ORDER},
    {"out", required_argument, NULL, OPT_OUT},
    {"pass-env", required_argument, NULL, OPT_PASS_ENV},
    {"pid", required_argument, NULL, OPT_PID},
    {"plots", required_argument, NULL, OPT_PLOTS},
    {"pool", no_argument, NULL, OPT_POOL},
    {"primary", required_argument, NULL, OPT_PRIMARY},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"recent", required_argument, NULL, OPT_RECENT},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    {"resume", required_argument, NULL, OPT_RESUME},
    {"rotate", required_argument, NULL, OPT_ROTATE},
    {"same-host", no_argument, NULL, OPT_SAME_HOST},
    {"sample", required_argument, NULL, OPT_SAMPLE},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"settings", required_argument, NULL, OPT_SETTINGS},
    {"title", required_argument, NULL, OPT_TITLE},
    {"trim", no_argument, NULL, OPT_TRIM},
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"webhook", required_argument, NULL, OPT_WEBHOOK},
};

static const struct option *find(int opt)
{
    for (size_t i = 0; i < ARRAY_SIZE(catalogue); i++)
        if (catalogue[i].val == opt)
            return &catalogue[i];
    return NULL;
}

int cli_getopt(int argc, char **argv, const enum cli_option *accepts)
{
    /* getopt_long keeps its place between calls: the same tables each time. */
    static const enum cli_option *built;
    static struct option longopts[ARRAY_SIZE(catalogue) + 1];
    static char shortopts[2 + 2 * ARRAY_SIZE(catalogue)];
    if (built != accepts) {
        size_t n = 0, s = 0;
        shortopts[s++] = ':'; /* a missing value is ':', told apart from an unknown '?' */
        for (const enum cli_option *a = accepts; *a != OPT_END; a++) {
            const struct option *o = find(*a);
            longopts[n++] = *o;
            if (o->val < 256) {
                shortopts[s++] = (char)o->val;
                if (o->has_arg)
                    shortopts[s++] = ':';
            }
        }
        longopts[n] = (struct option){NULL, 0, NULL, 0};
        shortopts[s] = '\0';
        built = accepts;
    }
    return getopt_long(argc, argv, shortopts, longopts, NULL);
}

const char *cli_option_name(int opt)
{
    static char name[32];
    const struct option *o = find(opt);
    if (!o)
        return NULL;
    snprintf(name, sizeof(name), "--%s", o->name);
    return name;
}

int cli_bad_option(const char *cmd, int argc, char **argv)
{
    const char *arg = (optind > 0 && optind <= argc) ? argv[optind - 1] : "";
    if (optopt && arg[0] == '-' && arg[1] != '-')
        return msg_usage_error(cmd, "%s: option '-%c' is unknown or needs a value", cmd,
                               optopt);
    int len = (int)strcspn(arg, "=");
    return msg_usage_error(cmd, "%s: option '%.*s' is unknown or needs a value", cmd, len, arg);
}

int cli_bad_value(const char *cmd, int opt, const char *arg, const char *expected)
{
    char *shown = text_shown(arg);
    msg_usage_error(cmd, "%s: %s '%s': expected %s", cmd, cli_option_name(opt), shown, expected);
    free(shown);
    return LB_EXIT_USAGE;
}

int cli_percent(const char *cmd, int opt, const char *arg, double *out)
{
    double d;
    if (parse_double(arg, &d) < 0 || d < 0 || d > 10000)
        return cli_bad_value(cmd, opt, arg, "a percentage, 0 or more");
    *out = d / 100.0;
    return LB_EXIT_OK;
}

int cli_probability(const char *cmd, int opt, const char *arg, double *out)
{
    double d;
    if (parse_double(arg, &d) < 0 || d <= 0 || d >= 1)
        return cli_bad_value(cmd, opt, arg, "a number between 0 and 1");
    *out = d;
    return LB_EXIT_OK;
}

int cli_count(const char *cmd, int opt, const char *arg, long lo, long hi, const char *range,
              size_t *out)
{
    long n;
    if (parse_long(arg, lo, hi, &n) < 0) {
        char expected[96];
        snprintf(expected, sizeof(expected), "a whole number %s", range);
        return cli_bad_value(cmd, opt, arg, expected);
    }
    *out = (size_t)n;
    return LB_EXIT_OK;
}

int cli_md_or_json(const char *cmd, int opt, const char *arg, bool *json)
{
    if (strcmp(arg, "md") != 0 && strcmp(arg, "json") != 0)
        return cli_bad_value(cmd, opt, arg, "md or json");
    *json = strcmp(arg, "json") == 0;
    return LB_EXIT_OK;
}
