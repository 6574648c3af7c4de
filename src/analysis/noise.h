/* Was the host quiet while a campaign measured? Noise warnings for results.json and the
 * report, from what every run recorded: the load before the campaign, steal and other
 * processes' CPU in each window, runs whose CPU stands out from their setting's, and runs
 * that saturated their CPUs (a duet's targets together wanting more than the host has). */
#ifndef LOOPBENCH_NOISE_H
#define LOOPBENCH_NOISE_H

#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"
#include "util.h"

/* Steal above this share of the host's CPU time makes a window noisy. */
#define NOISE_STEAL_PERCENT 1.0
/* Other processes using more than this much of one core, likewise. */
#define NOISE_OTHERS_PERCENT 10.0
/* A run further than this many median absolute deviations from its setting's median CPU
 * is an outlier (as hyperfine warns); needs NOISE_OUTLIER_MIN_RUNS runs to mean anything. */
#define NOISE_OUTLIER_MADS 3.0
/* ... and by more than this share of the median: a spinning target's runs agree to a
 * hundredth of a percent, so a tiny MAD made 100% an outlier from a median of 100%; a
 * run within 1% of the others misleads no comparison. */
#define NOISE_OUTLIER_MIN_SHARE 0.01
#define NOISE_OUTLIER_MIN_RUNS 3

/* A run is saturated when its target used this share of its CPUs' capacity (100% per
 * CPU of its set: it wanted more than they gave), or when its CPUs were busy for at least
 * NOISE_BUSY_PERCENT of the window and the targets' own time and loopbench's was at least
 * NOISE_OURS_PERCENT of it: no idle time left, a duet's targets contended for the CPUs
 * and the figures measured that contention. CPUs that other processes filled while the
 * targets slept are the host's noise (NOISE_OTHERS_PERCENT), not the duet's doing: an
 * idle pair on a loaded host is not saturated. */
#define NOISE_CAPACITY_PERCENT 90.0
#define NOISE_BUSY_PERCENT 95.0
#define NOISE_OURS_PERCENT 25.0

/* Per-run flags, parallel to campaign.runs. */
struct noise_run {
    bool steal;
    bool others;
    bool outlier;
    char *saturated; /* why, one line; NULL: it was not (or not measured) */
};

struct noise {
    struct strv warnings;   /* one line each, for the report and results.json */
    struct noise_run *runs; /* c->n_runs entries */
    size_t n_runs;
};

/* Why run r of c was saturated (a new string), NULL when it was not. */
char *noise_saturated(const struct campaign *c, const struct run_record *r);
/* Of the runs of c at setting value: "N of M runs saturated (the first: WHY)" (a new
 * string), NULL when none was or c has no such setting. */
char *noise_setting_saturated(const struct campaign *c, const char *value);

/* Assess c (its sampled runs) into n; release with noise_release. */
void noise_assess(const struct campaign *c, struct noise *n);
void noise_release(struct noise *n);

#endif
