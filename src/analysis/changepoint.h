/* Change points in a short series of campaign estimates (loopbench history): binary
 * segmentation (Scott & Knott 1974; Vostrikova 1981) in which each segment is split where
 * the two-sample t of its left and right means is largest in magnitude, when that largest
 * |t| is significant by a permutation test. The permutation gives the maximum over the
 * candidate splits its exact null distribution for exchangeable values (Antoch & Huskova
 * 2001), so a history with no change shows one with probability max_p whatever the shape
 * of its noise, spikes included; E-Divisive means (Matteson & James 2014), which Hunter
 * uses (Fleming et al., ICPE 2023), tests the same way with a distance statistic instead of
 * t. Each segment is winsorized before it is tested (values beyond CP_WINSOR robust
 * standard deviations of its median held at that bound), so that one disturbed campaign
 * does not inflate the spread the t divides by; the steps reported are of the values as
 * they are. Segments shorter than min_segment are never made: a single spike is no segment.
 * Steps smaller than min_magnitude are merged away afterwards, the smallest first. Then,
 * with `recent`, the newest values are tested apart: the splits of the last segment that
 * leave at most `recent` values after them, one-sided toward worse, by the same
 * permutation; weighed against those few splits instead of every split of the history, a
 * step at the end is found sooner. The two tests share max_p (Bonferroni).
 * Calibrated in tests/bench/calibrate.c (mode history); docs/report.md has the figures. */
#ifndef LOOPBENCH_CHANGEPOINT_H
#define LOOPBENCH_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cp_opts {
    double max_p;         /* a split is made when its permutation p is at most this */
    double min_magnitude; /* relative step (see log_scale) under which a split is undone */
    size_t min_segment;   /* fewest values in a segment, at least 2 */
    bool log_scale;       /* the values are logs: a step d is exp(d) - 1 relative; else
                           * relative to the mean before it */
    size_t recent;        /* the splits leaving at most this many values after them are
                           * tested again on their own at CP_RECENT_SHARE of max_p (the
                           * rest for the segmentation): the newest values, what a nightly
                           * job asks about, are found sooner. 0: not */
    int worse;            /* the recent test's direction: +1 a step up (lower is better),
                           * -1 down, 0 either */
    unsigned permutations;
    uint64_t seed; /* the same series and seed always give the same answer */
};
#define CP_PERMUTATIONS 999
#define CP_RECENT_SHARE 0.5
/* Values beyond this many robust standard deviations of a segment's median are tested as
 * at that bound (Tukey's and Huber's 3 sigma of the normal's bulk). */
#define CP_WINSOR 3.0

/* A boundary: values [start..) begin a new segment. */
struct cp_point {
    size_t start;
    double p;             /* the permutation p of the split that made it */
    double before, after; /* the means of the segments on either side */
    double step, lo, hi;  /* after - before and its 95% interval (Welch, on the values) */
    double relative;      /* the step as a fraction (log_scale: exp(step) - 1) */
};

struct cp_result {
    struct cp_point *points; /* in order of start */
    size_t n;
};

/* The change points of x[0..n) (finite values). */
void cp_detect(const double *x, size_t n, const struct cp_opts *o, struct cp_result *out);
/* The step from x[a..k) to x[k..b) into pt (its p left as it is). */
void cp_step(const double *x, size_t a, size_t k, size_t b, bool log_scale, struct cp_point *pt);
void cp_result_release(struct cp_result *r);

#endif
