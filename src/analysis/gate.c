#include "gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* Beyond this many rounds, "rounds needed" stops being advice. */
#define GATE_MAX_ROUNDS 100

const char *verdict_name(enum verdict v)
{
    switch (v) {
    case VERDICT_IMPROVED: return "improved";
    case VERDICT_REGRESSED: return "regressed";
    case VERDICT_INCONCLUSIVE: return "inconclusive";
    default: return "no change";
    }
}

/* The intervals at 1 - 2 alpha: a change the one-sided test calls (Holm only raises its
 * p) lies outside its interval, and "no change" is the same interval inside the threshold.
 * At 95% a regression at one-sided p 0.04 read "regressed (95% CI -4.7% to +57%)". */
struct gate_opts gate_opts_default(void)
{
    return (struct gate_opts){.alpha = 0.05, .threshold = 0.10, .level = 0.90,
                              .drift = GATE_DRIFT_ALLOWANCE, .prior_df = GATE_PRIOR_DF,
                              .equivalence_alpha = 0.05, .trim = 0};
}

enum method { PAIRED, HISTORY, SINGLE, POOLED };

/* One comparison reduced to a difference on its scale and what its error is made of:
 * var(delta) = spread * factor + fixed, where spread = ss / dof is estimated (moderated
 * by the other settings of its metric) and fixed is known (the drift allowance). */
struct estimate {
    const struct gate_comparison *what; /* borrowed */
    bool ok, log_scale;
    enum method method;
    double delta;     /* head - base: mean log ratio, or difference */
    double scale;     /* what turns delta into a fraction: 1 on logs, |mean of base| */
    double ss, dof;   /* the spread's sum of squares and degrees of freedom */
    double factor, fixed;
    double prior_df;  /* degrees of freedom lent by the other settings */
    double se, df;    /* after moderation */
    size_t n;
    /* paired: the assignments of CPU sets (0: not pinned), modelled as a factor or not
     * (why in cpu_note), half the range of their means; rounds trimmed */
    size_t cpu_sets, trimmed;
    bool crossover, pending;
    double cpu_effect;
    const char *cpu_note;
    const char *test; /* pooled: the model's name, the caller's */
};

static bool positive(double x)
{
    return x > 0 && isfinite(x);
}

/* A difference delta on a scale as a fraction of base: a log ratio, or a difference
 * over |mean of base| (scale). */
static double scaled_fraction(bool log_scale, double scale, double delta)
{
    if (log_scale)
        return expm1(delta);
    if (delta == 0)
        return 0;
    return scale > 0 ? delta / scale : copysign(INFINITY, delta);
}

/* The change as a fraction of base for a difference delta on e's scale. */
static double fraction(const struct estimate *e, double delta)
{
    return scaled_fraction(e->log_scale, e->scale, delta);
}

/* The threshold on e's scale: a ratio of 1 + threshold on logs (symmetric there, so a
 * higher-is-better metric regresses below 1 / 1.10), threshold x |mean of base| else. */
static double bound(const struct estimate *e, const struct gate_opts *o)
{
    return e->log_scale ? log1p(o->threshold) : o->threshold * e->scale;
}

/* Mean and sum of squared deviations of x[0..n), on logs when log_scale (NaN and, on
 * logs, non-positive values skipped); returns how many values counted. */
static size_t moments(const double *x, size_t n, bool log_scale, double *mean, double *ss)
{
    size_t k = 0;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]) || (log_scale && !positive(x[i])))
            continue;
        double v = log_scale ? log(x[i]) : x[i];
        k++;
        /* Welford: stable for the near-equal values of a quiet metric */
        double d = v - sum;
        sum += d / (double)k;
        sq += d * (v - sum);
    }
    *mean = k ? sum : NAN;
    *ss = sq;
    return k;
}

static double mean_of(const double *x, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return n ? sum / (double)n : NAN;
}

static bool all_positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]) && !positive(x[i]))
            return false;
    return true;
}

/* ---- the within-campaign estimate ------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One assignment's rounds x[0..n) trimmed by Yuen's rule (Yuen 1974): g = floor(trim n)
 * from each end; the mean of the h = n - 2g left, and the sum of squares of the
 * winsorized rounds (each beyond the g-th from an end set to it), which Yuen's standard
 * error takes over h (h - 1). With g = 0 these are the mean and sum of squares. Rounds
 * that tie (a count's differences: 0, 1, 1, 1, 3) are not trimmed when the kept ones all
 * tie while the others do not: winsorizing would leave no spread, and a gate without
 * spread takes the sign test's p of all the rounds (2^-n), which rounds that differ do not
 * earn (most of the trimmed gate's A/A false alarms in bench-crossover). Returns g; x is
 * reordered. */
static size_t trimmed(double *x, size_t n, double trim, double *mean, double *ss)
{
    size_t g = (size_t)floor(trim * (double)n);
    if (g > 0) {
        qsort(x, n, sizeof(double), cmp_double);
        if (x[g] == x[n - 1 - g] && x[0] != x[n - 1])
            g = 0;
    }
    if (g == 0) {
        moments(x, n, false, mean, ss);
        return 0;
    }
    *mean = mean_of(x + g, n - 2 * g);
    for (size_t i = 0; i < g; i++) {
        x[i] = x[g];
        x[n - 1 - i] = x[n - 1 - g];
    }
    double winsorized_mean;
    moments(x, n, false, &winsorized_mean, ss);
    return g;
}

/* Which assignments of CPU sets the rounds' codes label[0..k) stand for: their number
 * into *sets, and the groups the test models (1 when the CPU set is not a factor, with
 * the reason into *note, NULL when nothing varied; 0 when it varied but cannot be
 * modelled yet: the change is not estimable). Labels are renumbered 0..groups. */
static size_t cpu_groups(int *label, size_t k, size_t *sets, const char **note)
{
    size_t distinct = 0, fewest = k;
    bool unknown = false;
    for (size_t i = 0; i < k; i++) {
        unknown = unknown || label[i] < 0;
        size_t first = i, count = 0;
        for (size_t j = 0; j < k; j++)
            if (label[j] == label[i]) {
                first = j < first ? j : first;
                count++;
            }
        if (first == i) {
            distinct++;
            fewest = count < fewest ? count : fewest;
        }
    }
    *sets = distinct;
    *note = NULL;
    if (unknown)
        *note = "CPU set not modelled: a round did not record its CPUs";
    bool too_few = !unknown && distinct > 1 && fewest < GATE_CROSSOVER_MIN_ROUNDS;
    if (too_few)
        *note = "not decided yet: the rounds ran on different CPU sets and an assignment of "
                "them ran fewer than 2 rounds, so their effect cannot be told from the change";
    if (*note || distinct == 1) {
        memset(label, 0, k * sizeof(int));
        return too_few ? 0 : 1;
    }
    /* number the assignments in order of appearance */
    int *renamed = xcalloc(k, sizeof(int));
    size_t groups = 0;
    for (size_t i = 0; i < k; i++) {
        size_t j = 0;
        while (j < i && label[j] != label[i])
            j++;
        renamed[i] = j < i ? renamed[j] : (int)groups++;
    }
    memcpy(label, renamed, k * sizeof(int));
    free(renamed);
    return groups;
}

/* The per-round changes d (log ratios, or differences) modelled as change + the effect
 * of the round's assignment of CPU sets + noise (a crossover analysis): the change is
 * the mean of the assignments' (trimmed) means, so an effect of the CPUs cancels
 * whatever the balance, var = s^2 sum(1 / h_g) / G^2 over the G assignments, s^2 pooled
 * within them on sum(h_g - 1) degrees of freedom. With one assignment and nothing
 * trimmed this is the paired t. */
static void estimate_paired(const struct gate_paired_input *in, const struct gate_opts *o,
                            struct estimate *e)
{
    memset(e, 0, sizeof(*e));
    e->what = &in->what;
    e->method = PAIRED;
    e->cpu_effect = NAN;
    size_t r = in->rounds;
    double *d = xmalloc((r ? r : 1) * sizeof(double)), *b = xmalloc((r ? r : 1) * sizeof(double));
    double *x = xmalloc((r ? r : 1) * sizeof(double));
    int *label = xcalloc(r ? r : 1, sizeof(int));
    size_t k = 0;
    e->log_scale = all_positive(in->base, r) && all_positive(in->head, r);
    for (size_t i = 0; i < r; i++) {
        if (isnan(in->base[i]) || isnan(in->head[i]))
            continue;
        d[k] = e->log_scale ? log(in->head[i] / in->base[i]) : in->head[i] - in->base[i];
        label[k] = in->cpu_set ? in->cpu_set[i] : 0;
        b[k++] = in->base[i];
    }
    e->n = k;
    e->scale = e->log_scale ? 1.0 : fabs(mean_of(b, k));
    size_t groups = cpu_groups(label, k, &e->cpu_sets, &e->cpu_note);
    if (!in->cpu_set)
        e->cpu_sets = 0;
    bool estimable = groups > 0;
    e->pending = !estimable;
    groups += !estimable; /* its figures still shown, as one group: never tested */
    e->crossover = groups > 1;
    double sum = 0, inverse_h = 0, lowest = INFINITY, highest = -INFINITY;
    for (size_t g = 0; g < groups; g++) {
        size_t m = 0;
        for (size_t i = 0; i < k; i++)
            if (label[i] == (int)g)
                x[m++] = d[i];
        double mean, ss;
        size_t cut = trimmed(x, m, o->trim, &mean, &ss);
        size_t h = m - 2 * cut;
        e->trimmed += 2 * cut;
        sum += mean;
        e->ss += ss;
        e->dof += h > 1 ? (double)(h - 1) : 0;
        inverse_h += h ? 1.0 / (double)h : 0;
        lowest = fmin(lowest, mean);
        highest = fmax(highest, mean);
    }
    e->delta = k ? sum / (double)groups : NAN;
    e->factor = k ? inverse_h / (double)(groups * groups) : 0;
    if (e->crossover)
        e->cpu_effect = (highest - lowest) / 2.0;
    e->ok = estimable && k >= 2 && e->dof > 0;
    free(d);
    free(b);
    free(x);
    free(label);
}

/* ---- the across-campaign estimates ------------------------------------------------- */

static bool across_positive(const struct gate_across_input *in)
{
    for (size_t c = 0; c < in->base_campaigns; c++)
        if (!all_positive(in->base[c], in->base_runs[c]))
            return false;
    return all_positive(in->head, in->head_runs);
}

/* |mean| of every base run: the scale of a metric compared on differences. */
static double base_scale(const struct gate_across_input *in)
{
    double sum = 0;
    size_t k = 0;
    for (size_t c = 0; c < in->base_campaigns; c++)
        for (size_t i = 0; i < in->base_runs[c]; i++)
            if (!isnan(in->base[c][i])) {
                sum += in->base[c][i];
                k++;
            }
    return k ? fabs(sum / (double)k) : NAN;
}

/* Campaigns are the unit: each summarised by the mean of its runs (of their logs). With
 * a history, NEW is held against a prediction from the history's spread between
 * campaigns, var = s_between^2 (1 + 1/k) (the prediction interval for one new campaign).
 * With one campaign a side that spread cannot be measured: the drift allowance stands
 * for it in each campaign, var = 2 drift^2 + s_runs^2 (1/na + 1/nb). */
static void estimate_across(const struct gate_across_input *in, const struct gate_opts *o,
                            struct estimate *e)
{
    memset(e, 0, sizeof(*e));
    e->what = &in->what;
    e->cpu_effect = NAN;
    e->log_scale = across_positive(in);
    e->scale = e->log_scale ? 1.0 : base_scale(in);
    double head_mean, head_ss, sum = 0, sq = 0, within = 0;
    size_t nh = moments(in->head, in->head_runs, e->log_scale, &head_mean, &head_ss);
    size_t k = 0, runs = 0;
    for (size_t c = 0; c < in->base_campaigns; c++) {
        double m, ss;
        size_t nc = moments(in->base[c], in->base_runs[c], e->log_scale, &m, &ss);
        if (nc == 0)
            continue;
        k++;
        runs += nc;
        within += ss;
        double d = m - sum; /* Welford over the campaigns' means */
        sum += d / (double)k;
        sq += d * (m - sum);
    }
    e->n = k;
    e->delta = head_mean - sum;
    if (k >= 2) {
        e->method = HISTORY;
        e->ss = sq;
        e->dof = (double)(k - 1);
        e->factor = 1.0 + 1.0 / (double)k;
        e->ok = nh >= 1;
        return;
    }
    e->method = SINGLE;
    e->ss = within + head_ss;
    e->dof = runs + nh >= 2 ? (double)(runs + nh - 2) : 0;
    e->factor = runs && nh ? 1.0 / (double)runs + 1.0 / (double)nh : 0;
    e->fixed = 2.0 * pow(o->drift * e->scale, 2);
    e->ok = k == 1 && runs >= 2 && nh >= 2;
}

/* ---- hosts pooled ------------------------------------------------------------------- */

/* The pooled model's estimate as given: its spread is its own (hosts are the unit, the
 * settings lend nothing), so it is final here. */
static void estimate_pooled(const struct gate_pooled_input *in, struct estimate *e)
{
    memset(e, 0, sizeof(*e));
    e->what = &in->what;
    e->method = POOLED;
    e->cpu_effect = NAN;
    e->log_scale = in->log_scale;
    e->scale = 1.0;
    e->delta = in->change;
    e->se = in->se;
    e->df = in->df;
    e->n = in->hosts;
    e->test = in->test;
    e->ok = in->hosts >= 1 && isfinite(in->change) && in->se >= 0 && in->df > 0;
}

/* ---- the spread, the tests, the verdicts ---------------------------------------------- */

static bool same_group(const struct estimate *a, const struct estimate *b)
{
    return a->ok && b->ok && a->log_scale && b->log_scale && a->method == b->method &&
           strcmp(a->what->metric, b->what->metric) == 0;
}

/* The prior's degrees of freedom fitted to the spreads of e[i]'s group (Smyth 2004,
 * section 6.2, by moments): each log s^2 has a known sampling variance, trigamma(dof /
 * 2); what the settings' log s^2 spread beyond it is the real difference between their
 * variances, and trigamma(d0 / 2) = that excess. Alike spreads give an infinite d0,
 * spreads far apart a small one. Settings without spread are left out (log 0). */
static double fitted_prior_df(const struct estimate *e, size_t n, size_t i)
{
    double mean = 0, sq = 0, sampling = 0;
    size_t g = 0;
    for (size_t j = 0; j < n; j++) {
        if (!same_group(&e[i], &e[j]) || !(e[j].dof > 0) || !(e[j].ss > 0))
            continue;
        double half = e[j].dof / 2.0;
        double z = log(e[j].ss / e[j].dof) - stats_digamma(half) + log(half);
        g++;
        double d = z - mean; /* Welford */
        mean += d / (double)g;
        sq += d * (z - mean);
        sampling += stats_trigamma(half);
    }
    if (g < 2)
        return 0;
    double excess = sq / (double)(g - 1) - sampling / (double)g;
    return excess > 0 ? 2.0 * stats_trigamma_inverse(excess) : INFINITY;
}

/* Each estimate's standard error and degrees of freedom. A comparison's spread is its
 * own, moderated by the other settings of its metric (same method, on logs): the
 * settings of a campaign share a host, so the others say something about this one's
 * spread, but not everything. On the VM of issue 14 one setting's per-round spread was
 * 1.8x another's under load and 15x on a quiet host (spinning is nearly deterministic),
 * and pooling them all under-stated the noisier one. So the others count as d0 degrees
 * of freedom (Smyth 2004's moderated variance, the prior's variance being the others'
 * pooled one): d0 fitted to how far the settings' spreads differ, at most
 * o->prior_df and what the others hold; s2 = (ss + d0 s0^2) / (dof + d0), its degrees of
 * freedom by Satterthwaite since s0^2 is itself estimated. As rounds accrue the own
 * spread dominates. Settings without spread lend none. Differences are not moderated:
 * their scale is the setting's own. */
static void spread(struct estimate *e, size_t n, const struct gate_opts *o)
{
    for (size_t i = 0; i < n; i++) {
        if (!e[i].ok || e[i].method == POOLED)
            continue;
        double others_ss = 0, others_dof = 0;
        for (size_t j = 0; e[i].log_scale && j < n; j++)
            if (j != i && same_group(&e[i], &e[j]) && e[j].ss > 0) {
                others_ss += e[j].ss;
                others_dof += e[j].dof;
            }
        double d0 = others_dof > 0
                        ? fmin(fmin(o->prior_df, fitted_prior_df(e, n, i)), others_dof)
                        : 0;
        double dof = e[i].dof + d0;
        double s2 = dof > 0 ? (e[i].ss + (d0 > 0 ? d0 * others_ss / others_dof : 0)) / dof : 0;
        e[i].prior_df = d0;
        /* var(s2) / sigma^2 = (2 dof_own + 2 d0^2 / others_dof) / dof^2 */
        if (d0 > 0)
            dof = dof * dof / (e[i].dof + d0 * d0 / others_dof);
        /* The settings of a campaign drift together: a history of k campaigns holds k - 1
         * degrees of freedom however many settings lend it their spread (they only
         * steady the estimate). Rounds and runs are independent draws. */
        if (e[i].method == HISTORY)
            dof = e[i].dof;
        double sampled = s2 * e[i].factor;
        e[i].se = sqrt(sampled + e[i].fixed);
        /* A known part (the allowance) has infinite degrees of freedom: Satterthwaite. */
        e[i].df = e[i].fixed > 0 && sampled > 0
                      ? pow(sampled + e[i].fixed, 2) / (sampled * sampled / dof)
                      : dof;
        if (e[i].fixed > 0 && sampled == 0)
            e[i].df = INFINITY;
        if (!(dof > 0) && e[i].fixed == 0)
            e[i].ok = false;
        e[i].ok = e[i].ok && isfinite(e[i].delta);
    }
}

/* P(T <= t) with df degrees of freedom, the normal when df is infinite. */
static double cdf(double t, double df)
{
    if (isinf(df))
        return stats_normal_cdf(t);
    return stats_t_cdf(t, df);
}

static double quantile(double p, double df)
{
    return stats_t_quantile(p, isinf(df) ? 1e9 : df);
}

/* With no spread at all (a count that moved by the same amount in every round), t is
 * undefined and would call any difference certain. The exact randomization test is
 * used instead, and its smallest one-sided p is all it can say: paired, the sign of
 * each of n rounds could have been flipped (2^-n; 0.125 at 3 rounds); across, NEW is
 * one of k + 1 exchangeable campaigns (1 / (k + 1)). */
static double floor_p(const struct estimate *e)
{
    if (e->method == PAIRED || e->method == POOLED) /* pooled: each host's sign */
        return ldexp(1.0, -(int)e->n);
    return 1.0 / (double)(e->n + 1);
}

/* The p of "no change" by two one-sided tests: the nearer edge decides. Without
 * spread, the randomization test's smallest p, or 0 when nothing moved. */
static double p_equivalent(const struct estimate *e, double edge)
{
    double inside = edge - fabs(e->delta);
    if (e->se > 0)
        return cdf(-inside / e->se, e->df);
    if (e->delta == 0)
        return 0;
    return inside > 0 ? floor_p(e) : 1.0;
}

struct ranked_p {
    double p;
    size_t i;
};

/* Ascending p; ties may fall in any order, Holm's running maximum gives them one value. */
static int cmp_ranked_p(const void *a, const void *b)
{
    double x = ((const struct ranked_p *)a)->p, y = ((const struct ranked_p *)b)->p;
    return (x > y) - (x < y);
}

/* Holm's step-down adjusted p-values (Holm 1979) of the tested p[i] (use[i]) into
 * adj[i]: rejecting adj < alpha keeps the chance of any false rejection below alpha
 * under any dependence between the tests. */
static void holm(const double *p, const bool *use, size_t n, double *adj)
{
    struct ranked_p *r = xmalloc((n ? n : 1) * sizeof(*r));
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        adj[i] = NAN;
        if (use[i])
            r[m++] = (struct ranked_p){p[i], i};
    }
    qsort(r, m, sizeof(*r), cmp_ranked_p);
    double running = 0;
    for (size_t k = 0; k < m; k++) {
        running = fmax(running, fmin(1.0, (double)(m - k) * r[k].p));
        adj[r[k].i] = running;
    }
    free(r);
}

static const char *test_name(const struct estimate *e)
{
    /* [trimmed][CPU set a factor][log scale] */
    static const char *const paired[2][2][2] = {
        {{"paired t on differences", "paired t on log ratios"},
         {"paired t on differences, CPU set a factor", "paired t on log ratios, CPU set a factor"}},
        {{"trimmed paired t on differences (Yuen)", "trimmed paired t on log ratios (Yuen)"},
         {"trimmed paired t on differences (Yuen), CPU set a factor",
          "trimmed paired t on log ratios (Yuen), CPU set a factor"}},
    };
    if (e->method == PAIRED)
        return paired[e->trimmed > 0][e->crossover][e->log_scale];
    if (e->method == POOLED)
        return e->test;
    static const char *const names[][2] = {
        [HISTORY] = {"prediction from the history", "prediction from the history, logs"},
        [SINGLE] = {"t + drift allowance", "t on logs + drift allowance"},
    };
    return names[e->method][e->log_scale];
}

/* The smallest regression a paired gate could call at r rounds, the spread per round
 * sd as measured (its degrees of freedom grow with the rounds). */
static double smallest_at(long r, double sd, double per_round, double crit_p)
{
    return quantile(crit_p, per_round * (double)(r - 1)) * sd / sqrt((double)r);
}

/* Rounds that would bring the smallest regression this gate can call down to the
 * threshold at the spread measured; 0 beyond GATE_MAX_ROUNDS. */
static long rounds_needed(const struct estimate *e, double crit_p, double edge)
{
    if (e->method != PAIRED || e->n < 2)
        return 0;
    double sd = e->se * sqrt((double)e->n), per_round = e->df / (double)(e->n - 1);
    if (smallest_at(GATE_MAX_ROUNDS, sd, per_round, crit_p) > edge)
        return 0;
    /* it shrinks as rounds grow: bisect for the first that reaches the edge */
    long lo = (long)e->n, hi = GATE_MAX_ROUNDS;
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if (smallest_at(mid, sd, per_round, crit_p) <= edge)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static void untested(const struct gate_comparison *w, const struct estimate *e,
                     struct gate_result *out)
{
    memset(out, 0, sizeof(*out));
    out->log_scale = e->log_scale;
    out->n = e->n;
    out->change = out->lo = out->hi = out->df = out->p = out->p_worse = out->p_adjusted =
        out->p_better = out->p_equivalent = out->detectable = out->delta = out->se = out->edge =
        NAN;
    out->test = w->must_be_zero ? "must stay 0" : NULL;
    out->cpu_sets = e->cpu_sets;
    out->cpu_effect = e->cpu_effect;
    out->cpu_note = e->cpu_note;
    out->pending = e->pending;
    out->trimmed = e->trimmed;
    out->scale = e->scale;
    out->verdict = w->must_be_zero ? (w->guardrail_hit ? VERDICT_REGRESSED : VERDICT_NO_CHANGE)
                                   : VERDICT_INCONCLUSIVE;
}

/* Verdicts of every comparison from its estimate: Holm over the tested ones toward harm
 * (the gate's alpha), and separately toward benefit (an "improved" claim holds at the
 * same alpha over the gate); no change by two one-sided tests; inconclusive otherwise. */
static void decide(struct estimate *e, size_t n, const struct gate_opts *o,
                   struct gate_result *out)
{
    double *worse = xcalloc(n + 1, sizeof(double)), *better = xcalloc(n + 1, sizeof(double));
    double *adj_worse = xcalloc(n + 1, sizeof(double)), *adj_better = xcalloc(n + 1, sizeof(double));
    bool *use = xcalloc(n + 1, sizeof(bool));
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        use[i] = e[i].ok && !e[i].what->must_be_zero;
        m += use[i];
        if (!use[i])
            continue;
        double h = e[i].what->lower_is_better ? e[i].delta : -e[i].delta;
        if (e[i].se > 0) {
            worse[i] = cdf(-h / e[i].se, e[i].df);
            better[i] = cdf(h / e[i].se, e[i].df);
        } else {
            worse[i] = h > 0 ? floor_p(&e[i]) : 1.0;
            better[i] = h < 0 ? floor_p(&e[i]) : 1.0;
        }
    }
    holm(worse, use, n, adj_worse);
    holm(better, use, n, adj_better);
    double crit_p = 1.0 - o->alpha / (double)(m ? m : 1); /* Holm's first, strictest step */
    for (size_t i = 0; i < n; i++) {
        struct gate_result *r = &out[i];
        untested(e[i].what, &e[i], r);
        if (!use[i])
            continue;
        const struct estimate *x = &e[i];
        double edge = bound(x, o), h = e[i].what->lower_is_better ? x->delta : -x->delta;
        double q = quantile(1.0 - (1.0 - o->level) / 2.0, x->df) * x->se;
        double q90 = quantile(1.0 - o->equivalence_alpha, x->df) * x->se;
        bool degenerate = x->se == 0 && x->delta != 0;
        /* the randomization test's interval: the point, or everything when even its
         * smallest p does not reach the level */
        if (degenerate)
            q = q90 = 2.0 * floor_p(x) < 1.0 - o->level ? 0 : INFINITY;
        r->tested = true;
        r->cpu_modelled = x->crossover;
        r->prior_df = x->prior_df;
        r->test = test_name(x);
        r->df = x->df;
        r->change = fraction(x, x->delta);
        r->lo = fraction(x, x->delta - q);
        r->hi = fraction(x, x->delta + q);
        r->p = x->se > 0 ? 2.0 * cdf(-fabs(x->delta / x->se), x->df)
                         : (x->delta == 0 ? 1.0 : fmin(1.0, 2.0 * floor_p(x)));
        if (degenerate)
            r->test = x->method == PAIRED || x->method == POOLED ? "sign test (no spread)"
                                          : "rank among campaigns (no spread)";
        r->p_worse = worse[i];
        r->p_adjusted = adj_worse[i];
        r->p_better = better[i];
        r->p_equivalent = p_equivalent(x, edge);
        r->past_threshold = h > edge ? 1 : (-h > edge ? -1 : 0);
        r->delta = e[i].what->lower_is_better ? x->delta : -x->delta;
        r->se = x->se;
        r->edge = edge;
        double smallest = fmax(quantile(crit_p, x->df) * x->se, edge);
        r->detectable = fraction(x, e[i].what->lower_is_better ? smallest : -smallest);
        if (adj_worse[i] < o->alpha && h > edge)
            r->verdict = VERDICT_REGRESSED;
        else if (adj_better[i] < o->alpha && -h > edge)
            r->verdict = VERDICT_IMPROVED;
        else if (fabs(x->delta) + q90 < edge || (x->se == 0 && x->delta == 0))
            r->verdict = VERDICT_NO_CHANGE;
        else
            r->verdict = VERDICT_INCONCLUSIVE;
        if (r->verdict == VERDICT_INCONCLUSIVE)
            r->rounds_needed = rounds_needed(x, crit_p, edge);
    }
    free(worse);
    free(better);
    free(adj_worse);
    free(adj_better);
    free(use);
}

static int check_opts(const struct gate_opts *o, struct lb_error *err)
{
    if (!(o->alpha > 0 && o->alpha < 1) || !(o->level > 0 && o->level < 1) ||
        !(o->equivalence_alpha > 0 && o->equivalence_alpha < 0.5))
        return lb_fail(err, "gate: alpha %g, level %g and equivalence alpha %g must lie between "
                            "0 and 1 (the last below 0.5)",
                       o->alpha, o->level, o->equivalence_alpha);
    if (!(o->trim >= 0 && o->trim < 0.5))
        return lb_fail(err, "gate: trim %g must lie in [0, 0.5)", o->trim);
    if (!(o->threshold >= 0) || !(o->drift >= 0))
        return lb_fail(err, "gate: threshold %g and drift %g must be 0 or more", o->threshold,
                       o->drift);
    return 0;
}

/* Any gate: each input's estimate (in[] holds the inputs of `method`: paired, across
 * (HISTORY) or pooled), then the spread, tests and verdicts of them all. */
static int gate(const void *in, enum method method, size_t n, const struct gate_opts *o,
                struct gate_result *out, struct lb_error *err)
{
    if (check_opts(o, err) < 0)
        return -1;
    struct estimate *e = xcalloc(n + 1, sizeof(*e));
    for (size_t i = 0; i < n; i++) {
        if (method == HISTORY)
            estimate_across(&((const struct gate_across_input *)in)[i], o, &e[i]);
        else if (method == POOLED)
            estimate_pooled(&((const struct gate_pooled_input *)in)[i], &e[i]);
        else
            estimate_paired(&((const struct gate_paired_input *)in)[i], o, &e[i]);
    }
    spread(e, n, o);
    decide(e, n, o, out);
    free(e);
    return 0;
}

int gate_paired(const struct gate_paired_input *in, size_t n, const struct gate_opts *o,
                struct gate_result *out, struct lb_error *err)
{
    return gate(in, PAIRED, n, o, out, err);
}

int gate_across(const struct gate_across_input *in, size_t n, const struct gate_opts *o,
                struct gate_result *out, struct lb_error *err)
{
    return gate(in, HISTORY, n, o, out, err);
}

int gate_pooled(const struct gate_pooled_input *in, size_t n, const struct gate_opts *o,
                struct gate_result *out, struct lb_error *err)
{
    return gate(in, POOLED, n, o, out, err);
}

void gate_holm_joint(struct gate_result *const *r, size_t n, double alpha)
{
    double *p = xcalloc(n + 1, sizeof(double)), *adj = xcalloc(n + 1, sizeof(double));
    bool *use = xcalloc(n + 1, sizeof(bool));
    for (size_t i = 0; i < n; i++) {
        use[i] = r[i]->tested;
        p[i] = r[i]->p_worse;
    }
    holm(p, use, n, adj);
    for (size_t i = 0; i < n; i++) {
        if (!use[i])
            continue;
        r[i]->p_adjusted = adj[i];
        if (r[i]->verdict == VERDICT_REGRESSED && !(adj[i] < alpha))
            r[i]->verdict = VERDICT_INCONCLUSIVE;
    }
    free(p);
    free(adj);
    free(use);
}

double gate_detectable(const struct gate_result *r, bool lower_is_better, double crit_p,
                       double power)
{
    if (!r->tested || !(r->se > 0))
        return NAN;
    double d = stats_t_detectable(r->se, r->df, crit_p, power, r->edge);
    return scaled_fraction(r->log_scale, r->scale, lower_is_better ? d : -d);
}

enum verdict gate_worst(const struct gate_result *r, size_t n)
{
    static const int rank[] = {[VERDICT_NO_CHANGE] = 0, [VERDICT_IMPROVED] = 1,
                               [VERDICT_INCONCLUSIVE] = 2, [VERDICT_REGRESSED] = 3};
    enum verdict worst = VERDICT_NO_CHANGE;
    for (size_t i = 0; i < n; i++)
        if (rank[r[i].verdict] > rank[worst])
            worst = r[i].verdict;
    return worst;
}
