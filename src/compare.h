/* Two sets of runs of one metric compared, and the CI regression verdict built on that
 * (loopbench compare). report.c uses the same comparison for its headline. */
#ifndef LOOPBENCH_COMPARE_H
#define LOOPBENCH_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "msg.h"
#include "campaign.h"
#include "stats.h"

/* Everything known about b against a for one metric. */
struct metric_diff {
    struct stats_summary a, b;
    struct stats_ratio ratio;   /* median(b) / median(a), bootstrap CI */
    struct stats_test welch;    /* on logs; not enough when a value is 0 */
    struct stats_test mwu;      /* from STATS_MWU_MIN runs a side */
    struct stats_paired paired; /* pairs == 0 unless the runs share rounds */
    bool log_scale;             /* compared on logarithms (all values > 0) */
    double p;                   /* the deciding p: paired, else Welch, else Mann-Whitney; NaN: too few runs */
    const char *test;           /* which one ("paired t on log ratios", ...), NULL with p NaN */
};

/* Compare a[0..na) with b[0..nb); pa/pb[0..npairs) are the same runs paired by round
 * (npairs 0 if none). */
void compare_metric(const double *a, size_t na, const double *b, size_t nb, const double *pa,
                    const double *pb, size_t npairs, double level, struct metric_diff *out);

enum verdict { VERDICT_NO_CHANGE, VERDICT_IMPROVED, VERDICT_REGRESSED, VERDICT_INCONCLUSIVE };
const char *verdict_name(enum verdict v);

struct compare_opts {
    const char *metric;       /* only this key ("cpu" or a health key); NULL: all */
    double max_increase;      /* practical threshold, a fraction: 0.10 */
    double alpha;             /* 0.05 */
};

/* One setting x metric. */
struct compare_row {
    const char *setting, *metric, *label; /* borrowed */
    bool lower_is_better;
    bool guardrail_hit;       /* must_be_zero key non-zero in a window of NEW */
    struct metric_diff d;
    enum verdict verdict;
    double detectable;        /* smallest change (fraction) detectable at alpha, NaN if unknown */
    long runs_needed;         /* runs per side to detect max_increase, 0 if unknown */
};

struct compare_result {
    struct compare_row *rows;
    size_t n_rows;
    enum verdict worst;       /* regressed > inconclusive > improved > no change */
};

/* Whether two campaigns can be compared: the same profile (by name), the same knob
 * and at least one setting in common; -1 with err saying which differs. */
int compare_compatible(const struct campaign *a, const struct campaign *b,
                       struct lb_error *err);

/* Check that base and new are comparable (same profile name and knob), then compare
 * each setting present in both. -1 with err when incompatible. */
int compare_results(const struct campaign *base, const struct campaign *new_,
                    const struct compare_opts *o, struct compare_result *out,
                    struct lb_error *err);
void compare_result_release(struct compare_result *r);

/* The verdict table as GitHub-flavoured Markdown with a chart of CPU per setting, base
 * beside new (-1 with err when the chart cannot be drawn), and as JSON (new reference). */
int compare_markdown(const struct compare_result *r, const struct compare_opts *o,
                     const struct campaign *base, const struct campaign *new_, FILE *out,
                     struct lb_error *err);
json_t *compare_json(const struct compare_result *r, const struct compare_opts *o);

/* A figure with three significant digits ("0.872", "99.5", "1234"), "-" for NaN, into
 * buf; returns buf. */
const char *compare_fmt(double v, char *buf, size_t len);

#endif
