/* loopbench tune: which value of the knob to run (docs/cli.md). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "emit.h"
#include "options.h"
#include "run.h"
#include "run_cli.h"
#include "text.h"
#include "tune_run.h"
#include "tune_view.h"

const char cmd_tune_usage[] =
    "usage: loopbench tune [PROFILE] (--range LO:HI[:STEP] | --settings A,B,...)\n"
    "                      --guard 'KEY<=LIMIT' [options]\n"
    "\n"
    "Find the value of PROFILE's knob (default: the built-in refshard profile) that\n"
    "minimises CPU (or --minimize KEY) while every guard holds, each judged with an\n"
    "interval: a campaign like run's whose rounds are chosen as it goes (a coarse grid,\n"
    "then bisection toward the boundary, more rounds where a guard is undecided). Prints\n"
    "the recommendation and a frontier table; DIR/results.json keeps it for report.\n"
    "\n"
    "      --range LO:HI[:STEP]   the knob's values LO to HI by STEP (the resolution,\n"
    "                             default 1), at least 2 and at most 256\n"
    "  -s, --settings A,B,...     or the values as an ordered list (a categorical knob)\n"
    "      --guard 'KEY<=LIMIT'   a bound on KEY (cpu, a health key, voluntary_per_s):\n"
    "                             LIMIT in the key's unit, +DELTA or +PCT% a rise over\n"
    "                             the reference's, paired by round (a higher-is-better\n"
    "                             key's is a floor); given once or more (at most 8;\n"
    "                             default: the profile's tune.guards)\n"
    "      --reference V          the setting relative guards and the saving are measured\n"
    "                             against (default: the profile's baseline)\n"
    "      --minimize KEY         the objective (default cpu)\n"
    "      --tie X                a setting shown within X of the lowest objective, in\n"
    "                             its unit, ties with it, and a tie goes to the one\n"
    "                             nearest the reference (default: 0.5 for cpu, percent\n"
    "                             of a core; 0 for another key)\n"
    "      --max-runs N           the campaign's runs at most, the reference's too\n"
    "      --max-time DURATION    its time at most, e.g. 90s, 20m or 2h, over a run's\n"
    "                             expected length (warm-up + window + 1 s)\n"
    "\n"
    "The campaign's options, as run takes them (tune chooses the rounds of one build: no\n"
    "--repeat, --variant or --order grouped):\n";

/* The spec's options tune refuses, or lists as its own (--settings). */
const enum cli_option cmd_tune_usage_omit[] = {OPT_SETTINGS, OPT_REPEAT, OPT_VARIANT,
                                               OPT_END};

/* Between the spec's options and after them (cli_spec_usage). */
const char *const cmd_tune_usage_tail[2] = {
    "      --resume DIR           continue the interrupted tune of DIR\n"
    "      --keep-going           go on after a failed run (it counts as no value)\n",
    "  -f, --format md|text|json  the answer as Markdown, plain text (default on a\n"
    "                             terminal) or JSON\n"
    "      --json                 the same as --format json\n"
    "  -q, --quiet                print nothing but errors and the answer\n"
    "  -h, --help                 show this help\n"
    "\n"
    "exit status: 0 a setting is recommended, the boundary located; 1 a run or the\n"
    "campaign failed; 2 bad usage or profile; 3 the budget ran out, or a setting left\n"
    "undecided at its cap, before the answer was settled; 129/130/143 interrupted.\n"};

/* "90", "90s", "20m", "2h" into seconds; -1 when it is none. */
static int parse_duration(const char *arg, double *out)
{
    size_t len = strlen(arg);
    static const char units[] = "smh";
    static const double scale[] = {1, 60, 3600};
    const char *u = len ? strchr(units, arg[len - 1]) : NULL;
    char num[64];
    if (len == 0 || len >= sizeof(num) || (u && *u == '\0'))
        return -1;
    memcpy(num, arg, len - (u != NULL));
    num[len - (u != NULL)] = '\0';
    double d;
    if (parse_double(num, &d) < 0 || !(d > 0))
        return -1;
    *out = d * (u ? scale[u - units] : 1);
    return *out <= 366.0 * 86400 ? 0 : -1;
}

/* The profile's tune.guards when the command line gave none. */
static int profile_guards(struct tune_ask *a, const struct profile *p, struct lb_error *err)
{
    struct lb_error e;
    for (size_t i = 0; a->guards == 0 && i < p->tune_guards.n; i++)
        if (tune_ask_guard(a, p->tune_guards.v[i], &e) < 0)
            return lb_fail(err, "profile '%s': tune.guards[%zu]: %s", p->name, i, e.msg);
    return 0;
}

/* The answer printed, and the exit status it says. */
static int answer(const struct campaign *c, struct tune_ask *a, struct tune_run *tr,
                  enum cli_format format)
{
    struct lb_error err;
    struct tune_result r = {0};
    if (tune_ask_analyse(a, &tr->t, c, &r, &err) < 0) {
        msg_error("%s", err.msg);
        return LB_EXIT_FAILURE;
    }
    tune_advise(&tr->t, &r);
    struct tune_view v = {c, a, &r};
    emit_result(format == CLI_JSON ? tune_json(&v) : NULL, format, tune_markdown, &v, NULL);
    int status = r.recommended >= 0 && tr->stop == TUNE_LOCATED ? LB_EXIT_OK : 3;
    tune_result_release(&r);
    return status;
}

/* What of the spec tune cannot take (it chooses the rounds, of one build); NULL: none. */
static const char *spec_refused(const struct campaign_spec *spec)
{
    if (spec->repeat || spec->sequential_max)
        return "--repeat: tune chooses the rounds: expected none";
    if (spec->n_variants)
        return "--variant: tune runs one build: expected none";
    if (spec->order == ORDER_GROUPED)
        return "--order grouped: tune looks after every round: expected interleave, random or "
               "duet";
    return NULL;
}

int cmd_tune(int argc, char **argv)
{
    static const enum cli_option accepts[] = {
        OPT_RANGE,  OPT_GUARD,      OPT_REFERENCE, OPT_MINIMIZE, OPT_MAX_RUNS, OPT_MAX_TIME,
        OPT_TIE,    OPT_RESUME, OPT_KEEP_GOING, OPT_FORMAT,    OPT_JSON,     OPT_QUIET,    OPT_END};
    struct run_opts o = {0};
    struct campaign_spec spec;
    campaign_spec_init(&spec);
    struct tune_ask ask;
    tune_ask_init(&ask);
    struct tune_run tr;
    memset(&tr, 0, sizeof(tr));
    enum cli_format format = CLI_DEFAULT;
    int status = LB_EXIT_USAGE;
    const char *shaping = NULL; /* the first option --resume cannot take */
    const char *range = NULL;
    struct lb_error err;
    long l;
    int c;
    while ((c = cli_getopt_spec(argc, argv, accepts, "tune", &spec, &shaping)) != -1) {
        if (cli_run_flag(c, optarg, &o) == LB_EXIT_OK)
            continue;
        const char *expected = NULL;
        if (!shaping && c != OPT_JSON && c != OPT_FORMAT)
            shaping = cli_option_name(c);
        switch (c) {
        case OPT_RANGE:
            range = optarg;
            if (tune_ask_range(&ask, optarg, &err) < 0) {
                char *shown = text_shown(optarg);
                msg_usage_error("tune", "tune: --range '%s': %s", shown, err.msg);
                free(shown);
                goto out;
            }
            break;
        case OPT_GUARD:
            if (tune_ask_guard(&ask, optarg, &err) < 0) {
                msg_usage_error("tune", "tune: --%s", err.msg);
                goto out;
            }
            break;
        case OPT_REFERENCE:
            free(ask.reference);
            ask.reference = xstrdup(optarg);
            break;
        case OPT_MINIMIZE:
            free(ask.minimize);
            ask.minimize = xstrdup(optarg);
            break;
        case OPT_MAX_RUNS:
            if (parse_long(optarg, 2, CAMPAIGN_RUNS_MAX, &l) < 0)
                expected = "a whole number from 2 to 100000 (a campaign's runs)";
            ask.max_runs = l;
            break;
        case OPT_TIE:
            if (parse_double(optarg, &ask.tie) < 0 || !(ask.tie >= 0) || !isfinite(ask.tie))
                expected = "0 or more, in the objective's unit (cpu: percent of a core)";
            break;
        case OPT_MAX_TIME:
            if (parse_duration(optarg, &ask.max_time_s) < 0)
                expected = "a duration above 0: seconds, or a number ending in s, m or h";
            break;
        default:
            if (cli_run_format_option("tune", c, optarg,
                                      CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_MD) |
                                          CLI_FORMATS(CLI_JSON),
                                      &format, argc, argv) != LB_EXIT_OK)
                goto out;
            break;
        }
        if (expected) {
            cli_bad_value("tune", c, optarg, expected);
            goto out;
        }
    }
    if (cli_run_operands("tune", argc, argv, &spec, &o, shaping,
                         "profile, values, guards and output directory") != LB_EXIT_OK)
        goto out;
    const char *refused = spec_refused(&spec);
    if (refused) {
        msg_usage_error("tune", "tune: %s", refused);
        goto out;
    }
    if (range && spec.values.n) {
        msg_usage_error("tune", "tune: --range '%s' and --settings: expected one of them", range);
        goto out;
    }
    if (!o.resume_dir && !range && spec.values.n && tune_ask_list(&ask, &spec.values, &err) < 0) {
        msg_usage_error("tune", "tune: --settings: %s", err.msg);
        goto out;
    }
    if (ask.grid.n > CAMPAIGN_SETTINGS_MAX) {
        msg_usage_error("tune", "tune: %s: %zu values: expected at most %d (a campaign's settings)",
                        range ? "--range" : "--settings", ask.grid.n, CAMPAIGN_SETTINGS_MAX);
        goto out;
    }
    if (!o.resume_dir && ask.grid.n == 0) {
        msg_usage_error("tune", "tune: expected the knob's values: --range LO:HI[:STEP] or "
                                "--settings A,B,...");
        goto out;
    }
    if (range)
        tune_ask_values(&ask, &spec.values);
    char *command_line = cli_command_line(argc, argv);
    o.command_line = command_line;
    o.rounds = &tr.rounds;

    struct runner rn;
    int set =
        o.resume_dir ? runner_setup_resume(&o, &rn, &err) : runner_setup(&o, &spec, &rn, &err);
    if (set == 0 && o.resume_dir)
        set = tune_ask_from_campaign(&ask, &rn.c, &err);
    else if (set == 0 && (profile_guards(&ask, &rn.profiles[0], &err) < 0 ||
                          tune_ask_bind(&ask, &rn.c, rn.profiles[0].knob.baseline, &err) < 0))
        set = (msg_usage_error("tune", "tune: %s", err.msg), 1);
    if (set == 0) {
        rn.c.spec.baseline = ask.ref;
        if (!rn.c.tune)
            rn.c.tune = tune_ask_json(&ask);
        set = tune_run_init(&tr, &ask, &rn, &err);
        /* the first round is in the plan results.json starts with */
        if (set == 0 && rn.c.n_runs == 0)
            set = tune_run_next(&tr, &rn, &err) < 0 ? -1 : 0;
    }
    if (set < 0)
        msg_error("%s", err.msg);
    if (set == 0 && cli_run_begin(&o, &rn) < 0) {
        status = LB_EXIT_FAILURE;
    } else if (set == 0) {
        int rc = runner_run(&o, &rn, &err);
        if (rc < 0)
            msg_error("%s", err.msg);
        if (rn.c.out_dir)
            status = answer(&rn.c, &ask, &tr, format);
        if (rc < 0)
            status =
                rn.c.interrupted_by ? lb_exit_for_signal(rn.c.interrupted_by) : LB_EXIT_FAILURE;
    }
    tune_run_release(&tr);
    runner_release(&rn);
    free(command_line);
out:
    tune_ask_release(&ask);
    campaign_spec_release(&spec);
    return status;
}
