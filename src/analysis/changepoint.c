#include "changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

/* The largest |t| of the two-sample t (pooled variance about the two means: the
 * likelihood ratio of one shift of mean) over the splits of y[0..m) that leave at least
 * ms values a side and at most `last` after them (0: any), and where it is; with sign
 * +1 or -1, the largest t of a step that way. On deviations from the mean, so that the
 * sums of squares do not cancel; each split costs O(1) from a running sum. */
static double max_t(const double *y, size_t m, size_t ms, size_t last, int sign, size_t *at)
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
        if (k < ms || (last && m - k > last))
            continue;
        double nl = (double)k, nr = (double)(m - k);
        double ml = left / nl, mr = -left / nr;
        double sse = ss - nl * ml * ml - nr * mr * mr;
        double step = sign ? sign * (mr - ml) : fabs(mr - ml);
        double t = sse > 1e-12 * ss ? step / sqrt(sse / (double)(m - 2) * (1 / nl + 1 / nr))
                   : step > 0       ? INFINITY
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
static double permutation_p(const double *x, size_t m, size_t last, int sign, double observed,
                            double max_p, const struct cp_opts *o, uint64_t *rng)
{
    double *y = xmalloc(m * sizeof(*y));
    memcpy(y, x, m * sizeof(*y));
    unsigned done = 0, as_large = 0;
    size_t at;
    double enough = max_p * (double)(o->permutations + 1);
    while (done < o->permutations && (double)(as_large + 1) <= enough) {
        for (size_t i = m - 1; i > 0; i--) {
            size_t j = (size_t)(stats_random(rng) % (i + 1));
            double t = y[i];
            y[i] = y[j];
            y[j] = t;
        }
        done++;
        if (max_t(y, m, o->min_segment, last, sign, &at) >= observed * (1 - 1e-12))
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

/* Undo the smallest step under the practical size, one at a time: each undone changes
 * its neighbours' segments, so their steps are measured again. */
static void merge_small_steps(const double *x, size_t n, const struct cp_opts *o,
                              struct cp_result *r)
{
    for (;;) {
        steps_of(x, n, o->log_scale, r->points, r->n);
        size_t smallest = r->n;
        for (size_t i = 0; i < r->n; i++)
            if (fabs(r->points[i].relative) < o->min_magnitude &&
                (smallest == r->n ||
                 fabs(r->points[i].relative) < fabs(r->points[smallest].relative)))
                smallest = i;
        if (smallest == r->n)
            break;
        memmove(&r->points[smallest], &r->points[smallest + 1],
                (r->n - smallest - 1) * sizeof(*r->points));
        r->n--;
    }
}

/* The split of x[a..b) that leaves at most `last` values after it (0: any) where the
 * winsorized values' |t| (with sign: t that way) is largest, into *at, and its
 * permutation p (1: none tested). */
static double split_p(const double *x, size_t a, size_t b, size_t last, int sign, double max_p,
                      const struct cp_opts *o, uint64_t *rng, size_t *at)
{
    double *y = xmalloc((b - a) * sizeof(*y));
    winsorize(x + a, b - a, y);
    double t = max_t(y, b - a, o->min_segment, last, sign, at);
    double p = t > 0 ? permutation_p(y, b - a, last, sign, t, max_p, o, rng) : 1;
    free(y);
    *at += a;
    return p;
}

static void add_point(struct cp_result *r, size_t start, double p)
{
    r->points = xrealloc(r->points, (r->n + 1) * sizeof(*r->points));
    r->points[r->n++] = (struct cp_point){.start = start, .p = p};
    qsort(r->points, r->n, sizeof(*r->points), by_start);
}

void cp_detect(const double *x, size_t n, const struct cp_opts *o, struct cp_result *out)
{
    *out = (struct cp_result){0};
    size_t ms = o->min_segment < 2 ? 2 : o->min_segment;
    struct cp_opts po = *o;
    po.min_segment = ms;
    uint64_t rng = o->seed;
    double segmentation_p = o->recent ? o->max_p * (1 - CP_RECENT_SHARE) : o->max_p;
    /* the segments left to test, as [a, b) pairs */
    size_t *todo = xmalloc(2 * (n / ms + 1) * sizeof(*todo)), n_todo = 0;
    todo[n_todo++] = 0;
    todo[n_todo++] = n;
    while (n_todo) {
        size_t b = todo[--n_todo], a = todo[--n_todo], at;
        if (b - a < 2 * ms)
            continue;
        double p = split_p(x, a, b, 0, 0, segmentation_p, &po, &rng, &at);
        if (p > segmentation_p)
            continue;
        add_point(out, at, p);
        todo[n_todo++] = a;
        todo[n_todo++] = at;
        todo[n_todo++] = at;
        todo[n_todo++] = b;
    }
    free(todo);
    merge_small_steps(x, n, o, out);
    /* the newest values tested apart, against the segment they end, for a step the way
     * that is worse */
    size_t a = out->n ? out->points[out->n - 1].start : 0, at;
    if (!o->recent || n - a < 2 * ms)
        return;
    double recent_p = o->max_p * CP_RECENT_SHARE;
    double p = split_p(x, a, n, o->recent, o->worse, recent_p, &po, &rng, &at);
    if (p > recent_p)
        return;
    add_point(out, at, p);
    merge_small_steps(x, n, o, out);
}

void cp_result_release(struct cp_result *r)
{
    free(r->points);
    *r = (struct cp_result){0};
}
