#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* The largest |t| of the two-sample t (pooled variance about the two means: the
 * likelihood ratio of one shift of mean) over the splits of y[0..m) that leave at least
 * ms values a side, and where it is. On deviations from the mean, so that the sums of
 * squares do not cancel; each split costs O(1) from a running sum. */
static double max_t(const double *y, size_t m, size_t ms, size_t *at)
{
    double mean = 0, ss = 0;
    for (size_t i = 0; i < m; i++)
        mean += y[i];
    mean /= (double)m;
    for (size_t i = 0; i < m; i++)
        ss += (y[i] - mean) * (y[i] - mean);
    double best = 0, left = 0;
    *at = 0;
    for (size_t k = 1; k + ms <= m; k++) {
        left += y[k - 1] - mean;
        if (k < ms)
            continue;
        double nl = (double)k, nr = (double)(m - k);
        double ml = left / nl, mr = -left / nr;
        double sse = ss - nl * ml * ml - nr * mr * mr;
        double t = sse > 1e-12 * ss
                       ? fabs(mr - ml) / sqrt(sse / (double)(m - 2) * (1 / nl + 1 / nr))
                   : mr != ml ? INFINITY
                              : 0;
        if (t > best) {
            best = t;
            *at = k;
        }
    }
    return best;
}

/* The permutation p of the largest |t| of x[0..m), stopping once p is sure to exceed
 * max_p (Besag & Clifford 1991): a history without change costs a few permutations. */
static double permutation_p(const double *x, size_t m, double observed, const struct cp_opts *o,
                            uint64_t *rng)
{
    double *y = xmalloc(m * sizeof(*y));
    memcpy(y, x, m * sizeof(*y));
    unsigned done = 0, as_large = 0;
    size_t at;
    double enough = o->max_p * (double)(o->permutations + 1);
    while (done < o->permutations && (double)(as_large + 1) <= enough) {
        for (size_t i = m - 1; i > 0; i--) {
            size_t j = (size_t)(stats_random(rng) % (i + 1));
            double t = y[i];
            y[i] = y[j];
            y[j] = t;
        }
        done++;
        if (max_t(y, m, o->min_segment, &at) >= observed * (1 - 1e-12))
            as_large++;
    }
    free(y);
    return (double)(as_large + 1) / (double)(done + 1);
}

void cp_step(const double *x, size_t a, size_t k, size_t b, bool log_scale, struct cp_point *pt)
{
    struct stats_test t;
    stats_welch(x + a, k - a, x + k, b - k, &t);
    double before = 0, after = 0;
    for (size_t i = a; i < k; i++)
        before += x[i];
    for (size_t i = k; i < b; i++)
        after += x[i];
    pt->start = k;
    pt->before = before / (double)(k - a);
    pt->after = after / (double)(b - k);
    pt->step = pt->after - pt->before;
    double half = t.enough && t.se > 0 ? stats_t_quantile(0.975, t.df) * t.se : NAN;
    pt->lo = pt->step - half;
    pt->hi = pt->step + half;
    pt->relative = log_scale         ? expm1(pt->step)
                   : pt->before != 0 ? pt->step / fabs(pt->before)
                   : pt->step == 0   ? 0
                                     : copysign(INFINITY, pt->step);
}

static int by_start(const void *a, const void *b)
{
    const struct cp_point *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* x[0..m) into y with each value beyond CP_WINSOR robust standard deviations (1.4826
 * MAD) of the median pulled in to that bound: a disturbed night weighs on the t as a
 * campaign well off the level, never as one that sets the spread. The bound is of the
 * whole segment, the same for every order of its values, so the permutation test stays
 * exact; the order of the values is kept, so a clear step stays as clear. */
static void winsorize(const double *x, size_t m, double *y)
{
    struct stats_summary s;
    stats_summarize(x, m, &s);
    double bound = CP_WINSOR * 1.4826 * s.mad;
    for (size_t i = 0; i < m; i++)
        y[i] = !(bound > 0)              ? x[i]
               : x[i] > s.median + bound ? s.median + bound
               : x[i] < s.median - bound ? s.median - bound
                                         : x[i];
}

/* The steps of every point between its neighbours (0 and n at the ends). */
static void steps_of(const double *x, size_t n, bool log_scale, struct cp_point *pts, size_t k)
{
    for (size_t i = 0; i < k; i++)
        cp_step(x, i ? pts[i - 1].start : 0, pts[i].start, i + 1 < k ? pts[i + 1].start : n,
                log_scale, &pts[i]);
}

void cp_detect(const double *x, size_t n, const struct cp_opts *o, struct cp_result *out)
{
    *out = (struct cp_result){0};
    size_t ms = o->min_segment < 2 ? 2 : o->min_segment;
    struct cp_opts po = *o;
    po.min_segment = ms;
    uint64_t rng = o->seed;
    /* the segments left to test, as [a, b) pairs */
    size_t *todo = xmalloc(2 * (n / ms + 1) * sizeof(*todo)), n_todo = 0;
    todo[n_todo++] = 0;
    todo[n_todo++] = n;
    while (n_todo) {
        size_t b = todo[--n_todo], a = todo[--n_todo], at;
        if (b - a < 2 * ms)
            continue;
        double *y = xmalloc((b - a) * sizeof(*y));
        winsorize(x + a, b - a, y);
        double t = max_t(y, b - a, ms, &at);
        double p = t > 0 ? permutation_p(y, b - a, t, &po, &rng) : 1;
        free(y);
        if (p > o->max_p)
            continue;
        out->points = xrealloc(out->points, (out->n + 1) * sizeof(*out->points));
        out->points[out->n++] = (struct cp_point){.start = a + at, .p = p};
        todo[n_todo++] = a;
        todo[n_todo++] = a + at;
        todo[n_todo++] = a + at;
        todo[n_todo++] = b;
    }
    free(todo);
    if (out->n)
        qsort(out->points, out->n, sizeof(*out->points), by_start);
    /* Undo the smallest step under the practical size, one at a time: each undone
     * changes its neighbours' segments, so their steps are measured again. */
    for (;;) {
        steps_of(x, n, o->log_scale, out->points, out->n);
        size_t smallest = out->n;
        for (size_t i = 0; i < out->n; i++)
            if (fabs(out->points[i].relative) < o->min_magnitude &&
                (smallest == out->n ||
                 fabs(out->points[i].relative) < fabs(out->points[smallest].relative)))
                smallest = i;
        if (smallest == out->n)
            break;
        memmove(&out->points[smallest], &out->points[smallest + 1],
                (out->n - smallest - 1) * sizeof(*out->points));
        out->n--;
    }
}

void cp_result_release(struct cp_result *r)
{
    free(r->points);
    *r = (struct cp_result){0};
}
