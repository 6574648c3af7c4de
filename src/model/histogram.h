/* A log-linear histogram of non-negative integer values (HdrHistogram's idea).
 *
 * Layout. With S = HISTOGRAM_SUB_BUCKET_BITS, values below 2^(S+1) each have a bucket of
 * their own (exact). Above, every power-of-two range [2^e, 2^(e+1)) is cut into 2^S
 * buckets of equal width 2^(e-S). The layout is fixed at compile time, so any two
 * histograms can be merged by adding their counts, in memory or read back from JSON.
 *
 * Range: 0 .. HISTOGRAM_MAX_VALUE (2^42 - 1, about 73 minutes in ns). A larger value is
 * recorded as HISTOGRAM_MAX_VALUE and counted in `clamped`.
 *
 * Precision. A value is reported as the highest value of its bucket (its "highest
 * equivalent"), so for a recorded value v the reported value r satisfies
 *     v <= r < v * (1 + 2^-S),   that is, over by less than 1/128 = 0.78125 % with S = 7,
 * and r == v below 2^(S+1) = 256. min and max are kept exactly, as is the sum (the
 * mean is exact).
 *
 * Cost. The counts (HISTOGRAM_N_BUCKETS 64-bit counters, 36 KiB) are allocated once by
 * histogram_init; histogram_record never allocates and is a few instructions, so it can
 * run in a measuring loop. Reading percentiles scans the counts (not for a hot loop). A
 * histogram read back (histogram_from_json) keeps only its non-empty buckets, so that a
 * document made elsewhere holds no more memory than its JSON says (20 bytes of it would
 * otherwise hold 36 KiB): it can be merged into another, queried and written, not
 * recorded into. */
#ifndef LOOPBENCH_HISTOGRAM_H
#define LOOPBENCH_HISTOGRAM_H

#include <jansson.h>
#include <stdint.h>

#include "msg.h"

#define HISTOGRAM_SUB_BUCKET_BITS 7
#define HISTOGRAM_MAX_BITS 42
#define HISTOGRAM_MAX_VALUE ((UINT64_C(1) << HISTOGRAM_MAX_BITS) - 1)
/* One linear run of 2^(S+1) unit buckets, then 2^S buckets per further power of two. */
#define HISTOGRAM_N_BUCKETS                                                                        \
    ((HISTOGRAM_MAX_BITS - HISTOGRAM_SUB_BUCKET_BITS + 1) << HISTOGRAM_SUB_BUCKET_BITS)

/* A non-empty bucket of a histogram read back. */
struct histogram_pair {
    uint32_t index;
    uint64_t count;
};

struct histogram {
    uint64_t *counts; /* HISTOGRAM_N_BUCKETS; NULL in one read back, or not initialised */
    struct histogram_pair *pairs; /* one read back: its non-empty buckets, by index */
    size_t n_pairs;
    uint64_t count;   /* values recorded */
    uint64_t clamped; /* of which were above HISTOGRAM_MAX_VALUE */
    uint64_t min;     /* exact; 0 when empty */
    uint64_t max;     /* exact (HISTOGRAM_MAX_VALUE if any was clamped); 0 when empty */
    uint64_t sum;     /* exact: wraps only past 2^64 (584 years of ns) */
};

/* An empty histogram (allocates the counts; allocation failure is fatal, see util.h). A
 * zeroed struct is an empty histogram too, that only histogram_init makes recordable. */
void histogram_init(struct histogram *h);
/* Frees the counts; h may then be initialised again. Safe on a zeroed struct. */
void histogram_release(struct histogram *h);
/* Empty again, keeping the allocation. */
void histogram_reset(struct histogram *h);

/* Record one value (no allocation, no failure; h initialised). */
void histogram_record(struct histogram *h, uint64_t value);
/* dst += src: the same as having recorded src's values into dst (initialised; src may
 * be one read back). */
void histogram_add(struct histogram *dst, const struct histogram *src);

/* The bucket of a value and the values it covers: lowest and highest equivalent value
 * (a value above the range is taken as HISTOGRAM_MAX_VALUE). */
uint64_t histogram_lowest_equivalent(uint64_t value);
uint64_t histogram_highest_equivalent(uint64_t value);

/* Queries. An empty histogram has count 0, min, max and every percentile 0, and mean
 * NaN: callers look at histogram_count before reporting anything else. */
uint64_t histogram_count(const struct histogram *h);
uint64_t histogram_min(const struct histogram *h);
uint64_t histogram_max(const struct histogram *h);
double histogram_mean(const struct histogram *h);
/* The p-th percentile, p in [0, 100] (clamped into it). With n values recorded and
 * rank r = ceil(p/100 * n) (at least 1; a decimal p such as 99.9 is not pushed to the
 * next rank by floating-point rounding), the value reported is the highest equivalent
 * of the bucket holding the r-th smallest value, but never above the exact max; p = 0
 * reports the exact min. So p = 100 is the exact max, and for any other p the result is
 * the true r-th smallest value v or above it by less than v * 2^-S (see Precision). */
uint64_t histogram_percentile(const struct histogram *h, double p);

/* Serialisation for results files (new reference); for 120, 300 and 900:
 *     {"unit": "ns", "sub_bucket_bits": 7, "max_value": 4398046511103, "count": 3,
 *      "clamped": 0, "min": 120, "max": 900, "sum": 1320,
 *      "counts": [[120, 1], [278, 1], [481, 1]]}
 * counts holds [bucket index, count] pairs for the non-empty buckets only, by index.
 * unit is a label the caller chooses (the values are whatever it recorded). */
json_t *histogram_to_json(const struct histogram *h, const char *unit);
/* The figures a reader wants of a histogram, each value divided by divisor (1e3 for
 * ns in microseconds): {count, min, p50, p90, p99, p999, max, mean}; null when empty
 * (new reference). */
json_t *histogram_percentiles_json(const struct histogram *h, double divisor);
/* Replace h's content (h initialised or zeroed; released first) with the histogram in j,
 * kept as its non-empty buckets alone, which must have been
 * written by histogram_to_json with the same unit and the same layout. Checks the types
 * of every field, the layout, that indices are in range and increasing, that the counts
 * are positive and add up to count, that min and max lie in the first and last non-empty
 * buckets and that the clamped values fit in the last bucket; on error returns -1 with
 * err naming the field at fault ("histogram: ..."), and leaves h empty (released). */
int histogram_from_json(const json_t *j, const char *unit, struct histogram *h,
                        struct lb_error *err);

#endif
