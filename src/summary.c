#include "summary.h"

#include <math.h>
#include <string.h>

#include "util.h"

/* Compare setting si with the baseline for metric (-1 CPU, else a health key), paired
 * by round when the campaign interleaved them. */
static void diff_setting(const struct campaign *c, size_t si, int metric, double *scratch[4],
                         struct metric_diff *out)
{
    size_t na = campaign_values(c, c->baseline, metric, scratch[0]);
    size_t nb = campaign_values(c, si, metric, scratch[1]);
    size_t np = si == c->baseline
                    ? 0
                    : campaign_pairs(c, c->baseline, si, metric, scratch[2], scratch[3]);
    compare_metric(scratch[0], na, scratch[1], nb, scratch[2], scratch[3], np, SUMMARY_LEVEL,
                   out);
}

static void add_rtt(const struct run_record *r, struct setting_summary *s)
{
    s->rtt_runs++;
    histogram_add(&s->rtt, &r->rtt.rtt);
    s->rtt_scheduled += r->rtt.requests.scheduled;
    s->rtt_errors += r->rtt.requests.errors;
    s->rtt_timeouts += r->rtt.requests.timeouts;
}

static void summarize_setting(const struct campaign *c, size_t si, double *scratch[4],
                              struct setting_summary *s)
{
    size_t nh = c->profile.n_health;
    memset(s, 0, sizeof(*s));
    histogram_init(&s->rtt);
    size_t n = 0;
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        if (r->setting_index != si || r->status == RUN_PENDING)
            continue;
        s->runs_attempted++;
        if (r->status != RUN_OK)
            continue;
        s->runs_ok++;
        s->unreliable += r->sampled && r->sample.unreliable;
        double wall = (double)r->sample.wall_ns / 1e9;
        scratch[0][n++] = wall > 0 ? (double)r->sample.voluntary_ctxsw / wall : NAN;
        if (r->has_rtt)
            add_rtt(r, s);
    }
    stats_summarize(scratch[0], n, &s->wakes);
    diff_setting(c, si, -1, scratch, &s->cpu);
    s->health = xcalloc(nh ? nh : 1, sizeof(*s->health));
    s->total = xcalloc(nh ? nh : 1, sizeof(double));
    for (size_t k = 0; k < nh; k++) {
        diff_setting(c, si, (int)k, scratch, &s->health[k]);
        size_t m = 0;
        for (size_t i = 0; i < c->n_runs; i++)
            if (c->runs[i].setting_index == si && c->runs[i].status == RUN_OK)
                scratch[0][m++] = run_health_total(c, &c->runs[i], k);
        s->total[k] = stats_median(scratch[0], m);
    }
}

struct setting_summary *summary_compute(const struct campaign *c)
{
    struct setting_summary *s = xcalloc(c->values.n ? c->values.n : 1, sizeof(*s));
    double *scratch[4];
    for (size_t i = 0; i < 4; i++)
        scratch[i] = xcalloc(c->n_runs + 1, sizeof(double));
    for (size_t si = 0; si < c->values.n; si++)
        summarize_setting(c, si, scratch, &s[si]);
    for (size_t i = 0; i < 4; i++)
        free(scratch[i]);
    return s;
}

void summary_free(const struct campaign *c, struct setting_summary *s)
{
    for (size_t si = 0; s && si < c->values.n; si++) {
        free(s[si].health);
        free(s[si].total);
        histogram_release(&s[si].rtt);
    }
    free(s);
}

static json_t *stats_json(const struct stats_summary *s)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o}", "median", json_num_or_null(s->median), "min",
                     json_num_or_null(s->min), "max", json_num_or_null(s->max), "mean",
                     json_num_or_null(s->mean), "sd", json_num_or_null(s->sd));
}

json_t *summary_json(const struct campaign *c)
{
    struct setting_summary *sum = summary_compute(c);
    json_t *arr = json_array();
    for (size_t si = 0; si < c->values.n; si++) {
        const struct setting_summary *s = &sum[si];
        json_t *o = json_pack("{s:s, s:b, s:I, s:I, s:o, s:o, s:o, s:I}",
                              "setting", c->values.v[si], "baseline", si == c->baseline,
                              "runs", (json_int_t)s->runs_ok,
                              "runs_attempted", (json_int_t)s->runs_attempted,
                              "cpu_percent", stats_json(&s->cpu.b),
                              /* how many times less CPU than the baseline */
                              "cpu_ratio", json_num_or_null(s->cpu.a.median / s->cpu.b.median),
                              "voluntary_per_s", stats_json(&s->wakes),
                              "unreliable_windows", (json_int_t)s->unreliable);
        json_t *health = json_object();
        for (size_t k = 0; k < c->profile.n_health; k++) {
            json_t *h = stats_json(&s->health[k].b);
            if (isfinite(s->total[k]))
                json_object_set_new(h, "total", json_real(s->total[k]));
            json_object_set_new(health, c->profile.health[k].key, h);
        }
        json_object_set_new(o, "health", health);
        if (c->has_rtt)
            json_object_set_new(
                o, "rtt",
                json_pack("{s:I, s:I, s:I, s:I, s:o}", "runs", (json_int_t)s->rtt_runs,
                          "scheduled", (json_int_t)s->rtt_scheduled, "errors",
                          (json_int_t)s->rtt_errors, "timeouts", (json_int_t)s->rtt_timeouts,
                          "latency_us", histogram_percentiles_json(&s->rtt, 1e3)));
        json_array_append_new(arr, o);
    }
    summary_free(c, sum);
    return arr;
}
