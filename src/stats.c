#include "stats.h"

#include <math.h>
#include <stdlib.h>

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
