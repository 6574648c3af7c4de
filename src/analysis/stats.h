/* Descriptive statistics over the few runs a server campaign affords, and the tests
 * that say whether two settings differ. */
#ifndef LOOPBENCH_STATS_H
#define LOOPBENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats_summary {
    size_t n;
    double median, min, max, mean, sd; /* sd: sample standard deviation (n-1), 0 if n < 2 */
    double mad;                        /* median absolute deviation (unscaled) */
};

/* Summarise x[0..n) (NaN values are skipped; all NaN or n == 0 gives n = 0 and NaN
 * figures). x is not modified. */
void stats_summarize(const double *x, size_t n, struct stats_summary *out);

/* Median of x[0..n) (NaN skipped); NaN when empty. */
double stats_median(const double *x, size_t n);

/* ---- comparing two settings ------------------------------------------------------- */

/* The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double stats_betainc(double a, double b, double x);
/* Student's t distribution with df degrees of freedom (df > 0): P(T <= t). */
double stats_t_cdf(double t, double df);
/* P(Z <= z) for a standard normal Z. */
double stats_normal_cdf(double z);
/* The t such that P(T <= t) = p, 0 < p < 1. */
double stats_t_quantile(double p, double df);

/* The digamma and trigamma functions (derivatives of log Gamma), x > 0, and the x > 0
 * with trigamma(x) = y, y > 0: what an empirical-Bayes prior on variances is fitted
 * with (Smyth 2004). */
double stats_digamma(double x);
double stats_trigamma(double x);
double stats_trigamma_inverse(double y);

/* A two-sided test's outcome. When `enough` is false the samples were too few for
 * the test to mean anything and the other fields are NaN: say so, print no p. */
struct stats_test {
    bool enough;
    bool exact;       /* Mann-Whitney: exact distribution (else normal approximation) */
    double statistic; /* Welch: t of log(b) - log(a); Mann-Whitney: U of sample a */
    double df;        /* Welch: Welch-Satterthwaite degrees of freedom */
    double p;         /* two-sided */
    double diff;      /* Welch: mean log(b) - mean log(a), exp() of it is the ratio */
    double se;        /* Welch: its standard error */
};

/* Welch's t-test on the logarithms of a[0..na) and b[0..nb) (CPU is a ratio scale, so
 * log makes a ratio a shift). Values that are NaN or not > 0 are skipped; each side
 * needs 2 values. */
void stats_welch_log(const double *a, size_t na, const double *b, size_t nb,
                     struct stats_test *out);
/* The same on the values themselves (NaN skipped), for metrics that can be 0. */
void stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_test *out);

/* Two-sided Mann-Whitney U test. Needs at least STATS_MWU_MIN values on each side:
 * with 3 vs 3 the smallest possible p is 0.1, so below that it could never decide.
 * Exact when there are no ties and both sides are under 50 values (as R's
 * wilcox.test); otherwise the normal approximation with tie and continuity
 * correction. */
#define STATS_MWU_MIN 4
void stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                        struct stats_test *out);
/* The smallest two-sided p Mann-Whitney can give with m and n values without ties:
 * 2 / C(m + n, m). 0.1 at 3 a side, 0.029 at 4: below it no difference can be called,
 * however large. */
double stats_mann_whitney_min_p(size_t m, size_t n);

/* splitmix64: a small generator whose whole state is the seed *s, so a bootstrap (and
 * the calibration benchmark's draws) is reproducible from the seed alone on every
 * platform (rand() is not). Returns the next 64 random bits. */
uint64_t stats_random(uint64_t *s);

/* Ratio median(b) / median(a) with a percentile bootstrap confidence interval at
 * `level` (e.g. 0.95): `iterations` resamples of each side with replacement, drawn
 * from a generator seeded with `seed`, so the same input always gives the same
 * interval. NaN figures when a side is empty or a median is 0. */
struct stats_ratio {
    double ratio, lo, hi;
};
#define STATS_BOOTSTRAP_ITERATIONS 10000
#define STATS_BOOTSTRAP_SEED 20261202u
void stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level,
                    unsigned iterations, uint64_t seed, struct stats_ratio *out);

/* Paired analysis of interleaved campaigns: pairs (a[i], b[i]) measured in the same
 * round, so drift of the host between rounds cancels in b[i] / a[i]. A one-sample t
 * test of the log ratios against 0 (needs 2 complete pairs; pairs with a NaN or
 * non-positive value are skipped); ratio is their geometric mean, lo-hi its
 * confidence interval at `level`. */
struct stats_paired {
    struct stats_test test; /* df = pairs - 1 */
    size_t pairs;
    double ratio, lo, hi;
};
void stats_paired_log(const double *a, const double *b, size_t n, double level,
                      struct stats_paired *out);

/* The ratio exp(diff) of a t test on logs (Welch's or the paired one) and its interval
 * at `level`, exp(diff -+ t se): the interval of the same test as its p, so it excludes
 * 1 exactly when p < 1 - level. NaN figures when the test did not run. */
void stats_t_ratio(const struct stats_test *t, double level, struct stats_ratio *out);

/* ---- what a test could have missed ------------------------------------------------ */

/* The chance that a one-sided t test calls a shift toward harm: P(d > max(floor, t_crit
 * se^)), where the estimate d is normal around `shift` with standard error se, and se^ is
 * se estimated on df degrees of freedom (independent of d; INFINITY: se known). floor is a
 * practical threshold the estimate must pass too (the gate's 10%), -INFINITY for none.
 * Exact for normal data (an integral over the chi-square of the spread): at shift 0 and
 * no floor it is 1 - stats_t_cdf(t_crit, df). NaN when se is not > 0 or df not > 0. */
double stats_t_power(double shift, double se, double df, double t_crit, double floor);

/* The smallest shift such a test, at one-sided level alpha (the nominal p a call must
 * reach), calls with probability `power` (0.8: "could have missed changes under this"):
 * the stated power of a verdict, at its measured spread and rounds. On the scale tested
 * (a log ratio, or a difference); 0 when even no shift is called that often; NaN when se
 * is not > 0, df not > 0, or alpha or power not in (0, 1). */
double stats_t_detectable(double se, double df, double alpha, double power, double floor);

#endif
