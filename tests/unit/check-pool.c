/* pool.c: the random-effects model against figures worked by hand. With equal within-host
 * variances v, Paule-Mandel's tau^2 has a closed form, the hosts' sample variance minus v
 * (the generalised Q is then sum (y - mean)^2 / (v + tau^2)), and the HKSJ interval is the
 * one-sample t on the hosts' changes; t(0.975, 2) = 4.302652729911275 from the Python
 * script of check-gate.c. The hosts' variances moderated toward each other against a
 * Python script of its own (digamma and trigamma by recurrence and their asymptotic
 * series, trigamma's inverse by bisection, Paule-Mandel by bisection):
 *   z_i = log v_i - digamma(dof_i / 2) + log(dof_i / 2), excess = var(z) - mean trigamma(dof / 2),
 *   d0 = 2 trigamma^-1(excess) (infinite when excess <= 0),
 *   s0^2 = exp(mean z + digamma(d0 / 2) - log(d0 / 2)), v_i' = (dof_i v_i + d0 s0^2) / (dof_i + d0).
 * And the pooled gate's verdicts (gate_pooled). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gate.h"
#include "pool.h"
#include "testlib.h"

#define TOL 1e-9

/* variances known exactly: not moderated, so the figures below are the model's alone */
static const double known[] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};

START_TEST(two_hosts_apart)
{
    const double y[] = {0.0, 0.4}, v[] = {0.01, 0.01};
    struct pool_estimate e;
    pool_random_effects(y, v, known, 2, 0.95, &e);
    /* tau^2 = 0.4^2 / 2 - 0.01 */
    ck_assert_double_eq_tol(e.tau2, 0.07, TOL);
    ck_assert_double_eq_tol(e.mu, 0.2, TOL);
    ck_assert_double_eq_tol(e.q, 1.0, 1e-6); /* Q = k - 1 where tau^2 > 0 */
    ck_assert_double_eq_tol(e.se, 0.2, 1e-6); /* sqrt((v + tau^2) / 2) */
    ck_assert_double_eq_tol(e.se_fixed, sqrt(0.005), TOL);
    ck_assert_double_eq(e.df, 1);
    ck_assert(isnan(e.pi_lo) && isnan(e.pi_hi)); /* a prediction needs 3 hosts */
}
END_TEST

START_TEST(four_hosts_the_t_on_their_changes)
{
    const double y[] = {0.1, 0.2, 0.3, 0.6}, v[] = {0.01, 0.01, 0.01, 0.01};
    struct pool_estimate e;
    pool_random_effects(y, v, known, 4, 0.95, &e);
    /* sample variance 0.14 / 3 */
    ck_assert_double_eq_tol(e.tau2, 0.14 / 3 - 0.01, 1e-9);
    ck_assert_double_eq_tol(e.mu, 0.3, TOL);
    ck_assert_double_eq_tol(e.se, sqrt(0.14 / 3 / 4), 1e-7);
    ck_assert_double_eq(e.df, 3);
    /* 0.3 -+ t(0.975, 2) sqrt(tau^2 + se^2) */
    ck_assert_double_eq_tol(e.pi_lo, -0.6459314588560978, 1e-6);
    ck_assert_double_eq_tol(e.pi_hi, 1.245931458856098, 1e-6);
}
END_TEST

START_TEST(alike_hosts_never_narrower_than_fixed)
{
    /* weights 100 and 25: mean 0.104, Q(0) = 100 (0.004)^2 + 25 (0.016)^2 = 0.008 < 1 */
    const double y[] = {0.1, 0.12}, v[] = {0.01, 0.04};
    struct pool_estimate e;
    pool_random_effects(y, v, known, 2, 0.95, &e);
    ck_assert_double_eq(e.tau2, 0);
    ck_assert_double_eq_tol(e.mu, 0.104, TOL);
    ck_assert_double_eq_tol(e.q, 0.008, TOL);
    /* q < 1 would shrink the interval below the fixed effect's: max(1, q) */
    ck_assert_double_eq_tol(e.se, e.se_fixed, TOL);
    ck_assert_double_eq_tol(e.se, sqrt(1.0 / 125), TOL);
}
END_TEST

START_TEST(unequal_variances_meet_k_minus_1)
{
    const double y[] = {0.05, 0.3, 0.12, -0.1, 0.4}, v[] = {0.002, 0.02, 0.005, 0.01, 0.001};
    struct pool_estimate e;
    pool_random_effects(y, v, known, 5, 0.95, &e);
    ck_assert(e.tau2 > 0);
    /* Paule-Mandel's equation, recomputed here */
    double sw = 0, swy = 0, q = 0;
    for (size_t i = 0; i < 5; i++) {
        sw += 1.0 / (v[i] + e.tau2);
        swy += y[i] / (v[i] + e.tau2);
    }
    for (size_t i = 0; i < 5; i++)
        q += pow(y[i] - swy / sw, 2) / (v[i] + e.tau2);
    ck_assert_double_eq_tol(q, 4.0, 1e-9);
    ck_assert_double_eq_tol(e.mu, swy / sw, 1e-12);
    ck_assert_double_eq_tol(e.se, sqrt(1.0 / sw), 1e-9);
    ck_assert(e.se >= e.se_fixed);
}
END_TEST

START_TEST(hosts_without_spread)
{
    /* every host measured 0 exactly (a count that never moved) */
    const double same[] = {0, 0, 0}, none[] = {0, 0, 0};
    struct pool_estimate e;
    pool_random_effects(same, none, known, 3, 0.95, &e);
    ck_assert_double_eq(e.tau2, 0);
    ck_assert_double_eq(e.se, 0);
    ck_assert_double_eq(e.mu, 0);
    /* hosts that differ without spread of their own: all of it is between them */
    const double apart[] = {0.1, 0.2, 0.3};
    pool_random_effects(apart, none, known, 3, 0.95, &e);
    ck_assert_double_eq_tol(e.tau2, 0.01, 1e-9);
    ck_assert_double_eq_tol(e.mu, 0.2, 1e-9);
}
END_TEST

START_TEST(hosts_apart_moderated)
{
    /* spreads 7.5x apart on 4-6 degrees of freedom: most of it is the sampling error of
     * 5 rounds, so each is pulled most of the way toward the others */
    const double v[] = {0.004, 0.01, 0.03, 0.02}, dof[] = {4, 4, 6, 5};
    const double want[] = {0.012085617785225282, 0.01347920958216941, 0.019360149592679385,
                           0.01603225495015266};
    double out[4];
    ck_assert_double_eq_tol(pool_moderated_variances(v, dof, 4, out), 13.22168575663783, 1e-6);
    for (size_t i = 0; i < 4; i++)
        ck_assert_double_eq_tol(out[i], want[i], 1e-11);
}
END_TEST

START_TEST(hosts_alike_share_one_variance)
{
    /* spreads closer than their sampling error: every host gets the prior, the geometric
     * mean of the spreads corrected for the log's bias */
    const double v[] = {0.01, 0.012, 0.011}, dof[] = {4, 4, 4};
    double out[3];
    ck_assert(isinf(pool_moderated_variances(v, dof, 3, out)));
    for (size_t i = 0; i < 3; i++)
        ck_assert_double_eq_tol(out[i], 0.014375018169602613, 1e-12);
    /* without spread, known exactly, or alone: nothing to fit */
    const double some[] = {0, 0.01, 0.02}, exact[] = {4, INFINITY, 4};
    ck_assert_double_eq(pool_moderated_variances(some, exact, 3, out), 0);
    ck_assert_double_eq(out[0], 0);
    ck_assert_double_eq(out[1], 0.01);
    ck_assert_double_eq(out[2], 0.02);
}
END_TEST

START_TEST(pooled_on_moderated_variances)
{
    const double y[] = {0.30, 0.02, 0.61, 0.18}, v[] = {0.004, 0.01, 0.03, 0.02},
                 dof[] = {4, 4, 6, 5};
    struct pool_estimate e;
    pool_random_effects(y, v, dof, 4, 0.95, &e);
    ck_assert_double_eq_tol(e.prior_df, 13.22168575663783, 1e-6);
    ck_assert_double_eq_tol(e.tau2, 0.04527522529855407, 1e-9);
    ck_assert_double_eq_tol(e.mu, 0.2709099898270599, 1e-9);
    ck_assert_double_eq_tol(e.se, 0.12287190042542029, 1e-9);
    ck_assert_double_eq_tol(e.se_fixed, 0.06075037554614861, 1e-11);
    ck_assert_double_eq(e.df, 3);
}
END_TEST

START_TEST(pooled_verdicts)
{
    struct gate_opts o = gate_opts_default();
    struct lb_error err;
    const char *name = "random effects on log ratios (Paule-Mandel, HKSJ)";
    /* +35% on 4 df, se 0.05: t = 6; the guardrail and the untested row are outside Holm */
    struct gate_pooled_input in[4] = {
        {{"2", "cpu", true, false, false}, true, log(1.35), 0.05, 4, 5, name},
        {{"2", "lag", true, false, false}, true, 0.0, 0.01, 4, 5, name},
        {{"2", "slots", true, true, true}, false, NAN, NAN, NAN, 0, name},
        {{"8", "cpu", true, false, false}, true, NAN, NAN, NAN, 0, name},
    };
    struct gate_result r[4];
    ck_assert_int_eq(gate_pooled(in, 4, &o, r, &err), 0);
    ck_assert_int_eq(r[0].verdict, VERDICT_REGRESSED);
    ck_assert_str_eq(r[0].test, name);
    ck_assert_double_eq_tol(r[0].change, 0.35, 1e-12);
    ck_assert_double_eq(r[0].df, 4);
    /* Holm over the two tested rows: the smaller p doubled */
    ck_assert_double_eq_tol(r[0].p_adjusted, 2 * r[0].p_worse, 1e-15);
    ck_assert_int_eq(r[1].verdict, VERDICT_NO_CHANGE);
    ck_assert_int_eq(r[2].verdict, VERDICT_REGRESSED); /* a must_be_zero key hit on a host */
    ck_assert(!r[3].tested);
    ck_assert_int_eq(r[3].verdict, VERDICT_INCONCLUSIVE);
    /* a relative difference: the threshold is a fraction of base, the change as given */
    struct gate_pooled_input diff = {{"2", "missed", true, false, false}, false, 0.5, 0.1, 9,
                                     10, name};
    ck_assert_int_eq(gate_pooled(&diff, 1, &o, r, &err), 0);
    ck_assert(!r[0].log_scale);
    ck_assert_double_eq_tol(r[0].change, 0.5, 1e-12);
    ck_assert_int_eq(r[0].verdict, VERDICT_REGRESSED);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pool");
    TCase *tc = tcase_create("pool");
    tcase_add_test(tc, two_hosts_apart);
    tcase_add_test(tc, four_hosts_the_t_on_their_changes);
    tcase_add_test(tc, alike_hosts_never_narrower_than_fixed);
    tcase_add_test(tc, unequal_variances_meet_k_minus_1);
    tcase_add_test(tc, hosts_without_spread);
    tcase_add_test(tc, hosts_apart_moderated);
    tcase_add_test(tc, hosts_alike_share_one_variance);
    tcase_add_test(tc, pooled_on_moderated_variances);
    tcase_add_test(tc, pooled_verdicts);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
