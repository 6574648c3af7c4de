#include "results.h"

#include <math.h>
#include <string.h>

#include "compat.h"
#include "config.h"
#include "histogram.h"
#include "noise.h"
#include "stats.h"
#include "util.h"

static json_t *json_utc(uint64_t wall)
{
    char buf[32];
    if (wall == 0)
        return json_null();
    format_utc(wall, false, buf, sizeof(buf));
    return json_string(buf);
}

static json_t *json_str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* A figure that may be undefined (NaN) is null in JSON. */
static json_t *json_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *host_json(const struct plat_host_facts *h)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:I, s:[f,f,f], s:o, s:I, s:o, s:o}",
                     "hostname", json_str_or_null(h->hostname),
                     "os", json_str_or_null(h->os),
                     "kernel", json_str_or_null(h->kernel),
                     "arch", json_str_or_null(h->arch),
                     "cpu_model", json_str_or_null(h->cpu_model),
                     "logical_cpus", h->logical_cpus,
                     "mem_total_bytes", (json_int_t)h->mem_total_bytes,
                     "loadavg", h->loadavg[0], h->loadavg[1], h->loadavg[2],
                     "clocksource", json_str_or_null(h->clocksource),
                     "clock_resolution_ns", (json_int_t)h->clock_resolution_ns,
                     "governor", json_str_or_null(h->governor),
                     "virtualization", json_str_or_null(h->virtualization));
}

static json_t *profile_json(const struct profile *p)
{
    json_t *health = json_array();
    for (size_t i = 0; i < p->n_health; i++) {
        const struct health_key *h = &p->health[i];
        json_array_append_new(health,
                              json_pack("{s:s, s:s, s:s, s:b}", "key", h->key, "label", h->label,
                                        "better", h->better == LOWER_IS_BETTER ? "lower" : "higher",
                                        "must_be_zero", h->must_be_zero));
    }
    json_t *values = json_array();
    for (size_t i = 0; i < p->knob.values.n; i++)
        json_array_append_new(values, json_string(p->knob.values.v[i]));
    char hash[32];
    snprintf(hash, sizeof(hash), "fnv1a64:%s", p->hash);
    /* The profile itself, so a result can be understood without the file. */
    json_t *doc = p->text ? json_loads(p->text, 0, NULL) : NULL;
    return json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:o, s:s}, s:s, s:o, s:o}",
                     "name", p->name, "path", p->path, "hash", hash,
                     "knob", "name", p->knob.name, "label", p->knob.label, "values", values,
                     "baseline", p->knob.baseline,
                     "marker", p->marker, "health", health,
                     "document", doc ? doc : json_null());
}

static json_t *metrics_json(const struct scrape_run *s)
{
    json_t *m = json_object();
    for (size_t i = 0; i < s->n_aggs; i++) {
        const struct scrape_agg *a = &s->aggs[i];
        json_t *o = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o}", "type", scrape_type_name(a->type),
                              "windows", (json_int_t)a->n, "mean", json_num(a->mean),
                              "min", json_num(a->min), "max", json_num(a->max),
                              "sum", json_num(a->sum));
        if (a->type == SCRAPE_RATIO)
            json_object_set_new(o, "total_sum", json_num(a->total_sum));
        json_object_set_new(m, a->key, o);
    }
    return m;
}

static json_t *exit_json(const struct run_record *r)
{
    json_t *o = json_pack("{s:b, s:b}", "exited_on_its_own", r->exited, "killed", r->killed);
    if (r->exited && WIFEXITED(r->wstatus))
        json_object_set_new(o, "status", json_integer(WEXITSTATUS(r->wstatus)));
    if (r->exited && WIFSIGNALED(r->wstatus))
        json_object_set_new(o, "signal", json_integer(WTERMSIG(r->wstatus)));
    return o;
}

/* Percentiles of a latency histogram (ns) in microseconds: count, min, p50, p90, p99,
 * p999, max, mean; null when it is empty. */
static json_t *latency_json(const struct histogram *h)
{
    if (histogram_count(h) == 0)
        return json_null();
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "count",
                     (json_int_t)histogram_count(h), "min", histogram_min(h) / 1e3, "p50",
                     histogram_percentile(h, 50) / 1e3, "p90", histogram_percentile(h, 90) / 1e3,
                     "p99", histogram_percentile(h, 99) / 1e3, "p999",
                     histogram_percentile(h, 99.9) / 1e3, "max", histogram_max(h) / 1e3, "mean",
                     histogram_mean(h) / 1e3);
}

static json_t *counts_json(const struct rtt_counts *n)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "scheduled", (json_int_t)n->scheduled,
                     "sent", (json_int_t)n->sent, "completed", (json_int_t)n->completed,
                     "errors", (json_int_t)n->errors, "timeouts", (json_int_t)n->timeouts,
                     "unfinished", (json_int_t)n->unfinished);
}

static json_t *rtt_json(const struct rtt_result *q)
{
    json_t *o = json_pack(
        "{s:o, s:I, s:f, s:f, s:o, s:o, s:o, s:o}", "requests", counts_json(&q->requests),
        "connection_failures", (json_int_t)q->connection_failures, "probe_cpu_seconds",
        q->probe_cpu_ns / 1e9, "duration_seconds", q->duration_ns / 1e9, "latency_us",
        latency_json(&q->rtt), "send_lag_us", latency_json(&q->lag),
        "histogram", histogram_to_json(&q->rtt, "ns"), "lag_histogram",
        histogram_to_json(&q->lag, "ns"));
    if (q->setups.scheduled > 0)
        json_object_set_new(o, "setup",
                            json_pack("{s:o, s:o, s:o}", "requests", counts_json(&q->setups),
                                      "latency_us", latency_json(&q->setup), "histogram",
                                      histogram_to_json(&q->setup, "ns")));
    return o;
}

/* A run's endpoint metrics: each value's window figures, and how the scrapes went. */
static json_t *endpoint_json(const struct metrics_endpoint *ep, const struct endpoint_result *e)
{
    json_t *values = json_object();
    for (size_t i = 0; i < e->n && i < ep->n_select; i++) {
        const struct metrics_window_value *w = &e->values[i];
        char *source = metrics_select_text(ep, i);
        json_t *v = json_pack("{s:s, s:s, s:b, s:o, s:o}", "source", source, "kind",
                              metrics_kind_name(w->kind), "found", w->found, "start",
                              json_num(w->start), "end", json_num(w->end));
        free(source);
        if (w->kind == METRICS_COUNTER)
            json_object_update_new(v, json_pack("{s:o, s:o, s:b, s:b}", "delta",
                                                json_num(w->delta), "rate_per_s",
                                                json_num(w->rate_per_s), "reset", w->reset,
                                                "appeared", w->appeared));
        else
            json_object_update_new(v, json_pack("{s:o, s:o, s:o, s:I}", "min", json_num(w->min),
                                                "max", json_num(w->max), "mean",
                                                json_num(w->mean), "samples",
                                                (json_int_t)w->samples));
        json_object_set_new(v, "missing", json_str_or_null(e->missing[i]));
        json_object_set_new(values, ep->select[i].key, v);
    }
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:o, s:o}", "url", ep->url, "format",
                     ep->format == METRICS_JSON ? "json" : "prometheus", "scrapes",
                     (json_int_t)e->scrapes, "failed_scrapes", (json_int_t)e->failed_scrapes,
                     "skipped_lines", (json_int_t)e->skipped_lines, "duplicates",
                     (json_int_t)e->duplicates, "fetch_ms_max", e->fetch_ms_max, "error",
                     json_str_or_null(e->error), "values", values);
}

static json_t *noise_json(const struct noise_run *nr)
{
    return json_pack("{s:b, s:b, s:b}", "steal", nr->steal, "other_processes", nr->others,
                     "outlier", nr->outlier);
}

static json_t *run_json(const struct campaign *c, const struct run_record *r,
                        const struct noise_run *nr)
{
    if (r->resumed) {
        /* Kept as it was written, but judged again among all the campaign's runs. */
        json_t *o = json_deep_copy(r->resumed);
        json_object_set_new(o, "noise", noise_json(nr));
        return o;
    }
    char *stdout_log = path_join(r->dir, "stdout.log");
    char *stderr_log = path_join(r->dir, "stderr.log");
    char *series = path_join(r->dir, "series.csv");
    json_t *o = json_pack("{s:s, s:I, s:s, s:o, s:s, s:s, s:s, s:f}",
                          "setting", c->values.v[r->setting_index], "repeat", (json_int_t)r->repeat,
                          "status", run_status_name(r->status),
                          "started_at", json_utc(r->started_wall_ns), "dir", r->dir,
                          "stdout_log", stdout_log, "stderr_log", stderr_log,
                          "ready_seconds", r->ready_s);
    free(stdout_log);
    free(stderr_log);
    if (r->sampled) {
        const struct sample_result *s = &r->sample;
        double wall = (double)s->wall_ns / 1e9;
        json_object_update_new(
            o, json_pack("{s:f, s:f, s:f, s:s, s:I, s:b, s:I, s:I, s:f, s:I, s:f, s:s, "
                         "s:o, s:o, s:I}",
                         "cpu_seconds", (double)s->cpu_ns / 1e9, "wall_seconds", wall,
                         "cpu_percent", s->cpu_percent,
                         "cpu_source", cpu_source_name(r->cpu_source),
                         "cpu_resolution_ns", (json_int_t)s->resolution_ns,
                         "unreliable", s->unreliable,
                         "voluntary_ctxsw", (json_int_t)s->voluntary_ctxsw,
                         "involuntary_ctxsw", (json_int_t)s->involuntary_ctxsw,
                         "voluntary_per_s", wall > 0 ? (double)s->voluntary_ctxsw / wall : 0.0,
                         "rss_peak_bytes", (json_int_t)s->rss_peak_bytes,
                         "steal_percent", s->steal_percent, "series", series,
                         "window_start", json_utc(s->start_wall_ns),
                         "window_end", json_utc(s->end_wall_ns),
                         "windows", (json_int_t)r->scrape.n_windows));
        json_object_update_new(
            o, json_pack("{s:f, s:f, s:o}", "others_cpu_percent", s->others_cpu_percent,
                         "loopbench_cpu_seconds", (double)s->self_cpu_ns / 1e9, "noise",
                         noise_json(nr)));
        json_object_set_new(o, "metrics", metrics_json(&r->scrape));
        if (r->has_rtt)
            json_object_set_new(o, "rtt", rtt_json(&r->rtt));
        if (r->has_endpoint)
            json_object_set_new(o, "endpoint_metrics",
                                endpoint_json(&c->profile.endpoint, &r->endpoint));
    } else {
        json_object_set_new(o, "cpu_seconds", json_null());
        json_object_set_new(o, "wall_seconds", json_null());
        json_object_set_new(o, "cpu_percent", json_null());
        json_object_set_new(o, "metrics", json_object());
    }
    free(series);
    json_object_set_new(o, "log_levels",
                        json_pack("{s:I, s:I, s:I}", "WRN", (json_int_t)r->scrape.level_counts[LOG_WRN],
                                  "ERR", (json_int_t)r->scrape.level_counts[LOG_ERR],
                                  "FTL", (json_int_t)r->scrape.level_counts[LOG_FTL]));
    json_object_set_new(o, "exit", exit_json(r));
    json_object_set_new(o, "failure", json_str_or_null(r->failure));
    json_object_set_new(o, "log_tail", json_str_or_null(r->log_tail));
    return o;
}

/* The per-run figure a health key is summarised by: its mean over the run's windows
 * (the seeds' "peak lag averaged over windows", "skipped slots per 1875 turns"). */
static double run_health_value(const struct run_record *r, const char *key, double *total)
{
    const struct scrape_agg *a = scrape_run_find(&r->scrape, key);
    if (!a || a->n == 0)
        return NAN;
    if (total)
        *total = a->type == SCRAPE_RATIO ? a->total_sum / (double)a->n : NAN;
    return a->mean;
}

struct setting_summary {
    size_t runs_ok, runs_total;
    struct stats_summary cpu;
    struct stats_summary wakes; /* voluntary context switches per second */
    struct stats_summary *health; /* one per profile health key */
    double *health_total;         /* ratio keys: mean denominator per window */
    size_t unreliable;
};

static void summarize_setting(const struct campaign *c, size_t si, struct setting_summary *out)
{
    size_t nh = c->profile.n_health;
    double *cpu = xcalloc(c->n_runs, sizeof(double));
    double *wakes = xcalloc(c->n_runs, sizeof(double));
    double *h = xcalloc(c->n_runs, sizeof(double));
    double *ht = xcalloc(c->n_runs, sizeof(double));
    memset(out, 0, sizeof(*out));
    out->health = xcalloc(nh ? nh : 1, sizeof(*out->health));
    out->health_total = xcalloc(nh ? nh : 1, sizeof(double));
    size_t n = 0;
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        if (r->setting_index != si || r->status == RUN_PENDING)
            continue;
        out->runs_total++;
        if (r->status != RUN_OK)
            continue;
        out->runs_ok++;
        out->unreliable += r->sample.unreliable;
        cpu[n] = r->sample.cpu_percent;
        double wall = (double)r->sample.wall_ns / 1e9;
        wakes[n] = wall > 0 ? (double)r->sample.voluntary_ctxsw / wall : NAN;
        n++;
    }
    stats_summarize(cpu, n, &out->cpu);
    stats_summarize(wakes, n, &out->wakes);
    for (size_t k = 0; k < nh; k++) {
        size_t m = 0;
        for (size_t i = 0; i < c->n_runs; i++) {
            const struct run_record *r = &c->runs[i];
            if (r->setting_index != si || r->status != RUN_OK)
                continue;
            h[m] = run_health_value(r, c->profile.health[k].key, &ht[m]);
            m++;
        }
        stats_summarize(h, m, &out->health[k]);
        out->health_total[k] = stats_median(ht, m);
    }
    free(cpu);
    free(wakes);
    free(h);
    free(ht);
}

static void setting_summary_release(struct setting_summary *s)
{
    free(s->health);
    free(s->health_total);
}

static json_t *stats_json(const struct stats_summary *s)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "median", json_num(s->median),
                     "min", json_num(s->min), "max", json_num(s->max), "mean", json_num(s->mean),
                     "sd", json_num(s->sd));
}

/* A setting's round trips over all its completed runs: histograms added, never
 * percentiles averaged. */
static json_t *setting_rtt_json(const struct campaign *c, size_t si)
{
    struct histogram merged;
    histogram_init(&merged);
    uint64_t runs = 0, scheduled = 0, errors = 0, timeouts = 0;
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        if (r->setting_index != si || r->status != RUN_OK || !r->has_rtt)
            continue;
        runs++;
        histogram_add(&merged, &r->rtt.rtt);
        scheduled += r->rtt.requests.scheduled;
        errors += r->rtt.requests.errors;
        timeouts += r->rtt.requests.timeouts;
    }
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:o}", "runs", (json_int_t)runs, "scheduled",
                          (json_int_t)scheduled, "errors", (json_int_t)errors, "timeouts",
                          (json_int_t)timeouts, "latency_us", latency_json(&merged));
    histogram_release(&merged);
    return o;
}

json_t *results_summary_json(const struct campaign *c)
{
    json_t *arr = json_array();
    struct setting_summary base;
    summarize_setting(c, c->baseline, &base);
    for (size_t si = 0; si < c->values.n; si++) {
        struct setting_summary s;
        summarize_setting(c, si, &s);
        json_t *o = json_pack("{s:s, s:b, s:I, s:I, s:o, s:o, s:o, s:I}",
                              "setting", c->values.v[si], "baseline", si == c->baseline,
                              "runs", (json_int_t)s.runs_ok,
                              "runs_attempted", (json_int_t)s.runs_total,
                              "cpu_percent", stats_json(&s.cpu),
                              /* how many times less CPU than the baseline */
                              "cpu_ratio", json_num(base.cpu.median / s.cpu.median),
                              "voluntary_per_s", stats_json(&s.wakes),
                              "unreliable_windows", (json_int_t)s.unreliable);
        json_t *health = json_object();
        for (size_t k = 0; k < c->profile.n_health; k++) {
            json_t *h = stats_json(&s.health[k]);
            if (isfinite(s.health_total[k]))
                json_object_set_new(h, "total", json_real(s.health_total[k]));
            json_object_set_new(health, c->profile.health[k].key, h);
        }
        json_object_set_new(o, "health", health);
        if (c->profile.has_rtt)
            json_object_set_new(o, "rtt", setting_rtt_json(c, si));
        json_array_append_new(arr, o);
        setting_summary_release(&s);
    }
    setting_summary_release(&base);
    return arr;
}

static json_t *campaign_json(const struct campaign *c)
{
    json_t *settings = json_array();
    for (size_t i = 0; i < c->values.n; i++)
        json_array_append_new(settings, json_string(c->values.v[i]));
    json_t *plan = json_array();
    for (size_t i = 0; i < c->n_runs; i++)
        json_array_append_new(plan, json_pack("{s:s, s:I, s:s}", "setting",
                                              c->values.v[c->runs[i].setting_index], "repeat",
                                              (json_int_t)c->runs[i].repeat, "dir",
                                              c->runs[i].dir));
    json_t *resumed = json_array();
    for (size_t i = 0; i < c->resumed_at.n; i++)
        json_array_append_new(resumed, json_string(c->resumed_at.v[i]));
    const char *state = c->interrupted_by ? "interrupted"
                        : c->finished_wall_ns ? "finished"
                                              : "running";
    return json_pack("{s:o, s:s, s:I, s:f, s:f, s:I, s:s, s:I, s:s, s:o, s:o, s:s, s:o, s:o, "
                     "s:o}",
                     "settings", settings, "baseline", c->values.v[c->baseline],
                     "repeat", (json_int_t)c->repeat, "warmup_seconds", c->warmup_s,
                     "sample_seconds", c->sample_s, "interval_ms", (json_int_t)c->interval_ms,
                     "order", run_order_name(c->order), "seed", (json_int_t)c->seed,
                     "cpu_source_requested", cpu_source_name(c->cpu_source),
                     "started_at", json_utc(c->started_wall_ns),
                     "finished_at", json_utc(c->finished_wall_ns), "state", state,
                     "interrupted_by",
                     json_str_or_null(profile_signal_name(c->interrupted_by)),
                     "plan", plan, "resumed_at", resumed);
}

static json_t *self_json(void)
{
    /* loopbench's own cost, so a reader can see it was not mistaken for the target's. */
    struct plat_self_usage self;
    plat_self_usage(&self);
    return json_pack("{s:s, s:s, s:f, s:I}", "version", LOOPBENCH_VERSION, "platform",
                     plat_name(), "cpu_seconds", (double)self.cpu_ns / 1e9, "max_rss_kib",
                     (json_int_t)(self.max_rss_bytes / 1024));
}

json_t *results_to_json(const struct campaign *c)
{
    struct noise noise;
    noise_assess(c, &noise);
    json_t *runs = json_array();
    for (size_t i = 0; i < c->n_runs; i++)
        if (c->runs[i].status != RUN_PENDING)
            json_array_append_new(runs, run_json(c, &c->runs[i], &noise.runs[i]));
    json_t *warnings = json_array();
    for (size_t i = 0; i < noise.warnings.n; i++)
        json_array_append_new(warnings, json_string(noise.warnings.v[i]));
    noise_release(&noise);
    return json_pack("{s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "schema", RESULTS_SCHEMA,
                     "loopbench", self_json(), "command_line", c->command_line,
                     "profile", profile_json(&c->profile), "host", host_json(&c->host),
                     "campaign", campaign_json(c), "runs", runs,
                     "summary", results_summary_json(c), "warnings", warnings);
}

int results_write(const struct campaign *c, struct lb_error *err)
{
    json_t *doc = results_to_json(c);
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(doc);
    if (!text)
        return lb_fail(err, "cannot encode results as JSON");
    char *path = path_join(c->out_dir, "results.json");
    size_t len = strlen(text);
    text[len] = '\n';
    int rc = write_file_atomic(path, text, len + 1, 0644, err);
    free(text);
    free(path);
    return rc;
}

/* ---- the summary table ------------------------------------------------------------ */

#define TABLE_MAX_COLS 16

struct table {
    size_t ncols, nrows;
    char *cells[64][TABLE_MAX_COLS];
};

static void table_set(struct table *t, size_t row, size_t col, char *owned)
{
    if (row >= ARRAY_SIZE(t->cells) || col >= TABLE_MAX_COLS) {
        free(owned);
        return;
    }
    t->cells[row][col] = owned;
    if (row + 1 > t->nrows)
        t->nrows = row + 1;
    if (col + 1 > t->ncols)
        t->ncols = col + 1;
}

static void table_print(struct table *t, FILE *out)
{
    size_t width[TABLE_MAX_COLS] = {0};
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t col = 0; col < t->ncols; col++)
            if (t->cells[r][col] && strlen(t->cells[r][col]) > width[col])
                width[col] = strlen(t->cells[r][col]);
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t col = 0; col < t->ncols; col++) {
            const char *cell = t->cells[r][col] ? t->cells[r][col] : "";
            int last = col + 1 == t->ncols;
            fprintf(out, "%-*s%s", last ? 0 : (int)width[col], cell, last ? "\n" : "  ");
            free(t->cells[r][col]);
        }
    }
}

/* "98.7 (98.5-98.9)"; a single run shows its value alone. */
static char *format_range(const struct stats_summary *s, int decimals, const char *unit)
{
    if (s->n == 0)
        return xstrdup("-");
    if (s->n == 1 || s->min == s->max)
        return xasprintf("%.*f%s", decimals, s->median, unit);
    return xasprintf("%.*f%s (%.*f-%.*f)", decimals, s->median, unit, decimals, s->min, decimals,
                     s->max);
}

/* The unit a health key's figures are shown in, from how its lines were parsed. */
static const char *health_unit(const struct campaign *c, const char *key)
{
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct scrape_agg *a = scrape_run_find(&c->runs[i].scrape, key);
        if (a)
            return a->type == SCRAPE_DURATION_MS ? " ms" : a->type == SCRAPE_PERCENT ? "%" : "";
    }
    return "";
}

void results_print_table(const struct campaign *c, FILE *out)
{
    const struct profile *p = &c->profile;
    struct table t;
    memset(&t, 0, sizeof(t));
    size_t col = 0;
    table_set(&t, 0, col++, xstrdup(p->knob.label));
    table_set(&t, 0, col++, xstrdup("runs"));
    table_set(&t, 0, col++, xstrdup("CPU % of one core"));
    table_set(&t, 0, col++, xstrdup("less CPU"));
    table_set(&t, 0, col++, xstrdup("wakes/s"));
    for (size_t k = 0; k < p->n_health && col < TABLE_MAX_COLS; k++)
        table_set(&t, 0, col++, xstrdup(p->health[k].label));

    struct setting_summary base;
    summarize_setting(c, c->baseline, &base);
    for (size_t si = 0; si < c->values.n; si++) {
        struct setting_summary s;
        summarize_setting(c, si, &s);
        size_t row = si + 1;
        col = 0;
        table_set(&t, row, col++, si == c->baseline ? xasprintf("%s (baseline)", c->values.v[si])
                                                   : xstrdup(c->values.v[si]));
        table_set(&t, row, col++, xasprintf("%zu/%zu%s", s.runs_ok, s.runs_total,
                                            s.unreliable ? " !" : ""));
        table_set(&t, row, col++, format_range(&s.cpu, s.cpu.max < 10 ? 2 : 1, ""));
        double ratio = base.cpu.median / s.cpu.median;
        table_set(&t, row, col++, si == c->baseline || !isfinite(ratio)
                                      ? xstrdup("-")
                                      : xasprintf("%.1fx", ratio));
        table_set(&t, row, col++, format_range(&s.wakes, 0, ""));
        for (size_t k = 0; k < p->n_health && col < TABLE_MAX_COLS; k++) {
            /* A ratio's median denominator follows its median: "0.5/250 (0.0-1.0)". */
            char *unit = isfinite(s.health_total[k])
                             ? xasprintf("/%.0f", s.health_total[k])
                             : xstrdup(health_unit(c, p->health[k].key));
            char *cell = format_range(&s.health[k], 1, unit);
            free(unit);
            table_set(&t, row, col++, cell);
        }
        setting_summary_release(&s);
    }
    setting_summary_release(&base);

    fprintf(out, "%s: %s, %ld run%s per setting, warm-up %g s, sample %g s, order %s\n\n",
            p->name, p->knob.name, c->repeat, c->repeat == 1 ? "" : "s", c->warmup_s,
            c->sample_s, run_order_name(c->order));
    table_print(&t, out);
    fputs("\nCPU: median (min-max) over runs. Health keys: each run's mean over its health "
          "lines",
          out);
    if (c->profile.has_rtt)
        fputs(" (RTT: the run's round-trip percentiles and failures)", out);
    if (c->profile.endpoint.n_select)
        fputs(" (endpoint metrics: a counter's rate per second, a gauge's mean)", out);
    fputs(", median (min-max) over runs.\n", out);
    for (size_t i = 0; i < c->n_runs; i++) {
        if (c->runs[i].sampled && c->runs[i].sample.unreliable) {
            fputs("!: a window's CPU was within a few units of the CPU source's resolution, "
                  "so the figure is mostly quantisation.\n",
                  out);
            break;
        }
    }
    struct noise noise;
    noise_assess(c, &noise);
    for (size_t i = 0; i < noise.warnings.n; i++)
        fprintf(out, "warning: %s\n", noise.warnings.v[i]);
    noise_release(&noise);
    fprintf(out, "results: %s/results.json\n", c->out_dir);
}
