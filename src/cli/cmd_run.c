/* loopbench run: the A/B campaign. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "confedit.h"
#include "report.h"
#include "run.h"
#include "run_options.h"
#include "sequential.h"
#include "summary.h"
#include "text.h"
#include "targetenv.h"

const char cmd_run_usage[] =
    "usage: loopbench run [PROFILE] [options]\n"
    "\n"
    "Boot the target of PROFILE (default: the built-in refshard profile) once per setting\n"
    "and repeat, wait until it is ready, warm it up, measure the CPU of its whole process\n"
    "tree over a window and scrape its health lines; write DIR/results.json and print a\n"
    "summary table. The target's config files are restored afterwards.\n"
    "\n"
    "  -s, --settings V1,V2,...   knob values to run (default: the profile's); the\n"
    "                             profile's baseline, else the first, is the baseline\n"
    "  -n, --repeat N|auto[=MAX]  runs per setting (default: the profile's); auto: rounds\n"
    "                             until every gated comparison is decided, at most MAX\n"
    "                             (default 10; docs/report.md, the sequential gate)\n"
    "      --primary KEY,...      the keys the gate holds to (cpu, health keys; default:\n"
    "                             the profile's metrics.primary, else every one): the\n"
    "                             looks of --repeat auto wait only for these, and compare\n"
    "                             gates them unless told otherwise\n"
    "  -w, --warmup SECONDS|auto[=MAX]\n"
    "                             warm-up before each window (default: the profile's);\n"
    "                             auto: until the target's CPU has settled (no trend or\n"
    "                             change point over 2 s), at most MAX seconds (default 60)\n"
    "  -t, --sample SECONDS       length of each window, from 0.1 to 86400 (default:\n"
    "                             the profile's)\n"
    "      --variant NAME=DIR     a build of the target to compare, given twice or more:\n"
    "                             each setting runs under each variant once per round,\n"
    "                             with the cwd and config files (and {variant_dir}) taken\n"
    "                             from DIR; the first is the base the others are compared\n"
    "                             with, e.g. --variant base=../base --variant head=.\n"
    "      --commit SHA[,dirty]   the commit of what runs (default: $LOOPBENCH_COMMIT,\n"
    "                             else git's of the target's directory, each variant's\n"
    "                             too, else $GITHUB_SHA)\n"
    "      --order ORDER          interleave (A B A B, the default without variants),\n"
    "                             random (each round shuffled, seeded; the default with\n"
    "                             variants), grouped (A A B B) or duet (a setting's\n"
    "                             variants, else a round's settings, at once, each on\n"
    "                             CPUs of its own, turned round by one every round)\n"
    "      --pass-env NAME,...    give the targets these variables of loopbench's\n"
    "                             environment besides the base (PATH, HOME, the locale...;\n"
    "                             docs/profiles.md), never one that looks like a credential\n"
    "                             or a CI control file; recorded by name\n"
    "      --cpus LIST            run the targets' whole trees on these CPUs (e.g. 1 or\n"
    "                             0-3,6), loopbench on the others it may use; recorded\n"
    "                             per run (default: unpinned)\n"
    "      --rotate SECONDS       duet: the targets' whole trees swap CPU sets this often\n"
    "                             inside the window, so each build spends as long on each\n"
    "                             CPU in every window (default 0.5; 0: no swaps)\n"
    "      --hold-idle            hold the CPUs out of idle states (/dev/cpu_dma_latency\n"
    "                             at 0, root only) through each warm-up and window: the\n"
    "                             absolute CPU figures become a kept-awake host's\n"
    "      --seed N               seed for --order random (default: from the clock)\n"
    "      --interval MS          time-series interval (default 1000)\n"
    "      --log-limit BYTES      bytes of each log (stdout, stderr) kept per run, e.g.\n"
    "                             1M: past it the first and the last halves are kept and\n"
    "                             every health line still scraped (default: the profile's,\n"
    "                             else 64M)\n"
    "  -o, --output DIR           results directory, new or empty, in a directory that\n"
    "                             exists (default results/<profile>-<UTC time>)\n"
    "      --resume DIR           continue the interrupted campaign of DIR: the runs that\n"
    "                             completed are kept, the others run, with the same\n"
    "                             profile (refused if it changed), settings and order\n"
    "      --keep-going           go on after a failed run\n"
    "      --cpu-source SOURCE    auto (default), perf or tree\n"
    "  -f, --format text|json     the summary as a table (default) or as JSON\n"
    "      --json                 the same as --format json\n"
    "  -q, --quiet                print nothing but errors and the summary\n"
    "  -h, --help                 show this help\n"
    "\n"
    "exit status: 0 all runs completed, 1 a run or the campaign failed, 2 bad usage or\n"
    "profile, 129/130/143 interrupted by SIGHUP/SIGINT/SIGTERM (files restored).\n";

/* NAME=DIR into o's variants (the name a new string, the dir borrowed from arg); -1
 * when it is not that. */
static int parse_variant(const char *arg, struct run_opts *o)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return -1;
    for (const char *s = arg; s < eq; s++)
        if (!(isalnum((unsigned char)*s) || *s == '.' || *s == '_' || *s == '-'))
            return -1;
    o->variants = xrealloc(o->variants, (o->n_variants + 1) * sizeof(*o->variants));
    o->variants[o->n_variants++] =
        (struct variant_opt){xstrndup(arg, (size_t)(eq - arg)), eq + 1};
    return 0;
}

/* --pass-env NAME,... into names; refused (the message printed) when one is no name or
 * is never passed. */
static int pass_env_add(const char *arg, struct strv *names)
{
    struct strv given = {0};
    struct lb_error e;
    int rc = cli_split_list(arg, &given) < 0 ? lb_fail(&e, "--pass-env '%s': expected names "
                                                            "separated by commas, none empty", arg)
                                             : 0;
    for (size_t i = 0; rc == 0 && i < given.n; i++)
        if ((rc = targetenv_check(given.v[i], "--pass-env", &e)) == 0)
            strv_push(names, given.v[i]);
    if (rc < 0)
        msg_usage_error("run", "run: %s", e.msg);
    strv_release(&given);
    return rc;
}

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
    static const enum cli_option accepts[] = {
        OPT_SETTINGS,   OPT_REPEAT,   OPT_WARMUP,    OPT_SAMPLE, OPT_VARIANT, OPT_PRIMARY,
        OPT_CPUS,       OPT_PASS_ENV, OPT_COMMIT,    OPT_ORDER,  OPT_ROTATE,  OPT_HOLD_IDLE,
        OPT_SEED,       OPT_INTERVAL, OPT_LOG_LIMIT, OPT_OUTPUT, OPT_RESUME,  OPT_KEEP_GOING,
        OPT_CPU_SOURCE, OPT_FORMAT,   OPT_JSON,      OPT_QUIET,  OPT_END};
    struct run_opts o = {.repeat = 0, .warmup_s = -1, .sample_s = 0, .interval_ms = 1000,
                         .rotate_s = -1};
    enum cli_format format = CLI_TEXT;
    bool order_given = false;
    int status = LB_EXIT_USAGE;
    /* The first option that shapes a campaign: --resume takes the campaign's own. */
    const char *shaping = NULL;
    long l = 0;
    double d = 0;
    int c;
    while ((c = cli_getopt(argc, argv, accepts)) != -1) {
        int taken = cli_run_option("run", c, optarg, &o, &shaping);
        if (taken == LB_EXIT_USAGE)
            goto out;
        if (taken == LB_EXIT_OK)
            continue;
        const char *expected = NULL; /* what a rejected value should have been */
        switch (c) {
        case OPT_SETTINGS:
            if (text_control(optarg)) {
                char *shown = text_shown(optarg);
                msg_usage_error("run", "run: --settings '%s': a control character at byte %zu: "
                                       "expected printable values", shown,
                                (size_t)(text_control(optarg) - optarg));
                free(shown);
                goto out;
            }
            if (cli_split_list(optarg, &o.settings) < 0)
                expected = "values separated by commas, none empty";
            break;
        case OPT_REPEAT:
            o.sequential = strncmp(optarg, "auto", 4) == 0;
            if (o.sequential && optarg[4] == '\0')
                l = SEQ_DEFAULT_MAX;
            else if (o.sequential ? optarg[4] != '=' || parse_long(optarg + 5, SEQ_MIN_ROUNDS,
                                                                   SEQ_LIMIT_MAX, &l) < 0
                                  : parse_long(optarg, 1, REPEAT_MAX, &l) < 0) {
                char range[96];
                snprintf(range, sizeof(range),
                         "a whole number from 1 to %d, or auto[=MAX] with "
                         "MAX from %d to %d",
                         REPEAT_MAX, SEQ_MIN_ROUNDS, SEQ_LIMIT_MAX);
                cli_bad_value("run", c, optarg, range);
                goto out;
            }
            o.repeat = l;
            break;
        case OPT_VARIANT:
            if (parse_variant(optarg, &o) < 0)
                expected = "NAME=DIR, the name of letters, digits, '.', '_' or '-'";
            break;
        case OPT_PRIMARY:
            o.primary = optarg;
            break;
        case OPT_COMMIT:
            o.commit = optarg;
            break;
        case OPT_PASS_ENV:
            if (pass_env_add(optarg, &o.pass_env) < 0)
                goto out;
            break;
        case OPT_ORDER:
            order_given = true;
            if (run_order_parse(optarg, &o.order) < 0)
                expected = "interleave, random, grouped or duet";
            break;
        case OPT_ROTATE:
            if (parse_double(optarg, &d) < 0 || d < 0 || (d > 0 && d < 0.01) || d > 3600)
                expected = "seconds from 0.01 to 3600, or 0 for no swaps";
            o.rotate_s = d;
            break;
        case OPT_FORMAT:
        case OPT_JSON:
            if (cli_format("run", c, optarg, CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_JSON),
                           &format) != LB_EXIT_OK)
                goto out;
            break;
        default:
            cli_bad_option("run", argc, argv);
            goto out;
        }
        if (expected) {
            cli_bad_value("run", c, optarg, expected);
            goto out;
        }
    }
    if (cli_run_operands("run", argc, argv, &o, shaping, "profile, settings and output "
                                                         "directory") != LB_EXIT_OK)
        goto out;
    if (o.n_variants == 1) {
        msg_usage_error("run", "run: --variant '%s=%s': expected two or more variants to "
                               "compare", o.variants[0].name, o.variants[0].dir);
        goto out;
    }
    /* Variants are compared round by round: shuffled within each round unless asked. */
    if (o.n_variants && !order_given)
        o.order = ORDER_RANDOM;
    char *command_line = cli_command_line(argc, argv);
    o.command_line = command_line;

    struct runner rn;
    struct lb_error err;
    int set = o.resume_dir ? runner_setup_resume(&o, &rn, &err) : runner_setup(&o, &rn, &err);
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
    if (camp->out_dir && camp->values.n) {
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
    strv_release(&o.settings);
    strv_release(&o.pass_env);
    for (size_t i = 0; i < o.n_variants; i++)
        free((char *)o.variants[i].name);
    free(o.variants);
    return status;
}
