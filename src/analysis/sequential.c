#include "sequential.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* gamma of the Hwang-Shih-DeCani spending function alpha (1 - e^(-gamma t)) / (1 -
 * e^(-gamma)) at information fraction t = round / max: 0 spends evenly, positive values
 * early (like Pocock's boundaries), negative late (like O'Brien-Fleming's). Chosen by
 * the calibration (tests/bench/calibrate.c sequential; -3, -2 and -1 tried): -1 calls a 3x
 * change at the first look 99.5% of the time with CPU gated, and keeps most of the fixed
 * design's power at the cap. */
#define SEQ_GAMMA (-1.0)
/* A comparison stops holding the campaign when, were its change what the look estimates,
 * the cap would decide it less often than this (stochastic curtailment: Lan, Simon &
 * Halperin 1982). It is left inconclusive; the rule only ends looks, so it cannot add a
 * false alarm (a non-binding futility rule). */
#define SEQ_FUTILITY 0.10
/* The boundaries are those of the statistic the gate tests, the one-sample t of the
 * rounds so far, whose spread is estimated anew at every look from as few as 2 degrees of
 * freedom: mapping it to the z scale through its own distribution (its one-sided p) keeps
 * each look's level, but the looks of a t are less correlated than those of a z (each
 * divides by its own estimate of the spread), so boundaries computed for a z crossed more
 * often in all than alpha (5.4% at 5% over 3 to 10 rounds, tests/bench/calibrate.c
 * budget). They are set instead on SEQ_PATHS simulated t paths under "no change": at each
 * look, the level that the paths still running cross in the share the spending function
 * releases. The t of normal rounds is free of their mean and spread, so one simulation
 * serves every campaign; a fixed seed gives every run the same boundaries. SEQ_PATHS
 * (2^17) puts a boundary's total alpha within 1.2% of itself (one standard error at
 * 0.05); the first look's level is the t's own quantile, exact. */
#define SEQ_SEED 20261205u

static double spent(long round, long max, double gamma)
{
    if (round >= max)
        return 1.0;
    double t = (double)round / (double)max;
    return gamma == 0 ? t : expm1(-gamma * t) / expm1(-gamma);
}

/* Two standard normals (Box-Muller, both of its values). */
static void normal_pair(uint64_t *rng, double *a, double *b)
{
    double u = ((double)(stats_random(rng) >> 11) + 0.5) / 9007199254740992.0;
    double v = ((double)(stats_random(rng) >> 11) + 0.5) / 9007199254740992.0;
    double r = sqrt(-2.0 * log(u));
    *a = r * cos(2.0 * M_PI * v);
    *b = r * sin(2.0 * M_PI * v);
}

/* The value with k values above it in t[0..n) (k < n), t reordered (Hoare's selection). */
static double select_descending(double *t, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = t[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (t[i] > pivot)
                i++;
            while (t[j] < pivot)
                j--;
            if (i <= j) {
                double x = t[i];
                t[i] = t[j];
                t[j] = x;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return t[k];
}

static void compute_boundary(long max, double gamma, double alpha, double *nominal)
{
    /* the paths still running: their mean and sum of squared deviations (Welford) */
    double *mean = xcalloc(SEQ_PATHS, sizeof(double)), *m2 = xcalloc(SEQ_PATHS, sizeof(double));
    double *t = xcalloc(SEQ_PATHS, sizeof(double)), *sorted = xcalloc(SEQ_PATHS, sizeof(double));
    size_t running = SEQ_PATHS;
    uint64_t rng = SEQ_SEED;
    double spent_before = 0;
    for (long round = 1; round <= max && running; round++) {
        double r = (double)round, x[2];
        for (size_t i = 0; i < running; i++) {
            if (i % 2 == 0)
                normal_pair(&rng, &x[0], &x[1]);
            double d = x[i % 2] - mean[i];
            mean[i] += d / r;
            m2[i] += d * (x[i % 2] - mean[i]);
        }
        if (round < SEQ_MIN_ROUNDS)
            continue;
        for (size_t i = 0; i < running; i++)
            t[i] = m2[i] > 0 ? mean[i] * sqrt(r * (r - 1) / m2[i]) : 0;
        double level, want = alpha * (spent(round, max, gamma) - spent_before);
        size_t cross = (size_t)fmax(0, floor(want * SEQ_PATHS + 0.5));
        spent_before = spent(round, max, gamma);
        if (round == SEQ_MIN_ROUNDS) {
            /* no path has stopped yet: the level is the t's own quantile, exactly */
            nominal[round] = want;
            level = stats_t_quantile(1.0 - want, r - 1);
        } else if (cross == 0 || cross >= running) {
            nominal[round] = cross ? 1.0 : 0; /* nothing left to spend, or all of it */
            running = cross ? 0 : running;
            continue;
        } else {
            /* the level between the cross-th largest t and the next */
            memcpy(sorted, t, running * sizeof(double));
            double below = select_descending(sorted, running, cross), above = INFINITY;
            for (size_t i = 0; i < cross; i++)
                above = fmin(above, sorted[i]);
            level = 0.5 * (below + above);
            nominal[round] = stats_t_cdf(-level, r - 1);
        }
        size_t kept = 0;
        for (size_t i = 0; i < running; i++)
            if (t[i] < level) {
                mean[kept] = mean[i];
                m2[kept] = m2[i];
                kept++;
            }
        running = kept;
    }
    free(mean);
    free(m2);
    free(t);
    free(sorted);
}

double seq_nominal(struct seq *s, double alpha, long round)
{
    if (round < SEQ_MIN_ROUNDS || round > s->max || !(alpha > 0))
        return 0;
    for (size_t i = 0; i < s->n_boundaries; i++)
        if (s->boundaries[i].alpha == alpha)
            return s->boundaries[i].nominal[round];
    s->boundaries = xrealloc(s->boundaries, (s->n_boundaries + 1) * sizeof(*s->boundaries));
    struct seq_boundary *b = &s->boundaries[s->n_boundaries++];
    b->alpha = alpha;
    b->nominal = xcalloc((size_t)s->max + 1, sizeof(double));
    compute_boundary(s->max, s->gamma, alpha, b->nominal);
    return b->nominal[round];
}

int seq_init(struct seq *s, size_t n, long max, const struct gate_opts *o, struct lb_error *err)
{
    return seq_init_spending(s, n, max, SEQ_GAMMA, o, err);
}

int seq_init_spending(struct seq *s, size_t n, long max, double gamma, const struct gate_opts *o,
                      struct lb_error *err)
{
    memset(s, 0, sizeof(*s));
    if (max < SEQ_MIN_ROUNDS || max > SEQ_LIMIT_MAX)
        return lb_fail(err, "--repeat auto=%ld: the cap must lie between %d and %d rounds", max,
                       SEQ_MIN_ROUNDS, SEQ_LIMIT_MAX);
    if (!(o->alpha > 0 && o->alpha < 1) ||
        !(o->equivalence_alpha > 0 && o->equivalence_alpha < 0.5))
        return lb_fail(err,
                       "sequential gate: alpha %g must lie in (0, 1) and equivalence alpha "
                       "%g in (0, 0.5)",
                       o->alpha, o->equivalence_alpha);
    size_t looks = (size_t)(max - SEQ_MIN_ROUNDS + 1), cells = looks * (n ? n : 1);
    s->max = max;
    s->gamma = gamma;
    s->alpha = o->alpha;
    s->equivalence_alpha = o->equivalence_alpha;
    s->n = n;
    s->p_worse = xcalloc(cells, sizeof(double));
    s->p_better = xcalloc(cells, sizeof(double));
    s->past = xcalloc(cells, sizeof(signed char));
    s->latest = xcalloc(n ? n : 1, sizeof(struct gate_result));
    s->decided_at = xcalloc(n ? n : 1, sizeof(long));
    s->futile = xcalloc(n ? n : 1, sizeof(bool));
    return 0;
}

void seq_reset(struct seq *s)
{
    size_t cells = (size_t)(s->max - SEQ_MIN_ROUNDS + 1) * (s->n ? s->n : 1);
    s->looks = 0;
    memset(s->p_worse, 0, cells * sizeof(double));
    memset(s->p_better, 0, cells * sizeof(double));
    memset(s->past, 0, cells * sizeof(signed char));
    memset(s->latest, 0, (s->n ? s->n : 1) * sizeof(struct gate_result));
    memset(s->decided_at, 0, (s->n ? s->n : 1) * sizeof(long));
    memset(s->futile, 0, (s->n ? s->n : 1) * sizeof(bool));
}

static double normal_quantile(double p)
{
    return stats_t_quantile(p, 1e9);
}

/* The chance, were r's change what the look after `round` estimates and its spread per
 * round what it shows, that the cap decides it: regressed or improved at the boundary of
 * Holm's first step (the least a call needs), or no change by the equivalence boundary. */
static double chance_decided_at_cap(struct seq *s, const struct gate_result *r, long round,
                                    size_t family)
{
    if (r->n < 2)
        return 1.0;
    if (!(r->se > 0)) /* moved alike in every round: the sign test's p halves each round */
        return ldexp(1.0, -(int)s->max) <= seq_nominal(s, s->alpha / (double)family, s->max);
    double sigma = r->se * sqrt((double)r->n), k = (double)round, cap = (double)s->max;
    double final_se = sigma / sqrt(cap), spread = sigma * sqrt(cap - k) / cap;
    double need =
        normal_quantile(1.0 - seq_nominal(s, s->alpha / (double)family, s->max)) * final_se;
    need = fmax(need, r->edge);
    double called = 1.0 - stats_normal_cdf((need - r->delta) / spread) +
                    stats_normal_cdf((-need - r->delta) / spread);
    double inside =
        r->edge - normal_quantile(1.0 - seq_nominal(s, s->equivalence_alpha, s->max)) * final_se;
    double equivalent = inside > 0 ? stats_normal_cdf((inside - r->delta) / spread) -
                                         stats_normal_cdf((-inside - r->delta) / spread)
                                   : 0;
    return called + equivalent;
}

/* Holm recycled over the looks in one direction: the comparisons not yet fixed are held
 * to alpha / (those not called yet in this direction), at every look so far; each call
 * frees its share for the rest, so the step-down repeats until nothing more crosses. */
static void step_down(struct seq *s, long round, const double *p, int toward, enum verdict verdict,
                      const bool *tested)
{
    size_t called = 0, family = 0;
    for (size_t i = 0; i < s->n; i++) {
        family += tested[i] || s->decided_at[i];
        called += s->decided_at[i] && s->latest[i].verdict == verdict;
    }
    for (bool more = true; more && called < family;) {
        more = false;
        double level = s->alpha / (double)(family - called);
        for (size_t i = 0; i < s->n; i++) {
            if (s->decided_at[i] || !tested[i])
                continue;
            for (long look = 0; look < s->looks; look++) {
                size_t at = (size_t)look * s->n + i;
                if (s->past[at] == toward &&
                    p[at] <= seq_nominal(s, level, SEQ_MIN_ROUNDS + look)) {
                    s->latest[i].verdict = verdict;
                    s->decided_at[i] = round;
                    called++;
                    more = true;
                    break;
                }
            }
        }
    }
}

size_t seq_look(struct seq *s, long round, const struct gate_result *now, const bool *gated)
{
    if (round != SEQ_MIN_ROUNDS + s->looks || round > s->max)
        return 0;
    bool *tested = xcalloc(s->n ? s->n : 1, sizeof(bool));
    for (size_t i = 0; i < s->n; i++) {
        size_t at = (size_t)s->looks * s->n + i;
        tested[i] = now[i].tested && !s->decided_at[i];
        s->p_worse[at] = tested[i] ? now[i].p_worse : 1.0;
        s->p_better[at] = tested[i] ? now[i].p_better : 1.0;
        s->past[at] = (signed char)(tested[i] ? now[i].past_threshold : 0);
        if (!s->decided_at[i])
            s->latest[i] = now[i];
    }
    s->looks++;
    step_down(s, round, s->p_worse, 1, VERDICT_REGRESSED, tested);
    step_down(s, round, s->p_better, -1, VERDICT_IMPROVED, tested);
    double equivalent = seq_nominal(s, s->equivalence_alpha, round);
    size_t undecided = 0, family = 0;
    for (size_t i = 0; i < s->n; i++)
        family += tested[i] || s->decided_at[i];
    for (size_t i = 0; i < s->n; i++) {
        if (s->decided_at[i])
            continue;
        if (tested[i] && now[i].p_equivalent <= equivalent) {
            s->latest[i].verdict = VERDICT_NO_CHANGE;
            s->decided_at[i] = round;
            continue;
        }
        /* a guardrail keeps the word of the rounds so far; a test not decided waits, and
         * one its design cannot make yet (pending) is undecided until it can */
        s->futile[i] = false;
        if (!tested[i]) {
            undecided += now[i].pending && (!gated || gated[i]);
            continue;
        }
        s->latest[i].verdict = VERDICT_INCONCLUSIVE;
        s->futile[i] =
            round < s->max && chance_decided_at_cap(s, &now[i], round, family) < SEQ_FUTILITY;
        undecided += !s->futile[i] && (!gated || gated[i]);
    }
    free(tested);
    return undecided;
}

void seq_release(struct seq *s)
{
    for (size_t i = 0; i < s->n_boundaries; i++)
        free(s->boundaries[i].nominal);
    free(s->boundaries);
    FREE_ALL(s->p_worse, s->p_better, s->past, s->latest, s->decided_at, s->futile);
    memset(s, 0, sizeof(*s));
}
