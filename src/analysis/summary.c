#include "summary.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "metric.h"
#include "util.h"

/* Compare cell x with its reference for metric m, paired by round when the campaign's
 * rounds hold both, the CPU sets they ran on a factor. */
static void diff_cell(const struct campaign *c, struct cell x, struct cell ref,
                      const struct metric *m, double *scratch[4], struct metric_diff *out)
{
    size_t na = campaign_cell_values(c, ref, m, scratch[0]);
    size_t nb = campaign_cell_values(c, x, m, scratch[1]);
    bool same = x.setting == ref.setting && x.variant == ref.variant;
    const char **cpus_a = xcalloc(c->n_runs + 1, sizeof(*cpus_a));
    const char **cpus_b = xcalloc(c->n_runs + 1, sizeof(*cpus_b));
    size_t np = same ? 0
                     : campaign_cell_pairs_cpus(c, ref, x, m, scratch[2], scratch[3],
                                                cpus_a, cpus_b);
    int *cpu_set = np ? compare_cpu_assignments(cpus_a, cpus_b, np) : NULL;
    compare_metric(scratch[0], na, scratch[1], nb, scratch[2], scratch[3], np, cpu_set,
                   gate_opts_default().level, out);
    free(cpu_set);
    free(cpus_a);
    free(cpus_b);
}

static void add_rtt(const struct run_record *r, struct setting_summary *s)
{
    s->rtt_runs++;
    /* 36 KiB: made for a cell with round trips only */
    if (!s->rtt.counts)
        histogram_init(&s->rtt);
    histogram_add(&s->rtt, &r->rtt.rtt);
    s->rtt_scheduled += r->rtt.requests.scheduled;
    s->rtt_errors += r->rtt.requests.errors;
    s->rtt_timeouts += r->rtt.requests.timeouts;
}

static void summarize_cell(const struct campaign *c, struct cell x, double *scratch[4],
                           struct setting_summary *s)
{
    size_t nh = c->profile.n_health;
    memset(s, 0, sizeof(*s));
    s->cell = x;
    s->reference = campaign_reference(c, x);
    size_t n = 0;
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        if (!run_in_cell(r, x) || r->status == RUN_PENDING)
            continue;
        s->runs_attempted++;
        if (r->status != RUN_OK)
            continue;
        s->runs_ok++;
        s->unreliable += r->sampled && r->sample.unreliable;
        double wall = (double)r->sample.wall_ns / 1e9;
        scratch[0][n++] = wall > 0 ? (double)r->sample.voluntary_ctxsw / wall : NAN;
        if (r->energy.domains)
            scratch[1][s->energy_runs++] = r->energy.watts;
        if (r->has_rtt)
            add_rtt(r, s);
    }
    stats_summarize(scratch[0], n, &s->wakes);
    stats_summarize(scratch[1], s->energy_runs, &s->watts);
    s->diff = xcalloc(c->profile.n_metrics, sizeof(*s->diff));
    for (size_t i = 0; i < c->profile.n_metrics; i++)
        diff_cell(c, x, s->reference, &c->profile.metrics[i], scratch, &s->diff[i]);
    s->cpu = &s->diff[0];
    s->health = s->diff + 1;
    s->total = xcalloc(nh ? nh : 1, sizeof(double));
    for (size_t k = 0; k < nh; k++) {
        size_t m = 0;
        for (size_t i = 0; i < c->n_runs; i++)
            if (run_in_cell(&c->runs[i], x) && c->runs[i].status == RUN_OK)
                scratch[0][m++] = run_health_total(c, &c->runs[i], k);
        s->total[k] = stats_median(scratch[0], m);
    }
}

struct setting_summary *summary_compute(const struct campaign *c)
{
    size_t cells = campaign_cells(c);
    struct setting_summary *s = xcalloc(cells ? cells : 1, sizeof(*s));
    double *scratch[4];
    for (size_t i = 0; i < 4; i++)
        scratch[i] = xcalloc(c->n_runs + 1, sizeof(double));
    for (size_t i = 0; i < cells; i++)
        summarize_cell(c, campaign_cell(c, i), scratch, &s[i]);
    for (size_t i = 0; i < 4; i++)
        free(scratch[i]);
    return s;
}

void summary_free(const struct campaign *c, struct setting_summary *s)
{
    for (size_t i = 0; s && i < campaign_cells(c); i++) {
        free(s[i].diff);
        free(s[i].total);
        histogram_release(&s[i].rtt);
    }
    free(s);
}

struct stats_ratio summary_shown_ratio(const struct metric_diff *d)
{
    if (isfinite(d->ci.ratio))
        return d->ci;
    return (struct stats_ratio){d->ratio.ratio, NAN, NAN};
}

/* A cell's figures over its runs: their count first in a report. */
static json_t *stats_json(const struct stats_summary *s, bool with_n)
{
    json_t *o = with_n ? json_pack("{s:I}", "n", (json_int_t)s->n) : json_object();
    json_object_update_new(o, json_pack("{s:o, s:o, s:o, s:o, s:o}", "median",
                                        json_num_or_null(s->median), "min",
                                        json_num_or_null(s->min), "max",
                                        json_num_or_null(s->max), "mean",
                                        json_num_or_null(s->mean), "sd", json_num_or_null(s->sd)));
    return o;
}

/* The statistics of a setting against the baseline: the ratio the test estimates, with
 * its interval; the ratio of medians with its bootstrap interval beside. */
static json_t *diff_json(const struct metric_diff *d)
{
    struct stats_ratio r = summary_shown_ratio(d);
    json_t *o = json_pack("{s:o, s:[o, o], s:o, s:[o, o], s:o, s:o, s:o, s:o}", "ratio",
                          json_num_or_null(r.ratio), "ratio_ci", json_num_or_null(r.lo),
                          json_num_or_null(r.hi), "median_ratio",
                          json_num_or_null(d->ratio.ratio), "median_ratio_ci",
                          json_num_or_null(d->ratio.lo), json_num_or_null(d->ratio.hi), "p",
                          json_num_or_null(d->p), "test",
                          d->test ? json_string(d->test) : json_null(), "welch_p",
                          json_num_or_null(d->welch.p), "mann_whitney_p",
                          json_num_or_null(d->mwu.p));
    if (d->paired.pairs)
        json_object_set_new(o, "paired",
                            json_pack("{s:I, s:o, s:[o, o], s:o}", "pairs",
                                      (json_int_t)d->paired.pairs, "ratio",
                                      json_num_or_null(d->paired.ratio), "ci",
                                      json_num_or_null(d->paired.lo),
                                      json_num_or_null(d->paired.hi), "p",
                                      json_num_or_null(d->paired.test.p)));
    return o;
}

json_t *summary_cell_json(const struct campaign *c, const struct setting_summary *s,
                          enum summary_view view)
{
    bool report = view == SUMMARY_REPORT;
    size_t si = s->cell.setting;
    bool reference = si == s->reference.setting && s->cell.variant == s->reference.variant;
    json_t *o = json_pack("{s:s}", "setting", c->spec.values.v[si]);
    if (c->spec.n_variants)
        json_object_set_new(o, "variant", json_string(c->spec.variants[s->cell.variant].name));
    json_object_update_new(o, json_pack("{s:b, s:I}", "baseline", si == c->spec.baseline, "runs",
                                        (json_int_t)s->runs_ok));
    if (!report)
        json_object_set_new(o, "runs_attempted", json_integer((json_int_t)s->runs_attempted));
    json_object_set_new(o, "cpu_percent", stats_json(&s->cpu->b, report));
    if (report)
        json_object_set_new(o, "cpu_vs_baseline", reference ? json_null() : diff_json(s->cpu));
    else
        json_object_update_new(
            o, json_pack("{s:o, s:o, s:I}",
                         /* how many times less CPU than the reference */
                         "cpu_ratio", json_num_or_null(s->cpu->a.median / s->cpu->b.median),
                         "voluntary_per_s", stats_json(&s->wakes, false), "unreliable_windows",
                         (json_int_t)s->unreliable));
    json_t *health = json_object();
    for (size_t k = 0; k < c->profile.n_health; k++) {
        json_t *h = stats_json(&s->health[k].b, report);
        if (isfinite(s->total[k]))
            json_object_set_new(h, "total", json_real(s->total[k]));
        if (report && !reference)
            json_object_set_new(h, "vs_baseline", diff_json(&s->health[k]));
        json_object_set_new(health, c->profile.health[k].key, h);
    }
    json_object_set_new(o, "health", health);
    if (!report && s->energy_runs) /* absent: no run of the cell records energy */
        json_object_set_new(o, "energy", json_pack("{s:I, s:o}", "runs", (json_int_t)s->energy_runs,
                                                   "watts", stats_json(&s->watts, false)));
    if (!report && c->has_rtt)
        json_object_set_new(
            o, "rtt",
            json_pack("{s:I, s:I, s:I, s:I, s:o}", "runs", (json_int_t)s->rtt_runs, "scheduled",
                      (json_int_t)s->rtt_scheduled, "errors", (json_int_t)s->rtt_errors,
                      "timeouts", (json_int_t)s->rtt_timeouts, "latency_us",
                      histogram_percentiles_json(&s->rtt, 1e3)));
    return o;
}

json_t *summary_json(const struct campaign *c)
{
    struct setting_summary *sum = summary_compute(c);
    json_t *arr = json_array();
    for (size_t i = 0; i < campaign_cells(c); i++)
        json_array_append_new(arr, summary_cell_json(c, &sum[i], SUMMARY_RECORD));
    summary_free(c, sum);
    return arr;
}
