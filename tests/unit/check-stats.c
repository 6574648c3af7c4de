/* stats.c: descriptive statistics over runs. Expected values worked out by hand and
 * cross-checked with Python's statistics module (statistics.stdev). */
#include <check.h>
#include <math.h>
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

int main(void)
{
    Suite *s = suite_create("stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, odd_count);
    tcase_add_test(tc, even_count_and_order_kept);
    tcase_add_test(tc, nan_skipped_and_empty);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
