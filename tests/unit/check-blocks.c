/* blocks.c: the additive model of settings compared through rounds that run only some.
 *
 * The figures of the incomplete design are ordinary least squares on dummy-coded settings
 * and rounds (the normal equations solved by Gaussian elimination in a Python
 * standard-library script, independent of blocks.c's reduced system and Cholesky). */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "blocks.h"
#include "testlib.h"

#define TOL 1e-9

/* Rounds {0,1,2}, {0,1}, {1,2}, {0,2} and a round of 1 alone (it tells nothing). */
START_TEST(incomplete_design_as_least_squares)
{
    static const size_t s[] = {0, 1, 2, 0, 1, 1, 2, 0, 2, 1};
    static const long r[] = {0, 0, 0, 1, 1, 2, 2, 3, 3, 4};
    static const double y[] = {1.0, 2.1, 2.9, 1.5, 2.4, 2.0, 3.2, 0.7, 2.8, 5.0};
    struct blocks_fit f;
    blocks_fit(s, r, y, 10, 3, &f);
    ck_assert_double_eq_tol(f.df, 3, TOL);
    ck_assert_double_eq_tol(f.sigma2, 0.016, TOL);
    double est, se;
    ck_assert(blocks_contrast(&f, 1, 0, &est, &se));
    ck_assert_double_eq_tol(est, 0.98, TOL);
    ck_assert_double_eq_tol(se, 0.11313708498984765, TOL);
    ck_assert(blocks_contrast(&f, 2, 0, &est, &se));
    ck_assert_double_eq_tol(est, 2.02, TOL);
    ck_assert(blocks_contrast(&f, 2, 1, &est, &se));
    ck_assert_double_eq_tol(est, 1.04, TOL);
    ck_assert_double_eq_tol(se, 0.11313708498984765, TOL);
    ck_assert(blocks_contrast(&f, 1, 1, &est, &se));
    ck_assert_double_eq_tol(est, 0, TOL);
    blocks_release(&f);
}
END_TEST

/* Every setting every round: the paired difference, its spread the two-way residuals',
 * var = 2 sigma^2 / rounds; the rounds' shifts cancel whatever they are. */
START_TEST(complete_design_is_paired)
{
    enum { M = 3, R = 4 };
    size_t s[M * R];
    long r[M * R];
    double y[M * R];
    static const double effect[M] = {0, 0.5, -0.25}, shift[R] = {3, -7, 11, 0.5};
    static const double noise[M * R] = {0.1, -0.2, 0.05, 0,   0.15, -0.1,
                                        0.2, -0.05, 0,  0.1, -0.1, 0.05};
    for (size_t k = 0; k < M * R; k++) {
        s[k] = k % M;
        r[k] = (long)(k / M) * 10; /* any labels */
        y[k] = effect[s[k]] + shift[k / M] + noise[k];
    }
    struct blocks_fit f;
    blocks_fit(s, r, y, M * R, M, &f);
    ck_assert_double_eq_tol(f.df, (M - 1) * (R - 1), TOL);
    double mean = 0, est, se;
    for (size_t b = 0; b < R; b++)
        mean += (y[b * M + 1] - y[b * M]) / R;
    ck_assert(blocks_contrast(&f, 1, 0, &est, &se));
    ck_assert_double_eq_tol(est, mean, TOL);
    ck_assert_double_eq_tol(se, sqrt(f.sigma2 * 2.0 / R), TOL);
    blocks_release(&f);
}
END_TEST

/* Two sets never in a round together, and a setting in no round with another: no
 * contrast across them; nor without a residual degree of freedom. */
START_TEST(unlinked_and_no_spread)
{
    static const size_t s[] = {0, 1, 0, 1, 2, 3, 2, 3, 4};
    static const long r[] = {0, 0, 1, 1, 2, 2, 3, 3, 4};
    static const double y[] = {1, 2, 1.2, 2.1, 5, 6, 5.5, 6.2, 9};
    struct blocks_fit f;
    blocks_fit(s, r, y, 9, 5, &f);
    double est, se;
    ck_assert(blocks_contrast(&f, 1, 0, &est, &se));
    ck_assert_double_eq_tol(est, 0.95, TOL);
    ck_assert(blocks_contrast(&f, 3, 2, &est, &se));
    ck_assert_double_eq_tol(est, 0.85, TOL);
    ck_assert(!blocks_contrast(&f, 2, 0, &est, &se));
    ck_assert(isnan(est));
    ck_assert(!blocks_contrast(&f, 4, 0, &est, &se));
    ck_assert(!blocks_contrast(&f, 5, 0, &est, &se)); /* not a setting */
    blocks_release(&f);

    blocks_fit(s, r, y, 2, 2, &f); /* one round of two: no spread to judge by */
    ck_assert_double_eq_tol(f.df, 0, TOL);
    ck_assert(!blocks_contrast(&f, 1, 0, &est, &se));
    blocks_release(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("blocks");
    TCase *tc = tcase_create("blocks");
    tcase_add_test(tc, incomplete_design_as_least_squares);
    tcase_add_test(tc, complete_design_is_paired);
    tcase_add_test(tc, unlinked_and_no_spread);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
