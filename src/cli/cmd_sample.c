/* loopbench sample --pid PID -t SECONDS: measure one window on a process that
 * loopbench did not start (a server already running), with the same sampler as a
 * run, and optionally scrape the health lines its log gained meanwhile. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "commands.h"
#include "options.h"
#include "compat.h"
#include "msg.h"
#include "platform/platform.h"
#include "sampler.h"
#include "scrape.h"
#include "util.h"

#define DEFAULT_INTERVAL_MS 1000
#define DEFAULT_MARKER "loop: "
#define MAX_SECONDS (7 * 86400.0)

const char cmd_sample_usage[] =
    "usage: loopbench sample --pid PID -t SECONDS [--interval MS] [--log FILE]\n"
    "                        [--marker M] [-f text|json] [--json]\n"
    "\n"
    "Measure the CPU a running process and its descendants use over SECONDS, as a\n"
    "percentage of one core, read exactly at the window's edges, with a time series\n"
    "(CPU, resident memory, context switches, host steal) at every interval.\n"
    "\n"
    "      --pid PID              the process to measure (with its descendants)\n"
    "  -t, --seconds SECONDS      length of the window, from 0.1 s to 7 days (may be\n"
    "                             fractional; --sample is the same, as run spells it)\n"
    "      --interval MS          period of the series (default 1000)\n"
    "      --log FILE             also scrape the marker lines FILE gains during the\n"
    "                             window\n"
    "      --marker M             what starts the health part of a line (default\n"
    "                             'loop: ')\n"
    "  -f, --format text|json     text (default) or one JSON object\n"
    "      --json                 the same as --format json\n"
    "  -h, --help                 show this help\n"
    "\n"
    "exit status: 0 measured, 1 the process is gone or could not be read, 2 bad\n"
    "arguments, 129/130/143 interrupted. See docs/cli.md and docs/platforms.md.\n";

struct sample_args {
    pid_t pid;
    double seconds;
    long interval_ms;
    const char *log;
    const char *marker;
    bool json;
};

/* What the command measured, for either output. */
struct sample_report {
    const struct sample_args *args;
    const struct plat_target *target;
    const struct sample_result *r;
    const struct series_point *points;
    const struct scrape_run *scrape; /* NULL without --log */
    double self_cpu_s;               /* loopbench's own CPU, whole process */
    double self_window_cpu_s;        /* ... and during the window */
    long self_max_rss_kib;
};

static int parse_args(int argc, char **argv, struct sample_args *a)
{
    static const enum cli_option accepts[] = {OPT_PID,    OPT_SAMPLE, OPT_INTERVAL, OPT_LOG,
                                              OPT_MARKER, OPT_FORMAT, OPT_JSON,     OPT_END};
    *a = (struct sample_args){.interval_ms = DEFAULT_INTERVAL_MS, .marker = DEFAULT_MARKER};
    enum cli_format format = CLI_TEXT;
    long pid = 0;
    int c, status;
    while ((c = cli_getopt(argc, argv, accepts)) != -1) {
        switch (c) {
        case OPT_PID:
            if (parse_long(optarg, 1, INT_MAX, &pid) < 0)
                return cli_bad_value("sample", c, optarg, "a process id");
            break;
        case OPT_SAMPLE:
            if ((status = cli_seconds("sample", c, optarg, WINDOW_MIN_S, MAX_SECONDS,
                                      &a->seconds)) != LB_EXIT_OK)
                return status;
            break;
        case OPT_INTERVAL:
            if (parse_long(optarg, 10, 3600000, &a->interval_ms) < 0)
                return cli_bad_value("sample", c, optarg, "milliseconds from 10 to 3600000");
            break;
        case OPT_LOG:
            a->log = optarg;
            break;
        case OPT_MARKER:
            if (!*optarg)
                return msg_usage_error("sample", "sample: --marker: expected a non-empty text");
            a->marker = optarg;
            break;
        case OPT_FORMAT:
        case OPT_JSON:
            if ((status = cli_format("sample", c, optarg,
                                     CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_JSON), &format)) !=
                LB_EXIT_OK)
                return status;
            break;
        default:
            return cli_bad_option("sample", argc, argv);
        }
    }
    a->json = format == CLI_JSON;
    if (optind < argc)
        return msg_usage_error("sample", "sample: unexpected argument '%s'", argv[optind]);
    if (!pid)
        return msg_usage_error("sample", "sample: --pid is required");
    if (a->seconds <= 0)
        return msg_usage_error("sample", "sample: --seconds is required: how long to measure");
    a->pid = (pid_t)pid;
    return LB_EXIT_OK;
}

static double self_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int interrupted_status(int sig)
{
    switch (sig) {
    case SIGHUP:
        return LB_EXIT_SIGHUP;
    case SIGTERM:
        return LB_EXIT_SIGTERM;
    default:
        return LB_EXIT_SIGINT;
    }
}

static const char *fmt_duration(uint64_t ns, char *buf, size_t len)
{
    if (ns >= 1000000)
        snprintf(buf, len, "%g ms", (double)ns / 1e6);
    else
        snprintf(buf, len, "%g us", (double)ns / 1e3);
    return buf;
}

static void print_text(const struct sample_report *rep)
{
    const struct sample_result *r = rep->r;
    char res[32];
    printf("pid %d: %.3f%% of one core over %.3f s (%.6f s of CPU)\n", (int)rep->args->pid,
           r->cpu_percent, (double)r->wall_ns / 1e9, (double)r->cpu_ns / 1e9);
    printf("  source      %s, resolution %s\n",
           cpu_source_name(plat_target_cpu_source(rep->target)),
           fmt_duration(r->resolution_ns, res, sizeof(res)));
    if (r->unreliable)
        printf("  reliable    no: under %d times the source's resolution, the figure is mostly "
               "quantisation; measure longer\n",
               SAMPLER_RESOLUTION_GUARD);
    else
        printf("  reliable    yes\n");
    double wall_s = (double)r->wall_ns / 1e9;
    printf("  switches    %.1f voluntary/s, %.1f involuntary/s\n",
           wall_s > 0 ? (double)r->voluntary_ctxsw / wall_s : 0,
           wall_s > 0 ? (double)r->involuntary_ctxsw / wall_s : 0);
    printf("  rss peak    %.1f MiB\n", (double)r->rss_peak_bytes / 1048576.0);
    printf("  steal       %.2f%% of the host\n", r->steal_percent);
    printf("  loopbench   %.4f s of CPU in the window (%.4f%% of one core), %.4f s in all, "
           "max RSS %ld KiB\n",
           rep->self_window_cpu_s, wall_s > 0 ? rep->self_window_cpu_s * 100 / wall_s : 0,
           rep->self_cpu_s, rep->self_max_rss_kib);
    if (r->n_points) {
        printf("\n  %8s %8s %10s %9s %9s %8s\n", "t (s)", "cpu %", "rss (MiB)", "vol/s", "invol/s",
               "steal %");
        for (size_t i = 0; i < r->n_points; i++) {
            const struct series_point *p = &rep->points[i];
            printf("  %8.3f %8.3f %10.1f %9.1f %9.1f %8.2f\n", p->t_s, p->cpu_percent,
                   (double)p->rss_bytes / 1048576.0, p->voluntary_per_s, p->involuntary_per_s,
                   p->steal_percent);
        }
    }
    if (!rep->scrape)
        return;
    const struct scrape_run *s = rep->scrape;
    printf("\nlog '%s': %zu marker line%s in the window\n", rep->args->log, s->n_windows,
           s->n_windows == 1 ? "" : "s");
    if (s->lines_dropped || s->values_dropped)
        printf("  beyond the bounds of a window (docs/scraping.md): %lu marker lines and %lu "
               "values left out\n", s->lines_dropped, s->values_dropped);
    if (!s->n_aggs)
        return;
    printf("  %-20s %-11s %7s %12s %12s %12s %12s\n", "key", "type", "windows", "mean", "min",
           "max", "sum");
    for (size_t i = 0; i < s->n_aggs; i++) {
        const struct scrape_agg *a = &s->aggs[i];
        printf("  %-20s %-11s %7zu %12g %12g %12g %12g", a->key, scrape_type_name(a->type), a->n,
               a->mean, a->min, a->max, a->sum);
        if (a->type == SCRAPE_RATIO)
            printf(" of %g", a->total_sum);
        putchar('\n');
    }
}

static int print_json(const struct sample_report *rep)
{
    const struct sample_result *r = rep->r;
    char start[32], end[32];
    format_utc(r->start_wall_ns, false, start, sizeof(start));
    format_utc(r->end_wall_ns, false, end, sizeof(end));
    json_t *series = json_array();
    for (size_t i = 0; i < r->n_points; i++) {
        const struct series_point *p = &rep->points[i];
        json_array_append_new(
            series, json_pack("{s:f, s:f, s:I, s:f, s:f, s:f}", "t_s", p->t_s, "cpu_percent",
                              p->cpu_percent, "rss_bytes", (json_int_t)p->rss_bytes,
                              "voluntary_per_s", p->voluntary_per_s, "involuntary_per_s",
                              p->involuntary_per_s, "steal_percent", p->steal_percent));
    }
    json_t *o = json_pack(
        "{s:i, s:s, s:s, s:f, s:f, s:f, s:s, s:I, s:b, s:I, s:I, s:I, s:f, s:o, s:f, s:f, s:I}",
        "pid", (int)rep->args->pid, "start_utc", start, "end_utc", end, "cpu_percent",
        r->cpu_percent, "cpu_seconds", (double)r->cpu_ns / 1e9, "wall_seconds",
        (double)r->wall_ns / 1e9, "cpu_source",
        cpu_source_name(plat_target_cpu_source(rep->target)), "resolution_ns",
        (json_int_t)r->resolution_ns, "unreliable", r->unreliable, "voluntary_ctxsw",
        (json_int_t)r->voluntary_ctxsw, "involuntary_ctxsw", (json_int_t)r->involuntary_ctxsw,
        "rss_peak_bytes", (json_int_t)r->rss_peak_bytes, "steal_percent", r->steal_percent,
        "series", series, "loopbench_cpu_seconds", rep->self_cpu_s, "loopbench_window_cpu_seconds",
        rep->self_window_cpu_s, "loopbench_max_rss_kib", (json_int_t)rep->self_max_rss_kib);
    if (rep->scrape) {
        json_object_set_new(o, "log",
                            json_pack("{s:s, s:s, s:I}", "path", rep->args->log, "marker",
                                      rep->args->marker, "marker_lines",
                                      (json_int_t)rep->scrape->n_windows));
        json_object_set_new(o, "metrics", scrape_run_to_json(rep->scrape));
        json_t *dropped = scrape_dropped_json(rep->scrape);
        if (dropped)
            json_object_set_new(o, "health_dropped", dropped);
    }
    int rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    putchar('\n');
    json_decref(o);
    return rc;
}

/* The window and, with --log, the lines the log gained in it. */
static int measure(const struct sample_args *a, struct plat_target *t)
{
    uint64_t window_ns = (uint64_t)(a->seconds * 1e9);
    uint64_t interval_ns = (uint64_t)a->interval_ms * 1000000ULL;
    struct sampler_opts so = {
        .window_ns = window_ns,
        .interval_ns = interval_ns,
        .points_cap = sampler_points_needed(window_ns, interval_ns),
    };
    struct series_point *points = xcalloc(so.points_cap, sizeof(*points));
    so.points = points;
    struct scrape_window_filter filter = {0};
    if (a->log)
        scrape_window_mark_start(&filter, a->log);
    struct scrape_run scrape;
    memset(&scrape, 0, sizeof(scrape));
    struct sample_result r;
    struct lb_error err;
    int status = LB_EXIT_OK;
    double self0 = self_cpu_now();
    if (sampler_run(t, &so, &r, &err) < 0) {
        msg_error("%s", err.msg);
        status = LB_EXIT_FAILURE;
        goto out;
    }
    double self_window = self_cpu_now() - self0;
    if (r.end == SAMPLE_INTERRUPTED) {
        msg_error("interrupted by %s after %.3f s of the window", strsignal(plat_last_signal()),
                  (double)r.wall_ns / 1e9);
        status = interrupted_status(plat_last_signal());
        goto out;
    }
    if (r.end == SAMPLE_TARGET_EXITED) {
        msg_error("process %d exited during the window, after %.3f s", (int)a->pid,
                  (double)r.wall_ns / 1e9);
        status = LB_EXIT_FAILURE;
        goto out;
    }
    if (a->log) {
        scrape_window_mark_end(&filter, a->log, r.start_wall_ns, r.end_wall_ns);
        if (scrape_file(a->log, a->marker, &filter, &scrape, &err) < 0) {
            msg_error("%s", err.msg);
            status = LB_EXIT_FAILURE;
            goto out;
        }
    }
    struct plat_self_usage self;
    plat_self_usage(&self);
    struct sample_report rep = {
        .args = a,
        .target = t,
        .r = &r,
        .points = points,
        .scrape = a->log ? &scrape : NULL,
        .self_cpu_s = (double)self.cpu_ns / 1e9,
        .self_window_cpu_s = self_window,
        .self_max_rss_kib = (long)(self.max_rss_bytes / 1024),
    };
    if (a->json) {
        if (print_json(&rep) < 0)
            status = LB_EXIT_FAILURE;
    } else {
        print_text(&rep);
    }
out:
    scrape_run_release(&scrape);
    free(points);
    return status;
}

int cmd_sample(int argc, char **argv)
{
    struct sample_args a;
    int status = parse_args(argc, argv, &a);
    if (status != LB_EXIT_OK)
        return status;
    struct lb_error err;
    if (a.log) {
        FILE *f = fopen(a.log, "r");
        if (!f)
            return msg_usage_error("sample", "sample: --log '%s': %s", a.log, strerror(errno));
        fclose(f);
    }
    struct plat_target *t;
    if (plat_attach(a.pid, &t, &err) < 0) {
        msg_error("%s", err.msg);
        return LB_EXIT_FAILURE;
    }
    status = measure(&a, t);
    plat_target_free(t);
    return status;
}
