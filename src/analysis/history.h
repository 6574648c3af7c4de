/* Change points over a kept history of campaigns (loopbench history): for each setting x
 * metric (x variant against the base, in campaigns of variants) the series of the
 * campaigns' estimates, cut into environment epochs where the host's fingerprint changes,
 * and the change points of each epoch (src/analysis/changepoint.c); its views are
 * src/output/history_view.c. */
#ifndef LOOPBENCH_HISTORY_H
#define LOOPBENCH_HISTORY_H

#include <stdbool.h>

#include "campaign.h"
#include "changepoint.h"
#include "msg.h"

struct history_opts {
    const char *metric;   /* only this key ("cpu" or a health key); NULL: all */
    double max_p;         /* the chance a history without change shows one, over all its
                           * series (each tested at max_p / series: Bonferroni) */
    double min_magnitude; /* relative step under which there is no change point */
    size_t min_segment;   /* fewest campaigns in a segment */
    size_t recent;        /* the newest campaigns tested apart (cp_opts.recent), 0: not */
};
#define HISTORY_MAX_P 0.05
#define HISTORY_MIN_MAGNITUDE 0.05
#define HISTORY_MIN_SEGMENT 3
#define HISTORY_RECENT 10

/* One campaign's estimate in a series: of a knob-only campaign, the setting's mean (of
 * log CPU; of a health key's values); of a campaign of variants, the mean log ratio of the
 * variant to the base, paired by round where the runs share rounds. */
struct history_point {
    size_t campaign;     /* index into history.campaigns */
    double estimate, se; /* se: of the campaign's own runs (the change points use the
                          * scatter between campaigns, which drift dominates) */
    double segment_mean; /* of the segment it falls in */
};

struct history_change {
    struct cp_point cp;      /* cp.start: index into the series' points */
    size_t campaign;         /* the first campaign of the new segment */
    const char *environment; /* the fingerprint's field that changed there ("kernel"),
                              * NULL for a change of the target's own */
    bool worse;              /* the step is a change for the worse */
};

struct history_series {
    const char *setting, *metric, *variant; /* borrowed; variant NULL without variants */
    const char *label;                      /* the metric's label */
    bool log_scale, lower_is_better;
    struct history_point *points;
    size_t n;
    struct history_change *changes;
    size_t n_changes;
    bool fails; /* its newest segment opens at a change for the worse of its own */
};

struct history {
    const struct campaign *const *campaigns; /* borrowed, by start time */
    size_t n_campaigns;
    /* per campaign: the fingerprint's field that differs from the campaign before, NULL
     * when the same (and for the first) */
    const char **environment;
    struct history_series *series;
    size_t n_series;
    size_t tested; /* series long enough to split: max_p is shared among them */
    bool fails;
};

/* Whether series s is long enough to be tested at all: twice the fewest campaigns of a
 * segment. */
bool history_series_tested(const struct history_series *s, const struct history_opts *o);

/* The history of campaigns[0..n) (sorted here by start time, in place): -1 with err when
 * one is incompatible with the newest (compare_compatible) or --metric names no key. */
int history_build(const struct campaign **campaigns, size_t n, const struct history_opts *o,
                  struct history *out, struct lb_error *err);
void history_release(struct history *h);

#endif
