/* The log-linear histogram (histogram.h).
 *
 * With S = HISTOGRAM_SUB_BUCKET_BITS, a value v >= 2^(S+1) with e = floor(log2 v) and
 * shift = e - S goes to bucket (shift << S) + (v >> shift), where v >> shift keeps the
 * S+1 leading bits of v (in [2^S, 2^(S+1))). For shift = 0 that is v itself, so the
 * formula continues the unit buckets below 2^(S+1) without a gap, and the top value
 * 2^42 - 1 lands in the last bucket, HISTOGRAM_N_BUCKETS - 1. */
#include "histogram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define SUB_BITS HISTOGRAM_SUB_BUCKET_BITS
#define LINEAR_END (UINT64_C(2) << SUB_BITS) /* values below this have a bucket each */

static unsigned bucket_of(uint64_t v)
{
    if (v < LINEAR_END)
        return (unsigned)v;
    unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - SUB_BITS;
    return (shift << SUB_BITS) + (unsigned)(v >> shift);
}

static uint64_t bucket_low(unsigned index)
{
    if (index < LINEAR_END)
        return index;
    unsigned shift = (index >> SUB_BITS) - 1;
    return (uint64_t)(index - (shift << SUB_BITS)) << shift;
}

static uint64_t bucket_high(unsigned index)
{
    if (index < LINEAR_END)
        return index;
    unsigned shift = (index >> SUB_BITS) - 1;
    return bucket_low(index) + (UINT64_C(1) << shift) - 1;
}

static uint64_t in_range(uint64_t value)
{
    return value < HISTOGRAM_MAX_VALUE ? value : HISTOGRAM_MAX_VALUE;
}

uint64_t histogram_lowest_equivalent(uint64_t value)
{
    return bucket_low(bucket_of(in_range(value)));
}

uint64_t histogram_highest_equivalent(uint64_t value)
{
    return bucket_high(bucket_of(in_range(value)));
}

void histogram_init(struct histogram *h)
{
    memset(h, 0, sizeof(*h));
    h->counts = xcalloc(HISTOGRAM_N_BUCKETS, sizeof(*h->counts));
}

void histogram_release(struct histogram *h)
{
    free(h->counts);
    free(h->pairs);
    memset(h, 0, sizeof(*h));
}

void histogram_reset(struct histogram *h)
{
    uint64_t *counts = h->counts;
    if (counts)
        memset(counts, 0, HISTOGRAM_N_BUCKETS * sizeof(*counts));
    free(h->pairs);
    memset(h, 0, sizeof(*h));
    h->counts = counts;
}

void histogram_record(struct histogram *h, uint64_t value)
{
    if (value > HISTOGRAM_MAX_VALUE) {
        value = HISTOGRAM_MAX_VALUE;
        h->clamped++;
    }
    h->counts[bucket_of(value)]++;
    if (h->count == 0 || value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
    h->count++;
    h->sum += value;
}

/* h's non-empty buckets in index order, whichever way it holds them: from *at (0 to
 * start), the next one's index and count; false past the last. */
static bool next_bucket(const struct histogram *h, size_t *at, unsigned *index, uint64_t *n)
{
    if (h->counts) {
        for (; *at < HISTOGRAM_N_BUCKETS; ++*at)
            if (h->counts[*at]) {
                *index = (unsigned)*at;
                *n = h->counts[(*at)++];
                return true;
            }
        return false;
    }
    if (*at >= h->n_pairs)
        return false;
    *index = h->pairs[*at].index;
    *n = h->pairs[(*at)++].count;
    return true;
}

void histogram_add(struct histogram *dst, const struct histogram *src)
{
    if (src->count == 0)
        return;
    unsigned i;
    uint64_t n;
    for (size_t at = 0; next_bucket(src, &at, &i, &n);)
        dst->counts[i] += n;
    if (dst->count == 0 || src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->count += src->count;
    dst->clamped += src->clamped;
    dst->sum += src->sum;
}

uint64_t histogram_count(const struct histogram *h)
{
    return h->count;
}

uint64_t histogram_min(const struct histogram *h)
{
    return h->min;
}

uint64_t histogram_max(const struct histogram *h)
{
    return h->max;
}

double histogram_mean(const struct histogram *h)
{
    return h->count ? (double)h->sum / (double)h->count : NAN;
}

uint64_t histogram_percentile(const struct histogram *h, double p)
{
    if (h->count == 0)
        return 0;
    if (!(p > 0)) /* NaN too */
        return h->min;
    if (p >= 100)
        return h->max;
    /* 99.9 / 100 * 1000 may come out a hair above 999: the slack (far below one rank
     * for any count under 10^12) keeps such a p on its intended rank. */
    double x = p / 100.0 * (double)h->count;
    uint64_t rank = (uint64_t)ceil(x - x * 1e-12);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0, n;
    unsigned i;
    for (size_t at = 0; next_bucket(h, &at, &i, &n);) {
        seen += n;
        if (seen >= rank) {
            uint64_t high = bucket_high(i);
            return high < h->max ? high : h->max;
        }
    }
    return h->max; /* the counts add up to count: not reached */
}

/* ---- JSON --------------------------------------------------------------------------- */

json_t *histogram_to_json(const struct histogram *h, const char *unit)
{
    json_t *counts = json_array();
    unsigned i;
    uint64_t n;
    for (size_t at = 0; next_bucket(h, &at, &i, &n);)
        json_array_append_new(counts, json_pack("[I, I]", (json_int_t)i, (json_int_t)n));
    return json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "unit", unit,
                     "sub_bucket_bits", SUB_BITS, "max_value", (json_int_t)HISTOGRAM_MAX_VALUE,
                     "count", (json_int_t)h->count, "clamped", (json_int_t)h->clamped, "min",
                     (json_int_t)h->min, "max", (json_int_t)h->max, "sum", (json_int_t)h->sum,
                     "counts", counts);
}

json_t *histogram_percentiles_json(const struct histogram *h, double divisor)
{
    if (histogram_count(h) == 0)
        return json_null();
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "count",
                     (json_int_t)histogram_count(h), "min", histogram_min(h) / divisor, "p50",
                     histogram_percentile(h, 50) / divisor, "p90",
                     histogram_percentile(h, 90) / divisor, "p99",
                     histogram_percentile(h, 99) / divisor, "p999",
                     histogram_percentile(h, 99.9) / divisor, "max", histogram_max(h) / divisor,
                     "mean", histogram_mean(h) / divisor);
}

/* A non-negative JSON integer, or -1. */
static int get_uint(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int get_field(const json_t *j, const char *key, uint64_t *out, struct lb_error *err)
{
    if (get_uint(json_object_get(j, key), out) < 0)
        return lb_fail(err, "histogram: '%s' must be a non-negative integer", key);
    return 0;
}

static int load_counts(const json_t *counts, struct histogram *h, struct lb_error *err)
{
    if (!json_is_array(counts))
        return lb_fail(err, "histogram: 'counts' must be an array of [index, count] pairs");
    h->pairs = xcalloc(json_array_size(counts) + 1, sizeof(*h->pairs));
    uint64_t total = 0;
    long prev = -1;
    unsigned first = 0, last = 0;
    for (size_t k = 0; k < json_array_size(counts); k++) {
        const json_t *pair = json_array_get(counts, k);
        uint64_t index, n;
        if (!json_is_array(pair) || json_array_size(pair) != 2 ||
            get_uint(json_array_get(pair, 0), &index) < 0 ||
            get_uint(json_array_get(pair, 1), &n) < 0)
            return lb_fail(err, "histogram: counts[%zu] must be a pair of non-negative integers",
                           k);
        if (index >= HISTOGRAM_N_BUCKETS || (long)index <= prev)
            return lb_fail(err,
                           "histogram: counts[%zu] has bucket index %llu, out of order or "
                           "outside 0..%d",
                           k, (unsigned long long)index, HISTOGRAM_N_BUCKETS - 1);
        if (n == 0)
            return lb_fail(err, "histogram: counts[%zu] has a zero count", k);
        /* total <= count before the addition, so the check cannot wrap */
        if (n > h->count - total)
            return lb_fail(err, "histogram: the counts add up to more than 'count' (%llu)",
                           (unsigned long long)h->count);
        total += n;
        h->pairs[h->n_pairs++] = (struct histogram_pair){(uint32_t)index, n};
        if (prev < 0)
            first = (unsigned)index;
        last = (unsigned)index;
        prev = (long)index;
    }
    if (total != h->count)
        return lb_fail(err, "histogram: the counts add up to %llu, not 'count' (%llu)",
                       (unsigned long long)total, (unsigned long long)h->count);
    if (h->count == 0) {
        if (h->min || h->max || h->sum || h->clamped)
            return lb_fail(err, "histogram: an empty histogram must have min, max, sum and "
                                "clamped 0");
        return 0;
    }
    if (h->min > h->max || h->max > HISTOGRAM_MAX_VALUE || bucket_of(h->min) != first ||
        bucket_of(h->max) != last)
        return lb_fail(err,
                       "histogram: 'min' (%llu) and 'max' (%llu) must lie in the first and "
                       "last non-empty buckets",
                       (unsigned long long)h->min, (unsigned long long)h->max);
    if (h->clamped &&
        (last != HISTOGRAM_N_BUCKETS - 1 || h->clamped > h->pairs[h->n_pairs - 1].count))
        return lb_fail(err, "histogram: 'clamped' (%llu) exceeds the top bucket's count",
                       (unsigned long long)h->clamped);
    return 0;
}

int histogram_from_json(const json_t *j, const char *unit, struct histogram *h,
                        struct lb_error *err)
{
    histogram_release(h);
    if (!json_is_object(j))
        return lb_fail(err, "histogram: not a JSON object");
    const char *u = json_string_value(json_object_get(j, "unit"));
    if (!u)
        return lb_fail(err, "histogram: 'unit' must be a string");
    if (strcmp(u, unit) != 0)
        return lb_fail(err, "histogram: unit is '%s', expected '%s'", u, unit);
    uint64_t bits, max_value;
    if (get_field(j, "sub_bucket_bits", &bits, err) < 0 ||
        get_field(j, "max_value", &max_value, err) < 0)
        return -1;
    if (bits != SUB_BITS || max_value != HISTOGRAM_MAX_VALUE)
        return lb_fail(err,
                       "histogram: layout sub_bucket_bits %llu, max_value %llu; this build "
                       "reads %d, %llu",
                       (unsigned long long)bits, (unsigned long long)max_value, SUB_BITS,
                       (unsigned long long)HISTOGRAM_MAX_VALUE);
    if (get_field(j, "count", &h->count, err) < 0 ||
        get_field(j, "clamped", &h->clamped, err) < 0 || get_field(j, "min", &h->min, err) < 0 ||
        get_field(j, "max", &h->max, err) < 0 || get_field(j, "sum", &h->sum, err) < 0 ||
        load_counts(json_object_get(j, "counts"), h, err) < 0) {
        histogram_release(h);
        return -1;
    }
    return 0;
}
