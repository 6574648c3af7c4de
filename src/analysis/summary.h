/* Each cell of a campaign (a setting, under a variant when there are some) summarised
 * once: its figures over its completed runs and their comparison with its reference's
 * (the same setting of the base variant, or without variants the baseline setting). results.json's summary, the report's headline,
 * table, CSV and JSON, and the table `run` prints all read these. */
#ifndef LOOPBENCH_SUMMARY_H
#define LOOPBENCH_SUMMARY_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "campaign.h"
#include "compare.h"
#include "histogram.h"

struct setting_summary {
    struct cell cell, reference;
    size_t runs_ok, runs_attempted;
    size_t unreliable;          /* completed runs whose CPU was near the clock's resolution */
    /* Per metric of the campaign's registry, in its order (a: the reference's runs, b:
     * this cell's, paired by round); cpu and health point into it: the registry's CPU
     * and its health keys. */
    struct metric_diff *diff;
    const struct metric_diff *cpu, *health;
    struct stats_summary wakes; /* voluntary context switches per second */
    /* The packages' mean watts over the windows of the runs that record energy. */
    size_t energy_runs;
    struct stats_summary watts;
    double *total;              /* per health key: a ratio's median denominator, else NaN */
    /* Round trips (campaign.has_rtt): every completed run's histogram added, so the
     * percentiles are of all round trips, never averages of percentiles. */
    size_t rtt_runs;
    uint64_t rtt_scheduled, rtt_errors, rtt_timeouts;
    struct histogram rtt;
};

/* Every cell of c, in campaign_cell's order (new array; summary_free). */
struct setting_summary *summary_compute(const struct campaign *c);
void summary_free(const struct campaign *c, struct setting_summary *s);

/* The ratio new/base a reader is shown: the test's own (a geometric mean, of the
 * per-round ratios when rounds pair) with its interval, so the factor, the interval and
 * the p beside them agree; the ratio of medians alone when no test could be made. */
struct stats_ratio summary_shown_ratio(const struct metric_diff *d);

/* One cell as JSON (new reference), the one encoder of both: as results.json records it
 * (runs attempted, the CPU ratio, wake rate, unreliable windows, round trips), or as the
 * report gives it (each figure's count, the tests against the reference). */
enum summary_view { SUMMARY_RECORD, SUMMARY_REPORT };
json_t *summary_cell_json(const struct campaign *c, const struct setting_summary *s,
                          enum summary_view view);

/* results.json's "summary" array (new reference). */
json_t *summary_json(const struct campaign *c);

#endif
