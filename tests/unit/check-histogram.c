/* histogram.c: the log-linear histogram.
 *
 * Every distribution here is generated deterministically (no rand()) and kept as a
 * plain array too, so each percentile is checked against the exact order statistic of
 * the recorded values: the r-th smallest v, r = ceil(p/100 * n), must be reported as
 * v <= reported < v * (1 + 2^-7), the precision histogram.h states. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "testlib.h"
#include "util.h"

static const double percentiles[] = {0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Record values[0..n) into h (initialised here) and check min, max, mean and every
 * percentile above against the sorted values. */
static void record_and_check(struct histogram *h, uint64_t *values, size_t n)
{
    histogram_init(h);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        histogram_record(h, values[i]);
        sum += (double)values[i];
    }
    qsort(values, n, sizeof(*values), cmp_u64);
    ck_assert_uint_eq(histogram_count(h), n);
    ck_assert_uint_eq(histogram_min(h), values[0]);
    ck_assert_uint_eq(histogram_max(h), values[n - 1]);
    ck_assert_uint_eq(histogram_percentile(h, 0), values[0]);
    ck_assert_uint_eq(histogram_percentile(h, 100), values[n - 1]);
    ck_assert_double_eq_tol(histogram_mean(h), sum / (double)n, 1e-9 * sum / (double)n);
    for (size_t k = 0; k < ARRAY_SIZE(percentiles); k++) {
        double p = percentiles[k];
        size_t rank = (size_t)ceil(p / 100 * (double)n - 1e-9);
        uint64_t exact = values[rank ? rank - 1 : 0];
        uint64_t got = histogram_percentile(h, p);
        ck_assert_msg(got >= exact && (exact < 256 ? got == exact : got * 128 < exact * 129),
                      "p%g: exact %llu, reported %llu", p, (unsigned long long)exact,
                      (unsigned long long)got);
    }
}

START_TEST(layout_and_precision)
{
    /* Every bucket: contiguous with the next, its bounds map back to it, and its width
     * is at most 1/128 of its lowest value (so any value is reported less than 0.78 %
     * over). Walking the buckets through their bounds covers 0..HISTOGRAM_MAX_VALUE. */
    uint64_t low = 0;
    unsigned buckets = 0;
    for (;;) {
        uint64_t high = histogram_highest_equivalent(low);
        ck_assert_uint_eq(histogram_lowest_equivalent(low), low);
        ck_assert_uint_eq(histogram_lowest_equivalent(high), low);
        ck_assert_uint_eq(histogram_highest_equivalent(high), high);
        if (low < 256)
            ck_assert_uint_eq(high, low);
        else
            ck_assert_uint_le((high - low + 1) * 128, low);
        buckets++;
        if (high == HISTOGRAM_MAX_VALUE)
            break;
        ck_assert_uint_lt(high, HISTOGRAM_MAX_VALUE);
        low = high + 1;
    }
    ck_assert_uint_eq(buckets, HISTOGRAM_N_BUCKETS);
    ck_assert_uint_eq(histogram_highest_equivalent(UINT64_MAX), HISTOGRAM_MAX_VALUE);
    /* spot checks by hand: 300 = 0b100101100 keeps 8 leading bits in steps of 2 */
    ck_assert_uint_eq(histogram_lowest_equivalent(301), 300);
    ck_assert_uint_eq(histogram_highest_equivalent(300), 301);
    ck_assert_uint_eq(histogram_highest_equivalent(1000000), 1003519); /* step 4096 */
}
END_TEST

START_TEST(constant)
{
    uint64_t values[1000];
    for (size_t i = 0; i < ARRAY_SIZE(values); i++)
        values[i] = 123457;
    struct histogram h;
    record_and_check(&h, values, ARRAY_SIZE(values));
    /* clamped to the exact max: every percentile is the value itself */
    ck_assert_uint_eq(histogram_percentile(&h, 50), 123457);
    ck_assert_uint_eq(histogram_percentile(&h, 99.9), 123457);
    ck_assert_double_eq(histogram_mean(&h), 123457);
    histogram_release(&h);
}
END_TEST

START_TEST(uniform)
{
    /* 1..N: the r-th smallest is r, so p50 is 50000, p99.9 is 99900. */
    enum { N = 100000 };
    uint64_t *values = xmalloc(N * sizeof(*values));
    for (size_t i = 0; i < N; i++)
        values[i] = (i * 7919) % N + 1; /* 7919 is prime: a permutation of 1..N */
    struct histogram h;
    record_and_check(&h, values, N);
    ck_assert_double_eq(histogram_mean(&h), (N + 1) / 2.0);
    ck_assert_uint_ge(histogram_percentile(&h, 50), 50000);
    ck_assert_uint_le(histogram_percentile(&h, 50), 50000 + 50000 / 128);
    ck_assert_uint_ge(histogram_percentile(&h, 99.9), 99900);
    ck_assert_uint_le(histogram_percentile(&h, 99.9), 99900 + 99900 / 128);
    ck_assert_uint_eq(histogram_percentile(&h, 0.1), 100); /* exact below 256 */
    histogram_release(&h);
    free(values);
}
END_TEST

START_TEST(exponential)
{
    /* Mean 1 ms, by the inverse CDF on a fixed grid of quantiles (i + 0.5) / n. Against
     * the distribution itself, the quantile -mean * ln(1 - q): p50 = 693147 ns,
     * p99 = 4605170 ns, within the stated error plus the grid's half step. */
    enum { N = 100000 };
    const double mean = 1e6;
    uint64_t *values = xmalloc(N * sizeof(*values));
    for (size_t i = 0; i < N; i++)
        values[N - 1 - i] = (uint64_t)llround(-mean * log(1 - ((double)i + 0.5) / N));
    struct histogram h;
    record_and_check(&h, values, N);
    ck_assert_double_eq_tol(histogram_mean(&h), mean, mean * 1e-3);
    ck_assert_double_eq_tol((double)histogram_percentile(&h, 50), 693147, 693147 / 128.0 + 10);
    ck_assert_double_eq_tol((double)histogram_percentile(&h, 99), 4605170, 4605170 / 128.0 + 500);
    histogram_release(&h);
    free(values);
}
END_TEST

START_TEST(bimodal)
{
    /* 90 % fast replies around 100 us, 10 % stalled ones around 50 ms: p90 is the last
     * fast one, p91 already a slow one, and the median knows nothing of the stall. */
    enum { N = 10000, FAST = 9000 };
    uint64_t *values = xmalloc(N * sizeof(*values));
    for (size_t i = 0; i < N; i++)
        values[i] = i < FAST ? 95000 + i * 10000 / FAST : 49000000 + (i - FAST) * 2000;
    struct histogram h;
    record_and_check(&h, values, N);
    ck_assert_uint_lt(histogram_percentile(&h, 50), 101000);
    ck_assert_uint_lt(histogram_percentile(&h, 90), 106000);
    ck_assert_uint_gt(histogram_percentile(&h, 91), 49000000);
    ck_assert_uint_eq(histogram_percentile(&h, 100), 49000000 + 999 * 2000);
    histogram_release(&h);
    free(values);
}
END_TEST

START_TEST(rank_rule)
{
    struct histogram h;
    histogram_init(&h);
    histogram_record(&h, 20);
    histogram_record(&h, 10);
    /* two values: rank ceil(0.5 * 2) = 1 up to p50, then rank 2 */
    ck_assert_uint_eq(histogram_percentile(&h, 50), 10);
    ck_assert_uint_eq(histogram_percentile(&h, 50.001), 20);
    ck_assert_uint_eq(histogram_percentile(&h, 1e-9), 10);
    ck_assert_uint_eq(histogram_percentile(&h, -5), 10);  /* clamped to p0: the min */
    ck_assert_uint_eq(histogram_percentile(&h, 250), 20); /* clamped to p100: the max */
    ck_assert_uint_eq(histogram_percentile(&h, NAN), 10);
    histogram_reset(&h);
    for (uint64_t v = 1; v <= 1000; v++)
        histogram_record(&h, v);
    /* decimal percentiles stay on their rank despite rounding */
    ck_assert_uint_eq(histogram_percentile(&h, 99.9), 999);
    ck_assert_uint_eq(histogram_percentile(&h, 0.1), 1);
    ck_assert_uint_eq(histogram_percentile(&h, 25.1), 251);
    /* a value high in a wide bucket: reported as the bucket's top, never above max */
    histogram_reset(&h);
    histogram_record(&h, 1000000);
    histogram_record(&h, 2000000);
    ck_assert_uint_eq(histogram_percentile(&h, 50), 1003519);
    ck_assert_uint_eq(histogram_percentile(&h, 99), 2000000);
    histogram_release(&h);
}
END_TEST

START_TEST(min_max_exact)
{
    struct histogram h;
    histogram_init(&h);
    const uint64_t values[] = {7777777, 1000003, 5000000000, 123456789};
    for (size_t i = 0; i < ARRAY_SIZE(values); i++)
        histogram_record(&h, values[i]);
    ck_assert_uint_eq(histogram_min(&h), 1000003);
    ck_assert_uint_eq(histogram_max(&h), 5000000000);
    ck_assert_uint_eq(histogram_percentile(&h, 0), 1000003);
    ck_assert_uint_eq(histogram_percentile(&h, 100), 5000000000);
    ck_assert_uint_eq(h.sum, 7777777 + 1000003 + 5000000000ULL + 123456789);
    histogram_release(&h);
}
END_TEST

/* a (recorded, or read back) holds what b (recorded) holds. */
static void assert_same(const struct histogram *a, const struct histogram *b)
{
    ck_assert_uint_eq(a->count, b->count);
    ck_assert_uint_eq(a->clamped, b->clamped);
    ck_assert_uint_eq(a->min, b->min);
    ck_assert_uint_eq(a->max, b->max);
    ck_assert_uint_eq(a->sum, b->sum);
    struct histogram dense;
    histogram_init(&dense);
    histogram_add(&dense, a);
    ck_assert_int_eq(memcmp(dense.counts, b->counts, HISTOGRAM_N_BUCKETS * sizeof(*b->counts)), 0);
    histogram_release(&dense);
}

/* A deterministic spread of values over most of the range, and a few clamped. */
static uint64_t spread_value(size_t i)
{
    if (i % 997 == 0)
        return HISTOGRAM_MAX_VALUE + i;
    return (uint64_t)(exp((double)(i % 4000) / 4000 * 28) + (double)i);
}

START_TEST(merge_equals_one_recording)
{
    struct histogram a, b, all, empty;
    histogram_init(&a);
    histogram_init(&b);
    histogram_init(&all);
    histogram_init(&empty);
    for (size_t i = 0; i < 20000; i++) {
        histogram_record(i % 3 ? &a : &b, spread_value(i));
        histogram_record(&all, spread_value(i));
    }
    histogram_add(&a, &empty); /* adding nothing changes nothing */
    histogram_add(&a, &b);
    assert_same(&a, &all);
    ck_assert_uint_eq(histogram_percentile(&a, 99.9), histogram_percentile(&all, 99.9));
    histogram_add(&empty, &all); /* into an empty one: min comes over too */
    assert_same(&empty, &all);
    histogram_release(&a);
    histogram_release(&b);
    histogram_release(&all);
    histogram_release(&empty);
}
END_TEST

/* to_json, text, from_json. */
static void round_trip(const struct histogram *h)
{
    json_t *j = histogram_to_json(h, "ns");
    ck_assert_ptr_nonnull(j);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    json_error_t jerr;
    json_t *back = json_loads(text, 0, &jerr);
    ck_assert_ptr_nonnull(back);
    struct histogram r;
    histogram_init(&r);
    histogram_record(&r, 42); /* replaced, not added to */
    struct lb_error err;
    ck_assert_msg(histogram_from_json(back, "ns", &r, &err) == 0, "%s", err.msg);
    assert_same(&r, h);
    /* read back, it holds its non-empty buckets alone, and answers as the original does */
    ck_assert_ptr_null(r.counts);
    ck_assert_uint_eq(r.n_pairs, json_array_size(json_object_get(back, "counts")));
    for (double p = 0; p <= 100; p += 0.5)
        ck_assert_uint_eq(histogram_percentile(&r, p), histogram_percentile(h, p));
    json_t *again = histogram_to_json(&r, "ns");
    char *text2 = json_dumps(again, JSON_COMPACT);
    ck_assert_str_eq(text2, text);
    free(text2);
    json_decref(again);
    histogram_release(&r);
    json_decref(back);
    free(text);
}

START_TEST(json_round_trip)
{
    struct histogram h;
    histogram_init(&h);
    round_trip(&h); /* empty */
    for (size_t i = 0; i < 20000; i++)
        histogram_record(&h, spread_value(i));
    ck_assert_uint_gt(h.clamped, 0);
    round_trip(&h);
    /* the documented example */
    histogram_reset(&h);
    histogram_record(&h, 120);
    histogram_record(&h, 300);
    histogram_record(&h, 900);
    json_t *j = histogram_to_json(&h, "ns");
    char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    ck_assert_str_eq(text, "{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,"
                           "\"count\":3,\"clamped\":0,\"min\":120,\"max\":900,\"sum\":1320,"
                           "\"counts\":[[120,1],[278,1],[481,1]]}");
    free(text);
    json_decref(j);
    histogram_release(&h);
}
END_TEST

START_TEST(json_rejected)
{
    static const struct {
        const char *json, *message;
    } cases[] = {
        {"[1, 2]", "histogram: not a JSON object"},
        {"{\"sub_bucket_bits\":7}", "histogram: 'unit' must be a string"},
        {"{\"unit\":\"us\"}", "histogram: unit is 'us', expected 'ns'"},
        {"{\"unit\":\"ns\",\"max_value\":4398046511103}",
         "histogram: 'sub_bucket_bits' must be a non-negative integer"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":8,\"max_value\":4398046511103}",
         "histogram: layout sub_bucket_bits 8, max_value 4398046511103; this build reads 7, "
         "4398046511103"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":-1}",
         "histogram: 'count' must be a non-negative integer"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":1,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":5.0,\"counts\":[[5,1]]}",
         "histogram: 'sum' must be a non-negative integer"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":1,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":5,\"counts\":{}}",
         "histogram: 'counts' must be an array of [index, count] pairs"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":1,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":5,\"counts\":[[5]]}",
         "histogram: counts[0] must be a pair of non-negative integers"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":2,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":10,\"counts\":[[5,1],[5,1]]}",
         "histogram: counts[1] has bucket index 5, out of order or outside 0..4607"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":1,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":5,\"counts\":[[4608,1]]}",
         "histogram: counts[0] has bucket index 4608, out of order or outside 0..4607"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":1,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":5,\"counts\":[[4,0],[5,1]]}",
         "histogram: counts[0] has a zero count"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":1,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":5,\"counts\":[[5,9223372036854775807]]}",
         "histogram: the counts add up to more than 'count' (1)"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":3,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":15,\"counts\":[[5,2]]}",
         "histogram: the counts add up to 2, not 'count' (3)"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":0,"
         "\"clamped\":0,\"min\":5,\"max\":5,\"sum\":0,\"counts\":[]}",
         "histogram: an empty histogram must have min, max, sum and clamped 0"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":2,"
         "\"clamped\":0,\"min\":4,\"max\":7,\"sum\":11,\"counts\":[[5,1],[7,1]]}",
         "histogram: 'min' (4) and 'max' (7) must lie in the first and last non-empty "
         "buckets"},
        {"{\"unit\":\"ns\",\"sub_bucket_bits\":7,\"max_value\":4398046511103,\"count\":1,"
         "\"clamped\":1,\"min\":5,\"max\":5,\"sum\":5,\"counts\":[[5,1]]}",
         "histogram: 'clamped' (1) exceeds the top bucket's count"},
    };
    struct histogram h;
    for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
        json_error_t jerr;
        json_t *j = json_loads(cases[k].json, 0, &jerr);
        ck_assert_msg(j != NULL, "case %zu: %s", k, jerr.text);
        histogram_init(&h);
        histogram_record(&h, 99);
        struct lb_error err = {{0}};
        ck_assert_int_eq(histogram_from_json(j, "ns", &h, &err), -1);
        ck_assert_str_eq(err.msg, cases[k].message);
        ck_assert_uint_eq(histogram_count(&h), 0); /* left empty, released */
        ck_assert_ptr_null(h.counts);
        ck_assert_ptr_null(h.pairs);
        json_decref(j);
    }
}
END_TEST

START_TEST(clamping)
{
    struct histogram h;
    histogram_init(&h);
    histogram_record(&h, HISTOGRAM_MAX_VALUE); /* the top of the range is not clamped */
    ck_assert_uint_eq(h.clamped, 0);
    histogram_record(&h, HISTOGRAM_MAX_VALUE + 1);
    histogram_record(&h, UINT64_MAX);
    histogram_record(&h, 1);
    ck_assert_uint_eq(histogram_count(&h), 4);
    ck_assert_uint_eq(h.clamped, 2);
    ck_assert_uint_eq(histogram_max(&h), HISTOGRAM_MAX_VALUE);
    ck_assert_uint_eq(histogram_percentile(&h, 100), HISTOGRAM_MAX_VALUE);
    ck_assert_uint_eq(histogram_percentile(&h, 50), HISTOGRAM_MAX_VALUE);
    ck_assert_uint_eq(histogram_percentile(&h, 25), 1);
    ck_assert_uint_eq(h.counts[HISTOGRAM_N_BUCKETS - 1], 3);
    histogram_release(&h);
}
END_TEST

START_TEST(empty)
{
    struct histogram h;
    histogram_init(&h);
    ck_assert_uint_eq(histogram_count(&h), 0);
    ck_assert_uint_eq(histogram_min(&h), 0);
    ck_assert_uint_eq(histogram_max(&h), 0);
    ck_assert_uint_eq(histogram_percentile(&h, 50), 0);
    ck_assert_uint_eq(histogram_percentile(&h, 100), 0);
    ck_assert(isnan(histogram_mean(&h)));
    histogram_release(&h);
    histogram_release(&h); /* a released (zeroed) histogram can be released again */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("histogram");
    TCase *tc = tcase_create("histogram");
    tcase_add_test(tc, layout_and_precision);
    tcase_add_test(tc, constant);
    tcase_add_test(tc, uniform);
    tcase_add_test(tc, exponential);
    tcase_add_test(tc, bimodal);
    tcase_add_test(tc, rank_rule);
    tcase_add_test(tc, min_max_exact);
    tcase_add_test(tc, merge_equals_one_recording);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, json_rejected);
    tcase_add_test(tc, clamping);
    tcase_add_test(tc, empty);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
