#include "steady.h"

#include <math.h>
#include <stdio.h>

/* The smallest change that counts at this level and this noise (per point). */
static double practical(double level, double noise)
{
    return fmax(fmax(STEADY_PRACTICAL * fabs(level), STEADY_FLOOR), STEADY_NOISE * noise);
}

/* How much autocorrelated noise widens a standard error: sqrt((1 + r) / (1 - r)) for the
 * lag-1 autocorrelation r of the residuals e[i] = x[i] - fit(i) (the effective sample
 * size of an AR(1) series), r taken from 0 to 0.9. */
static double widening(const double *x, size_t n, double (*fit)(size_t i, const void *m),
                       const void *model)
{
    double num = 0, den = 0, prev = 0;
    for (size_t i = 0; i < n; i++) {
        double e = x[i] - fit(i, model);
        den += e * e;
        if (i)
            num += e * prev;
        prev = e;
    }
    double r = den > 0 ? fmin(fmax(num / den, 0), 0.9) : 0;
    return sqrt((1 + r) / (1 - r));
}

struct line {
    const double *t;
    double mt, mx, b;
};

static double line_at(size_t i, const void *m)
{
    const struct line *l = m;
    return l->mx + l->b * (l->t[i] - l->mt);
}

struct step {
    size_t k;
    double before, after;
};

static double step_at(size_t i, const void *m)
{
    const struct step *s = m;
    return i < s->k ? s->before : s->after;
}

/* The least-squares line through the series: its ends' values, and the t of its slope
 * (0 when the residuals have no spread and the slope is 0). */
static void trend(const double *t, const double *x, size_t n, double *from, double *to,
                  double *tstat, double *noise)
{
    double mt = 0, mx = 0;
    for (size_t i = 0; i < n; i++) {
        mt += t[i];
        mx += x[i];
    }
    mt /= (double)n;
    mx /= (double)n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (t[i] - mt) * (t[i] - mt);
        sxy += (t[i] - mt) * (x[i] - mx);
    }
    double b = sxx > 0 ? sxy / sxx : 0, rss = 0;
    for (size_t i = 0; i < n; i++) {
        double r = x[i] - mx - b * (t[i] - mt);
        rss += r * r;
    }
    struct line l = {t, mt, mx, b};
    *noise = sqrt(rss / (double)(n - 2));
    double se = sxx > 0 ? sqrt(rss / (double)(n - 2) / sxx) * widening(x, n, line_at, &l) : 0;
    *from = mx + b * (t[0] - mt);
    *to = mx + b * (t[n - 1] - mt);
    *tstat = se > 0 ? fabs(b) / se : (b != 0 ? INFINITY : 0);
}

/* The split into x[0..k) and x[k..n), each of 2 points or more, with the largest t of
 * the shift of mean (pooled spread within the two segments). */
static size_t best_split(const double *x, size_t n, double *before, double *after, double *tstat,
                         double *noise)
{
    double total = 0, total2 = 0;
    for (size_t i = 0; i < n; i++) {
        total += x[i];
        total2 += x[i] * x[i];
    }
    double left = 0, left2 = 0;
    size_t at = 0;
    *tstat = 0;
    for (size_t k = 1; k + 1 < n; k++) {
        left += x[k - 1];
        left2 += x[k - 1] * x[k - 1];
        if (k < 2)
            continue;
        double nl = (double)k, nr = (double)(n - k);
        double ml = left / nl, mr = (total - left) / nr;
        double ss = (left2 - nl * ml * ml) + (total2 - left2 - nr * mr * mr);
        double se = sqrt(fmax(ss, 0) / (double)(n - 2) * (1 / nl + 1 / nr));
        double t = se > 0 ? fabs(mr - ml) / se : (mr != ml ? INFINITY : 0);
        if (at == 0 || t > *tstat) {
            *tstat = t;
            *noise = sqrt(fmax(ss, 0) / (double)(n - 2));
            *before = ml;
            *after = mr;
            at = k;
        }
    }
    struct step s = {at, *before, *after};
    if (at && isfinite(*tstat))
        *tstat /= widening(x, n, step_at, &s);
    return at;
}

static const char *direction(double from, double to)
{
    return to > from ? "climbs" : "drops";
}

void steady_check(const double *t, const double *x, size_t n, struct steady_verdict *out)
{
    out->steady = true;
    out->change = 0;
    out->reason[0] = '\0';
    if (n < STEADY_MIN_POINTS)
        return;
    double from, to, tt, before = 0, after = 0, ts, line_noise, step_noise = 0;
    trend(t, x, n, &from, &to, &tt, &line_noise);
    size_t k = best_split(x, n, &before, &after, &ts, &step_noise);
    bool shift = k > 0 && ts >= STEADY_T &&
                 fabs(after - before) >= practical(fmax(fabs(before), fabs(after)), step_noise);
    bool slope = tt >= STEADY_T &&
                 fabs(to - from) >= practical(fmax(fabs(from), fabs(to)), line_noise);
    /* A ramp also splits well, and a step also slopes: the better fit names it. */
    if (shift && (!slope || ts >= tt)) {
        out->steady = false;
        out->change = after - before;
        snprintf(out->reason, sizeof(out->reason), "%s from %.3g%% to %.3g%% at %.1f s",
                 direction(before, after), before, after, t[k] - t[0]);
    } else if (slope) {
        out->steady = false;
        out->change = to - from;
        snprintf(out->reason, sizeof(out->reason), "%s from %.3g%% to %.3g%% over %.1f s",
                 direction(from, to), from, to, t[n - 1] - t[0]);
    }
}
