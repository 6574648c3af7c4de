/* changepoint.c: binary segmentation by permutation on series with a known truth. The
 * rates over many histories are tests/bench/calibrate.c's (bench-history); here, the
 * cases each rule of the method exists for. */
#include <check.h>
#include <math.h>
#include <stdint.h>

#include "changepoint.h"
#include "../draws.h"
#include "testlib.h"

#define N 40

static struct cp_opts opts(void)
{
    return (struct cp_opts){.max_p = 0.01,
                            .min_magnitude = 0.05,
                            .min_segment = 3,
                            .log_scale = true,
                            .permutations = CP_PERMUTATIONS,
                            .seed = 7};
}

/* log CPU of n campaigns at drift sd 0.15, times `factor` from campaign `at` on */
static void history(double *x, size_t n, size_t at, double factor, uint64_t seed)
{
    uint64_t rng = seed;
    for (size_t i = 0; i < n; i++)
        x[i] = 0.15 * draw_normal(&rng) + (i >= at ? log(factor) : 0);
}

START_TEST(a_step_is_found_where_it_is)
{
    double x[N];
    history(x, N, 30, 2.0, 11);
    struct cp_opts o = opts();
    struct cp_result r;
    cp_detect(x, N, &o, &r);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_uint_eq(r.points[0].start, 30);
    ck_assert(r.points[0].p <= 0.01);
    /* the step's interval holds the truth, and its relative size is near 2x */
    ck_assert(r.points[0].lo < log(2.0) && log(2.0) < r.points[0].hi);
    ck_assert(fabs(r.points[0].relative - 1.0) < 0.3);
    cp_result_release(&r);
    /* the same series and seed, the same answer */
    cp_detect(x, N, &o, &r);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_uint_eq(r.points[0].start, 30);
    cp_result_release(&r);
}
END_TEST

START_TEST(two_steps_are_both_found)
{
    double x[N];
    history(x, N, 15, 2.0, 16);
    for (size_t i = 30; i < N; i++)
        x[i] -= log(2.0) + log(1.5); /* and down below the start from 30 on */
    struct cp_opts o = opts();
    struct cp_result r;
    cp_detect(x, N, &o, &r);
    ck_assert_uint_eq(r.n, 2);
    ck_assert_uint_eq(r.points[0].start, 15);
    ck_assert_uint_eq(r.points[1].start, 30);
    ck_assert(r.points[0].relative > 0 && r.points[1].relative < 0);
    cp_result_release(&r);
}
END_TEST

START_TEST(a_spike_is_no_change_point)
{
    /* a campaign far off (a disturbed night), in the middle or the newest: no segment of
     * fewer than min_segment campaigns */
    double x[N];
    history(x, N, N, 1, 13);
    x[20] += log(5.0);
    x[N - 1] += log(5.0);
    struct cp_opts o = opts();
    struct cp_result r;
    cp_detect(x, N, &o, &r);
    ck_assert_uint_eq(r.n, 0);
    cp_result_release(&r);
}
END_TEST

START_TEST(a_small_step_is_merged_away)
{
    /* a 3% step with no noise is certain, and under the practical size */
    double x[N];
    for (size_t i = 0; i < N; i++)
        x[i] = (i >= 20 ? log(1.03) : 0) + (i % 2 ? 1e-3 : -1e-3);
    struct cp_opts o = opts();
    struct cp_result r;
    cp_detect(x, N, &o, &r);
    ck_assert_uint_eq(r.n, 0);
    cp_result_release(&r);
    o.min_magnitude = 0.02;
    cp_detect(x, N, &o, &r);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_uint_eq(r.points[0].start, 20);
    cp_result_release(&r);
}
END_TEST

START_TEST(levels_are_relative_to_the_mean_before)
{
    double x[N];
    for (size_t i = 0; i < N; i++)
        x[i] = (i >= 25 ? 12.0 : 10.0) + (i % 3) * 0.1;
    struct cp_opts o = opts();
    o.log_scale = false;
    struct cp_result r;
    cp_detect(x, N, &o, &r);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_uint_eq(r.points[0].start, 25);
    ck_assert(fabs(r.points[0].relative - 0.2) < 0.01);
    cp_result_release(&r);
}
END_TEST

START_TEST(too_short_a_series_is_not_split)
{
    double x[5] = {0, 0, 0, 5, 5};
    struct cp_opts o = opts();
    struct cp_result r;
    cp_detect(x, 5, &o, &r);
    ck_assert_uint_eq(r.n, 0);
    cp_detect(x, 0, &o, &r);
    ck_assert_uint_eq(r.n, 0);
    cp_result_release(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("changepoint");
    TCase *tc = tcase_create("changepoint");
    tcase_add_test(tc, a_step_is_found_where_it_is);
    tcase_add_test(tc, two_steps_are_both_found);
    tcase_add_test(tc, a_spike_is_no_change_point);
    tcase_add_test(tc, a_small_step_is_merged_away);
    tcase_add_test(tc, levels_are_relative_to_the_mean_before);
    tcase_add_test(tc, too_short_a_series_is_not_split);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
