/* budget.c: budgets against figures computed apart from it. Three runs give 2 degrees of
 * freedom, where the t distribution has a closed form, P(T <= t) = 1/2 (1 + t / sqrt(t^2 +
 * 2)); the logs of the runs are chosen (0, 0.1, 0.2: mean 0.1, sd 0.1, se 0.1 / sqrt 3). */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "budget.h"
#include "campaign.h"
#include "metric.h"
#include "testlib.h"

#define TOL 1e-6

static double t2_upper(double t)
{
    return 0.5 * (1.0 - t / sqrt(t * t + 2.0));
}

static const double logs[3] = {0, 0.1, 0.2};

static struct gate_result one(double limit, bool upper)
{
    double x[3];
    for (size_t i = 0; i < 3; i++)
        x[i] = exp(logs[i]);
    struct budget_input in = {upper, limit, x, 3};
    struct gate_opts o = gate_opts_default();
    struct gate_result r;
    budget_test(&in, 1, &o, &r);
    return r;
}

START_TEST(geometric_mean_and_t)
{
    double se = 0.1 / sqrt(3.0);
    /* at the limit's log 0: t = 0.1 / se = sqrt 3, neither side reached */
    struct gate_result r = one(1.0, true);
    ck_assert(r.tested && r.log_scale);
    ck_assert_double_eq_tol(r.df, 2, TOL);
    ck_assert_double_eq_tol(r.se, se, TOL);
    ck_assert_double_eq_tol(r.delta, 0.1, TOL);
    ck_assert_double_eq_tol(r.change, expm1(0.1), TOL);
    ck_assert_double_eq_tol(r.p_worse, t2_upper(sqrt(3.0)), TOL);
    ck_assert_double_eq_tol(r.p_equivalent, 1.0 - t2_upper(sqrt(3.0)), TOL);
    ck_assert_double_eq_tol(r.p, 2.0 * t2_upper(sqrt(3.0)), TOL);
    ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
    /* the interval is the typical value's: 0.1 -+ t(0.95, 2) se, t = 2.919986 */
    ck_assert_double_eq_tol(r.lo, expm1(0.1 - 2.919986 * se), 1e-5);
    ck_assert_double_eq_tol(r.hi, expm1(0.1 + 2.919986 * se), 1e-5);
    double x[3] = {1, exp(0.1), exp(0.2)};
    ck_assert_double_eq_tol(budget_typical(x, 3), exp(0.1), TOL);

    /* 0.6 beyond: t = 0.6 / se */
    r = one(exp(-0.5), true);
    ck_assert_double_eq_tol(r.p_worse, t2_upper(0.6 / se), TOL);
    ck_assert_int_eq(r.verdict, VERDICT_REGRESSED);
    ck_assert_str_eq(budget_verdict_name(r.verdict), "over");
    /* 0.6 inside */
    r = one(exp(0.7), true);
    ck_assert_double_eq_tol(r.p_equivalent, t2_upper(0.6 / se), TOL);
    ck_assert_int_eq(r.verdict, VERDICT_NO_CHANGE);
    ck_assert_str_eq(budget_verdict_name(r.verdict), "within");
    ck_assert_int_eq(r.past_threshold, 0);
    /* a min: the same runs are below a floor of e^0.7 */
    r = one(exp(0.7), false);
    ck_assert_double_eq_tol(r.delta, 0.6, TOL);
    ck_assert_int_eq(r.verdict, VERDICT_REGRESSED);
}
END_TEST

/* Each over alone at p = 0.01755; three together are held to Holm's alpha / 3 and are
 * none of them over (adjusted 3 p = 0.05265). */
START_TEST(holm_over_the_budgets)
{
    double x[3] = {1, exp(0.1), exp(0.2)};
    struct budget_input in[3];
    for (size_t i = 0; i < 3; i++)
        in[i] = (struct budget_input){true, exp(-0.2), x, 3};
    struct gate_opts o = gate_opts_default();
    struct gate_result r[3];
    double p = t2_upper(0.3 / (0.1 / sqrt(3.0)));
    budget_test(in, 1, &o, r);
    ck_assert_int_eq(r[0].verdict, VERDICT_REGRESSED);
    budget_test(in, 3, &o, r);
    for (size_t i = 0; i < 3; i++) {
        ck_assert_double_eq_tol(r[i].p_worse, p, TOL);
        ck_assert_double_eq_tol(r[i].p_adjusted, 3 * p, TOL);
        ck_assert_int_eq(r[i].verdict, VERDICT_INCONCLUSIVE);
    }
    /* shared with a gate's regression at p 0.001 (first: 2 x 0.001), the budget second
     * (1 x p, no less than the first's): both still called */
    struct gate_result regressed = {.verdict = VERDICT_REGRESSED, .tested = true,
                                    .p_worse = 0.001};
    struct gate_result *joint[2] = {&regressed, &r[0]};
    budget_test(in, 1, &o, r);
    gate_holm_joint(joint, 2, o.alpha);
    ck_assert_double_eq_tol(r[0].p_adjusted, p, TOL);
    ck_assert_int_eq(r[0].verdict, VERDICT_REGRESSED);
    ck_assert_double_eq_tol(regressed.p_adjusted, 0.002, TOL);
}
END_TEST

/* A key that can be 0 is tested on its values; runs all alike fall back to the sign
 * test (2^-n); one run cannot be tested. */
START_TEST(values_sign_test_and_too_few)
{
    struct gate_opts o = gate_opts_default();
    struct gate_result r;
    double counts[3] = {0, 1, 2};
    budget_test(&(struct budget_input){true, 3, counts, 3}, 1, &o, &r);
    ck_assert(!r.log_scale);
    ck_assert_double_eq_tol(r.change, -2.0 / 3.0, TOL);
    ck_assert_double_eq_tol(r.p_equivalent, t2_upper(2.0 / (1.0 / sqrt(3.0))), TOL);
    ck_assert_int_eq(r.verdict, VERDICT_NO_CHANGE);
    double same[5] = {2, 2, 2, 2, 2};
    budget_test(&(struct budget_input){true, 1, same, 3}, 1, &o, &r);
    ck_assert_str_eq(r.test, "sign test (no spread)");
    ck_assert_double_eq_tol(r.p_worse, 0.125, TOL);
    ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
    budget_test(&(struct budget_input){true, 1, same, 5}, 1, &o, &r);
    ck_assert_double_eq_tol(r.p_worse, 0.03125, TOL);
    ck_assert_int_eq(r.verdict, VERDICT_REGRESSED);
    double lone[2] = {2, NAN};
    budget_test(&(struct budget_input){true, 1, lone, 2}, 1, &o, &r);
    ck_assert(!r.tested);
    ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
}
END_TEST

START_TEST(parse)
{
    struct budget_set set = {0};
    struct lb_error err;
    ck_assert_int_eq(budget_parse("cpu@2<=1.5", &set, &err), 0);
    ck_assert_int_eq(budget_parse("cps@a>=b>=300", &set, &err), 0);
    ck_assert_uint_eq(set.n, 2);
    ck_assert_str_eq(set.v[0].key, "cpu");
    ck_assert_str_eq(set.v[0].setting, "2");
    ck_assert_double_eq(set.v[0].limit, 1.5);
    ck_assert(set.v[0].upper);
    ck_assert_str_eq(set.v[1].setting, "a>=b");
    ck_assert(!set.v[1].upper);
    static const char *const bad[] = {"cpu2<=1", "@2<=1", "cpu@<=1", "cpu@2<1", "cpu@2<=x",
                                      "cpu@2<="};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(budget_parse(bad[i], &set, &err), -1);
        ck_assert_msg(strstr(err.msg, "expected KEY@SETTING<=VALUE"), "%s", err.msg);
    }
    ck_assert_int_eq(budget_parse("cpu@2<=0", &set, &err), -1);
    ck_assert_str_eq(err.msg, "--budget 'cpu@2<=0': expected a finite VALUE, 0 or more (more "
                              "than 0 for cpu)");
    ck_assert_int_eq(budget_parse("slots@2<=0", &set, &err), 0);
    ck_assert_int_eq(budget_parse("slots@2<=inf", &set, &err), -1);
    ck_assert_uint_eq(set.n, 3);
    budget_set_release(&set);
}
END_TEST

/* results.json may come from anywhere: a malformed entry is named; settings the campaign
 * did not run are left out; a key it lacks is refused. */
START_TEST(from_campaign)
{
    struct campaign c;
    memset(&c, 0, sizeof(c));
    c.path = "r/results.json";
    strv_push(&c.spec.values, "2");
    c.profile.text = xstrdup("{\"budgets\": [{\"setting\": \"2\", \"key\": \"cpu\", "
                             "\"max\": 1, \"min\": 0.5}, {\"setting\": \"8\", \"key\": "
                             "\"cpu\", \"max\": 1}]}");
    metric_registry_build(&c.profile);
    struct budget_set set = {0};
    struct lb_error err;
    ck_assert_int_eq(budget_from_campaign(&c, &set, &err), 0);
    ck_assert_uint_eq(set.n, 2);
    ck_assert(set.v[0].upper && !set.v[1].upper);
    ck_assert_double_eq(set.v[1].limit, 0.5);
    ck_assert_int_eq(budget_check(&set, &c, &err), 0);
    budget_set_release(&set);

    free(c.profile.text);
    c.profile.text = xstrdup("{\"budgets\": [{\"setting\": \"2\", \"key\": \"lag\", "
                             "\"max\": 1}]}");
    ck_assert_int_eq(budget_from_campaign(&c, &set, &err), 0);
    ck_assert_int_eq(budget_check(&set, &c, &err), -1);
    ck_assert_str_eq(err.msg, "budget lag@2 <= 1: 'lag' is not a key of 'r/results.json' "
                              "(expected cpu or a health key of its profile)");
    budget_set_release(&set);

    static const char *const bad[] = {
        "{\"budgets\": {}}",
        "{\"budgets\": [1]}",
        "{\"budgets\": [{\"setting\": \"2\", \"key\": \"cpu\"}]}",
        "{\"budgets\": [{\"setting\": \"2\", \"key\": \"cpu\", \"max\": -1}]}",
        "{\"budgets\": [{\"setting\": 2, \"key\": \"cpu\", \"max\": 1}]}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        free(c.profile.text);
        c.profile.text = xstrdup(bad[i]);
        ck_assert_int_eq(budget_from_campaign(&c, &set, &err), -1);
        ck_assert_msg(strncmp(err.msg, "r/results.json: profile.budgets", 31) == 0, "%s",
                      err.msg);
        budget_set_release(&set);
    }
    free(c.profile.text);
    free(c.profile.metrics);
    strv_release(&c.spec.values);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("budget");
    TCase *tc = tcase_create("budget");
    tcase_add_test(tc, geometric_mean_and_t);
    tcase_add_test(tc, holm_over_the_budgets);
    tcase_add_test(tc, values_sign_test_and_too_few);
    tcase_add_test(tc, parse);
    tcase_add_test(tc, from_campaign);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
