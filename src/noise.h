/* Was the host quiet while a campaign measured? Noise warnings for results.json and the
 * report, from what every run recorded: the load before the campaign, steal and other
 * processes' CPU in each window, and runs whose CPU stands out from their setting's. */
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
#define NOISE_OUTLIER_MIN_RUNS 3

/* Per-run flags, parallel to campaign.runs. */
struct noise_run {
    bool steal;
    bool others;
    bool outlier;
};

struct noise {
    struct strv warnings;   /* one line each, for the report and results.json */
    struct noise_run *runs; /* c->n_runs entries */
};

/* Assess c (its sampled runs) into n; release with noise_release. */
void noise_assess(const struct campaign *c, struct noise *n);
void noise_release(struct noise *n);

#endif
