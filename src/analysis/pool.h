/* Campaigns from several hosts (or occasions) pooled into one verdict (loopbench compare
 * --pool): each campaign's paired estimate of every setting x metric, as `compare DIR`
 * gives it, pooled by a random-effects model with hosts as the unit. docs/report.md
 * explains the method and its calibration (tests/bench/calibrate.c, bench-pool); its
 * views are src/output/pool_view.c. */
#ifndef LOOPBENCH_POOL_H
#define LOOPBENCH_POOL_H

#include "compare.h"

/* The hosts' variances v[0..k) of the changes, each estimated on dof[i] degrees of
 * freedom (5 rounds give about 4-6), moderated toward each other into out[0..k): each
 * (dof v + d0 s0^2) / (dof + d0), the prior s0^2 and its degrees of freedom d0 fitted to
 * how far the hosts' log variances spread beyond their sampling error (Smyth 2004, by
 * moments, as the gate moderates a campaign's settings): hosts whose spreads differ in
 * truth keep them (d0 small), hosts alike share theirs (d0 infinite: every v the prior).
 * A host without spread (v 0), without degrees of freedom or with a variance known exactly
 * (dof infinite) is left as it is and out of the fit.
 * Returns d0 (0: fewer than 2 hosts to fit). */
double pool_moderated_variances(const double *v, const double *dof, size_t k, double *out);

/* The random-effects model over k >= 2 estimates y[i] with variances v[i] >= 0 on dof[i]
 * degrees of freedom: the variances moderated across hosts (pool_moderated_variances:
 * weights from 5 rounds' spreads alone are noisy, and uneven wrong weights are what made
 * the interval too short when hosts differ), then taken as known: the between-host
 * variance tau^2 by Paule and Mandel (1982), the generalised Q at tau^2 set to its
 * expectation k - 1 (recommended for few studies by Veroniki et al. 2016); the mean
 * weighted by 1 / (v + tau^2); its standard error by Hartung-Knapp-Sidik-Jonkman with the
 * factor max(1, q) (Roever, Knapp and Friede 2015), so it is never below the fixed-effect
 * one; t with k - 1 df. The prediction interval for a new host (Higgins, Thompson and
 * Spiegelhalter 2009): t with k - 2 df on tau^2 + se^2, NaN for k < 3. Every figure on the
 * scale of y. */
struct pool_estimate {
    size_t k;
    double mu, se, df;     /* the pooled change, its HKSJ standard error, k - 1 */
    double tau2;           /* between hosts */
    double q;              /* the generalised Q at tau^2 over k - 1 (1 unless tau^2 is 0) */
    double se_fixed;       /* the fixed-effect (inverse-variance) standard error */
    double prior_df;       /* d0 of the hosts' moderated variances */
    double pi_lo, pi_hi;   /* at `level`; NaN for k < 3 */
    bool mixed_scales;     /* pool_gate: some hosts on logs, some on differences: not pooled */
};
void pool_random_effects(const double *y, const double *v, const double *dof, size_t k,
                         double level, struct pool_estimate *out);

/* n comparisons (what[0..n)) each gated by k hosts, host[c * n + i] host c's result of
 * comparison i as gate_paired gives it, pooled into out[0..n) and re[0..n): each host's
 * change head - base on its scale (a log ratio, or a difference over base's mean) with
 * its variance from its standard error on its degrees of freedom, pooled over the hosts that tested
 * it by pool_random_effects (one host: its own estimate and degrees of freedom), then
 * the verdicts by gate_pooled, Holm over the n; a must_be_zero key regresses when it did
 * on any host. Hosts on different scales are not pooled (untested). -1 with err on bad
 * options. */
int pool_gate(const struct gate_result *host, size_t k, const struct gate_comparison *what,
              size_t n, const struct gate_opts *o, struct gate_result *out,
              struct pool_estimate *re, struct lb_error *err);

/* One setting x metric (x variant) pooled: the pooled gate's result in row.g (change as a
 * fraction), the model in re (on the scale tested: a log ratio, or a difference relative
 * to base), and for each campaign its own row of compare DIR (each[c].rows[at]). */
struct pool_row {
    struct compare_row row;
    struct pool_estimate re;   /* re.k: the campaigns whose comparison was tested */
    const struct compare_row **host; /* [k]: each campaign's own row (borrowed from each);
                                      * NULL where that campaign has none */
};

struct pool_result {
    const struct campaign *const *campaigns; /* borrowed, k of them */
    size_t k;
    struct compare_result *each; /* compare DIR of each campaign */
    struct pool_row *rows;
    size_t n_rows;
    enum verdict worst;          /* over the gated rows */
};

/* Whether campaign b can be pooled with a: the same profile, knob, health keys, settings
 * and variants, in the same order; -1 with err naming the first difference. */
int pool_compatible(const struct campaign *a, const struct campaign *b, struct lb_error *err);

/* compare_variants on each of c[0..k), pooled row by row: Holm over the gated rows
 * pooled, the others corrected among themselves, as compare DIR. With k == 1 the rows are
 * compare DIR's. -1 with err when campaigns differ or compare_variants refuses one. */
int pool_campaigns(const struct campaign *const *c, size_t k, const struct compare_opts *o,
                   struct pool_result *out, struct lb_error *err);
void pool_result_release(struct pool_result *r);

#endif
