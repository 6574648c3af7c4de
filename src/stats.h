/* Descriptive statistics over the few runs a server campaign affords. */
#ifndef LOOPBENCH_STATS_H
#define LOOPBENCH_STATS_H

#include <stddef.h>

struct stats_summary {
    size_t n;
    double median, min, max, mean, sd; /* sd: sample standard deviation (n-1), 0 if n < 2 */
    double mad;                        /* median absolute deviation (unscaled) */
};

/* Summarise x[0..n) (NaN values are skipped; all NaN or n == 0 gives n = 0 and NaN
 * figures). x is not modified. */
void stats_summarize(const double *x, size_t n, struct stats_summary *out);

/* Median of x[0..n) (NaN skipped); NaN when empty. */
double stats_median(const double *x, size_t n);

#endif
