#include "options.h"

#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "platform/platform.h"
#include "profile.h"
#include "sequential.h"
#include "spec.h"
#include "targetenv.h"
#include "text.h"
#include "util.h"

/* Every option of every command but those of the spec below. */
static const struct option catalogue[] = {
    {"alpha", required_argument, NULL, OPT_ALPHA},
    {"api-url", required_argument, NULL, OPT_API_URL},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"drift", required_argument, NULL, OPT_DRIFT},
    {"dry-run", no_argument, NULL, OPT_DRY_RUN},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},
    {"force", no_argument, NULL, OPT_FORCE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"github", required_argument, NULL, OPT_GITHUB},
    {"guard", required_argument, NULL, OPT_GUARD},
    {"json", no_argument, NULL, OPT_JSON},
    {"keep-going", no_argument, NULL, OPT_KEEP_GOING},
    {"log", required_argument, NULL, OPT_LOG},
    {"marker", required_argument, NULL, OPT_MARKER},
    {"max-increase", required_argument, NULL, OPT_MAX_INCREASE},
    {"max-p", required_argument, NULL, OPT_MAX_P},
    {"max-runs", required_argument, NULL, OPT_MAX_RUNS},
    {"max-time", required_argument, NULL, OPT_MAX_TIME},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"min-magnitude", required_argument, NULL, OPT_MIN_MAGNITUDE},
    {"min-segment", required_argument, NULL, OPT_MIN_SEGMENT},
    {"minimize", required_argument, NULL, OPT_MINIMIZE},
    {"no-charts", no_argument, NULL, OPT_NO_CHARTS},
    {"no-plots", no_argument, NULL, OPT_NO_PLOTS},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"pid", required_argument, NULL, OPT_PID},
    {"plots", required_argument, NULL, OPT_PLOTS},
    {"pool", no_argument, NULL, OPT_POOL},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"range", required_argument, NULL, OPT_RANGE},
    {"recent", required_argument, NULL, OPT_RECENT},
    {"reference", required_argument, NULL, OPT_REFERENCE},
    {"resume", required_argument, NULL, OPT_RESUME},
    {"same-host", no_argument, NULL, OPT_SAME_HOST},
    {"tie", required_argument, NULL, OPT_TIE},
    {"title", required_argument, NULL, OPT_TITLE},
    {"trim", no_argument, NULL, OPT_TRIM},
    {"webhook", required_argument, NULL, OPT_WEBHOOK},
};

/* ---- the campaign spec's options ----------------------------------------------------- */

/* An option that says what a campaign is asked: set stores its value (arg, as the user
 * gave it to option opt of command cmd) into s, at field when that is all it does; or
 * says why not (LB_EXIT_USAGE). */
struct spec_option {
    struct option o;        /* val 0: one of its own (OPT_SPEC_OWN + its index) */
    const char *arg, *help; /* for the command's help: help NULL is not listed */
    size_t field;           /* offsetof(struct campaign_spec, ...) */
    int (*set)(const struct spec_option *e, const char *cmd, int opt, const char *arg,
               struct campaign_spec *s);
    double lo, hi;        /* the range a number takes */
    const char *expected; /* what a value out of it should have been */
    bool late;            /* listed after the command's own options */
};

#define OPT_SPEC_OWN 0x1000
/* Where a command's help puts the text of each option. */
#define USAGE_COLUMN 29
#define AT(e, s, type) ((type *)((char *)(s) + (e)->field))

static int set_string(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                      struct campaign_spec *s)
{
    (void)cmd, (void)opt;
    free(*AT(e, s, char *));
    *AT(e, s, char *) = xstrdup(arg);
    return LB_EXIT_OK;
}

/* The control characters of what a report prints are refused, not escaped: the text a
 * campaign records is as the user gave it. */
static int control_refused(const char *cmd, int opt, const char *arg, const char *what)
{
    const char *bad = text_control(arg);
    if (!bad)
        return LB_EXIT_OK;
    char *shown = text_shown(arg);
    msg_usage_error(cmd, "%s: %s '%s': a control character at byte %zu: expected printable %s", cmd,
                    cli_option_name(opt), shown, (size_t)(bad - arg), what);
    free(shown);
    return LB_EXIT_USAGE;
}

static int set_text(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                    struct campaign_spec *s)
{
    if (control_refused(cmd, opt, arg, "text") != LB_EXIT_OK)
        return LB_EXIT_USAGE;
    return set_string(e, cmd, opt, arg, s);
}

/* A directory to write in: its parent exists (cli_output_parent). */
static int set_output(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                      struct campaign_spec *s)
{
    int rc = cli_output_parent(cmd, opt, arg, false);
    return rc == LB_EXIT_OK ? set_string(e, cmd, opt, arg, s) : rc;
}

static int set_flag(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                    struct campaign_spec *s)
{
    (void)cmd, (void)opt, (void)arg;
    *AT(e, s, bool) = true;
    return LB_EXIT_OK;
}

/* "a,b,c" into out: -1 when one is empty. */
static int split_list(const char *arg, struct strv *out)
{
    const char *p = arg;
    for (;;) {
        size_t len = strcspn(p, ",");
        if (len == 0)
            return -1;
        strv_push_owned(out, xstrndup(p, len));
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

static int set_settings(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                        struct campaign_spec *s)
{
    if (control_refused(cmd, opt, arg, "values") != LB_EXIT_OK)
        return LB_EXIT_USAGE;
    return split_list(arg, AT(e, s, struct strv)) < 0 ? cli_bad_value(cmd, opt, arg, e->expected)
                                                      : LB_EXIT_OK;
}

/* Each name one the targets may be given (targetenv_check). */
static int set_pass_env(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                        struct campaign_spec *s)
{
    struct strv given = {0};
    struct lb_error err;
    int rc = split_list(arg, &given) < 0 ? lb_fail(&err,
                                                   "%s '%s': expected names separated by "
                                                   "commas, none empty",
                                                   cli_option_name(opt), arg)
                                         : 0;
    for (size_t i = 0; rc == 0 && i < given.n; i++)
        if ((rc = targetenv_check(given.v[i], cli_option_name(opt), &err)) == 0)
            strv_push(AT(e, s, struct strv), given.v[i]);
    strv_release(&given);
    return rc < 0 ? msg_usage_error(cmd, "%s: %s", cmd, err.msg) : LB_EXIT_OK;
}

/* NAME=DIR, the name of letters, digits, '.', '_' or '-'. */
static int set_variant(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                       struct campaign_spec *s)
{
    (void)e;
    const char *eq = strchr(arg, '=');
    bool ok = eq && eq != arg && eq[1];
    for (const char *c = arg; ok && c < eq; c++)
        ok = isalnum((unsigned char)*c) || *c == '.' || *c == '_' || *c == '-';
    if (!ok)
        return cli_bad_value(cmd, opt, arg, e->expected);
    s->variants = xrealloc(s->variants, (s->n_variants + 1) * sizeof(*s->variants));
    s->variants[s->n_variants++] = (struct campaign_variant){
        .name = xstrndup(arg, (size_t)(eq - arg)), .dir = xstrdup(eq + 1)};
    return LB_EXIT_OK;
}

/* N, or auto[=MAX]: rounds until decided, at most MAX. */
static int set_repeat(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                      struct campaign_spec *s)
{
    (void)e;
    bool sequential = strncmp(arg, "auto", 4) == 0;
    long l = SEQ_DEFAULT_MAX;
    if (sequential ? arg[4] != '\0' && (arg[4] != '=' ||
                                        parse_long(arg + 5, SEQ_MIN_ROUNDS, SEQ_LIMIT_MAX, &l) < 0)
                   : parse_long(arg, 1, REPEAT_MAX, &l) < 0) {
        char range[96];
        snprintf(range, sizeof(range),
                 "a whole number from 1 to %d, or auto[=MAX] with MAX from %d to %d", REPEAT_MAX,
                 SEQ_MIN_ROUNDS, SEQ_LIMIT_MAX);
        return cli_bad_value(cmd, opt, arg, range);
    }
    s->repeat = sequential ? 0 : l;
    s->sequential_max = sequential ? l : 0;
    return LB_EXIT_OK;
}

/* SECONDS, or auto[=MAX]: until the target has settled, at most MAX. */
static int set_warmup(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                      struct campaign_spec *s)
{
    s->warmup_auto = strncmp(arg, "auto", 4) == 0;
    double d = s->warmup_auto && arg[4] == '\0' ? SPEC_WARMUP_AUTO_MAX : -1;
    bool bad = d < 0 && (s->warmup_auto ? arg[4] != '=' || parse_double(arg + 5, &d) < 0 || d <= 0
                                        : parse_double(arg, &d) < 0 || d < 0);
    s->warmup_s = d;
    return bad || d > WINDOW_MAX_S ? cli_bad_value(cmd, opt, arg, e->expected) : LB_EXIT_OK;
}

/* Seconds from lo to hi, or 0 when lo is above it (none). */
static int set_seconds(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                       struct campaign_spec *s)
{
    double d;
    if (!e->expected)
        return cli_seconds(cmd, opt, arg, e->lo, e->hi, AT(e, s, double));
    if (parse_double(arg, &d) < 0 || !((d >= e->lo && d <= e->hi) || d == 0))
        return cli_bad_value(cmd, opt, arg, e->expected);
    *AT(e, s, double) = d;
    return LB_EXIT_OK;
}

static int set_interval(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                        struct campaign_spec *s)
{
    long l;
    if (parse_long(arg, (long)e->lo, (long)e->hi, &l) < 0)
        return cli_bad_value(cmd, opt, arg, e->expected);
    *AT(e, s, unsigned) = (unsigned)l;
    return LB_EXIT_OK;
}

static int set_seed(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                    struct campaign_spec *s)
{
    int64_t seed;
    if (parse_int64(arg, 0, (INT64_C(1) << 53) - 1, &seed) < 0)
        return cli_bad_value(cmd, opt, arg, e->expected);
    *AT(e, s, uint64_t) = (uint64_t)seed;
    return LB_EXIT_OK;
}

static int set_bytes(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                     struct campaign_spec *s)
{
    return profile_log_limit_parse(arg, AT(e, s, uint64_t)) < 0
               ? cli_bad_value(cmd, opt, arg, e->expected)
               : LB_EXIT_OK;
}

static int set_order(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                     struct campaign_spec *s)
{
    return run_order_parse(arg, AT(e, s, enum run_order)) < 0
               ? cli_bad_value(cmd, opt, arg, e->expected)
               : LB_EXIT_OK;
}

static int set_cpu_source(const struct spec_option *e, const char *cmd, int opt, const char *arg,
                          struct campaign_spec *s)
{
    return cpu_source_parse(arg, AT(e, s, enum cpu_source_kind)) < 0
               ? cli_bad_value(cmd, opt, arg, e->expected)
               : LB_EXIT_OK;
}

#define FIELD(name) offsetof(struct campaign_spec, name)

/* The spec's options, in the order `loopbench help run` lists them. An option spelled two
 * ways has two entries, the one messages name first: --seconds is the window's length as
 * sample and probe always took it, -t/--sample as run takes it. Commands that fill no
 * spec take the ones they list, returned to them as any other. */
static const struct spec_option spec_options[] = {
    {.o = {"settings", required_argument, NULL, OPT_SETTINGS},
     .arg = "V1,V2,...",
     .help = "knob values to run (default: the profile's); the\n"
             "profile's baseline, else the first, is the baseline",
     .field = FIELD(values),
     .set = set_settings,
     .expected = "values separated by commas, none empty"},
    {.o = {"repeat", required_argument, NULL, OPT_REPEAT},
     .arg = "N|auto[=MAX]",
     .help = "runs per setting (default: the profile's); auto: rounds\n"
             "until every gated comparison is decided, at most MAX\n"
             "(default 10; docs/report.md, the sequential gate)",
     .set = set_repeat},
    {.o = {"primary", required_argument, NULL, OPT_PRIMARY},
     .arg = "KEY,...",
     .help = "the keys the gate holds to (cpu, health keys; default:\n"
             "the profile's metrics.primary, else every one): the\n"
             "looks of --repeat auto wait only for these, and compare\n"
             "gates them unless told otherwise",
     .field = FIELD(primary),
     .set = set_string},
    {.o = {"warmup", required_argument, NULL, OPT_WARMUP},
     .arg = "SECONDS|auto[=MAX]",
     .help = "warm-up before each window (default: the profile's);\n"
             "auto: until the target's CPU has settled (no trend or\n"
             "change point over 2 s), at most MAX seconds (default 60)",
     .set = set_warmup,
     .expected = "seconds from 0 to 86400, or auto[=MAX] with MAX seconds above 0"},
    {.o = {"sample", required_argument, NULL, OPT_SAMPLE},
     .arg = "SECONDS",
     .help = "length of each window, from 0.1 to 86400 (default:\n"
             "the profile's)",
     .field = FIELD(sample_s),
     .set = set_seconds,
     .lo = WINDOW_MIN_S,
     .hi = WINDOW_MAX_S},
    {.o = {"seconds", required_argument, NULL, OPT_SAMPLE},
     .arg = "SECONDS",
     .field = FIELD(sample_s),
     .set = set_seconds,
     .lo = WINDOW_MIN_S,
     .hi = WINDOW_MAX_S},
    {.o = {"variant", required_argument, NULL, OPT_VARIANT},
     .arg = "NAME=DIR",
     .help = "a build of the target to compare, given twice or more:\n"
             "each setting runs under each variant once per round,\n"
             "with the cwd and config files (and {variant_dir}) taken\n"
             "from DIR; the first is the base the others are compared\n"
             "with, e.g. --variant base=../base --variant head=.",
     .set = set_variant,
     .expected = "NAME=DIR, the name of letters, digits, '.', '_' or '-'"},
    {.o = {"commit", required_argument, NULL, 0},
     .arg = "SHA[,dirty]",
     .help = "the commit of what runs (default: $LOOPBENCH_COMMIT,\n"
             "else git's of the target's directory, each variant's\n"
             "too, else $GITHUB_SHA)",
     .field = FIELD(commit),
     .set = set_string},
    {.o = {"order", required_argument, NULL, 0},
     .arg = "ORDER",
     .help = "interleave (A B A B, the default without variants),\n"
             "random (each round shuffled, seeded; the default with\n"
             "variants), grouped (A A B B) or duet (a setting's\n"
             "variants, else a round's settings, at once, each on\n"
             "CPUs of its own, turned round by one every round)",
     .field = FIELD(order),
     .set = set_order,
     .expected = "interleave, random, grouped or duet"},
    {.o = {"pass-env", required_argument, NULL, 0},
     .arg = "NAME,...",
     .help = "give the targets these variables of loopbench's\n"
             "environment besides the base (PATH, HOME, the locale...;\n"
             "docs/profiles.md), never one that looks like a credential\n"
             "or a CI control file; recorded by name",
     .field = FIELD(pass_env),
     .set = set_pass_env},
    {.o = {"cpus", required_argument, NULL, 0},
     .arg = "LIST",
     .help = "run the targets' whole trees on these CPUs (e.g. 1 or\n"
             "0-3,6), loopbench on the others it may use; recorded\n"
             "per run (default: unpinned)",
     .field = FIELD(cpus),
     .set = set_text},
    {.o = {"rotate", required_argument, NULL, 0},
     .arg = "SECONDS",
     .help = "duet: the targets' whole trees swap CPU sets this often\n"
             "inside the window, so each build spends as long on each\n"
             "CPU in every window (default 0.5; 0: no swaps)",
     .field = FIELD(rotate_s),
     .set = set_seconds,
     .lo = 0.01,
     .hi = 3600,
     .expected = "seconds from 0.01 to 3600, or 0 for no swaps"},
    {.o = {"hold-idle", no_argument, NULL, 0},
     .help = "hold the CPUs out of idle states (/dev/cpu_dma_latency\n"
             "at 0, root only) through each warm-up and window: the\n"
             "absolute CPU figures become a kept-awake host's",
     .field = FIELD(hold_idle),
     .set = set_flag},
    {.o = {"seed", required_argument, NULL, 0},
     .arg = "N",
     .help = "seed for --order random (default: from the clock)",
     .field = FIELD(seed),
     .set = set_seed,
     .expected = "a whole number from 0 to 2^53-1"},
    {.o = {"interval", required_argument, NULL, OPT_INTERVAL},
     .arg = "MS",
     .help = "time-series interval (default 1000)",
     .field = FIELD(interval_ms),
     .set = set_interval,
     .lo = 10,
     .hi = 3600000,
     .expected = "milliseconds from 10"},
    {.o = {"log-limit", required_argument, NULL, 0},
     .arg = "BYTES",
     .help = "bytes of each log (stdout, stderr) kept per run, e.g.\n"
             "1M: past it the first and the last halves are kept and\n"
             "every health line still scraped (default: the profile's,\n"
             "else 64M)",
     .field = FIELD(log_limit),
     .set = set_bytes,
     .expected = "bytes from 4k, a whole number with an optional k, M or G suffix"},
    {.o = {"output", required_argument, NULL, OPT_OUTPUT},
     .arg = "DIR",
     .help = "results directory, new or empty, in a directory that\n"
             "exists (default results/<profile>-<UTC time>)",
     .field = FIELD(out_dir),
     .set = set_output},
    {.o = {"cpu-source", required_argument, NULL, 0},
     .arg = "SOURCE",
     .help = "auto (default), perf or tree",
     .field = FIELD(cpu_source),
     .set = set_cpu_source,
     .expected = "auto, perf or tree",
     .late = true},
    {.o = {"note", required_argument, NULL, 0},
     .arg = "TEXT",
     .help = "what the campaign is for, one line: recorded and shown\n"
             "at the top of its report",
     .field = FIELD(note),
     .set = set_text,
     .late = true},
};

/* The getopt value of spec option i. */
static int spec_val(size_t i)
{
    return spec_options[i].o.val ? spec_options[i].o.val : OPT_SPEC_OWN + (int)i;
}

static const struct spec_option *spec_find(int opt)
{
    for (size_t i = 0; i < ARRAY_SIZE(spec_options); i++)
        if (spec_val(i) == opt)
            return &spec_options[i];
    return NULL;
}

/* The tables of the command being parsed (getopt_long keeps its place between calls:
 * the same tables each time), and how the user spelled the option last returned. */
static const enum cli_option *built;
static bool built_spec;
static struct option longopts[ARRAY_SIZE(catalogue) + ARRAY_SIZE(spec_options) + 1];
static size_t n_longopts;
static char shortopts[2 + 2 * ARRAY_SIZE(longopts)];
static char spelled[48];

static const struct option *find(int opt)
{
    for (size_t i = 0; i < ARRAY_SIZE(catalogue); i++)
        if (catalogue[i].val == opt)
            return &catalogue[i];
    const struct spec_option *e = spec_find(opt);
    return e ? &e->o : NULL;
}

static bool accepted(const enum cli_option *accepts, int opt)
{
    for (const enum cli_option *a = accepts; *a != OPT_END; a++)
        if ((int)*a == opt)
            return true;
    return false;
}

/* The options in accepts, and with spec every option of the spec. */
static void build(const enum cli_option *accepts, bool spec)
{
    size_t n = 0, s = 0;
    shortopts[s++] = ':'; /* a missing value is ':', told apart from an unknown '?' */
    for (const enum cli_option *a = accepts; *a != OPT_END; a++)
        for (size_t i = 0; i < ARRAY_SIZE(catalogue); i++)
            if (catalogue[i].val == (int)*a)
                longopts[n++] = catalogue[i];
    for (size_t i = 0; i < ARRAY_SIZE(spec_options); i++)
        if (spec || accepted(accepts, spec_val(i))) {
            longopts[n] = spec_options[i].o;
            longopts[n++].val = spec_val(i);
        }
    for (size_t i = 0; i < n; i++)
        if (longopts[i].val < 256 && !memchr(shortopts, longopts[i].val, s)) {
            shortopts[s++] = (char)longopts[i].val;
            if (longopts[i].has_arg)
                shortopts[s++] = ':';
        }
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    n_longopts = n;
    shortopts[s] = '\0';
    built = accepts;
    built_spec = spec;
}

static int next_option(int argc, char **argv, const enum cli_option *accepts, bool spec)
{
    if (built != accepts || built_spec != spec)
        build(accepts, spec);
    int index = -1;
    int c = getopt_long(argc, argv, shortopts, longopts, &index);
    if (index >= 0)
        snprintf(spelled, sizeof(spelled), "--%s", longopts[index].name);
    else
        snprintf(spelled, sizeof(spelled), "-%c", c > 0 && c < 256 ? c : '?');
    return c;
}

int cli_getopt(int argc, char **argv, const enum cli_option *accepts)
{
    return next_option(argc, argv, accepts, false);
}

int cli_getopt_spec(int argc, char **argv, const enum cli_option *accepts, const char *cmd,
                    struct campaign_spec *spec, const char **first)
{
    static char first_name[32];
    for (;;) {
        int c = next_option(argc, argv, accepts, true);
        const struct spec_option *e = c > 0 ? spec_find(c) : NULL;
        if (!e)
            return c;
        if (!*first) {
            snprintf(first_name, sizeof(first_name), "--%s", e->o.name);
            *first = first_name;
        }
        if (e->set(e, cmd, c, optarg, spec) != LB_EXIT_OK)
            return OPT_REFUSED;
    }
}

void cli_spec_usage(FILE *out, bool late, const enum cli_option *omit)
{
    for (size_t i = 0; i < ARRAY_SIZE(spec_options); i++) {
        const struct spec_option *e = &spec_options[i];
        int letter = e->o.val > 0 && e->o.val < 256 ? e->o.val : 0;
        bool omitted = false;
        for (size_t k = 0; omit && omit[k] != OPT_END; k++)
            omitted = omitted || (e->o.val != 0 && e->o.val == (int)omit[k]);
        if (!e->help || e->late != late || omitted)
            continue;
        char left[64];
        int len = snprintf(left, sizeof(left), "  %c%c%s--%s%s%s", letter ? '-' : ' ',
                           letter ? letter : ' ', letter ? ", " : "  ", e->o.name,
                           e->arg ? " " : "", e->arg ? e->arg : "");
        /* the help in a column of its own, from the next line when the option is wider */
        if (len < USAGE_COLUMN - 1)
            fprintf(out, "%s%*s", left, USAGE_COLUMN - len, "");
        else
            fprintf(out, "%s\n%*s", left, USAGE_COLUMN, "");
        for (const char *h = e->help; *h;) {
            size_t line = strcspn(h, "\n");
            fprintf(out, "%.*s\n", (int)line, h);
            h += line + (h[line] == '\n');
            if (*h)
                fprintf(out, "%*s", USAGE_COLUMN, "");
        }
    }
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
