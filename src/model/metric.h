/* The metric registry: one descriptor per figure of a campaign that can be summarised,
 * compared and gated (CPU, each health key the profile declares: round trips and
 * endpoint values among them, the wake rate), built once from the campaign's profile
 * (campaign_profile_from_json, results.h), and each metric's values over a campaign's
 * cells and rounds. Summary, compare, the sequential looks, the report, plots and charts
 * iterate over it; adding a figure `run` already records is one descriptor and its
 * reader (metric.c). The campaign (campaign.h) holds the registry and knows nothing of
 * it. */
#ifndef LOOPBENCH_METRIC_H
#define LOOPBENCH_METRIC_H

#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"
#include "profile.h"

/* How two sets of runs are compared: the log of their ratio (a positive figure such as
 * CPU time), or their difference (a count or a level that can be 0). The gate reads
 * the data's own sign too: a metric that holds a 0 is compared on differences. */
enum metric_scale { METRIC_LOG_RATIO = 0, METRIC_DIFFERENCE };

struct metric {
    /* "cpu"; its table heading, "CPU %"; its name in a sentence, "CPU"; its unit after a
     * name, " % of one core" (NULL: a health key's, from the type its lines had). A
     * health key's key and label are the profile's. */
    const char *key, *label, *name, *unit;
    enum direction better;
    enum metric_scale scale;
    bool gateable;              /* compare may hold a build to it */
    /* Gated when no primary keys are named (run --primary, compare --primary, the
     * profile's metrics.primary); otherwise only when named. */
    bool primary_by_default;
    bool must_be_zero;          /* guardrail: any non-zero window regresses */
    long health;                /* its index in the profile's health keys, -1: none */
    const char *state;          /* an idle state's share: the state's name; else NULL */
    /* The figure of a completed run, NaN when the run has none. */
    double (*read)(const struct campaign *c, const struct run_record *r, const struct metric *m);
};

/* p's registry from its health keys: CPU, each health key, the wake rate. */
void metric_registry_build(struct campaign_profile *p);
/* The metric of key `key` in metrics[0..n), NULL when there is none. */
const struct metric *metric_find(const struct metric *metrics, size_t n, const char *key);
/* The metric of key `key` in c's registry, NULL when c has none. */
const struct metric *campaign_metric(const struct campaign *c, const char *key);
/* Every key of a comma-separated list (NULL: none) names CPU ("cpu") or a health key of
 * the campaign; -1 with err naming the option and the first key that does not. */
int campaign_check_keys(const struct campaign *c, const char *list, const char *option,
                        struct lb_error *err);
/* The idle-state metrics of c's runs (metric.c) added to its registry: idle entries per
 * second and each state's share of the window, over the CPUs each target owned (pinned,
 * and not swapping CPUs inside the window); none when no run has them. */
void campaign_metrics_add_idle(struct campaign *c);
/* The package's mean watts (runs[].energy, metric.c) added to c's registry as
 * package_watts, gateable; none when no run recorded energy. */
void campaign_metrics_add_energy(struct campaign *c);
/* Why c has no idle-state metrics, one phrase ("the host has no cpuidle driver"); NULL
 * when it has. */
const char *campaign_idle_missing(const struct campaign *c);

/* The unit after the metric's name: " % of one core", a health key's " ms", "%" or "". */
const char *metric_unit(const struct campaign *c, const struct metric *m);
/* The metric's figure of run r of campaign c. */
double metric_read(const struct campaign *c, const struct run_record *r, const struct metric *m);

/* The metric's values over cell x's completed runs into out[] (room for n_runs).
 * Returns how many. */
size_t campaign_cell_values(const struct campaign *c, struct cell x, const struct metric *m,
                            double *out);
/* The same of setting si (of the first variant, when there are some). */
size_t campaign_values(const struct campaign *c, size_t si, const struct metric *m, double *out);
/* Interleaved (and random-order) campaigns run every cell once per round: pair cell
 * xa's and xb's completed runs of the same round into a[] and b[] (room for n_runs
 * each). Returns the pairs; 0 for grouped campaigns, where rounds do not exist. */
size_t campaign_cell_pairs(const struct campaign *c, struct cell xa, struct cell xb,
                           const struct metric *m, double *a, double *b);
/* The same, with the CPUs each run of a pair was pinned to (run_record.cpus, borrowed,
 * NULL when not pinned; "rotated" for a run that rotated its CPU sets inside the window)
 * into cpus_a[] and cpus_b[]. */
size_t campaign_cell_pairs_cpus(const struct campaign *c, struct cell xa, struct cell xb,
                                const struct metric *m, double *a, double *b,
                                const char **cpus_a, const char **cpus_b);
/* The same of settings sa and sb (of the first variant, when there are some). */
size_t campaign_pairs(const struct campaign *c, size_t sa, size_t sb, const struct metric *m,
                      double *a, double *b);

#endif
