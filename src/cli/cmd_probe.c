/* loopbench probe [-t SECONDS] [--json]: what this host does to an event loop (the
 * measurements are in probe.c). */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "compat.h"
#include "commands.h"
#include "options.h"
#include "config.h"
#include "msg.h"
#include "platform/platform.h"
#include "probe.h"
#include "util.h"

#define MIN_SECONDS 0.5
#define MAX_SECONDS 3600.0
#define MAX_ADVICE 8

const char cmd_probe_usage[] =
    "usage: loopbench probe [-t SECONDS] [-f text|json] [--json]\n"
    "\n"
    "Measure what this host does to an event loop: the cost of the clock reads a loop\n"
    "makes every iteration and of loopbench's own sampling read, against a desktop on\n"
    "dedicated cores (normal under 3x, SLOW under 10x, TRAPPING beyond); how late idle\n"
    "waits of 1, 2, 4 and 8 ms come back through epoll_wait and nanosleep, on a quiet\n"
    "host and with a busy process on every core; the CPU time stolen meanwhile; and\n"
    "whether idle sleeping is viable here.\n"
    "\n"
    "  -t, --seconds SECONDS      about how long to take (default 20, from 0.5 to\n"
    "                             3600; --sample is the same)\n"
    "  -f, --format text|json     text (default) or one JSON object\n"
    "      --json                 the same as --format json\n"
    "  -h, --help                 show this help\n"
    "\n"
    "exit status: 0 probed, 1 a measurement failed, 2 bad arguments, 129/130/143\n"
    "interrupted. See docs/cli.md.\n";

struct probe_args {
    double seconds;
    bool json;
};

static int parse_args(int argc, char **argv, struct probe_args *a)
{
    static const enum cli_option accepts[] = {OPT_SAMPLE, OPT_FORMAT, OPT_JSON, OPT_END};
    *a = (struct probe_args){.seconds = PROBE_DEFAULT_SECONDS};
    enum cli_format format = CLI_TEXT;
    int c, status = LB_EXIT_OK;
    while (status == LB_EXIT_OK && (c = cli_getopt(argc, argv, accepts)) != -1) {
        switch (c) {
        case OPT_SAMPLE:
            status = cli_seconds("probe", c, optarg, MIN_SECONDS, MAX_SECONDS, &a->seconds);
            break;
        case OPT_FORMAT:
        case OPT_JSON:
            status = cli_format("probe", c, optarg, CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_JSON),
                                &format);
            break;
        default:
            status = cli_bad_option("probe", argc, argv);
        }
    }
    a->json = format == CLI_JSON;
    if (status == LB_EXIT_OK && optind < argc)
        return msg_usage_error("probe", "probe: unexpected argument '%s'", argv[optind]);
    return status;
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

static void print_text(const struct probe_report *r)
{
    const struct plat_host_facts *h = &r->host;
    printf("host\n");
    printf("  os          %s %s (%s), %d logical CPUs\n", or_dash(h->os), or_dash(h->kernel),
           or_dash(h->arch), h->logical_cpus);
    printf("  cpu         %s\n", or_dash(h->cpu_model));
    printf("  clock       source %s, resolution %llu ns\n", or_dash(h->clocksource),
           (unsigned long long)h->clock_resolution_ns);
    printf("  governor    %s\n", or_dash(h->governor));
    printf("  virtual     %s\n", or_dash(h->virtualization));
    if (h->loadavg[0] >= 0)
        printf("  load        %.2f %.2f %.2f\n", h->loadavg[0], h->loadavg[1], h->loadavg[2]);
    else
        printf("  load        -\n"); /* Windows has no load average */

    printf("\n%-26s %12s %12s  %s\n", "operation", "ns/op", "desktop ref", "verdict");
    for (int i = 0; i < PROBE_N_OPS; i++) {
        const struct probe_cost *c = &r->costs[i];
        if (isnan(c->ns)) {
            printf("%-26s %12s %9.0f ns  not measured\n", c->name, "-", c->ref_ns);
            continue;
        }
        printf("%-26s %12.1f %9.0f ns  %s", c->name, c->ns, c->ref_ns,
               probe_verdict_name(c->verdict));
        if (c->verdict != PROBE_NORMAL)
            printf(" (~%.0fx)", c->ratio);
        if (c->detail)
            printf(" [%s]", c->detail);
        putchar('\n');
    }

    printf("\nidle waits: overshoot past the requested time, ms; 'tick late' came back a full "
           "%llu ms late\n",
           (unsigned long long)(PROBE_TICK_NS / 1000000));
    printf("%-11s %5s %-8s %5s %8s %8s %8s %8s %10s\n", "primitive", "wait", "host", "n", "min",
           "p50", "p99", "max", "tick late");
    for (size_t i = 0; i < r->n_wakes; i++) {
        const struct probe_wake *w = &r->wakes[i];
        char load[16];
        snprintf(load, sizeof(load), w->contended ? "busy x%u" : "quiet", r->busy_processes);
        printf("%-11s %2u ms %-8s %5zu %8.3f %8.3f %8.3f %8.3f %9.1f%%\n", plat_wait_names[w->kind],
               w->ms, load, w->n, w->min_ms, w->p50_ms, w->p99_ms, w->max_ms,
               w->tick_late_share * 100);
    }
    if (isnan(r->steal_percent))
        printf("\nsteal       unknown\n");
    else
        printf("\nsteal       %.2f%% of the host's CPU time during the probe (%.1f s)\n",
               r->steal_percent, r->seconds);

    const char *lines[MAX_ADVICE];
    size_t n = probe_advice(&r->judgement, lines, MAX_ADVICE);
    printf("\nverdict\n");
    for (size_t i = 0; i < n; i++)
        printf("  %s\n", lines[i]);
}

/* NaN (not measured) is null. */
static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *report_json(const struct probe_report *r)
{
    const struct plat_host_facts *h = &r->host;
    json_t *host = json_pack(
        "{s:o, s:o, s:o, s:o, s:i, s:o, s:I, s:o, s:o, s:[f,f,f]}", "os", str(h->os), "kernel",
        str(h->kernel), "arch", str(h->arch), "cpu_model", str(h->cpu_model), "logical_cpus",
        h->logical_cpus, "clocksource", str(h->clocksource), "clock_resolution_ns",
        (json_int_t)h->clock_resolution_ns, "governor", str(h->governor), "virtualization",
        str(h->virtualization), "loadavg", h->loadavg[0], h->loadavg[1], h->loadavg[2]);
    json_t *costs = json_array();
    for (int i = 0; i < PROBE_N_OPS; i++) {
        const struct probe_cost *c = &r->costs[i];
        bool measured = !isnan(c->ns);
        json_array_append_new(
            costs, json_pack("{s:s, s:o, s:o, s:f, s:o, s:o, s:I}", "operation", c->name,
                             "detail", str(c->detail), "ns_per_op", num(c->ns), "reference_ns",
                             c->ref_ns, "ratio", num(measured ? c->ratio : NAN), "verdict",
                             measured ? json_string(probe_verdict_name(c->verdict)) : json_null(),
                             "iterations", (json_int_t)c->iterations));
    }
    json_t *wakes = json_array();
    for (size_t i = 0; i < r->n_wakes; i++) {
        const struct probe_wake *w = &r->wakes[i];
        json_array_append_new(
            wakes, json_pack("{s:s, s:i, s:b, s:I, s:{s:o, s:o, s:o, s:o}, s:o}", "primitive",
                             plat_wait_names[w->kind], "requested_ms", (int)w->ms, "contended",
                             w->contended, "waits", (json_int_t)w->n, "overshoot_ms", "min",
                             num(w->min_ms), "p50", num(w->p50_ms), "p99", num(w->p99_ms), "max",
                             num(w->max_ms), "tick_late_share", num(w->tick_late_share)));
    }
    const struct probe_judgement *j = &r->judgement;
    const char *lines[MAX_ADVICE];
    size_t n = probe_advice(j, lines, MAX_ADVICE);
    json_t *advice = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(advice, json_string(lines[i]));
    json_t *verdict = json_pack(
        "{s:b, s:b, s:b, s:b, s:b, s:f, s:o}", "idle_sleep_viable", j->viable, "clock_reads_trap",
        j->clock_traps, "clock_reads_slow", j->clock_slow, "waits_late", j->waits_late,
        "steal_high", j->steal_high, "worst_tick_late_share", j->worst_late_share, "advice",
        advice);
    return json_pack("{s:s, s:{s:s, s:s}, s:f, s:o, s:I, s:o, s:o, s:I, s:o, s:o}", "schema",
                     PROBE_SCHEMA, "loopbench", "version", LOOPBENCH_VERSION, "platform",
                     plat_name(), "seconds", r->seconds, "host", host, "tick_ns",
                     (json_int_t)PROBE_TICK_NS, "costs", costs, "wakes", wakes, "busy_processes",
                     (json_int_t)r->busy_processes, "steal_percent", num(r->steal_percent),
                     "verdict", verdict);
}

int cmd_probe(int argc, char **argv)
{
    struct probe_args a;
    int status = parse_args(argc, argv, &a);
    if (status != LB_EXIT_OK)
        return status;
    struct lb_error err;
    msg_info("probing this host for about %g s", a.seconds);
    struct probe_report r;
    if (probe_run(a.seconds, &r, &err) < 0) {
        msg_error("%s", err.msg);
        status = plat_last_signal() ? lb_exit_for_signal(plat_last_signal()) : LB_EXIT_FAILURE;
    } else if (a.json) {
        json_t *o = report_json(&r);
        if (json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0)
            status = LB_EXIT_FAILURE;
        putchar('\n');
        json_decref(o);
    } else {
        print_text(&r);
    }
    probe_report_release(&r);
    return status;
}
