/* gate.c: the regression gate against figures computed independently of it. The t tails
 * and quantiles below come from a Python standard-library script (adaptive Simpson
 * integration of the t density; for df = 2 also the closed form 1/2 (1 - t / sqrt(t^2 +
 * 2))), the Holm adjustments and moderated variances worked by hand. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "gate.h"
#include "testlib.h"

#define TOL 1e-6

/* Base at 100 every round, head at 100 e^d[i]: the log ratios are d. */
struct pair_data {
    double base[10], head[10];
};

static struct gate_paired_input paired(const char *setting, const char *metric,
                                       const double *d, size_t n, struct pair_data *buf)
{
    for (size_t i = 0; i < n; i++) {
        buf->base[i] = 100;
        buf->head[i] = 100 * exp(d[i]);
    }
    return (struct gate_paired_input){{setting, metric, true, false, false}, buf->base,
                                      buf->head, n, NULL};
}

static const double rising[3] = {0.1, 0.2, 0.3}, flat[3] = {0, 0.1, -0.1};

/* The rising rounds of setting 2's CPU, gated alone. */
static void gate_rising(struct gate_result *r)
{
    struct pair_data b;
    struct gate_paired_input in = paired("2", "cpu", rising, 3, &b);
    struct gate_opts o = gate_opts_default();
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, r, &err), 0);
}

START_TEST(paired_alone)
{
    struct gate_result r;
    gate_rising(&r);
    ck_assert(r.tested && r.log_scale);
    ck_assert_str_eq(r.test, "paired t on log ratios");
    /* mean 0.2, sd 0.1, t = 3.4641 on 2 df */
    ck_assert_double_eq_tol(r.df, 2, 1e-12);
    ck_assert_double_eq_tol(r.p_worse, 0.03708995011372429, TOL);
    ck_assert_double_eq_tol(r.p, 2 * 0.03708995011372429, TOL);
    ck_assert_double_eq_tol(r.p_adjusted, r.p_worse, 1e-15); /* one test: nothing to adjust */
    ck_assert_double_eq_tol(r.change, 0.22140275816016985, TOL);
    ck_assert_double_eq_tol(r.lo, 0.03191319888581545, TOL); /* t(0.95, 2) = 2.91999 */
    ck_assert_double_eq_tol(r.hi, 0.4456881637448127, TOL);
    /* one-sided p < 0.05 and +22% > +10%; the 90% interval, the one-sided test's both
     * ways, excludes 0 as the verdict says */
    ck_assert_int_eq(r.verdict, VERDICT_REGRESSED);
}
END_TEST

START_TEST(pooled_over_settings_and_holm)
{
    struct pair_data b[3];
    struct gate_paired_input in[3] = {paired("2", "cpu", rising, 3, &b[0]),
                                      paired("8", "cpu", flat, 3, &b[1]),
                                      paired("2", "lag", flat, 3, &b[2])};
    struct gate_opts o = gate_opts_default();
    struct gate_result r[3];
    struct lb_error err;
    ck_assert_int_eq(gate_paired(in, 2, &o, r, &err), 0);
    /* the other setting's 2 df are all lent (the prior's 2): ss 0.02 + 0.02 over 4 df,
     * s = 0.1 again: t = 3.4641 on 4 df (Satterthwaite: 4^2 / (2 + 2^2 / 2) = 4) */
    ck_assert_double_eq_tol(r[0].prior_df, 2, 1e-12);
    ck_assert_double_eq_tol(r[0].df, 4, 1e-12);
    ck_assert_double_eq_tol(r[0].p_worse, 0.012860710371253423, TOL);
    ck_assert_double_eq_tol(r[0].p_adjusted, 0.025721420742506846, TOL); /* x 2 */
    ck_assert_double_eq_tol(r[0].lo, 0.0799532664608058, TOL); /* t(0.95, 4) = 2.13185 */
    ck_assert_double_eq_tol(r[0].hi, 0.38137893922969335, TOL);
    ck_assert_double_eq_tol(r[1].p_worse, 0.5, TOL);
    ck_assert_double_eq_tol(r[1].p_adjusted, 0.5, TOL); /* max(0.0257, 1 x 0.5) */
    /* a third comparison of another metric: Holm's first step is now alpha / 3 */
    ck_assert_int_eq(gate_paired(in, 3, &o, r, &err), 0);
    ck_assert_double_eq_tol(r[0].p_adjusted, 3 * 0.012860710371253423, TOL);
    ck_assert_double_eq_tol(r[2].df, 2, 1e-12); /* alone in its metric */
    o.prior_df = 0;
    ck_assert_int_eq(gate_paired(in, 2, &o, r, &err), 0);
    ck_assert_double_eq_tol(r[0].prior_df, 0, 1e-12);
    ck_assert_double_eq_tol(r[0].p_worse, 0.03708995011372429, TOL);
}
END_TEST

/* A quiet setting beside two noisy ones: the noisy ones lend only the prior's 2 df, so
 * the quiet one's spread is moderated toward theirs, not replaced by it. */
START_TEST(moderated_by_noisier_settings)
{
    static const double wide[3] = {0, 0.3, -0.3}; /* ss 0.18: s^2 = 0.09 */
    struct pair_data b[3];
    struct gate_paired_input in[3] = {paired("2", "cpu", rising, 3, &b[0]),
                                      paired("8", "cpu", wide, 3, &b[1]),
                                      paired("16", "cpu", wide, 3, &b[2])};
    struct gate_opts o = gate_opts_default();
    struct gate_result r[3];
    struct lb_error err;
    ck_assert_int_eq(gate_paired(in, 3, &o, r, &err), 0);
    /* s^2 = (0.02 + 2 x 0.09) / (2 + 2) = 0.05; df = 4^2 / (2 + 2^2 / 4) = 16 / 3;
     * t = 0.2 / sqrt(0.05 / 3) = 1.5492 */
    ck_assert_double_eq_tol(r[0].prior_df, 2, 1e-12);
    ck_assert_double_eq_tol(r[0].df, 16.0 / 3.0, 1e-12);
    ck_assert_double_eq_tol(r[0].p_worse, 0.08919945983599074, TOL);
    /* pooled in full: (0.02 + 0.36) / 6 on 6 df, a smaller t */
    o.prior_df = INFINITY;
    ck_assert_int_eq(gate_paired(in, 3, &o, r, &err), 0);
    ck_assert_double_eq_tol(r[0].prior_df, 4, 1e-12);
    ck_assert_double_eq_tol(r[0].df, 6, 1e-12);
}
END_TEST

/* Spreads far apart (s^2 0.01 against 0.81 twice, 81x): the prior's df is fitted to how
 * far apart they are and lends little. Figures from mpmath: the log s^2 spread beyond
 * their sampling variance trigamma(1) by 4.79213, trigamma(d0 / 2) = 4.79213 at d0 =
 * 1.017384; s^2 = (0.02 + d0 x 0.81) / (2 + d0) = 0.279739 on (2 + d0)^2 / (2 + d0^2 / 4)
 * = 4.030784 df; t = 0.654959, one-sided p 0.273995. */
START_TEST(little_lent_by_settings_far_apart)
{
    static const double wider[3] = {0, 0.9, -0.9}; /* ss 1.62: s^2 = 0.81 */
    struct pair_data b[3];
    struct gate_paired_input in[3] = {paired("2", "cpu", rising, 3, &b[0]),
                                      paired("8", "cpu", wider, 3, &b[1]),
                                      paired("16", "cpu", wider, 3, &b[2])};
    struct gate_opts o = gate_opts_default();
    struct gate_result r[3];
    struct lb_error err;
    ck_assert_int_eq(gate_paired(in, 3, &o, r, &err), 0);
    ck_assert_double_eq_tol(r[0].prior_df, 1.0173835338810163, 1e-6);
    ck_assert_double_eq_tol(r[0].df, 4.0307841073760408, 1e-5);
    ck_assert_double_eq_tol(r[0].p_worse, 0.27399476556744757, TOL);
}
END_TEST

/* A setting without spread (the same ratio every round) lends none: it would shrink the
 * others' spread toward 0. */
START_TEST(no_spread_lends_none)
{
    static const double same[3] = {0.05, 0.05, 0.05};
    struct pair_data b[2];
    struct gate_paired_input in[2] = {paired("2", "cpu", rising, 3, &b[0]),
                                      paired("0", "cpu", same, 3, &b[1])};
    struct gate_opts o = gate_opts_default();
    struct gate_result r[2];
    struct lb_error err;
    ck_assert_int_eq(gate_paired(in, 2, &o, r, &err), 0);
    ck_assert_double_eq_tol(r[0].prior_df, 0, 1e-12);
    ck_assert_double_eq_tol(r[0].df, 2, 1e-12);
    ck_assert_double_eq_tol(r[0].p_worse, 0.03708995011372429, TOL); /* its own t */
}
END_TEST

START_TEST(guardrail_outside_the_correction)
{
    struct pair_data b[2];
    struct gate_paired_input in[2] = {paired("2", "cpu", rising, 3, &b[0]),
                                      paired("2", "missed", flat, 3, &b[1])};
    in[1].what.must_be_zero = true;
    in[1].what.guardrail_hit = true;
    struct gate_opts o = gate_opts_default();
    struct gate_result r[2];
    struct lb_error err;
    ck_assert_int_eq(gate_paired(in, 2, &o, r, &err), 0);
    ck_assert_int_eq(r[1].verdict, VERDICT_REGRESSED);
    ck_assert(!r[1].tested);
    ck_assert_double_eq_tol(r[0].p_adjusted, r[0].p_worse, 1e-15); /* m stays 1 */
    in[1].what.guardrail_hit = false;
    ck_assert_int_eq(gate_paired(in, 2, &o, r, &err), 0);
    ck_assert_int_eq(r[1].verdict, VERDICT_NO_CHANGE);
}
END_TEST

static enum verdict verdict_of(const double *d, size_t n, bool lower_is_better)
{
    struct pair_data b;
    struct gate_paired_input in = paired("2", "cpu", d, n, &b);
    in.what.lower_is_better = lower_is_better;
    struct gate_opts o = gate_opts_default();
    struct gate_result r;
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    return r.verdict;
}

START_TEST(verdicts)
{
    const double steady[3] = {0.01, -0.01, 0}, wild[3] = {0.3, -0.3, 0};
    const double lower[3] = {-0.5, -0.6, -0.7};
    /* 90% interval 0 +- 2.92 x 0.00577: inside +-log(1.1) */
    ck_assert_int_eq(verdict_of(steady, 3, true), VERDICT_NO_CHANGE);
    ck_assert_int_eq(verdict_of(wild, 3, true), VERDICT_INCONCLUSIVE);
    ck_assert_int_eq(verdict_of(lower, 3, true), VERDICT_IMPROVED);
    ck_assert_int_eq(verdict_of(lower, 3, false), VERDICT_REGRESSED); /* higher is better */
    ck_assert_int_eq(verdict_of(rising, 2, true), VERDICT_INCONCLUSIVE);
    /* +6% and significant, but its 90% interval (+4.3% to +7.7%) is within +-10% */
    const double small[3] = {0.05, 0.06, 0.07};
    ck_assert_int_eq(verdict_of(small, 3, true), VERDICT_NO_CHANGE);
}
END_TEST

START_TEST(inconclusive_says_what_would_decide)
{
    const double wild[3] = {0.3, -0.3, 0};
    struct pair_data b;
    struct gate_paired_input in = paired("2", "cpu", wild, 3, &b);
    struct gate_opts o = gate_opts_default();
    struct gate_result r;
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    /* sd 0.3, se 0.1732: t(0.95, 2) = 2.91999 -> e^0.50577 - 1 */
    ck_assert_double_eq_tol(r.detectable, expm1(2.919985580355516 * 0.3 / sqrt(3)), 1e-6);
    /* the first r with t(0.95, r - 1) 0.3 / sqrt(r) <= log(1.1) = 0.09531: 29 (t = 1.70113
     * -> 0.09477); 28 is not (t = 1.70329 -> 0.09657) */
    ck_assert_int_eq(r.rounds_needed, 29);
}
END_TEST

START_TEST(counts_without_spread)
{
    /* missed ticks 0 in base and 1 in head every round: no spread, so t would be
     * infinite; the sign test's smallest p at 3 rounds is 1/8 */
    double base[6] = {0, 0, 0, 0, 0, 0}, head[6] = {1, 1, 1, 1, 1, 1};
    struct gate_paired_input in = {{"2", "missed", true, false, false}, base, head, 3, NULL};
    struct gate_opts o = gate_opts_default();
    struct gate_result r;
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert(!r.log_scale);
    ck_assert_str_eq(r.test, "sign test (no spread)");
    ck_assert_double_eq_tol(r.p_worse, 0.125, 1e-15);
    ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
    in.rounds = 6; /* 1/64 */
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_double_eq_tol(r.p_worse, 1.0 / 64, 1e-15);
    ck_assert_int_eq(r.verdict, VERDICT_REGRESSED);
    ck_assert(isinf(r.change)); /* from a base of 0 */
}
END_TEST

START_TEST(across_campaigns)
{
    /* logs of the runs: base 0, 0.1, -0.1 around log 100; head 0.5 higher */
    double base_runs[3], head_runs[3];
    for (int i = 0; i < 3; i++) {
        base_runs[i] = 100 * exp(flat[i]);
        head_runs[i] = 100 * exp(flat[i] + 0.5);
    }
    const double *one[1] = {base_runs};
    size_t three[3] = {3, 3, 3};
    struct gate_across_input in = {{"2", "cpu", true, false, false}, one, three, 1,
                                   head_runs, 3};
    struct gate_opts o = gate_opts_default();
    struct gate_result r;
    struct lb_error err;
    ck_assert_int_eq(gate_across(&in, 1, &o, &r, &err), 0);
    /* se^2 = 2 x 0.18^2 + 0.01 (1/3 + 1/3); Satterthwaite df 459.67 */
    ck_assert_str_eq(r.test, "t on logs + drift allowance");
    ck_assert_double_eq_tol(r.df, 459.6736, 1e-3);
    ck_assert_double_eq_tol(r.p_worse, 0.031036641452562522, TOL);
    ck_assert_int_eq(r.verdict, VERDICT_REGRESSED);
    /* a history: three campaigns of one run each, at logs 0, 0.1, -0.1; head at 0.5:
     * s = 0.1, se = 0.1 sqrt(1 + 1/3), t = 4.3301 on 2 df */
    double c1 = 100, c2 = 100 * exp(0.1), c3 = 100 * exp(-0.1), h = 100 * exp(0.5);
    const double *hist[3] = {&c1, &c2, &c3};
    size_t ones[3] = {1, 1, 1};
    in = (struct gate_across_input){{"2", "cpu", true, false, false}, hist, ones, 3, &h, 1};
    ck_assert_int_eq(gate_across(&in, 1, &o, &r, &err), 0);
    ck_assert_str_eq(r.test, "prediction from the history, logs");
    ck_assert_double_eq_tol(r.df, 2, 1e-12);
    ck_assert_double_eq_tol(r.p_worse, 0.02470681210664155, TOL);
    ck_assert_int_eq(r.n, 3);
    /* one run a side cannot measure the runs' spread */
    in = (struct gate_across_input){{"2", "cpu", true, false, false}, hist, ones, 1, &h, 1};
    ck_assert_int_eq(gate_across(&in, 1, &o, &r, &err), 0);
    ck_assert(!r.tested);
    ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
}
END_TEST

/* A duet: head on CPU 0 in rounds 1, 3, 5 (where it reads e^0.5 more: the CPU's effect,
 * +-0.5 in the log), on CPU 1 in rounds 2, 4, 6; the change 0.2 throughout, and +-0.01
 * of noise that sums to 0 in each assignment. The crossover recovers both exactly: the
 * change is the mean of the assignments' means, 0.2; their half range, 0.5; the spread
 * within them, ss 0.0004 on 6 - 2 df, var = s^2 (1/3 + 1/3) / 4. */
static const double crossed[6] = {0.71, -0.29, 0.69, -0.31, 0.7, -0.3};
static const int duet[6] = {0, 1, 0, 1, 0, 1};

START_TEST(cpu_set_a_factor)
{
    struct pair_data b;
    struct gate_paired_input in = paired("2", "cpu", crossed, 6, &b);
    in.cpu_set = duet;
    struct gate_opts o = gate_opts_default();
    struct gate_result r;
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_str_eq(r.test, "paired t on log ratios, CPU set a factor");
    ck_assert(r.cpu_modelled);
    ck_assert_ptr_null(r.cpu_note);
    ck_assert_uint_eq(r.cpu_sets, 2);
    ck_assert_double_eq_tol(r.change, expm1(0.2), 1e-12);
    ck_assert_double_eq_tol(r.cpu_effect, 0.5, 1e-12);
    ck_assert_double_eq_tol(r.df, 4, 1e-12);
    ck_assert_double_eq_tol(r.se, sqrt(0.0004 / 4 / 6), 1e-12);
    ck_assert_int_eq(r.verdict, VERDICT_REGRESSED);
    /* without the factor the CPU's +-0.5 is noise: sd 0.55, nothing can be called */
    in.cpu_set = NULL;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_str_eq(r.test, "paired t on log ratios");
    ck_assert(!r.cpu_modelled);
    ck_assert_uint_eq(r.cpu_sets, 0);
    ck_assert_double_eq_tol(r.df, 5, 1e-12);
    ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
}
END_TEST

/* A round without its CPUs: today's paired t, and a note saying why; the same CPUs in
 * every round: nothing to model, no note. An assignment of one round: not decided (its
 * effect could be the change), the note saying why. */
START_TEST(cpu_set_not_modelled)
{
    static const int once[6] = {0, 0, 0, 0, 0, 1}, unknown[6] = {0, 1, 0, 1, 0, -1};
    static const int same[6] = {3, 3, 3, 3, 3, 3};
    struct pair_data b;
    struct gate_paired_input in = paired("2", "cpu", crossed, 6, &b);
    struct gate_opts o = gate_opts_default();
    struct gate_result plain, r;
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &plain, &err), 0);
    const int *const designs[] = {unknown, same};
    for (size_t i = 0; i < 2; i++) {
        in.cpu_set = designs[i];
        ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
        ck_assert(!r.cpu_modelled && !r.pending);
        ck_assert_str_eq(r.test, "paired t on log ratios");
        ck_assert_double_eq_tol(r.p_worse, plain.p_worse, 1e-15);
        ck_assert_double_eq_tol(r.df, 5, 1e-12);
        ck_assert(isnan(r.cpu_effect));
    }
    ck_assert_uint_eq(r.cpu_sets, 1);
    ck_assert_ptr_null(r.cpu_note);
    in.cpu_set = unknown;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_ptr_nonnull(strstr(r.cpu_note, "did not record its CPUs"));
    in.cpu_set = once;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert(!r.tested);
    ck_assert(r.pending);
    ck_assert(!r.cpu_modelled);
    ck_assert_uint_eq(r.cpu_sets, 2);
    ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
    ck_assert_ptr_nonnull(strstr(r.cpu_note, "fewer than 2 rounds"));
}
END_TEST

/* Ten rounds within +-0.02 and one disturbed by +1.0 in the log. Trimmed by 20% (2 from
 * each end), the mean of the middle six is 0.02 / 6; winsorized (the two lowest set to
 * -0.01, the two highest to 0.02) their sum of squares is 0.00164, Yuen's standard error
 * sqrt(0.00164 / (6 x 5)) on 5 df: no change. The paired t on every round sees a mean of
 * 0.1 and an sd of 0.32: inconclusive. */
START_TEST(trimmed_ignores_a_wild_round)
{
    static const double disturbed[10] = {0.01, -0.01, 0.02, -0.02, 0,
                                         0.01, -0.01, 0.02, -0.02, 1.0};
    struct pair_data b;
    struct gate_paired_input in = paired("2", "cpu", disturbed, 10, &b);
    struct gate_opts o = gate_opts_default();
    o.trim = GATE_TRIM;
    struct gate_result r;
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_str_eq(r.test, "trimmed paired t on log ratios (Yuen)");
    ck_assert_uint_eq(r.trimmed, 4);
    ck_assert_double_eq_tol(r.change, expm1(0.02 / 6), 1e-12);
    ck_assert_double_eq_tol(r.se, sqrt(0.00164 / 30), 1e-12);
    ck_assert_double_eq_tol(r.df, 5, 1e-12);
    ck_assert_int_eq(r.verdict, VERDICT_NO_CHANGE);
    o.trim = 0;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_str_eq(r.test, "paired t on log ratios");
    ck_assert_uint_eq(r.trimmed, 0);
    ck_assert_double_eq_tol(r.change, expm1(0.1), 1e-12);
    ck_assert_int_eq(r.verdict, VERDICT_INCONCLUSIVE);
    /* under 5 rounds nothing is trimmed: the paired t, as the tests above */
    o.trim = GATE_TRIM;
    in.rounds = 4;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_uint_eq(r.trimmed, 0);
    o.trim = 0.5;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "trim"));
}
END_TEST

/* A duet's two assignments of CPUs, 5 rounds each, one wild round in each. Trimmed by 20%
 * (1 from each end): assignment 0 keeps 0.10, 0.11, 0.12 (mean 0.11; winsorized 0.10,
 * 0.10, 0.11, 0.12, 0.12: sum of squares 0.0004), assignment 1 keeps -0.11, -0.10, -0.10
 * (mean -0.31 / 3; winsorized -0.11, -0.11, -0.10, -0.10, -0.10 about -0.104: 0.00012).
 * The change is the mean of the two means, Yuen's variance the pooled 0.00052 / (2 + 2)
 * times (1/3 + 1/3) / 2^2, on 4 df; the CPU's effect half the means' range. */
START_TEST(trimmed_with_cpu_set_a_factor)
{
    static const double d[10] = {0.10, -0.09, 0.12, -0.11, 0.08, -0.10, 0.11, -0.70, 0.50, -0.10};
    static const int cpu[10] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
    struct pair_data b;
    struct gate_paired_input in = paired("2", "cpu", d, 10, &b);
    in.cpu_set = cpu;
    struct gate_opts o = gate_opts_default();
    o.trim = GATE_TRIM;
    struct gate_result r;
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_str_eq(r.test, "trimmed paired t on log ratios (Yuen), CPU set a factor");
    ck_assert_uint_eq(r.trimmed, 4);
    ck_assert(r.cpu_modelled);
    ck_assert_double_eq_tol(r.change, expm1((0.11 - 0.31 / 3) / 2), 1e-12);
    ck_assert_double_eq_tol(r.se, sqrt(0.00052 / 4 * (2.0 / 3) / 4), 1e-12);
    ck_assert_double_eq_tol(r.df, 4, 1e-12);
    ck_assert_double_eq_tol(r.cpu_effect, (0.11 + 0.31 / 3) / 2, 1e-12);
}
END_TEST

/* A count's differences 1, 1, 1, 0, 3 (base 0 every round): the three kept rounds tie, so
 * winsorizing would leave no spread and the sign test would take 2^-5 from rounds that
 * differ. They are not trimmed: the paired t, mean 1.2, sum of squares 4.8 on 4 df. */
START_TEST(trimmed_keeps_tied_rounds)
{
    double base[5] = {0, 0, 0, 0, 0}, head[5] = {1, 1, 1, 0, 3};
    struct gate_paired_input in = {{"2", "missed", true, false, false}, base, head, 5, NULL};
    struct gate_opts o = gate_opts_default();
    o.trim = GATE_TRIM;
    struct gate_result r;
    struct lb_error err;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert(!r.log_scale);
    ck_assert_str_eq(r.test, "paired t on differences");
    ck_assert_uint_eq(r.trimmed, 0);
    ck_assert_double_eq_tol(r.delta, 1.2, 1e-12);
    ck_assert_double_eq_tol(r.se, sqrt(4.8 / 4 / 5), 1e-12);
    ck_assert_double_eq_tol(r.df, 4, 1e-12);
    /* rounds that differ among the kept ones are trimmed: 0, 1, 2, 1, 3 keep 1, 1, 2 */
    head[4] = 3;
    head[2] = 2;
    head[3] = 1;
    head[1] = 1;
    head[0] = 0;
    ck_assert_int_eq(gate_paired(&in, 1, &o, &r, &err), 0);
    ck_assert_uint_eq(r.trimmed, 2);
    ck_assert_double_eq_tol(r.delta, 4.0 / 3, 1e-12);
}
END_TEST

START_TEST(bad_options)
{
    struct gate_opts o = gate_opts_default();
    struct lb_error err;
    o.alpha = 0;
    ck_assert_int_eq(gate_paired(NULL, 0, &o, NULL, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "alpha"));
    ck_assert_str_eq(verdict_name(VERDICT_INCONCLUSIVE), "inconclusive");
}
END_TEST

/* The stated power of paired_alone's result (se 0.1 / sqrt 3 on 2 df, the +10% threshold):
 * the log ratio called regressed 80% of the time at alpha 0.05, solved apart on the df = 2
 * closed form of P(d > max(edge, t s)) (tests/unit/check-stats.c): 0.2304272. */
START_TEST(stated_power)
{
    struct gate_result r;
    gate_rising(&r);
    ck_assert_double_eq_tol(gate_detectable(&r, true, 0.05, 0.8), expm1(0.23042723783687313),
                            1e-5);
    /* higher is better: the same fall */
    ck_assert_double_eq_tol(gate_detectable(&r, false, 0.05, 0.8),
                            expm1(-0.23042723783687313), 1e-5);
    /* half the time: about what the gate's own `detectable` says (the change that would
     * just be called), always more at 80% */
    ck_assert(gate_detectable(&r, true, 0.05, 0.8) > r.detectable);
    /* a stricter level (Holm's first step over 9) asks for more */
    ck_assert(gate_detectable(&r, true, 0.05 / 9, 0.8) > gate_detectable(&r, true, 0.05, 0.8));
    /* on differences: a fraction of |mean of base| */
    struct gate_result v = r;
    v.log_scale = false;
    v.scale = 2.0;
    ck_assert_double_eq_tol(gate_detectable(&v, true, 0.05, 0.8), 0.23042723783687313 / 2.0,
                            1e-5);
    /* untested, or no spread to speak of */
    v.tested = false;
    ck_assert(isnan(gate_detectable(&v, true, 0.05, 0.8)));
    v = r;
    v.se = 0;
    ck_assert(isnan(gate_detectable(&v, true, 0.05, 0.8)));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gate");
    TCase *tc = tcase_create("gate");
    tcase_add_test(tc, paired_alone);
    tcase_add_test(tc, pooled_over_settings_and_holm);
    tcase_add_test(tc, moderated_by_noisier_settings);
    tcase_add_test(tc, little_lent_by_settings_far_apart);
    tcase_add_test(tc, no_spread_lends_none);
    tcase_add_test(tc, guardrail_outside_the_correction);
    tcase_add_test(tc, verdicts);
    tcase_add_test(tc, inconclusive_says_what_would_decide);
    tcase_add_test(tc, counts_without_spread);
    tcase_add_test(tc, across_campaigns);
    tcase_add_test(tc, cpu_set_a_factor);
    tcase_add_test(tc, cpu_set_not_modelled);
    tcase_add_test(tc, trimmed_ignores_a_wild_round);
    tcase_add_test(tc, trimmed_with_cpu_set_a_factor);
    tcase_add_test(tc, trimmed_keeps_tied_rounds);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, stated_power);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
