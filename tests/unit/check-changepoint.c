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

/* A 1.3x step in the last 5 of 40 campaigns at drift sd 0.15 (1.75 sd), in 200
 * histories: tested apart, the newest campaigns find it more often than the segmentation
 * alone, which weighs the split against every other, and where it is. */
START_TEST(the_newest_campaigns_are_found_sooner)
{
    struct cp_opts o = opts();
    long found[2] = {0, 0}, misplaced = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        double x[N];
        history(x, N, N - 5, 1.3, seed);
        for (int recent = 0; recent < 2; recent++) {
            struct cp_result r;
            o.recent = recent ? 10 : 0;
            o.worse = 1;
            o.seed = seed;
            cp_detect(x, N, &o, &r);
            if (r.n && r.points[r.n - 1].start >= N - 10 && r.points[r.n - 1].step > 0) {
                found[recent]++;
                misplaced += recent && (r.points[r.n - 1].start + 2 < N - 5 ||
                                        r.points[r.n - 1].start > N - 5 + 2);
            }
            cp_result_release(&r);
        }
    }
    ck_assert_msg(found[1] > found[0] + 20, "recent %ld, segmentation alone %ld", found[1],
                  found[0]);
    ck_assert_msg(misplaced * 10 < found[1], "%ld of %ld found more than 2 campaigns off",
                  misplaced, found[1]);
}
END_TEST

/* Without change, the segmentation and the recent test together show a change point in
 * at most max_p of histories (each spends its half): 400 histories at max_p 0.1. */
START_TEST(the_recent_test_keeps_max_p)
{
    struct cp_opts o = opts();
    o.max_p = 0.1;
    o.recent = 10;
    long any = 0, histories = 400;
    for (uint64_t seed = 1; seed <= (uint64_t)histories; seed++) {
        double x[N];
        history(x, N, N, 1.0, 1000 + seed);
        struct cp_result r;
        o.seed = seed;
        cp_detect(x, N, &o, &r);
        any += r.n > 0;
        cp_result_release(&r);
    }
    double se = sqrt(0.1 * 0.9 / (double)histories);
    ck_assert_msg((double)any / (double)histories < 0.1 + 3 * se, "%ld of %ld", any, histories);
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
    tcase_add_test(tc, the_newest_campaigns_are_found_sooner);
    tcase_add_test(tc, the_recent_test_keeps_max_p);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
