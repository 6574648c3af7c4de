#include "results.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "commit.h"
#include "compat.h"
#include "fingerprint.h"
#include "histogram.h"
#include "metric.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "text.h"
#include "targetenv.h"
#include "util.h"

/* Numbers keep ten significant digits: enough for any figure loopbench measures, and
 * what a reader sees is what the campaign then holds (results_settle). */
#define RESULTS_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

/* ---- small codecs ------------------------------------------------------------------- */

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

static const char *get_str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static char *dup_str(json_t *o, const char *key)
{
    const char *s = get_str(o, key);
    return s ? xstrdup(s) : NULL;
}

static double get_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_int_t get_int(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v)
           : json_is_real(v)  ? (json_int_t)json_real_value(v)
                              : 0;
}

static uint64_t get_u64(json_t *o, const char *key)
{
    json_int_t v = get_int(o, key);
    return v > 0 ? (uint64_t)v : 0;
}

/* Seconds as written (ten digits) back to whole nanoseconds. */
static uint64_t get_ns(json_t *o, const char *key)
{
    double s = get_num(o, key);
    return isfinite(s) && s > 0 ? (uint64_t)llround(s * 1e9) : 0;
}

static uint64_t get_utc(json_t *o, const char *key)
{
    uint64_t wall = 0;
    const char *s = get_str(o, key);
    if (s && parse_utc(s, &wall) < 0)
        wall = 0;
    return wall;
}

/* profile_signal_name's inverse; 0 when s names none. */
static int signal_named(const char *s)
{
    for (int sig = 1; s && sig < 65; sig++) {
        const char *name = profile_signal_name(sig);
        if (name && strcmp(name, s) == 0)
            return sig;
    }
    return 0;
}

/* ---- host and loopbench ------------------------------------------------------------- */

static json_t *host_json(const struct plat_host_facts *h)
{
    struct host_fingerprint fp;
    fingerprint_compute(h, &fp);
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:I, s:[f,f,f], s:o, s:I, s:o, s:o, s:o, "
                     "s:{s:o, s:o, s:o}, s:o}",
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
                     "virtualization", json_str_or_null(h->virtualization),
                     "cpuidle_driver", json_str_or_null(h->cpuidle_driver),
                     "runner", "image_os", json_str_or_null(h->runner_image_os),
                     "image_version", json_str_or_null(h->runner_image_version),
                     "name", json_str_or_null(h->runner_name),
                     "fingerprint", fingerprint_json(&fp));
}

/* host.fingerprint is not read: it is the facts' own, computed again (fingerprint.h). */
static void host_from_json(json_t *o, struct plat_host_facts *h)
{
    h->hostname = dup_str(o, "hostname");
    h->os = dup_str(o, "os");
    h->kernel = dup_str(o, "kernel");
    h->arch = dup_str(o, "arch");
    h->cpu_model = dup_str(o, "cpu_model");
    h->logical_cpus = (int)get_int(o, "logical_cpus");
    h->mem_total_bytes = get_u64(o, "mem_total_bytes");
    json_t *load = json_object_get(o, "loadavg");
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_array_get(load, i);
        h->loadavg[i] = json_is_number(v) ? json_number_value(v) : 0;
    }
    h->clocksource = dup_str(o, "clocksource");
    h->clock_resolution_ns = get_u64(o, "clock_resolution_ns");
    h->governor = dup_str(o, "governor");
    h->virtualization = dup_str(o, "virtualization");
    h->cpuidle_driver = dup_str(o, "cpuidle_driver");
    json_t *runner = json_object_get(o, "runner");
    h->runner_image_os = dup_str(runner, "image_os");
    h->runner_image_version = dup_str(runner, "image_version");
    h->runner_name = dup_str(runner, "name");
}

static json_t *self_json(const struct campaign_self *s)
{
    return json_pack("{s:o, s:o, s:o, s:f, s:I}", "version", json_str_or_null(s->version),
                     "commit", json_str_or_null(s->commit), "platform",
                     json_str_or_null(s->platform), "cpu_seconds", s->cpu_seconds,
                     "max_rss_kib", (json_int_t)s->max_rss_kib);
}

static void self_from_json(json_t *o, struct campaign_self *s)
{
    s->version = dup_str(o, "version");
    s->commit = dup_str(o, "commit");
    s->platform = dup_str(o, "platform");
    double cpu = get_num(o, "cpu_seconds");
    s->cpu_seconds = isfinite(cpu) ? cpu : 0;
    s->max_rss_kib = (long long)get_int(o, "max_rss_kib");
}

/* ---- a run's parts ------------------------------------------------------------------ */

static json_t *exit_json(const struct run_record *r)
{
    json_t *o = json_pack("{s:b, s:b}", "exited_on_its_own", r->exited, "killed", r->killed);
    if (r->exited && WIFEXITED(r->wstatus))
        json_object_set_new(o, "status", json_integer(WEXITSTATUS(r->wstatus)));
    if (r->exited && WIFSIGNALED(r->wstatus))
        json_object_set_new(o, "signal", json_integer(WTERMSIG(r->wstatus)));
    if (r->containment)
        json_object_set_new(o, "containment", json_string(r->containment));
    if (r->isolation)
        json_object_set_new(o, "isolation", json_string(r->isolation));
    return o;
}

static void exit_from_json(json_t *o, struct run_record *r)
{
    r->exited = json_is_true(json_object_get(o, "exited_on_its_own"));
    r->killed = json_is_true(json_object_get(o, "killed"));
    /* A wait status in Linux's encoding, which compat.h gives every system. */
    if (json_object_get(o, "status"))
        r->wstatus = (int)(get_int(o, "status") & 0xff) << 8;
    else if (json_object_get(o, "signal"))
        r->wstatus = (int)(get_int(o, "signal") & 0x7f);
    if (get_str(o, "containment"))
        r->containment = xstrdup(get_str(o, "containment"));
    if (get_str(o, "isolation"))
        r->isolation = xstrdup(get_str(o, "isolation"));
}

static const char *const count_keys[] = {"scheduled", "sent",     "completed",
                                         "errors",    "timeouts", "unfinished"};

static json_t *counts_json(const struct rtt_counts *n)
{
    const uint64_t v[] = {n->scheduled, n->sent, n->completed, n->errors, n->timeouts,
                          n->unfinished};
    json_t *o = json_object();
    for (size_t i = 0; i < ARRAY_SIZE(count_keys); i++)
        json_object_set_new(o, count_keys[i], json_integer((json_int_t)v[i]));
    json_object_set_new(o, "unfinished_oldest_us", json_real(n->unfinished_oldest_ns / 1e3));
    return o;
}

static void counts_from_json(json_t *o, struct rtt_counts *n)
{
    uint64_t *v[] = {&n->scheduled, &n->sent, &n->completed, &n->errors, &n->timeouts,
                     &n->unfinished};
    for (size_t i = 0; i < ARRAY_SIZE(count_keys); i++)
        *v[i] = get_u64(o, count_keys[i]);
    double us = get_num(o, "unfinished_oldest_us");
    n->unfinished_oldest_ns = isfinite(us) && us > 0 && us < 1e15 ? (uint64_t)llround(us * 1e3) : 0;
}

static json_t *rtt_json(const struct rtt_result *q)
{
    json_t *o = json_pack(
        "{s:o, s:I, s:f, s:f, s:o, s:o, s:o, s:o}", "requests", counts_json(&q->requests),
        "connection_failures", (json_int_t)q->connection_failures, "probe_cpu_seconds",
        q->probe_cpu_ns / 1e9, "duration_seconds", q->duration_ns / 1e9, "latency_us",
        histogram_percentiles_json(&q->rtt, 1e3), "send_lag_us", histogram_percentiles_json(&q->lag, 1e3),
        "histogram", histogram_to_json(&q->rtt, "ns"), "lag_histogram",
        histogram_to_json(&q->lag, "ns"));
    if (q->setups.scheduled > 0)
        json_object_set_new(o, "setup",
                            json_pack("{s:o, s:o, s:o}", "requests", counts_json(&q->setups),
                                      "latency_us", histogram_percentiles_json(&q->setup, 1e3), "histogram",
                                      histogram_to_json(&q->setup, "ns")));
    return o;
}

/* The histogram at key (absent: empty), named in err as `where`.key. */
static int histogram_at(json_t *o, const char *key, const char *where, struct histogram *h,
                        struct lb_error *err)
{
    json_t *j = json_object_get(o, key);
    struct lb_error e;
    if (j && histogram_from_json(j, "ns", h, &e) < 0)
        return lb_fail(err, "%s.%s: %s", where, key, e.msg);
    return 0;
}

/* The histograms are read as they are held in the file, their non-empty buckets alone
 * (histogram.h): absent ones are empty. */
static int rtt_from_json(json_t *o, const char *where, struct rtt_result *q, struct lb_error *err)
{
    counts_from_json(json_object_get(o, "requests"), &q->requests);
    q->connection_failures = get_u64(o, "connection_failures");
    q->probe_cpu_ns = get_ns(o, "probe_cpu_seconds");
    q->duration_ns = get_ns(o, "duration_seconds");
    json_t *setup = json_object_get(o, "setup");
    counts_from_json(json_object_get(setup, "requests"), &q->setups);
    return histogram_at(o, "histogram", where, &q->rtt, err) < 0 ||
                   histogram_at(o, "lag_histogram", where, &q->lag, err) < 0 ||
                   histogram_at(setup, "histogram", where, &q->setup, err) < 0
               ? -1
               : 0;
}

/* A run's endpoint metrics: each value's window figures, and how the scrapes went. */
static json_t *endpoint_json(const struct campaign_endpoint *ep, const struct endpoint_result *e)
{
    json_t *values = json_object();
    for (size_t i = 0; i < e->n && i < ep->keys.n; i++) {
        const struct metrics_window_value *w = &e->values[i];
        json_t *v = json_pack("{s:s, s:s, s:b, s:o, s:o}", "source", ep->sources.v[i], "kind",
                              metrics_kind_name(w->kind), "found", w->found, "start",
                              json_num_or_null(w->start), "end", json_num_or_null(w->end));
        if (w->kind == METRICS_COUNTER)
            json_object_update_new(v, json_pack("{s:o, s:o, s:b, s:b}", "delta",
                                                json_num_or_null(w->delta), "rate_per_s",
                                                json_num_or_null(w->rate_per_s), "reset",
                                                w->reset, "appeared", w->appeared));
        else
            json_object_update_new(v, json_pack("{s:o, s:o, s:o, s:I}", "min",
                                                json_num_or_null(w->min), "max",
                                                json_num_or_null(w->max), "mean",
                                                json_num_or_null(w->mean), "samples",
                                                (json_int_t)w->samples));
        json_object_set_new(v, "missing", json_str_or_null(e->missing[i]));
        json_object_set_new(values, ep->keys.v[i], v);
    }
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:o, s:o}", "url", ep->url, "format",
                     ep->format, "scrapes", (json_int_t)e->scrapes, "failed_scrapes",
                     (json_int_t)e->failed_scrapes, "skipped_lines",
                     (json_int_t)e->skipped_lines, "duplicates", (json_int_t)e->duplicates,
                     "fetch_ms_max", e->fetch_ms_max, "error", json_str_or_null(e->error),
                     "values", values);
}

/* The campaign's endpoint, from the first run that names one (a reader has no profile
 * to take it from). */
static void endpoint_names_from_json(json_t *o, struct campaign_endpoint *ep)
{
    if (ep->url || !json_is_object(o))
        return;
    ep->url = xstrdup(get_str(o, "url") ? get_str(o, "url") : "");
    ep->format = xstrdup(get_str(o, "format") ? get_str(o, "format") : "");
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(o, "values"), key, v) {
        strv_push(&ep->keys, key);
        strv_push(&ep->sources, get_str(v, "source") ? get_str(v, "source") : "");
    }
}

static void endpoint_from_json(json_t *o, const struct campaign_endpoint *ep,
                               struct endpoint_result *e)
{
    e->n = ep->keys.n;
    e->values = xcalloc(e->n ? e->n : 1, sizeof(*e->values));
    e->missing = xcalloc(e->n ? e->n : 1, sizeof(*e->missing));
    e->scrapes = get_u64(o, "scrapes");
    e->failed_scrapes = get_u64(o, "failed_scrapes");
    e->skipped_lines = get_u64(o, "skipped_lines");
    e->duplicates = get_u64(o, "duplicates");
    e->fetch_ms_max = get_num(o, "fetch_ms_max");
    e->error = dup_str(o, "error");
    json_t *values = json_object_get(o, "values");
    for (size_t i = 0; i < e->n; i++) {
        json_t *v = json_object_get(values, ep->keys.v[i]);
        struct metrics_window_value *w = &e->values[i];
        const char *kind = get_str(v, "kind");
        w->kind = kind && strcmp(kind, metrics_kind_name(METRICS_COUNTER)) == 0
                      ? METRICS_COUNTER
                      : METRICS_GAUGE;
        w->found = json_is_true(json_object_get(v, "found"));
        w->start = get_num(v, "start");
        w->end = get_num(v, "end");
        w->delta = get_num(v, "delta");
        w->rate_per_s = get_num(v, "rate_per_s");
        w->reset = json_is_true(json_object_get(v, "reset"));
        w->appeared = json_is_true(json_object_get(v, "appeared"));
        w->min = get_num(v, "min");
        w->max = get_num(v, "max");
        w->mean = get_num(v, "mean");
        w->samples = (size_t)get_u64(v, "samples");
        e->missing[i] = dup_str(v, "missing");
    }
}

/* ---- a run -------------------------------------------------------------------------- */

static const char *const stream_names[CAPTURE_STREAMS] = {"stdout", "stderr"};

/* What became of the run's logs under its limit: {limit, stdout: {bytes, kept, dropped},
 * stderr: {...}}. */
static json_t *logs_json(const struct run_record *r)
{
    json_t *o = json_pack("{s:I}", "limit", (json_int_t)r->log_limit);
    for (size_t i = 0; i < CAPTURE_STREAMS; i++) {
        const struct capture_log *l = &r->logs[i];
        json_object_set_new(o, stream_names[i],
                            json_pack("{s:I, s:I, s:I}", "bytes", (json_int_t)l->bytes, "kept",
                                      (json_int_t)l->kept, "dropped", (json_int_t)l->dropped));
    }
    return o;
}

static void logs_from_json(json_t *o, struct run_record *r)
{
    r->log_limit = get_u64(o, "limit");
    for (size_t i = 0; i < CAPTURE_STREAMS; i++) {
        json_t *s = json_object_get(o, stream_names[i]);
        r->logs[i] = (struct capture_log){get_u64(s, "bytes"), get_u64(s, "kept"),
                                          get_u64(s, "dropped")};
    }
}

/* runs[].rotation: the swaps of run --rotate and the time on each CPU set. */
static json_t *rotation_json(const struct run_rotation *rot)
{
    json_t *sets = json_array();
    for (size_t k = 0; k < rot->cpus.n; k++)
        json_array_append_new(sets, json_pack("{s:s, s:f}", "cpus", rot->cpus.v[k], "seconds",
                                              rot->seconds[k]));
    return json_pack("{s:I, s:o}", "swaps", (json_int_t)rot->swaps, "cpu_sets", sets);
}

static void rotation_from_json(json_t *o, struct run_rotation *rot)
{
    json_t *sets = json_object_get(o, "cpu_sets");
    rot->swaps = (long)get_int(o, "swaps");
    rot->seconds = xcalloc(json_array_size(sets) + 1, sizeof(double));
    size_t i;
    json_t *v;
    json_array_foreach(sets, i, v) {
        double sec = get_num(v, "seconds");
        rot->seconds[rot->cpus.n] = isfinite(sec) ? sec : 0;
        strv_push(&rot->cpus, get_str(v, "cpus") ? get_str(v, "cpus") : "");
    }
}

/* runs[].host_cpus: what the CPUs the target ran on did over the window. */
static json_t *host_cpus_json(const struct run_host_cpus *h)
{
    json_t *states = json_array();
    for (size_t i = 0; i < h->n_idle; i++) {
        const struct run_idle_state *st = &h->idle[i];
        json_array_append_new(states, json_pack("{s:i, s:s, s:I, s:I, s:I, s:I}", "cpu", st->cpu,
                                                "state", st->name, "usage", (json_int_t)st->usage,
                                                "time_us", (json_int_t)st->time_us, "above",
                                                (json_int_t)st->above, "below",
                                                (json_int_t)st->below));
    }
    return json_pack("{s:s, s:f, s:f, s:o, s:o}", "cpus", h->cpus, "steal_percent",
                     h->steal_percent, "others_percent", h->others_percent, "busy_percent",
                     json_num_or_null(h->busy_percent), "idle_states", states);
}

static void host_cpus_from_json(json_t *o, struct run_host_cpus *h)
{
    json_t *states = json_object_get(o, "idle_states");
    h->cpus = xstrdup(get_str(o, "cpus") ? get_str(o, "cpus") : "");
    h->steal_percent = isfinite(get_num(o, "steal_percent")) ? get_num(o, "steal_percent") : 0;
    h->others_percent = isfinite(get_num(o, "others_percent")) ? get_num(o, "others_percent") : 0;
    h->busy_percent = get_num(o, "busy_percent"); /* NaN when absent or not a number */
    h->idle = xcalloc(json_array_size(states) + 1, sizeof(*h->idle));
    size_t i;
    json_t *v;
    json_array_foreach(states, i, v)
        h->idle[h->n_idle++] = (struct run_idle_state){
            .cpu = (int)get_int(v, "cpu"),
            .name = xstrdup(get_str(v, "state") ? get_str(v, "state") : ""),
            .usage = get_u64(v, "usage"),
            .time_us = get_u64(v, "time_us"),
            .above = get_u64(v, "above"),
            .below = get_u64(v, "below"),
        };
}

/* runs[].energy and campaign.energy.idle: what the CPU packages drew over a span. */
static json_t *energy_json(const struct run_energy *e)
{
    json_t *domains = json_array();
    for (size_t i = 0; i < e->n_domains; i++)
        json_array_append_new(domains, json_pack("{s:s, s:s, s:f, s:f}", "zone",
                                                 e->domains[i].zone, "name", e->domains[i].name,
                                                 "joules", e->domains[i].joules, "watts",
                                                 e->domains[i].watts));
    return json_pack("{s:f, s:f, s:f, s:o}", "joules", e->joules, "seconds", e->seconds, "watts",
                     e->watts, "domains", domains);
}

static void energy_from_json(json_t *o, struct run_energy *e)
{
    json_t *domains = json_object_get(o, "domains");
    e->domains = xcalloc(json_array_size(domains) + 1, sizeof(*e->domains));
    size_t i;
    json_t *v;
    json_array_foreach(domains, i, v) {
        double joules = get_num(v, "joules"), watts = get_num(v, "watts");
        e->domains[e->n_domains++] = (struct run_energy_domain){
            .zone = xstrdup(get_str(v, "zone") ? get_str(v, "zone") : ""),
            .name = xstrdup(get_str(v, "name") ? get_str(v, "name") : ""),
            .joules = isfinite(joules) ? joules : 0,
            .watts = isfinite(watts) ? watts : 0,
        };
    }
    e->joules = isfinite(get_num(o, "joules")) ? get_num(o, "joules") : 0;
    e->seconds = isfinite(get_num(o, "seconds")) ? get_num(o, "seconds") : 0;
    e->watts = isfinite(get_num(o, "watts")) ? get_num(o, "watts") : 0;
}

static json_t *run_json(const struct campaign *c, const struct run_record *r,
                        const struct results_run_analysis *ra)
{
    char *stdout_log = path_join(r->dir, "stdout.log");
    char *stderr_log = path_join(r->dir, "stderr.log");
    char *series = path_join(r->dir, "series.csv");
    json_t *o = json_pack("{s:s}", "setting", c->spec.values.v[r->setting_index]);
    if (c->spec.n_variants)
        json_object_set_new(o, "variant", json_string(c->spec.variants[r->variant_index].name));
    json_object_update_new(o, json_pack("{s:I, s:s, s:o, s:s, s:s, s:s, s:f}",
                                        "repeat", (json_int_t)r->repeat,
                                        "status", run_status_name(r->status),
                                        "started_at", json_utc(r->started_wall_ns), "dir", r->dir,
                                        "stdout_log", stdout_log, "stderr_log", stderr_log,
                                        "ready_seconds", r->ready_s));
    free(stdout_log);
    free(stderr_log);
    if (r->cpus) /* absent: not pinned */
        json_object_set_new(o, "cpus", json_string(r->cpus));
    if (r->idle_held) /* absent: the CPUs idled freely */
        json_object_set_new(o, "idle_held", json_true());
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
            o, json_pack("{s:f, s:f, s:O}", "others_cpu_percent", s->others_cpu_percent,
                         "loopbench_cpu_seconds", (double)s->self_cpu_ns / 1e9, "noise",
                         ra->noise));
        json_object_set_new(o, "metrics", scrape_run_to_json(&r->scrape));
        json_t *dropped = scrape_dropped_json(&r->scrape);
        if (dropped)
            json_object_set_new(o, "health_dropped", dropped);
        json_object_update_new(
            o, json_pack("{s:o, s:I, s:b, s:o, s:o}", "warmup_seconds",
                         json_num_or_null(r->warmup_s), "window_restarts",
                         (json_int_t)r->window_restarts, "warmup_capped", r->warmup_capped, "steady",
                         r->steady_tested ? json_boolean(r->steady) : json_null(), "unsteady",
                         json_str_or_null(r->unsteady)));
        if (r->rotation.cpus.n) /* absent: no swaps inside the window */
            json_object_set_new(o, "rotation", rotation_json(&r->rotation));
        if (r->host_cpus.cpus) /* absent: not recorded */
            json_object_set_new(o, "host_cpus", host_cpus_json(&r->host_cpus));
        if (r->energy.domains) /* absent: not recorded (campaign.energy says why) */
            json_object_set_new(o, "energy", energy_json(&r->energy));
        if (r->has_rtt)
            json_object_set_new(o, "rtt", rtt_json(&r->rtt));
        if (r->has_endpoint)
            json_object_set_new(o, "endpoint_metrics", endpoint_json(&c->endpoint, &r->endpoint));
    } else {
        json_object_set_new(o, "cpu_seconds", json_null());
        json_object_set_new(o, "wall_seconds", json_null());
        json_object_set_new(o, "cpu_percent", json_null());
        json_object_set_new(o, "metrics", json_object());
    }
    json_object_set_new(o, "saturated", json_str_or_null(ra->saturated));
    free(series);
    json_object_set_new(o, "log_levels",
                        json_pack("{s:I, s:I, s:I}", "WRN", (json_int_t)r->scrape.level_counts[LOG_WRN],
                                  "ERR", (json_int_t)r->scrape.level_counts[LOG_ERR],
                                  "FTL", (json_int_t)r->scrape.level_counts[LOG_FTL]));
    if (r->log_limit)
        json_object_set_new(o, "logs", logs_json(r));
    json_object_set_new(o, "exit", exit_json(r));
    json_object_set_new(o, "failure", json_str_or_null(r->failure));
    json_object_set_new(o, "log_tail", json_str_or_null(r->log_tail));
    return o;
}

/* The figures of a run object into r, whose setting, repeat and dir are set. */
static int run_from_json(struct campaign *c, json_t *o, const char *where, struct run_record *r,
                         struct lb_error *err)
{
    const char *status = get_str(o, "status");
    if (!status || run_status_parse(status, &r->status) < 0 || r->status == RUN_PENDING)
        return lb_fail(err, "%s.status: expected \"ok\", \"failed\" or \"interrupted\"", where);
    r->started_wall_ns = get_utc(o, "started_at");
    double ready = get_num(o, "ready_seconds");
    r->ready_s = isfinite(ready) ? ready : 0;
    if (get_str(o, "cpus"))
        r->cpus = xstrdup(get_str(o, "cpus"));
    r->idle_held = json_is_true(json_object_get(o, "idle_held"));
    r->warmup_s = get_num(o, "warmup_seconds"); /* NaN: before it was recorded */
    r->window_restarts = (long)get_int(o, "window_restarts");
    r->warmup_capped = json_is_true(json_object_get(o, "warmup_capped"));
    json_t *steady = json_object_get(o, "steady");
    r->steady_tested = json_is_boolean(steady);
    r->steady = !r->steady_tested || json_is_true(steady);
    if (get_str(o, "unsteady"))
        r->unsteady = xstrdup(get_str(o, "unsteady"));
    json_t *cpu = json_object_get(o, "cpu_percent");
    r->sampled = json_is_number(cpu);
    json_t *metrics = json_object_get(o, "metrics");
    if (json_is_object(metrics) && scrape_run_from_json(metrics, &r->scrape, where, err) < 0)
        return -1;
    if (r->sampled) {
        struct sample_result *s = &r->sample;
        s->cpu_percent = json_number_value(cpu);
        s->cpu_ns = get_ns(o, "cpu_seconds");
        s->wall_ns = get_ns(o, "wall_seconds");
        r->cpu_source = cpu_source_named(get_str(o, "cpu_source"));
        s->resolution_ns = get_u64(o, "cpu_resolution_ns");
        s->unreliable = json_is_true(json_object_get(o, "unreliable"));
        s->voluntary_ctxsw = get_u64(o, "voluntary_ctxsw");
        s->involuntary_ctxsw = get_u64(o, "involuntary_ctxsw");
        s->rss_peak_bytes = get_u64(o, "rss_peak_bytes");
        s->steal_percent = isfinite(get_num(o, "steal_percent")) ? get_num(o, "steal_percent") : 0;
        s->start_wall_ns = get_utc(o, "window_start");
        s->end_wall_ns = get_utc(o, "window_end");
        r->scrape.n_windows = (size_t)get_u64(o, "windows");
        json_t *dropped = json_object_get(o, "health_dropped");
        r->scrape.lines_dropped = (unsigned long)get_u64(dropped, "lines");
        r->scrape.values_dropped = (unsigned long)get_u64(dropped, "values");
        double others = get_num(o, "others_cpu_percent");
        s->others_cpu_percent = isfinite(others) ? others : 0;
        s->self_cpu_ns = get_ns(o, "loopbench_cpu_seconds");
        if (json_is_object(json_object_get(o, "rotation")))
            rotation_from_json(json_object_get(o, "rotation"), &r->rotation);
        if (json_is_object(json_object_get(o, "host_cpus")))
            host_cpus_from_json(json_object_get(o, "host_cpus"), &r->host_cpus);
        if (json_is_object(json_object_get(o, "energy")))
            energy_from_json(json_object_get(o, "energy"), &r->energy);
        json_t *rtt = json_object_get(o, "rtt");
        if (rtt) {
            r->has_rtt = true; /* from here on, run_record_release frees the histograms */
            char *at = xasprintf("%s.rtt", where);
            int rc = rtt_from_json(rtt, at, &r->rtt, err);
            free(at);
            if (rc < 0)
                return -1;
        }
        json_t *endpoint = json_object_get(o, "endpoint_metrics");
        if (endpoint) {
            endpoint_names_from_json(endpoint, &c->endpoint);
            endpoint_from_json(endpoint, &c->endpoint, &r->endpoint);
            r->has_endpoint = true;
        }
    }
    json_t *levels = json_object_get(o, "log_levels");
    r->scrape.level_counts[LOG_WRN] = (unsigned)get_u64(levels, "WRN");
    r->scrape.level_counts[LOG_ERR] = (unsigned)get_u64(levels, "ERR");
    r->scrape.level_counts[LOG_FTL] = (unsigned)get_u64(levels, "FTL");
    json_t *logs = json_object_get(o, "logs");
    if (logs)
        logs_from_json(logs, r);
    exit_from_json(json_object_get(o, "exit"), r);
    r->failure = dup_str(o, "failure");
    r->log_tail = dup_str(o, "log_tail");
    return 0;
}

/* ---- the campaign ------------------------------------------------------------------- */

/* The keys of the campaign object in the order results.json has always given them (the
 * spec's among the campaign's own); a newer key follows them. */
static const char *const campaign_keys[] = {
    "settings",       "baseline",    "variants",    "repeat",         "warmup_seconds",
    "sample_seconds", "interval_ms", "order",       "seed",           "cpu_source_requested",
    "started_at",     "finished_at", "state",       "interrupted_by", "plan",
    "resumed_at",     "primary",     "warmup_auto", "hold_idle",      "rotate_seconds",
    "cpuidle_driver", "energy",      "commit",      "cpus",           "environment",
    "log_limit",      "sequential",  "tune"};

/* o's keys in campaign_keys' order, then the others as they came (o stolen). */
static json_t *campaign_ordered(json_t *o)
{
    json_t *ordered = json_object();
    for (size_t i = 0; i < ARRAY_SIZE(campaign_keys); i++)
        if (json_object_get(o, campaign_keys[i]))
            json_object_set(ordered, campaign_keys[i], json_object_get(o, campaign_keys[i]));
    json_object_update_missing(ordered, o);
    json_decref(o);
    return ordered;
}

static json_t *campaign_json(const struct campaign *c)
{
    json_t *plan = json_array();
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        json_t *o = json_pack("{s:s}", "setting", c->spec.values.v[r->setting_index]);
        if (c->spec.n_variants)
            json_object_set_new(o, "variant", json_string(c->spec.variants[r->variant_index].name));
        json_object_update_new(o, json_pack("{s:I, s:s}", "repeat", (json_int_t)r->repeat,
                                            "dir", r->dir));
        json_array_append_new(plan, o);
    }
    json_t *o = json_object();
    campaign_spec_to_json(&c->spec, o);
    json_object_update_new(
        o, json_pack("{s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "started_at",
                     json_utc(c->started_wall_ns), "finished_at", json_utc(c->finished_wall_ns),
                     "state", campaign_state_name(c), "interrupted_by",
                     json_str_or_null(profile_signal_name(c->interrupted_by)), "plan", plan,
                     "resumed_at", strv_json(&c->resumed_at), "cpuidle_driver",
                     json_str_or_null(c->cpuidle_driver), "commit", commit_json(&c->commit)));
    if (c->energy_unavailable || c->energy_idle.domains) /* absent: from before energy */
        json_object_set_new(o, "energy",
                            json_pack("{s:o, s:o}", "unavailable",
                                      json_str_or_null(c->energy_unavailable), "idle",
                                      c->energy_idle.domains ? energy_json(&c->energy_idle)
                                                             : json_null()));
    json_t *cpus = json_object_get(o, "cpus"); /* absent: not pinned */
    if (cpus)
        json_object_set_new(cpus, "loopbench", json_str_or_null(c->loopbench_cpus));
    json_object_update_new(json_object_get(o, "environment"),
                           json_pack("{s:o, s:I}", "passed", strv_json(&c->env_passed), "withheld",
                                     (json_int_t)c->env_withheld));
    json_t *seq = json_object_get(o, "sequential"); /* absent: a fixed count */
    if (seq) {
        json_t *looks = json_array();
        for (size_t i = 0; i < c->n_looks; i++)
            json_array_append_new(looks, json_pack("{s:I, s:I}", "round",
                                                   (json_int_t)(SEQ_MIN_ROUNDS + (long)i),
                                                   "undecided", (json_int_t)c->look_undecided[i]));
        json_object_update_new(seq,
                               json_pack("{s:o, s:o}", "stopped",
                                         json_str_or_null(c->sequential_stop), "looks", looks));
    }
    if (c->tune)
        json_object_set(o, "tune", c->tune);
    return campaign_ordered(o);
}

/* campaign.sequential, absent from fixed-count campaigns: its max (the spec's) and looks. */
static int sequential_from_json(json_t *seq, struct campaign *c, const char *where,
                                struct lb_error *err)
{
    if (!seq)
        return 0;
    json_t *looks = json_object_get(seq, "looks");
    const char *stopped = get_str(seq, "stopped");
    if (c->spec.sequential_max < SEQ_MIN_ROUNDS || !json_is_array(looks))
        return lb_fail(err, "%s: campaign.sequential: expected its max (%d or more) and looks",
                       where, SEQ_MIN_ROUNDS);
    static const char *const reasons[] = {"decided", "futile", "cap"};
    c->sequential_stop = NULL;
    for (size_t k = 0; stopped && k < 3; k++)
        if (strcmp(stopped, reasons[k]) == 0)
            c->sequential_stop = reasons[k];
    if (stopped && !c->sequential_stop)
        return lb_fail(err, "%s: campaign.sequential.stopped '%s': expected decided, futile or "
                            "cap", where, stopped);
    c->look_undecided = xcalloc(json_array_size(looks) + 1, sizeof(long));
    size_t i;
    json_t *look;
    json_array_foreach(looks, i, look)
        c->look_undecided[c->n_looks++] = (long)get_int(look, "undecided");
    return 0;
}

/* campaign.environment: names only, each a valid variable name (a --resume passes
 * pass_env, the spec's, again), none a credential's. */
static int environment_from_json(json_t *env, struct campaign *c, const char *where,
                                 struct lb_error *err)
{
    if (!env)
        return 0;
    json_t *pass = json_object_get(env, "pass_env"), *passed = json_object_get(env, "passed");
    json_t *withheld = json_object_get(env, "withheld");
    if (!json_is_array(pass) || !json_is_array(passed) || !json_is_integer(withheld) ||
        json_integer_value(withheld) < 0)
        return lb_fail(err,
                       "%s: campaign.environment: expected its pass_env and passed names "
                       "and the count withheld",
                       where);
    c->env_withheld = (size_t)json_integer_value(withheld);
    return campaign_names_from_json(passed, where, "campaign.environment.passed", &c->env_passed,
                                    err);
}

/* The campaign object: the spec, then what the campaign found and did. */
static int campaign_from_json(json_t *camp, json_t *knob, struct campaign *c, const char *where,
                              struct lb_error *err)
{
    if (campaign_spec_from_json(camp, knob, where, &c->spec, err) < 0 ||
        commit_from_json(json_object_get(camp, "commit"), where, "campaign.commit", &c->commit,
                         err) < 0)
        return -1;
    c->cpuidle_driver = dup_str(camp, "cpuidle_driver");
    json_t *energy = json_object_get(camp, "energy");
    c->energy_unavailable = dup_str(energy, "unavailable");
    if (json_is_object(json_object_get(energy, "idle")))
        energy_from_json(json_object_get(energy, "idle"), &c->energy_idle);
    json_t *cpus = json_object_get(camp, "cpus");
    if (cpus && !get_str(cpus, "targets"))
        return lb_fail(err, "%s: campaign.cpus: expected the CPUs of the targets", where);
    if (get_str(cpus, "loopbench"))
        c->loopbench_cpus = xstrdup(get_str(cpus, "loopbench"));
    json_t *tune = json_object_get(camp, "tune");
    if (tune && !json_is_object(tune))
        return lb_fail(err, "%s: campaign.tune: expected an object", where);
    c->tune = json_incref(tune);
    if (sequential_from_json(json_object_get(camp, "sequential"), c, where, err) < 0 ||
        environment_from_json(json_object_get(camp, "environment"), c, where, err) < 0)
        return -1;
    c->started_wall_ns = get_utc(camp, "started_at");
    c->finished_wall_ns = get_utc(camp, "finished_at");
    c->interrupted_by = signal_named(get_str(camp, "interrupted_by"));
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(camp, "resumed_at"), i, v)
        if (json_is_string(v))
            strv_push(&c->resumed_at, json_string_value(v));
    return 0;
}

/* Lookups of a campaign's runs by name: settings, variants and (with a plan) run
 * directories, each in a time that does not grow with their number. */
struct run_names {
    struct str_table settings, variants, dirs;
};

static void run_names_init(struct run_names *t, const struct campaign *c, size_t n_runs)
{
    const struct campaign_spec *s = &c->spec;
    str_table_init(&t->settings, s->values.n);
    for (size_t i = 0; i < s->values.n; i++)
        str_table_add(&t->settings, s->values.v[i], i);
    str_table_init(&t->variants, s->n_variants);
    for (size_t k = 0; k < s->n_variants; k++)
        str_table_add(&t->variants, s->variants[k].name, k);
    str_table_init(&t->dirs, n_runs);
}

static void run_names_release(struct run_names *t)
{
    str_table_release(&t->settings);
    str_table_release(&t->variants);
    str_table_release(&t->dirs);
}

/* A planned run: its setting, variant, repeat and directory. */
static int planned_from_json(struct campaign *c, const struct run_names *t, json_t *o,
                             const char *where, const char *list, size_t i, struct run_record *r,
                             struct lb_error *err)
{
    const char *setting = get_str(o, "setting"), *dir = get_str(o, "dir");
    long si = setting ? str_table_find(&t->settings, setting) : -1;
    if (si < 0)
        return lb_fail(err, "%s: %s[%zu]: setting '%s' is not among the campaign's", where, list, i,
                       setting ? setting : "");
    r->setting_index = (size_t)si;
    if (c->spec.n_variants) {
        const char *name = get_str(o, "variant");
        long vi = name ? str_table_find(&t->variants, name) : -1;
        if (vi < 0)
            return lb_fail(err, "%s: %s[%zu]: variant '%s' is not among the campaign's", where,
                           list, i, name ? name : "");
        r->variant_index = (size_t)vi;
    }
    r->repeat = (long)get_int(o, "repeat");
    /* report reads a run's series.csv there and --resume writes into it: a campaign
     * made elsewhere must not lead either out of its own directory. */
    if (dir && !path_is_within(dir))
        return lb_fail(err,
                       "%s: %s[%zu].dir: '%s' is not a relative path inside the campaign "
                       "directory",
                       where, list, i, dir);
    r->dir = dir ? xstrdup(dir)
                 : run_dir_name(c->spec.n_variants ? c->spec.variants[r->variant_index].name : NULL,
                                setting, r->repeat);
    return 0;
}

/* The runs: the plan whole when recorded (runs not yet made stay pending), each with
 * what `runs` recorded of it, found by its directory; else the recorded runs alone, in
 * their order. */
static int runs_from_json(json_t *plan, json_t *runs, struct campaign *c, const char *where,
                          struct lb_error *err)
{
    if (!json_is_array(runs))
        return lb_fail(err, "%s: runs: expected an array", where);
    bool planned = json_is_array(plan);
    json_t *list = planned ? plan : runs;
    const char *name = planned ? "campaign.plan" : "runs";
    if (campaign_size_check(0, 0, json_array_size(list), where, err) < 0 ||
        campaign_size_check(0, 0, json_array_size(runs), where, err) < 0)
        return -1;
    c->n_runs = json_array_size(list);
    c->runs = xcalloc(c->n_runs ? c->n_runs : 1, sizeof(*c->runs));
    struct run_names t;
    run_names_init(&t, c, c->n_runs);
    int rc = 0;
    for (size_t i = 0; i < c->n_runs && rc == 0; i++) {
        rc = planned_from_json(c, &t, json_array_get(list, i), where, name, i, &c->runs[i], err);
        if (rc == 0 && planned)
            str_table_add(&t.dirs, c->runs[i].dir, i);
    }
    size_t i;
    json_t *o;
    json_array_foreach(runs, i, o) {
        if (rc < 0)
            break;
        struct run_record *r = &c->runs[i];
        if (planned) {
            const char *dir = get_str(o, "dir");
            long k = dir ? str_table_find(&t.dirs, dir) : -1;
            if (k < 0) {
                rc = lb_fail(err, "%s: runs[%zu]: dir '%s' is not in the plan", where, i,
                             dir ? dir : "");
                break;
            }
            r = &c->runs[k];
        }
        char *at = xasprintf("%s: runs[%zu]", where, i);
        rc = run_from_json(c, o, at, r, err);
        free(at);
    }
    run_names_release(&t);
    return rc;
}

/* Every name of c that a report, a plot or a table prints. */
static int names_check(const struct campaign *c, const char *where, struct lb_error *err)
{
    const struct campaign_profile *p = &c->profile;
    const char *fixed[][2] = {
        {p->name, "profile.name"},
        {p->knob_name, "profile.knob.name"},
        {p->knob_label, "profile.knob.label"},
        {c->host.hostname, "host.hostname"},
        {c->host.cpu_model, "host.cpu_model"},
        {c->host.os, "host.os"},
        {c->host.kernel, "host.kernel"},
        {c->host.virtualization, "host.virtualization"},
        {c->host.runner_image_os, "host.runner.image_os"},
        {c->host.runner_image_version, "host.runner.image_version"},
        {c->host.runner_name, "host.runner.name"},
        {c->self.version, "loopbench.version"},
        {c->self.commit, "loopbench.commit"},
        {c->loopbench_cpus, "campaign.cpus.loopbench"},
        /* not names, but sentences a report prints the same way */
        {c->energy_unavailable, "campaign.energy.unavailable"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
        if (campaign_text_check(fixed[i][0], where, fixed[i][1], err) < 0)
            return -1;
    char key[64];
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < p->n_health; k++) {
        snprintf(key, sizeof(key), "profile.health[%zu].key", k);
        rc = campaign_text_check(p->health[k].key, where, key, err);
        snprintf(key, sizeof(key), "profile.health[%zu].label", k);
        rc = rc < 0 ? rc : campaign_text_check(p->health[k].label, where, key, err);
    }
    for (size_t i = 0; rc == 0 && i < c->spec.values.n; i++) {
        snprintf(key, sizeof(key), "campaign.settings[%zu]", i);
        rc = campaign_text_check(c->spec.values.v[i], where, key, err);
    }
    for (size_t i = 0; rc == 0 && i < c->spec.n_variants; i++) {
        snprintf(key, sizeof(key), "campaign.variants[%zu].name", i);
        rc = campaign_text_check(c->spec.variants[i].name, where, key, err);
    }
    for (size_t i = 0; rc == 0 && i < c->n_runs; i++) {
        snprintf(key, sizeof(key), "the failure of run %zu", i + 1);
        rc = campaign_text_check(c->runs[i].failure, where, key, err);
        snprintf(key, sizeof(key), "why run %zu was unsteady", i + 1);
        rc = rc < 0 ? rc : campaign_text_check(c->runs[i].unsteady, where, key, err);
    }
    return rc;
}

/* o's string at key (new), else dflt's. */
static char *get_str_or(json_t *o, const char *key, const char *dflt)
{
    const char *s = get_str(o, key);
    return xstrdup(s ? s : dflt);
}

int campaign_profile_from_json(json_t *section, const char *where, struct campaign_profile *p,
                               struct lb_error *err)
{
    memset(p, 0, sizeof(*p));
    if (!json_is_object(section))
        return lb_fail(err, "%s: profile: expected an object", where);
    json_t *known = profile_section_known(section);
    p->text = xcheck(json_dumps(known, JSON_COMPACT));
    json_decref(known);
    json_t *knob = json_object_get(section, "knob");
    p->name = get_str_or(section, "name", "?");
    p->path = get_str_or(section, "path", "");
    p->hash = get_str_or(section, "hash", "");
    p->knob_name = get_str_or(knob, "name", "?");
    p->knob_label = get_str_or(knob, "label", p->knob_name);
    p->marker = get_str_or(section, "marker", "");
    json_t *health = json_object_get(section, "health");
    if (health && !json_is_array(health))
        return lb_fail(err, "%s: profile.health: expected an array", where);
    if (json_array_size(health) > PROFILE_HEALTH_MAX)
        return lb_fail(err, "%s: profile.health: %zu keys, more than the %d of a profile", where,
                       json_array_size(health), PROFILE_HEALTH_MAX);
    p->health = xcalloc(json_array_size(health) + 1, sizeof(*p->health));
    for (size_t k = 0; k < json_array_size(health); k++) {
        const char *key, *label = NULL, *better = profile_direction_name(LOWER_IS_BETTER);
        int zero = 0;
        enum direction dir;
        if (json_unpack(json_array_get(health, k), "{s:s, s?s, s?s, s?b}", "key", &key, "label",
                        &label, "better", &better, "must_be_zero", &zero) < 0 ||
            profile_direction_parse(better, &dir) < 0)
            return lb_fail(err, "%s: profile.health[%zu]: expected a key, a label, better "
                                "\"lower\" or \"higher\" and must_be_zero",
                           where, k);
        p->health[p->n_health++] =
            (struct campaign_health){xstrdup(key), xstrdup(label ? label : key), dir, zero};
    }
    metric_registry_build(p);
    return 0;
}

json_t *campaign_profile_json(const struct campaign_profile *p)
{
    return xcheck(json_loads(p->text ? p->text : "{}", 0, NULL));
}

int results_from_json(json_t *doc, const char *out_dir, const char *where, struct campaign *c,
                      struct lb_error *err)
{
    memset(c, 0, sizeof(*c));
    campaign_spec_init(&c->spec);
    c->out_dir = xstrdup(out_dir);
    const char *schema = get_str(doc, "schema");
    if (!schema || (strcmp(schema, RESULTS_SCHEMA) != 0 && strcmp(schema, RESULTS_SCHEMA_V1) != 0))
        return lb_fail(err, "'%s': schema '%s': expected '%s' or '%s'", where,
                       schema ? schema : "none", RESULTS_SCHEMA, RESULTS_SCHEMA_V1);
    json_t *profile = json_object_get(doc, "profile"), *runs = json_object_get(doc, "runs");
    if (!json_is_object(profile) || !json_is_array(runs) ||
        !json_is_object(json_object_get(doc, "host")))
        return lb_fail(err, "'%s': expected the fixed keys profile, host and runs", where);
    char *at = xasprintf("'%s'", where);
    json_t *camp = json_object_get(doc, "campaign");
    int rc = campaign_profile_from_json(profile, at, &c->profile, err);
    if (rc == 0)
        rc = campaign_from_json(camp, json_object_get(profile, "knob"), c, at, err);
    if (rc == 0)
        rc = runs_from_json(json_object_get(camp, "plan"), runs, c, at, err);
    free(at);
    if (rc < 0)
        return -1;
    if (c->profile.path) /* the spec's profile is where the profile section says */
        c->spec.profile_path = xstrdup(c->profile.path);
    campaign_metrics_add_idle(c);
    campaign_metrics_add_energy(c);
    c->command_line = xstrdup(get_str(doc, "command_line") ? get_str(doc, "command_line") : "");
    self_from_json(json_object_get(doc, "loopbench"), &c->self);
    host_from_json(json_object_get(doc, "host"), &c->host);
    /* campaigns run before the host recorded its driver recorded it here */
    if (!c->host.cpuidle_driver && c->cpuidle_driver)
        c->host.cpuidle_driver = xstrdup(c->cpuidle_driver);
    fingerprint_compute(&c->host, &c->fingerprint);
    at = xasprintf("'%s'", where);
    rc = names_check(c, at, err);
    free(at);
    if (rc < 0)
        return -1;
    c->has_rtt = json_object_get(profile, "rtt") != NULL;
    for (size_t i = 0; i < c->n_runs; i++)
        c->has_rtt |= c->runs[i].has_rtt;
    return 0;
}

json_t *results_document(const struct campaign *c, const struct results_analysis *a)
{
    json_t *runs = json_array();
    for (size_t i = 0; i < c->n_runs; i++)
        if (c->runs[i].status != RUN_PENDING)
            json_array_append_new(runs, run_json(c, &c->runs[i], &a->runs[i]));
    return json_pack("{s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:O, s:o}", "schema", RESULTS_SCHEMA,
                     "loopbench", self_json(&c->self), "command_line", c->command_line, "profile",
                     campaign_profile_json(&c->profile), "host", host_json(&c->host), "campaign",
                     campaign_json(c), "runs", runs, "summary", a->summary, "warnings",
                     strv_json(a->warnings));
}

char *results_document_text(const json_t *doc)
{
    char *text = json_dumps(doc, RESULTS_JSON_FLAGS);
    xcheck(text);
    size_t len = strlen(text);
    char *line = xrealloc(text, len + 2);
    line[len] = '\n';
    line[len + 1] = '\0';
    return line;
}

/* The runs results_load read so far in this process. */
static size_t runs_read;

/* doc (parsed from file) into c, its runs counted against CAMPAIGN_RUNS_TOTAL_MAX. */
static int results_read(json_t *doc, const char *file, const char *out_dir, struct campaign *c,
                        struct lb_error *err)
{
    json_t *camp = json_object_get(doc, "campaign"), *plan = json_object_get(camp, "plan");
    size_t runs = json_array_size(json_is_array(plan) ? plan : json_object_get(doc, "runs"));
    if (runs > CAMPAIGN_RUNS_TOTAL_MAX - runs_read)
        return lb_fail(err,
                       "'%s': its %zu runs would make more than the %d runs one command "
                       "reads (%zu read before it): expected fewer or smaller campaigns",
                       file, runs, CAMPAIGN_RUNS_TOTAL_MAX, runs_read);
    if (results_from_json(doc, out_dir, file, c, err) < 0)
        return -1;
    runs_read += runs;
    return 0;
}

int results_load(const char *path, struct campaign *c, struct lb_error *err)
{
    memset(c, 0, sizeof(*c));
    struct stat st;
    bool dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    char *file = dir ? path_join(path, "results.json") : xstrdup(path);
    char *out_dir = dir ? xstrdup(path) : path_dirname(path);
    /* jansson holds the whole document, some 200 bytes a key: a file made elsewhere is
     * refused before it is parsed past the size of a far larger campaign than any run. */
    char *text;
    size_t len;
    int rc = read_back_file(file, "results.json", RESULTS_SIZE_MAX, &text, &len, err);
    if (rc == 0) {
        json_error_t jerr;
        json_t *doc = json_loadb(text, len, 0, &jerr);
        free(text);
        if (!doc)
            rc =
                lb_fail(err, "'%s' line %d column %d: %s", file, jerr.line, jerr.column, jerr.text);
        else
            rc = results_read(doc, file, out_dir, c, err);
        json_decref(doc);
    }
    /* A message may quote any string of the file: shown as text, never acted on by a
     * terminal nor read as a workflow command. */
    if (rc < 0)
        text_error_shown(err);
    c->path = file;
    free(out_dir);
    return rc;
}

int results_settle(struct campaign *c, const char *text, struct lb_error *err)
{
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    if (!doc)
        return lb_fail(err, "results.json as written does not parse: %s", jerr.text);
    struct campaign settled;
    int rc = results_from_json(doc, c->out_dir, "results.json", &settled, err);
    json_decref(doc);
    if (rc < 0) {
        campaign_release(&settled);
        return -1;
    }
    /* What the runner knows before any run shows it: the endpoint's names and the
     * round-trip probe of its profile. */
    if (!settled.endpoint.url) {
        settled.endpoint = c->endpoint;
        memset(&c->endpoint, 0, sizeof(c->endpoint));
    }
    settled.has_rtt |= c->has_rtt;
    campaign_release(c);
    *c = settled;
    return 0;
}

int campaign_set_load(struct campaign_set *set, char *const *paths, size_t n,
                      struct lb_error *err)
{
    set->v = xrealloc(set->v, (set->n + n + 1) * sizeof(*set->v));
    for (size_t i = 0; i < n; i++)
        if (results_load(paths[i], &set->v[set->n++], err) < 0)
            return -1; /* the reader leaves what it read to release */
    return 0;
}

const struct campaign **campaign_set_refs(const struct campaign_set *set)
{
    const struct campaign **refs = xcalloc(set->n + 1, sizeof(*refs));
    for (size_t i = 0; i < set->n; i++)
        refs[i] = &set->v[i];
    return refs;
}

void campaign_set_release(struct campaign_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        campaign_release(&set->v[i]);
    free(set->v);
    memset(set, 0, sizeof(*set));
}
