/* stats.c: descriptive statistics over runs, and the tests comparing two settings.
 *
 * Descriptive values were worked out by hand and cross-checked with Python's statistics
 * module (statistics.stdev). Test p-values are independent of stats.c's code: neither R
 * nor SciPy is available where these were written, so a Python standard-library script
 * computed them -- the t distribution's two-sided p by adaptive Simpson integration of
 * its density (math.lgamma), exact Mann-Whitney p by enumerating every split of the
 * ranks (itertools.combinations), the normal approximation with statistics.NormalDist --
 * and the t table values are the published 0.05 critical values. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats.h"
#include "testlib.h"

START_TEST(odd_count)
{
    const double x[] = {10.50, 10.42, 10.47};
    struct stats_summary s;
    stats_summarize(x, 3, &s);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_double_eq_tol(s.median, 10.47, 1e-12);
    ck_assert_double_eq_tol(s.min, 10.42, 1e-12);
    ck_assert_double_eq_tol(s.max, 10.50, 1e-12);
    ck_assert_double_eq_tol(s.mean, 10.463333333333333, 1e-12);
    ck_assert_double_eq_tol(s.sd, 0.04041451884327, 1e-12); /* stdev([10.5, 10.42, 10.47]) */
    ck_assert_double_eq_tol(s.mad, 0.03, 1e-12);
}
END_TEST

START_TEST(even_count_and_order_kept)
{
    const double x[] = {4, 1, 3, 2};
    struct stats_summary s;
    stats_summarize(x, 4, &s);
    ck_assert_double_eq_tol(s.median, 2.5, 1e-12);
    ck_assert_double_eq_tol(s.sd, 1.2909944487358056, 1e-12); /* stdev([1, 2, 3, 4]) */
    ck_assert_double_eq_tol(s.mad, 1.0, 1e-12);
    ck_assert_double_eq(x[0], 4); /* the input is not sorted in place */
}
END_TEST

START_TEST(nan_skipped_and_empty)
{
    const double x[] = {NAN, 5, NAN};
    struct stats_summary s;
    stats_summarize(x, 3, &s);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_double_eq(s.median, 5);
    ck_assert_double_eq(s.sd, 0);
    stats_summarize(x, 0, &s);
    ck_assert_uint_eq(s.n, 0);
    ck_assert(isnan(s.median));
    ck_assert(isnan(stats_median(x, 0)));
}
END_TEST

START_TEST(incomplete_beta_and_t)
{
    /* I_0.5(2, 3) = 11/16 from the binomial sum; I_x(1, 1) = x */
    ck_assert_double_eq_tol(stats_betainc(2, 3, 0.5), 0.6875, 1e-12);
    ck_assert_double_eq_tol(stats_betainc(1, 1, 0.3), 0.3, 1e-12);
    /* published two-sided 5% critical values of t: df 1, 4, 10 */
    ck_assert_double_eq_tol(2 * stats_t_cdf(-12.70620474, 1), 0.05, 1e-8);
    ck_assert_double_eq_tol(2 * stats_t_cdf(-2.776445105, 4), 0.05, 1e-8);
    ck_assert_double_eq_tol(2 * stats_t_cdf(-2.228138852, 10), 0.05, 1e-8);
    /* fractional df (as Welch gives): integration gives 0.213598169202014 */
    ck_assert_double_eq_tol(2 * stats_t_cdf(-1.5, 3.7), 0.213598169202014, 1e-10);
    ck_assert_double_eq_tol(stats_t_cdf(0, 5), 0.5, 1e-15);
    ck_assert_double_eq_tol(stats_t_quantile(0.975, 4), 2.776445105, 1e-8);
    ck_assert_double_eq_tol(stats_t_quantile(0.025, 10), -2.228138852, 1e-8);
}
END_TEST

/* Against mpmath (30 digits): digamma and polygamma(1, x). */
START_TEST(digamma_and_trigamma)
{
    static const struct {
        double x, digamma, trigamma;
    } v[] = {
        {0.5, -1.963510026021423479, 4.934802200544679309},
        {1, -0.577215664901532861, 1.644934066848226436},
        {2.5, 0.703156640645243187, 0.490357756100234865},
        {10, 2.251752589066721108, 0.105166335681685746},
    };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        ck_assert_double_eq_tol(stats_digamma(v[i].x), v[i].digamma, 1e-12);
        ck_assert_double_eq_tol(stats_trigamma(v[i].x), v[i].trigamma, 1e-12);
        ck_assert_double_eq_tol(stats_trigamma_inverse(v[i].trigamma), v[i].x, 1e-9 * v[i].x);
    }
    ck_assert(isnan(stats_trigamma_inverse(0)));
}
END_TEST

START_TEST(welch_log_values)
{
    /* a campaign's shape: ~98% of a core against ~9%; integration: t = -145.720801966568,
     * df = 2.32411251693706, p = 1.17656703214619e-05 */
    const double a[] = {98.1, 97.5, 99.0}, b[] = {9.3, 9.1, 9.6};
    struct stats_test t;
    stats_welch_log(a, 3, b, 3, &t);
    ck_assert(t.enough);
    ck_assert_double_eq_tol(t.statistic, -145.720801966568, 1e-9);
    ck_assert_double_eq_tol(t.df, 2.32411251693706, 1e-11);
    ck_assert_double_eq_tol(t.p, 1.17656703214619e-05, 1e-14);
    /* unequal sizes, no real difference: t = 1.14070728190249, df = 3.94410556082003,
     * p = 0.318486522134889 */
    const double c[] = {20.1, 22.3, 19.8}, d[] = {21.0, 23.5, 20.9, 22.0};
    stats_welch_log(c, 3, d, 4, &t);
    ck_assert_double_eq_tol(t.statistic, 1.14070728190249, 1e-11);
    ck_assert_double_eq_tol(t.df, 3.94410556082003, 1e-11);
    ck_assert_double_eq_tol(t.p, 0.318486522134889, 1e-10);
}
END_TEST

START_TEST(welch_on_values)
{
    /* metrics that can be 0 are tested on their values: integration gives
     * t = 1.8516401995451, df = 4.74193548387097, p = 0.126453059404995 */
    const double a[] = {0, 1, 2}, b[] = {1, 2, 4, 5};
    struct stats_test t;
    stats_welch(a, 3, b, 4, &t);
    ck_assert(t.enough);
    ck_assert_double_eq_tol(t.statistic, 1.8516401995451, 1e-12);
    ck_assert_double_eq_tol(t.df, 4.74193548387097, 1e-12);
    ck_assert_double_eq_tol(t.p, 0.126453059404995, 1e-10);
}
END_TEST

START_TEST(welch_too_few_and_degenerate)
{
    const double one[] = {5.0}, two[] = {5.0, 5.0}, other[] = {7.0, 7.0}, zero[] = {0, -1, NAN};
    struct stats_test t;
    stats_welch_log(one, 1, two, 2, &t);
    ck_assert(!t.enough);
    ck_assert(isnan(t.p));
    stats_welch_log(zero, 3, two, 2, &t); /* no positive value: no logarithm */
    ck_assert(!t.enough);
    stats_welch_log(two, 2, two, 2, &t); /* identical runs: no difference, p = 1 */
    ck_assert(t.enough);
    ck_assert_double_eq(t.p, 1.0);
    stats_welch_log(two, 2, other, 2, &t); /* zero spread, different: certain */
    ck_assert_double_eq(t.p, 0.0);
}
END_TEST

START_TEST(mann_whitney_exact)
{
    /* enumeration of the 70 splits of 8 ranks: complete separation, p = 2/70 */
    const double a[] = {1.1, 2.2, 3.3, 4.4}, b[] = {5.5, 6.6, 7.7, 8.8};
    struct stats_test t;
    stats_mann_whitney(a, 4, b, 4, &t);
    ck_assert(t.enough && t.exact);
    ck_assert_double_eq(t.statistic, 0);
    ck_assert_double_eq_tol(t.p, 0.02857142857142857, 1e-15);
    /* enumeration of 462 splits: U = 10, p = 0.42857142857142855 */
    const double c[] = {1, 3, 5, 7, 9}, d[] = {2, 4, 6, 8, 10, 12};
    stats_mann_whitney(c, 5, d, 6, &t);
    ck_assert_double_eq(t.statistic, 10);
    ck_assert_double_eq_tol(t.p, 0.42857142857142855, 1e-15);
    /* unsorted input, 126 splits: U = 8, p = 0.7301587301587301 */
    const double e[] = {4.1, 6.3, 2.2, 9.8}, f[] = {5.0, 7.7, 8.1, 3.3, 6.9};
    stats_mann_whitney(e, 4, f, 5, &t);
    ck_assert_double_eq(t.statistic, 8);
    ck_assert_double_eq_tol(t.p, 0.7301587301587301, 1e-15);
}
END_TEST

START_TEST(mann_whitney_ties_and_too_few)
{
    /* ties: normal approximation with tie and continuity correction, U = 9.5,
     * p = 0.11155930545078219 (statistics.NormalDist) */
    const double a[] = {1, 2, 2, 3, 4, 5}, b[] = {2, 3, 3, 5, 6, 7, 8};
    struct stats_test t;
    stats_mann_whitney(a, 6, b, 7, &t);
    ck_assert(t.enough && !t.exact);
    ck_assert_double_eq(t.statistic, 9.5);
    ck_assert_double_eq_tol(t.p, 0.11155930545078219, 1e-12);
    /* 3 vs 3 can never reach p < 0.1: refused */
    stats_mann_whitney(a, 3, b, 3, &t);
    ck_assert(!t.enough);
    ck_assert(isnan(t.p));
}
END_TEST

START_TEST(ratio_bootstrap_reproducible)
{
    const double a[] = {98.1, 97.5, 99.0}, b[] = {9.3, 9.1, 9.6};
    struct stats_ratio r1, r2, r3;
    stats_ratio_ci(a, 3, b, 3, 0.95, STATS_BOOTSTRAP_ITERATIONS, 42, &r1);
    stats_ratio_ci(a, 3, b, 3, 0.95, STATS_BOOTSTRAP_ITERATIONS, 42, &r2);
    ck_assert_double_eq_tol(r1.ratio, 9.3 / 98.1, 1e-15);
    ck_assert_double_eq(r1.lo, r2.lo); /* same seed, same interval */
    ck_assert_double_eq(r1.hi, r2.hi);
    /* a resampled median is one of the values (n = 3), so the bounds lie within the
     * extreme ratios */
    ck_assert(r1.lo >= 9.1 / 99.0 - 1e-15 && r1.lo <= r1.ratio);
    ck_assert(r1.hi <= 9.6 / 97.5 + 1e-15 && r1.hi >= r1.ratio);
    const double same[] = {4, 4, 4};
    stats_ratio_ci(same, 3, same, 3, 0.95, 1000, 1, &r3);
    ck_assert_double_eq(r3.lo, 1.0);
    ck_assert_double_eq(r3.hi, 1.0);
    stats_ratio_ci(same, 0, same, 3, 0.95, 1000, 1, &r3);
    ck_assert(isnan(r3.ratio) && isnan(r3.lo));
}
END_TEST

START_TEST(intervals_of_the_test)
{
    /* Welch on logs of the campaign shape above: exp(diff -+ t(0.975, df) se) */
    const double a[] = {100, 98, 99}, b[] = {10, 9.8, 9.9};
    struct stats_test t;
    struct stats_ratio r;
    stats_welch_log(a, 3, b, 3, &t);
    stats_t_ratio(&t, 0.95, &r);
    double half = stats_t_quantile(0.975, t.df) * t.se;
    ck_assert_double_eq_tol(r.ratio, exp(t.diff), 1e-12);
    ck_assert_double_eq_tol(r.lo, exp(t.diff - half), 1e-12);
    ck_assert_double_eq_tol(r.hi, exp(t.diff + half), 1e-12);
    ck_assert(r.hi < 1); /* p < 0.05: the interval excludes 1 */
    struct stats_test none = {.enough = false};
    stats_t_ratio(&none, 0.95, &r);
    ck_assert(isnan(r.lo));
    /* 2 / C(6, 3) and 2 / C(8, 4): what Mann-Whitney can say at best at 3 and 4 a side */
    ck_assert_double_eq_tol(stats_mann_whitney_min_p(3, 3), 0.1, 1e-12);
    ck_assert_double_eq_tol(stats_mann_whitney_min_p(4, 4), 2.0 / 70, 1e-12);
}
END_TEST

START_TEST(paired_rounds)
{
    /* per-round log ratios, one-sample t: t = -5.26629613830514, df 3,
     * p = 0.0133434881163828, geometric mean ratio 0.941815726705542 */
    const double a[] = {50, 52, 49, 55}, b[] = {46, 50, 47, 51};
    struct stats_paired p;
    stats_paired_log(a, b, 4, 0.95, &p);
    ck_assert_uint_eq(p.pairs, 4);
    ck_assert(p.test.enough);
    ck_assert_double_eq_tol(p.test.statistic, -5.26629613830514, 1e-10);
    ck_assert_double_eq_tol(p.test.p, 0.0133434881163828, 1e-12);
    ck_assert_double_eq_tol(p.ratio, 0.941815726705542, 1e-12);
    ck_assert(p.lo < p.ratio && p.ratio < p.hi && p.hi < 1.0); /* significant at 5% */
    stats_paired_log(a, b, 1, 0.95, &p);
    ck_assert(!p.test.enough);
    ck_assert(isnan(p.ratio));
}
END_TEST

/* The power of a one-sided t test against the df = 2 closed form: with se 1 and s^2 on 2
 * df exponential, P(d > max(f, t s)) = int over z > max(-d, f - d) of phi(z) (1 -
 * exp(-(z + d)^2 / t^2)), integrated apart (Simpson, 200000 steps); t = 2.919986 is the
 * 95% point of t on 2 df, 6.964557 the 99% one. */
START_TEST(power_and_detectable)
{
    const double t95 = 2.9199855803537242, t99 = 6.9645567342832715;
    ck_assert_double_eq_tol(stats_t_power(0, 1, 2, t95, -INFINITY), 0.05, 1e-7);
    ck_assert_double_eq_tol(stats_t_power(3, 1, 2, t95, -INFINITY), 0.6172221444721081, 1e-6);
    ck_assert_double_eq_tol(stats_t_power(5, 1, 2, t95, -INFINITY), 0.9162869089138265, 1e-6);
    ck_assert_double_eq_tol(stats_t_power(4, 1, 2, t99, -INFINITY), 0.28609301183800234, 1e-6);
    /* a threshold the estimate must pass too */
    ck_assert_double_eq_tol(stats_t_power(2, 1, 2, t95, 1.0), 0.3769357181810922, 1e-6);
    /* scale-free: se 0.1 and a shift of 0.3 is the shift 3 at se 1 */
    ck_assert_double_eq_tol(stats_t_power(0.3, 0.1, 2, t95, -INFINITY), 0.6172221444721081,
                            1e-6);
    /* at no shift, any df: the t's own tail */
    ck_assert_double_eq_tol(stats_t_power(0, 1, 9, 1.833113, -INFINITY),
                            1.0 - stats_t_cdf(1.833113, 9), 1e-7);
    /* a known spread: the normal */
    ck_assert_double_eq_tol(stats_t_power(2.5, 1, INFINITY, 1.644854, -INFINITY),
                            0.5 * erfc((1.644854 - 2.5) / sqrt(2.0)), 1e-12);
    ck_assert(isnan(stats_t_power(1, 0, 2, t95, -INFINITY)));
    ck_assert(isnan(stats_t_power(1, 1, 0, t95, -INFINITY)));
    /* the shift called 80% of the time, solved apart on the closed form */
    ck_assert_double_eq_tol(stats_t_detectable(1, 2, 0.05, 0.8, -INFINITY), 3.9789966159187085,
                            1e-5);
    ck_assert_double_eq_tol(stats_t_detectable(1, 2, 0.05, 0.8, 3.0), 4.3296507159180795, 1e-5);
    ck_assert_double_eq_tol(stats_t_detectable(0.5, 2, 0.05, 0.8, -INFINITY),
                            0.5 * 3.9789966159187085, 1e-5);
    /* more rounds, less missed */
    ck_assert(stats_t_detectable(1, 9, 0.05, 0.8, -INFINITY) <
              stats_t_detectable(1, 2, 0.05, 0.8, -INFINITY));
    /* a power the level already gives needs no shift */
    ck_assert_double_eq(stats_t_detectable(1, 2, 0.05, 0.04, -INFINITY), 0);
    ck_assert(isnan(stats_t_detectable(0, 2, 0.05, 0.8, -INFINITY)));
    ck_assert(isnan(stats_t_detectable(1, 2, 0, 0.8, -INFINITY)));
    ck_assert(isnan(stats_t_detectable(1, 2, 0.05, 1, -INFINITY)));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, odd_count);
    tcase_add_test(tc, even_count_and_order_kept);
    tcase_add_test(tc, nan_skipped_and_empty);
    tcase_add_test(tc, incomplete_beta_and_t);
    tcase_add_test(tc, digamma_and_trigamma);
    tcase_add_test(tc, welch_log_values);
    tcase_add_test(tc, welch_on_values);
    tcase_add_test(tc, welch_too_few_and_degenerate);
    tcase_add_test(tc, mann_whitney_exact);
    tcase_add_test(tc, mann_whitney_ties_and_too_few);
    tcase_add_test(tc, ratio_bootstrap_reproducible);
    tcase_add_test(tc, intervals_of_the_test);
    tcase_add_test(tc, paired_rounds);
    tcase_add_test(tc, power_and_detectable);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
