#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Copy the non-NaN values, sorted (new array, caller frees). */
static double *sorted_finite(const double *x, size_t n, size_t *m)
{
    double *v = xmalloc((n ? n : 1) * sizeof(*v));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            v[k++] = x[i];
    qsort(v, k, sizeof(*v), cmp_double);
    *m = k;
    return v;
}

static double median_sorted(const double *v, size_t m)
{
    if (m == 0)
        return NAN;
    return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2.0;
}

double stats_median(const double *x, size_t n)
{
    size_t m;
    double *v = sorted_finite(x, n, &m);
    double med = median_sorted(v, m);
    free(v);
    return med;
}

void stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
    size_t m;
    double *v = sorted_finite(x, n, &m);
    out->n = m;
    if (m == 0) {
        out->median = out->min = out->max = out->mean = out->sd = out->mad = NAN;
        free(v);
        return;
    }
    out->median = median_sorted(v, m);
    out->min = v[0];
    out->max = v[m - 1];
    double sum = 0;
    for (size_t i = 0; i < m; i++)
        sum += v[i];
    out->mean = sum / (double)m;
    double ss = 0;
    for (size_t i = 0; i < m; i++)
        ss += (v[i] - out->mean) * (v[i] - out->mean);
    out->sd = m > 1 ? sqrt(ss / (double)(m - 1)) : 0.0;
    for (size_t i = 0; i < m; i++)
        v[i] = fabs(v[i] - out->median);
    qsort(v, m, sizeof(*v), cmp_double);
    out->mad = median_sorted(v, m);
    free(v);
}

/* ---- distributions ------------------------------------------------------------------ */

#define LENTZ_TINY 1e-300

/* One term of the modified Lentz recurrence: updates c and d for the term's numerator
 * and returns the factor the fraction is multiplied by. Tiny values stand in for zeros
 * so no step divides by 0. */
static double lentz_step(double num, double *c, double *d)
{
    *d = 1.0 + num * *d;
    *c = 1.0 + num / *c;
    if (fabs(*d) < LENTZ_TINY)
        *d = LENTZ_TINY;
    if (fabs(*c) < LENTZ_TINY)
        *c = LENTZ_TINY;
    *d = 1.0 / *d;
    return *d * *c;
}

/* The continued fraction of I_x(a, b) by the modified Lentz method; converges fast
 * for x < (a + 1) / (a + b + 2), the caller uses the symmetry otherwise. */
static double betacf(double a, double b, double x)
{
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < LENTZ_TINY)
        d = LENTZ_TINY;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 1000; m++) {
        double m2 = 2.0 * m;
        h *= lentz_step(m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)), &c, &d);
        double del = lentz_step(-(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)), &c, &d);
        h *= del;
        if (fabs(del - 1.0) < 1e-15)
            break;
    }
    return h;
}

double stats_betainc(double a, double b, double x)
{
    if (isnan(x) || a <= 0 || b <= 0)
        return NAN;
    if (x <= 0)
        return 0.0;
    if (x >= 1)
        return 1.0;
    double lbeta = lgamma(a + b) - lgamma(a) - lgamma(b);
    double front = exp(lbeta + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * betacf(a, b, x) / a;
    return 1.0 - front * betacf(b, a, 1.0 - x) / b;
}

/* Recurrence up to x >= 6, then the asymptotic series (error below 1e-12 there). */
double stats_digamma(double x)
{
    double shift = 0;
    for (; x < 10; x += 1)
        shift -= 1.0 / x;
    double f = 1.0 / (x * x);
    return shift + log(x) - 0.5 / x -
           f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

double stats_trigamma(double x)
{
    double shift = 0;
    for (; x < 10; x += 1)
        shift += 1.0 / (x * x);
    double f = 1.0 / (x * x);
    return shift + 1.0 / x + f / 2 +
           f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * 5.0 / 66))));
}

static double tetragamma(double x)
{
    double shift = 0;
    for (; x < 10; x += 1)
        shift -= 2.0 / (x * x * x);
    double f = 1.0 / (x * x);
    return shift - f - f / x - f * f / 2 +
           f * f * f * (1.0 / 6 - f * (1.0 / 6 - f * (3.0 / 10 - f * 5.0 / 6)));
}

/* Newton's method on 1 / trigamma, which is nearly linear, from x = 0.5 + 1/y (Smyth
 * 2004, as limma's trigammaInverse): a few steps. */
double stats_trigamma_inverse(double y)
{
    if (!(y > 0))
        return NAN;
    if (y > 1e7)
        return 1.0 / sqrt(y);
    if (y < 1e-6)
        return 1.0 / y;
    double x = 0.5 + 1.0 / y;
    for (int i = 0; i < 50; i++) {
        double tri = stats_trigamma(x);
        double step = tri * (1.0 - tri / y) / tetragamma(x);
        x += step;
        if (-step / x < 1e-8)
            break;
    }
    return x;
}

double stats_t_cdf(double t, double df)
{
    if (isnan(t) || df <= 0)
        return NAN;
    if (isinf(t))
        return t > 0 ? 1.0 : 0.0;
    /* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
    double tail = 0.5 * stats_betainc(df / 2.0, 0.5, df / (df + t * t));
    return t > 0 ? 1.0 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || df <= 0)
        return NAN;
    /* Bisection on the CDF: monotone, and a quantile is asked for a few times per
     * report, so simplicity beats speed. Widen the bracket first (df = 1 has heavy tails). */
    double lo = -1.0, hi = 1.0;
    while (stats_t_cdf(lo, df) > p)
        lo *= 2.0;
    while (stats_t_cdf(hi, df) < p)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * (1.0 + fabs(lo)); i++) {
        double mid = (lo + hi) / 2.0;
        if (stats_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2.0;
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_none(struct stats_test *out)
{
    out->enough = false;
    out->exact = false;
    out->statistic = out->df = out->p = out->diff = out->se = NAN;
}

/* The logarithms of the positive values of x (new array, caller frees). */
static double *logs_positive(const double *x, size_t n, size_t *m)
{
    double *v = xmalloc((n ? n : 1) * sizeof(*v));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > 0 && isfinite(x[i]))
            v[k++] = log(x[i]);
    *m = k;
    return v;
}

/* t statistic, df and two-sided p of a difference d with standard error se. A zero
 * standard error (identical runs) gives p = 1 for no difference, 0 otherwise. */
static void t_finish(struct stats_test *out, double d, double se, double df)
{
    out->enough = true;
    out->diff = d;
    out->se = se;
    out->df = df;
    if (se > 0) {
        out->statistic = d / se;
        out->p = 2.0 * stats_t_cdf(-fabs(out->statistic), df);
    } else {
        out->statistic = d == 0 ? 0.0 : copysign(INFINITY, d);
        out->p = d == 0 ? 1.0 : 0.0;
    }
}

/* Welch's test on the prepared samples x[0..m) and y[0..n). */
static void welch(const double *x, size_t m, const double *y, size_t n, struct stats_test *out)
{
    test_none(out);
    if (m < 2 || n < 2)
        return;
    struct stats_summary sx, sy;
    stats_summarize(x, m, &sx);
    stats_summarize(y, n, &sy);
    double vx = sx.sd * sx.sd / (double)m, vy = sy.sd * sy.sd / (double)n;
    double se = sqrt(vx + vy);
    /* Welch-Satterthwaite; with both variances 0 the df is moot (t_finish) */
    double df = se > 0 ? (vx + vy) * (vx + vy) /
                             (vx * vx / (double)(m - 1) + vy * vy / (double)(n - 1))
                       : (double)(m + n - 2);
    t_finish(out, sy.mean - sx.mean, se, df);
}

void stats_welch_log(const double *a, size_t na, const double *b, size_t nb,
                     struct stats_test *out)
{
    size_t ma, mb;
    double *la = logs_positive(a, na, &ma), *lb = logs_positive(b, nb, &mb);
    welch(la, ma, lb, mb, out);
    free(la);
    free(lb);
}

void stats_welch(const double *a, size_t na, const double *b, size_t nb, struct stats_test *out)
{
    size_t ma, mb;
    double *va = sorted_finite(a, na, &ma), *vb = sorted_finite(b, nb, &mb);
    welch(va, ma, vb, mb, out);
    free(va);
    free(vb);
}

/* Number of arrangements of m values of one sample and n of the other giving each
 * U from 0 to m*n, by the recurrence c(u; m, n) = c(u - n; m - 1, n) + c(u; m, n - 1)
 * (Mann and Whitney 1947). New array of m*n+1 counts, caller frees. */
static double *mwu_counts(size_t m, size_t n)
{
    /* c[j][u] for the current m, j = 0..n, rows of length m*n+1 */
    size_t w = m * n + 1;
    double *prev = xcalloc((n + 1) * w, sizeof(double));
    double *cur = xcalloc((n + 1) * w, sizeof(double));
    for (size_t j = 0; j <= n; j++)
        prev[j * w] = 1.0; /* m = 0: U = 0 only */
    for (size_t i = 1; i <= m; i++) {
        for (size_t j = 0; j <= n; j++)
            for (size_t u = 0; u < w; u++) {
                double v = 0;
                if (j == 0)
                    v = u == 0; /* n = 0: U = 0 only */
                else
                    v = (u >= j ? prev[j * w + u - j] : 0.0) + cur[(j - 1) * w + u];
                cur[j * w + u] = v;
            }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double *counts = xmalloc(w * sizeof(double));
    for (size_t u = 0; u < w; u++)
        counts[u] = prev[n * w + u];
    free(prev);
    free(cur);
    return counts;
}

struct ranked {
    double v;
    int side;
};

static int cmp_ranked(const void *x, const void *y)
{
    return cmp_double(&((const struct ranked *)x)->v, &((const struct ranked *)y)->v);
}

void stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                        struct stats_test *out)
{
    test_none(out);
    struct ranked *all = xmalloc((na + nb + 1) * sizeof(*all));
    size_t m = 0, n = 0, N = 0;
    for (size_t i = 0; i < na; i++)
        if (!isnan(a[i])) {
            all[N++] = (struct ranked){a[i], 0};
            m++;
        }
    for (size_t i = 0; i < nb; i++)
        if (!isnan(b[i])) {
            all[N++] = (struct ranked){b[i], 1};
            n++;
        }
    if (m < STATS_MWU_MIN || n < STATS_MWU_MIN) {
        free(all);
        return;
    }
    qsort(all, N, sizeof(*all), cmp_ranked);
    /* midranks; sum of a's ranks, and sum of t^3 - t over tie groups */
    double ra = 0, ties = 0;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        while (j < N && all[j].v == all[i].v)
            j++;
        double rank = ((double)i + 1.0 + (double)j) / 2.0, t = (double)(j - i);
        for (size_t k = i; k < j; k++)
            if (all[k].side == 0)
                ra += rank;
        ties += t * t * t - t;
        i = j;
    }
    free(all);
    double dm = (double)m, dn = (double)n, u = ra - dm * (dm + 1.0) / 2.0;
    out->enough = true;
    out->statistic = u;
    if (ties == 0 && m < 50 && n < 50) {
        double *c = mwu_counts(m, n);
        double total = 0, below = 0, above = 0;
        size_t ui = (size_t)u;
        for (size_t k = 0; k <= m * n; k++) {
            total += c[k];
            if (k <= ui)
                below += c[k];
            if (k >= ui)
                above += c[k];
        }
        free(c);
        out->exact = true;
        out->p = fmin(1.0, 2.0 * fmin(below, above) / total);
        return;
    }
    double mu = dm * dn / 2.0, N_ = dm + dn;
    double var = dm * dn / 12.0 * ((N_ + 1.0) - ties / (N_ * (N_ - 1.0)));
    if (var <= 0) { /* every value equal */
        out->p = 1.0;
        return;
    }
    double z = (fabs(u - mu) - 0.5) / sqrt(var);
    out->p = z <= 0 ? 1.0 : fmin(1.0, erfc(z / sqrt(2.0)));
}

/* ---- intervals ---------------------------------------------------------------------- */

uint64_t stats_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Median of a resample with replacement of the sorted v[0..m), using counts[0..m): how
 * often each of v's places was drawn, walked in v's order to the middle ranks. The same
 * draws and the same median as sorting the resample, in time linear in m (a campaign
 * made elsewhere may put 50,000 runs in a cell, resampled 10,000 times). */
static double resample_median(const double *v, size_t m, size_t *counts, uint64_t *rng)
{
    memset(counts, 0, m * sizeof(*counts));
    for (size_t i = 0; i < m; i++)
        counts[stats_random(rng) % m]++;
    size_t upper = m / 2, lower = m % 2 ? upper : upper - 1, seen = 0;
    double lo = 0;
    for (size_t j = 0; j < m; j++) {
        size_t next = seen + counts[j];
        if (seen <= lower && lower < next)
            lo = v[j];
        if (upper < next)
            return m % 2 ? v[j] : (lo + v[j]) / 2.0;
        seen = next;
    }
    return NAN; /* the counts add up to m: not reached */
}

/* The q-quantile of the sorted v[0..m), interpolated between order statistics. */
static double quantile_sorted(const double *v, size_t m, double q)
{
    double pos = q * (double)(m - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= m)
        return v[m - 1];
    return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

void stats_ratio_ci(const double *a, size_t na, const double *b, size_t nb, double level,
                    unsigned iterations, uint64_t seed, struct stats_ratio *out)
{
    size_t ma, mb;
    double *va = sorted_finite(a, na, &ma), *vb = sorted_finite(b, nb, &mb);
    out->ratio = out->lo = out->hi = NAN;
    double med_a = median_sorted(va, ma), med_b = median_sorted(vb, mb);
    if (ma && mb && med_a != 0 && iterations > 0) {
        out->ratio = med_b / med_a;
        size_t *tmp = xmalloc((ma > mb ? ma : mb) * sizeof(*tmp));
        double *r = xmalloc(iterations * sizeof(double));
        size_t k = 0;
        uint64_t rng = seed;
        for (unsigned it = 0; it < iterations; it++) {
            double ra = resample_median(va, ma, tmp, &rng);
            double rb = resample_median(vb, mb, tmp, &rng);
            if (ra != 0)
                r[k++] = rb / ra;
        }
        if (k) {
            qsort(r, k, sizeof(*r), cmp_double);
            out->lo = quantile_sorted(r, k, (1.0 - level) / 2.0);
            out->hi = quantile_sorted(r, k, 1.0 - (1.0 - level) / 2.0);
        }
        free(tmp);
        free(r);
    }
    free(va);
    free(vb);
}

void stats_paired_log(const double *a, const double *b, size_t n, double level,
                      struct stats_paired *out)
{
    double *d = xmalloc((n ? n : 1) * sizeof(double));
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] > 0 && b[i] > 0 && isfinite(a[i]) && isfinite(b[i]))
            d[k++] = log(b[i] / a[i]);
    test_none(&out->test);
    out->pairs = k;
    out->ratio = out->lo = out->hi = NAN;
    if (k >= 2) {
        struct stats_summary s;
        stats_summarize(d, k, &s);
        t_finish(&out->test, s.mean, s.sd / sqrt((double)k), (double)(k - 1));
        struct stats_ratio r;
        stats_t_ratio(&out->test, level, &r);
        out->ratio = r.ratio;
        out->lo = r.lo;
        out->hi = r.hi;
    }
    free(d);
}

void stats_t_ratio(const struct stats_test *t, double level, struct stats_ratio *out)
{
    out->ratio = out->lo = out->hi = NAN;
    if (!t->enough)
        return;
    double half = t->se > 0 ? stats_t_quantile(1.0 - (1.0 - level) / 2.0, t->df) * t->se : 0;
    out->ratio = exp(t->diff);
    out->lo = exp(t->diff - half);
    out->hi = exp(t->diff + half);
}

double stats_mann_whitney_min_p(size_t m, size_t n)
{
    /* the most extreme split is 1 of C(m + n, m): lgamma keeps large sizes finite */
    double log_splits = lgamma((double)(m + n + 1)) - lgamma((double)(m + 1)) -
                        lgamma((double)(n + 1));
    return fmin(1.0, 2.0 * exp(-log_splits));
}

/* ---- what a test could have missed ------------------------------------------------ */

/* Simpson's rule over the log of the spread's chi-square, whose density there is smooth
 * and single-peaked: 400 intervals a piece over 30 of its standard deviations (20 on the
 * long left tail), cut where a threshold takes over from t s (a kink), put the power within
 * 1e-8 of the df = 2 closed form (tests/unit/check-stats.c). */
#define POWER_INTERVALS 400
#define KNOWN_DF 1e7 /* beyond it the spread counts as known */

double stats_normal_cdf(double z)
{
    return 0.5 * erfc(-z / M_SQRT2);
}

/* What stats_t_power integrates, over w = log V from a to b: the density of w, e^(k w -
 * e^w / 2) / (2^k Gamma(k)) with k = df / 2, times the chance of a call at that spread
 * (into *called), and the density alone (*mass). */
static void power_piece(double a, double b, double shift, double se, double df, double t_crit,
                        double floor, double *called, double *mass)
{
    double k = df / 2.0, norm = -k * M_LN2 - lgamma(k), h = (b - a) / POWER_INTERVALS;
    for (int i = 0; i <= POWER_INTERVALS; i++) {
        double w = a + h * i, v = exp(w);
        double weight = (i == 0 || i == POWER_INTERVALS ? 1 : (i % 2 ? 4 : 2)) * h / 3.0;
        double density = weight * exp(k * w - v / 2.0 + norm);
        *called +=
            density * stats_normal_cdf((shift - fmax(floor, t_crit * se * sqrt(v / df))) / se);
        *mass += density;
    }
}

double stats_t_power(double shift, double se, double df, double t_crit, double floor)
{
    if (!(se > 0) || !(df > 0) || isnan(shift) || isnan(t_crit) || isnan(floor))
        return NAN;
    if (df > KNOWN_DF)
        return stats_normal_cdf((shift - fmax(floor, t_crit * se)) / se);
    /* log V has mean digamma(df / 2) + log 2 and variance trigamma(df / 2) */
    double mean = stats_digamma(df / 2.0) + M_LN2, sd = sqrt(stats_trigamma(df / 2.0));
    double lo = mean - 20.0 * sd, hi = mean + 10.0 * sd, called = 0, mass = 0;
    /* where the threshold stops binding: t s = floor */
    double kink = floor > 0 && t_crit > 0 ? log(df * pow(floor / (t_crit * se), 2)) : NAN;
    if (kink > lo && kink < hi) {
        power_piece(lo, kink, shift, se, df, t_crit, floor, &called, &mass);
        power_piece(kink, hi, shift, se, df, t_crit, floor, &called, &mass);
    } else
        power_piece(lo, hi, shift, se, df, t_crit, floor, &called, &mass);
    return called / mass; /* the rule's own error in the density cancels */
}

double stats_t_detectable(double se, double df, double alpha, double power, double floor)
{
    if (!(se > 0) || !(df > 0) || !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
        return NAN;
    double t_crit = stats_t_quantile(1.0 - alpha, fmin(df, KNOWN_DF));
    if (stats_t_power(0, se, df, t_crit, floor) >= power)
        return 0;
    /* the power rises with the shift to 1: bracket, then bisect */
    double lo = 0, hi = se;
    while (stats_t_power(hi, se, df, t_crit, floor) < power) {
        lo = hi;
        hi *= 2.0;
    }
    for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; i++) {
        double mid = (lo + hi) / 2.0;
        if (stats_t_power(mid, se, df, t_crit, floor) < power)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2.0;
}
