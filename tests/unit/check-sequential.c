/* sequential.c: the group-sequential boundaries against a simulation of what they
 * promise (under "no change", the chance that the t of the rounds so far crosses at any
 * look is alpha), and the procedure's
 * verdicts on constructed looks. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sequential.h"
#include "../draws.h"
#include "stats.h"
#include "testlib.h"
#include "tune.h"

/* Campaigns of `max` rounds under "no change" (normal rounds), looked at from
 * SEQ_MIN_ROUNDS by the one-sample t of the rounds so far, as the gate tests them: the
 * share whose one-sided p reaches its look's nominal level (on the t scale: t at least
 * the quantile of that level). */
static double crossing_share(struct seq *s, double alpha, long max, long walks)
{
    uint64_t rng = 20261204u;
    double level[SEQ_LIMIT_MAX + 1];
    for (long round = SEQ_MIN_ROUNDS; round <= max; round++) {
        double nominal = seq_nominal(s, alpha, round);
        level[round] = nominal > 0 ? stats_t_quantile(1.0 - nominal, (double)(round - 1))
                                   : INFINITY;
    }
    long crossed = 0;
    for (long w = 0; w < walks; w++) {
        double sum = 0, squares = 0;
        for (long round = 1; round <= max; round++) {
            double x = draw_normal(&rng), r = (double)round;
            sum += x;
            squares += x * x;
            if (round < SEQ_MIN_ROUNDS)
                continue;
            double mean = sum / r, t = mean / sqrt((squares - r * mean * mean) / (r - 1) / r);
            if (t >= level[round]) {
                crossed++;
                break;
            }
        }
    }
    return (double)crossed / (double)walks;
}

/* s's boundary of alpha crossed by as many walks as alpha says: within 4 standard errors,
 * the walks' and those of the boundaries' own simulation. */
static void keeps_alpha(struct seq *s, double alpha, long cap)
{
    long walks = 200000;
    double got = crossing_share(s, alpha, cap, walks);
    double se = sqrt(alpha * (1 - alpha) * (1.0 / (double)walks + 1.0 / (double)SEQ_PATHS));
    ck_assert_msg(fabs(got - alpha) < 4 * se, "cap %ld alpha %g: crossed %g (se %g)", cap, alpha,
                  got, se);
}

START_TEST(boundaries_keep_alpha)
{
    static const long caps[] = {3, 5, 10, 20};
    static const double alphas[] = {0.05, 0.05 / 9};
    for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++)
        for (size_t a = 0; a < 2; a++) {
            struct seq s;
            struct gate_opts o = gate_opts_default();
            struct lb_error err;
            ck_assert_int_eq(seq_init(&s, 1, caps[c], &o, &err), 0);
            keeps_alpha(&s, alphas[a], caps[c]);
            /* a single look spends it all; each later look less than the fixed design */
            if (caps[c] == SEQ_MIN_ROUNDS)
                ck_assert_double_eq_tol(seq_nominal(&s, alphas[a], 3), alphas[a], 1e-9);
            else
                ck_assert(seq_nominal(&s, alphas[a], caps[c]) < alphas[a]);
            seq_release(&s);
        }
}
END_TEST

/* tune's spending (src/analysis/tune.h): later than the gate's, the same alpha in all. */
START_TEST(later_spending_keeps_alpha)
{
    static const long caps[] = {10, 15};
    static const double alphas[] = {0.0475, 0.0475 / 2};
    for (size_t c = 0; c < 2; c++)
        for (size_t a = 0; a < 2; a++) {
            struct seq s, gate;
            struct gate_opts o = gate_opts_default();
            struct lb_error err;
            ck_assert_int_eq(seq_init_spending(&s, 0, caps[c], TUNE_GAMMA, &o, &err), 0);
            ck_assert_int_eq(seq_init(&gate, 0, caps[c], &o, &err), 0);
            keeps_alpha(&s, alphas[a], caps[c]);
            /* less at the first look than the gate's, more at the cap */
            ck_assert(seq_nominal(&s, alphas[a], 3) < seq_nominal(&gate, alphas[a], 3));
            ck_assert(seq_nominal(&s, alphas[a], caps[c]) > seq_nominal(&gate, alphas[a], caps[c]));
            seq_release(&s);
            seq_release(&gate);
        }
}
END_TEST

/* A look's gate result for one comparison: its p toward harm and benefit, whether the
 * estimate is past the threshold, and the p of "no change". */
static struct gate_result look(double p_worse, int past, double p_equivalent)
{
    return (struct gate_result){.verdict = VERDICT_INCONCLUSIVE,
                                .tested = true,
                                .p_worse = p_worse,
                                .p_better = 1.0 - p_worse,
                                .past_threshold = past,
                                .p_equivalent = p_equivalent};
}

START_TEST(verdicts_fixed_at_the_first_decisive_look)
{
    struct seq s;
    struct gate_opts o = gate_opts_default();
    struct lb_error err;
    ck_assert_int_eq(seq_init(&s, 3, 10, &o, &err), 0);
    /* Holm's first step at the first look: alpha / 3 through the boundary */
    double first = seq_nominal(&s, o.alpha / 3, 3);
    struct gate_result now[3] = {look(first / 2, 1, 1), look(0.5, 0, 1), look(0.5, 0, 0)};
    ck_assert_uint_eq(seq_look(&s, 3, now, NULL), 1);
    ck_assert_int_eq(s.latest[0].verdict, VERDICT_REGRESSED);
    ck_assert_int_eq(s.decided_at[0], 3);
    ck_assert_int_eq(s.latest[2].verdict, VERDICT_NO_CHANGE);
    ck_assert_int_eq(s.latest[1].verdict, VERDICT_INCONCLUSIVE);
    /* fixed: a later look cannot take a verdict back */
    now[0] = look(0.9, 0, 1);
    /* comparison 1 crosses the boundary of alpha / 2 (the first call freed its share),
     * though not that of alpha / 3 */
    double half = seq_nominal(&s, o.alpha / 2, 4), third = seq_nominal(&s, o.alpha / 3, 4);
    ck_assert(third < half);
    now[1] = look(sqrt(third * half), 1, 1);
    ck_assert_uint_eq(seq_look(&s, 4, now, NULL), 0);
    ck_assert_int_eq(s.latest[0].verdict, VERDICT_REGRESSED);
    ck_assert_int_eq(s.latest[1].verdict, VERDICT_REGRESSED);
    ck_assert_int_eq(s.decided_at[1], 4);
    seq_release(&s);
}
END_TEST

START_TEST(past_the_threshold_and_untested)
{
    struct seq s;
    struct gate_opts o = gate_opts_default();
    struct lb_error err;
    ck_assert_int_eq(seq_init(&s, 2, 5, &o, &err), 0);
    /* significant but within the threshold: not regressed; untested: does not hold the stop */
    struct gate_result now[2] = {look(1e-9, 0, 1), {.verdict = VERDICT_INCONCLUSIVE}};
    bool gated[2] = {true, true};
    ck_assert_uint_eq(seq_look(&s, 3, now, gated), 1);
    ck_assert_int_eq(s.latest[0].verdict, VERDICT_INCONCLUSIVE);
    gated[0] = false;
    ck_assert_uint_eq(seq_look(&s, 4, now, gated), 0);
    /* untested because its CPU sets ran too few rounds (pending): it holds the stop */
    now[1].pending = true;
    ck_assert_uint_eq(seq_look(&s, 5, now, gated), 1);
    seq_release(&s);
}
END_TEST

/* An A/A-like look (no change, an sd per round of 0.21 on logs: this VM's CPU) cannot be
 * decided by a cap of 10 rounds, so it stops holding the campaign; a 1.3x change with the
 * same spread can, so it holds it. */
START_TEST(futile_comparisons_stop_holding_the_campaign)
{
    struct seq s;
    struct gate_opts o = gate_opts_default();
    struct lb_error err;
    ck_assert_int_eq(seq_init(&s, 2, 10, &o, &err), 0);
    double edge = log1p(o.threshold), se = 0.21 / sqrt(3.0);
    struct gate_result now[2] = {look(0.5, 0, 0.5), look(0.02, 1, 1)};
    now[0].delta = 0;
    now[1].delta = log(1.3);
    for (size_t i = 0; i < 2; i++) {
        now[i].se = se;
        now[i].edge = edge;
        now[i].n = 3;
    }
    ck_assert_uint_eq(seq_look(&s, 3, now, NULL), 1);
    ck_assert(s.futile[0]);
    ck_assert(!s.futile[1]);
    ck_assert_int_eq(s.latest[0].verdict, VERDICT_INCONCLUSIVE);
    seq_release(&s);
}
END_TEST

START_TEST(bad_caps)
{
    struct seq s;
    struct gate_opts o = gate_opts_default();
    struct lb_error err;
    ck_assert_int_eq(seq_init(&s, 1, 2, &o, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "auto=2"));
    ck_assert_int_eq(seq_init(&s, 1, SEQ_LIMIT_MAX + 1, &o, &err), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sequential");
    TCase *tc = tcase_create("sequential");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, boundaries_keep_alpha);
    tcase_add_test(tc, later_spending_keeps_alpha);
    tcase_add_test(tc, verdicts_fixed_at_the_first_decisive_look);
    tcase_add_test(tc, past_the_threshold_and_untested);
    tcase_add_test(tc, futile_comparisons_stop_holding_the_campaign);
    tcase_add_test(tc, bad_caps);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
