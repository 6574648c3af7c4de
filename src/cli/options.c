#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "platform/platform.h"
#include "text.h"
#include "util.h"

/* Every option of every command. An option spelled two ways has two entries, the one
 * messages name first: --seconds is the window's length as sample and probe always took
 * it, -t/--sample as run takes it. */
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
    {"output", required_argument, NULL, OPT_OUTPUT},
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
    {"seconds", required_argument, NULL, OPT_SAMPLE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"settings", required_argument, NULL, OPT_SETTINGS},
    {"title", required_argument, NULL, OPT_TITLE},
    {"trim", no_argument, NULL, OPT_TRIM},
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"webhook", required_argument, NULL, OPT_WEBHOOK},
};

/* The tables of the command being parsed (getopt_long keeps its place between calls:
 * the same tables each time), and how the user spelled the option last returned. */
static const enum cli_option *built;
static struct option longopts[ARRAY_SIZE(catalogue) + 1];
static size_t n_longopts;
static char shortopts[2 + 2 * ARRAY_SIZE(catalogue)];
static char spelled[48];

static const struct option *find(int opt)
{
    for (size_t i = 0; i < ARRAY_SIZE(catalogue); i++)
        if (catalogue[i].val == opt)
            return &catalogue[i];
    return NULL;
}

static void build(const enum cli_option *accepts)
{
    size_t n = 0, s = 0;
    shortopts[s++] = ':'; /* a missing value is ':', told apart from an unknown '?' */
    for (const enum cli_option *a = accepts; *a != OPT_END; a++) {
        for (size_t i = 0; i < ARRAY_SIZE(catalogue); i++)
            if (catalogue[i].val == (int)*a)
                longopts[n++] = catalogue[i];
        if (*a < 256) {
            shortopts[s++] = (char)*a;
            if (find(*a)->has_arg)
                shortopts[s++] = ':';
        }
    }
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    n_longopts = n;
    shortopts[s] = '\0';
    built = accepts;
}

int cli_getopt(int argc, char **argv, const enum cli_option *accepts)
{
    if (built != accepts)
        build(accepts);
    int index = -1;
    int c = getopt_long(argc, argv, shortopts, longopts, &index);
    if (index >= 0)
        snprintf(spelled, sizeof(spelled), "--%s", longopts[index].name);
    else
        snprintf(spelled, sizeof(spelled), "-%c", c > 0 && c < 256 ? c : '?');
    return c;
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

/* The accepted long options whose name starts with the len bytes of name: how many, the
 * one when there is one (an exact name counts alone, as getopt_long takes it). */
static size_t matches(const char *name, size_t len, const struct option **one)
{
    size_t n = 0;
    *one = NULL;
    for (size_t i = 0; i < n_longopts; i++) {
        if (strncmp(longopts[i].name, name, len) != 0)
            continue;
        if (strlen(longopts[i].name) == len) {
            *one = &longopts[i];
            return 1;
        }
        /* two spellings of one option are one match */
        if (!*one || (*one)->val != longopts[i].val)
            n++;
        *one = *one ? *one : &longopts[i];
    }
    return n;
}

/* "--metric, --max-p and --min-magnitude": the accepted options that start with name. */
static void list_matches(const char *name, size_t len, char *buf, size_t size)
{
    size_t at = 0, k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n_longopts && at < size; i++)
        if (strncmp(longopts[i].name, name, len) == 0)
            at +=
                (size_t)snprintf(buf + at, size - at, "%s--%s", k++ ? ", " : "", longopts[i].name);
}

static int unknown_long(const char *cmd, const char *name, size_t len)
{
    char *typed = xstrndup(name, len), *shown = text_shown(typed);
    const char **known = xcalloc(n_longopts + 1, sizeof(*known));
    for (size_t i = 0; i < n_longopts; i++)
        known[i] = longopts[i].name;
    const char *hint = text_closest(typed, known);
    if (hint)
        msg_usage_error(cmd, "%s: unknown option '--%s' (did you mean '--%s'?)", cmd, shown, hint);
    else
        msg_usage_error(cmd, "%s: unknown option '--%s'", cmd, shown);
    free(known);
    free(shown);
    free(typed);
    return LB_EXIT_USAGE;
}

int cli_bad_option(const char *cmd, int argc, char **argv)
{
    const char *arg = (optind > 0 && optind <= argc) ? argv[optind - 1] : "";
    if (arg[0] == '-' && arg[1] == '-') {
        const char *name = arg + 2;
        size_t len = strcspn(name, "=");
        const struct option *one;
        size_t n = matches(name, len, &one);
        if (n == 0)
            return unknown_long(cmd, name, len);
        if (n > 1) {
            char list[512];
            char *typed = xstrndup(name, len), *shown = text_shown(typed);
            list_matches(name, len, list, sizeof(list));
            msg_usage_error(cmd, "%s: option '--%s' is ambiguous: it could be %s", cmd, shown,
                            list);
            free(shown);
            free(typed);
            return LB_EXIT_USAGE;
        }
        if (!one->has_arg && name[len] == '=')
            return msg_usage_error(cmd, "%s: option '--%s' takes no value", cmd, one->name);
        return msg_usage_error(cmd, "%s: option '--%s' needs a value", cmd, one->name);
    }
    char letter = (char)optopt;
    const char *at = letter ? strchr(shortopts + 1, letter) : NULL;
    if (at && letter != ':' && at[1] == ':')
        return msg_usage_error(cmd, "%s: option '-%c' needs a value", cmd, letter);
    if (letter > ' ' && letter < 0x7f)
        return msg_usage_error(cmd, "%s: unknown option '-%c'", cmd, letter);
    return msg_usage_error(cmd, "%s: unknown option", cmd);
}

int cli_bad_value(const char *cmd, int opt, const char *arg, const char *expected)
{
    char *shown = text_shown(arg);
    /* as typed, when that was this option: the message names what the user wrote */
    const struct option *o = find(opt);
    bool typed = false;
    for (size_t i = 0; o && i < n_longopts && !typed; i++)
        typed = longopts[i].val == opt && strcmp(spelled + 2, longopts[i].name) == 0;
    const char *name =
        typed || (spelled[1] == (char)opt && opt < 256) ? spelled : cli_option_name(opt);
    msg_usage_error(cmd, "%s: %s '%s': expected %s", cmd, name, shown, expected);
    free(shown);
    return LB_EXIT_USAGE;
}

int cli_percent(const char *cmd, int opt, const char *arg, double *out)
{
    double d;
    if (parse_double(arg, &d) < 0 || d < 0 || d > 10000)
        return cli_bad_value(cmd, opt, arg, "a percentage from 0 to 10000");
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

int cli_seconds(const char *cmd, int opt, const char *arg, double lo, double hi, double *out)
{
    double d;
    if (parse_double(arg, &d) < 0 || !(d >= lo) || !(d <= hi)) {
        char expected[96];
        snprintf(expected, sizeof(expected), "seconds from %g to %g", lo, hi);
        return cli_bad_value(cmd, opt, arg, expected);
    }
    *out = d;
    return LB_EXIT_OK;
}

int cli_output_parent(const char *cmd, int opt, const char *path, bool dash_is_stdout)
{
    if (strcmp(path, "-") == 0)
        return dash_is_stdout ? LB_EXIT_OK
                              : cli_bad_value(cmd, opt, path,
                                              "a directory (there is no "
                                              "standard output to write to)");
    if (!*path)
        return cli_bad_value(cmd, opt, path, "a path");
    char *dir = path_dirname(path);
    struct stat st;
    int status = LB_EXIT_OK;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        char *shown = text_shown(dir);
        char expected[96 + 4 * 256];
        snprintf(expected, sizeof(expected),
                 "a path in a directory that exists ('%.1024s' "
                 "does not: make it first)",
                 shown);
        status = cli_bad_value(cmd, opt, path, expected);
        free(shown);
    }
    free(dir);
    return status;
}

static const char *const format_names[] = {
    [CLI_TEXT] = "text", [CLI_MD] = "md", [CLI_CSV] = "csv", [CLI_JSON] = "json"};

int cli_format(const char *cmd, int opt, const char *arg, unsigned allowed, enum cli_format *out)
{
    if (opt == OPT_JSON && (allowed & CLI_FORMATS(CLI_JSON))) {
        *out = CLI_JSON;
        return LB_EXIT_OK;
    }
    for (size_t f = CLI_TEXT; opt == OPT_FORMAT && f < ARRAY_SIZE(format_names); f++)
        if ((allowed & CLI_FORMATS(f)) && strcmp(arg, format_names[f]) == 0) {
            *out = (enum cli_format)f;
            return LB_EXIT_OK;
        }
    /* "md, text or json" */
    const char *names[ARRAY_SIZE(format_names)];
    size_t n = 0;
    for (size_t f = CLI_TEXT; f < ARRAY_SIZE(format_names); f++)
        if (allowed & CLI_FORMATS(f))
            names[n++] = format_names[f];
    char expected[64] = "";
    for (size_t i = 0, at = 0; i < n && at < sizeof(expected); i++)
        at += (size_t)snprintf(expected + at, sizeof(expected) - at, "%s%s",
                               i == 0       ? ""
                               : i + 1 == n ? " or "
                                            : ", ",
                               names[i]);
    return cli_bad_value(cmd, OPT_FORMAT, arg ? arg : "", expected);
}

enum cli_format cli_format_default(enum cli_format asked, enum cli_format otherwise)
{
    if (asked != CLI_DEFAULT)
        return asked;
    return isatty(STDOUT_FILENO) ? CLI_TEXT : otherwise;
}
