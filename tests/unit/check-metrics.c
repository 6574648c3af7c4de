/* Metrics from an HTTP endpoint: the Prometheus text parser, table-driven over well-formed
 * and damaged expositions; selectors and endpoint checks; JSON key paths; window
 * arithmetic; a 10 MB body; and metrics_scrape against tests/helpers/httpstub.py, which
 * the test case's unchecked fixture starts in the parent process and stops there, so the
 * server is killed and reaped even when a test fails or times out. */
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "platform/platform.h"
#include "prometheus.h"
#include "testlib.h"
#include "util.h"

/* ---- Helpers ------------------------------------------------------------------------ */

/* A Prometheus selection from a selector; freed with select_release. */
static struct metrics_select select_of(const char *selector, enum metrics_kind kind)
{
    struct metrics_select sel = {.kind = kind};
    struct lb_error err;
    ck_assert_msg(metrics_select_parse(selector, &sel, &err) == 0, "%s", err.msg);
    sel.key = xstrdup(selector);
    return sel;
}

/* Free n selections (on the stack or not) through an endpoint owning copies of them. */
static void selects_release(const struct metrics_select *sel, size_t n)
{
    struct metrics_endpoint ep = {.select = xcalloc(n, sizeof(*sel)), .n_select = n};
    memcpy(ep.select, sel, n * sizeof(*sel));
    metrics_endpoint_release(&ep);
}

/* An endpoint owning the selections of the given selectors. */
static struct metrics_endpoint prometheus_endpoint(const char *url, const char *const *selectors,
                                                   size_t n)
{
    struct metrics_endpoint ep = {.url = xstrdup(url), .format = METRICS_PROMETHEUS};
    ep.select = xcalloc(n, sizeof(*ep.select));
    ep.n_select = n;
    for (size_t i = 0; i < n; i++)
        ep.select[i] = select_of(selectors[i], METRICS_KIND_AUTO);
    return ep;
}

/* A JSON selection of a dotted path (members hold no dots here). */
static struct metrics_select json_select_of(const char *dotted, enum metrics_kind kind)
{
    struct metrics_select sel = {.key = xstrdup(dotted), .kind = kind};
    char *copy = xstrdup(dotted), *save = NULL;
    for (char *m = strtok_r(copy, ".", &save); m; m = strtok_r(NULL, ".", &save)) {
        sel.json_path = xrealloc(sel.json_path, (sel.json_depth + 1) * sizeof(char *));
        sel.json_path[sel.json_depth++] = xstrdup(m);
    }
    free(copy);
    return sel;
}

static struct metrics_endpoint json_endpoint(const char *url, const char *const *paths, size_t n)
{
    struct metrics_endpoint ep = {.url = xstrdup(url), .format = METRICS_JSON};
    ep.select = xcalloc(n, sizeof(*ep.select));
    ep.n_select = n;
    for (size_t i = 0; i < n; i++)
        ep.select[i] = json_select_of(paths[i], METRICS_GAUGE);
    return ep;
}

static void assert_value(const char *what, double got, double want)
{
    if (isnan(want))
        ck_assert_msg(isnan(got), "%s: %g, expected NaN", what, got);
    else
        ck_assert_msg(got == want, "%s: %.17g, expected %.17g", what, got, want);
}

/* ---- The Prometheus parser, table-driven ---------------------------------------------- */

struct prom_case {
    const char *what;
    const char *text;
    size_t len; /* 0: strlen(text) */
    const char *selector;
    enum metrics_kind force;
    bool found;
    double value; /* NAN: NaN expected (when found) */
    enum metrics_kind kind;
    size_t series;
    size_t skipped;
    size_t duplicates;
};

#define COUNTER METRICS_COUNTER
#define GAUGE METRICS_GAUGE

static const struct prom_case prom_cases[] = {
    {"counter", "# HELP c requests\n# TYPE c counter\nc 5\n", 0, "c", 0, true, 5, COUNTER, 1, 0, 0},
    {"gauge", "# TYPE g gauge\ng -3.5\n", 0, "g", 0, true, -3.5, GAUGE, 1, 0, 0},
    {"no TYPE line: gauge", "u 7\n", 0, "u", 0, true, 7, GAUGE, 1, 0, 0},
    {"untyped, no final newline", "# TYPE u untyped\nu 7", 0, "u", 0, true, 7, GAUGE, 1, 0, 0},
    {"declared kind wins", "u 7\n", 0, "u", COUNTER, true, 7, COUNTER, 1, 0, 0},
    {"exact label set", "# TYPE r counter\nr{code=\"200\"} 10\nr{code=\"500\"} 2\n", 0,
     "r{code=\"500\"}", 0, true, 2, COUNTER, 1, 0, 0},
    {"no labels: summed", "# TYPE r counter\nr{code=\"200\"} 10\nr{code=\"500\"} 2\nr 1\n", 0, "r",
     0, true, 13, COUNTER, 3, 0, 0},
    {"gauges summed too", "# TYPE conns gauge\nconns{state=\"idle\"} 4\nconns{state=\"busy\"} 3\n",
     0, "conns", 0, true, 7, GAUGE, 2, 0, 0},
    {"label order does not matter", "m{a=\"1\",b=\"2\"} 3\n", 0, "m{b=\"2\",a=\"1\"}", 0, true, 3,
     GAUGE, 1, 0, 0},
    {"a subset is not the set", "m{a=\"1\",b=\"2\"} 3\n", 0, "m{a=\"1\"}", 0, false, 0, GAUGE, 0, 0,
     0},
    {"a superset is not the set", "m{a=\"1\"} 3\n", 0, "m{a=\"1\",b=\"2\"}", 0, false, 0, GAUGE, 0,
     0, 0},
    {"escapes in label values", "e{path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\",nl=\"a\\nb\"} 4\n", 0,
     "e{nl=\"a\\nb\",path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\"}", 0, true, 4, GAUGE, 1, 0, 0},
    {"an escape is not its letter", "e{nl=\"a\\nb\"} 4\n", 0, "e{nl=\"anb\"}", 0, false, 0, GAUGE,
     0, 0, 0},
    {"commas, braces and = in a quoted value", "x{v=\"a,b}c=d\",w=\"{\"} 1\n", 0,
     "x{v=\"a,b}c=d\",w=\"{\"}", 0, true, 1, GAUGE, 1, 0, 0},
    {"blanks everywhere, a trailing comma", "  sp { a = \"1\" ,\tb=\"2\" , }   8   \n", 0,
     "sp{a=\"1\",b=\"2\"}", 0, true, 8, GAUGE, 1, 0, 0},
    {"tab before the value", "t\t9\n", 0, "t", 0, true, 9, GAUGE, 1, 0, 0},
    {"no blank after the labels", "nb{a=\"1\"}7\n", 0, "nb{a=\"1\"}", 0, true, 7, GAUGE, 1, 0, 0},
    {"empty braces", "eb{} 4\n", 0, "eb", 0, true, 4, GAUGE, 1, 0, 0},
    {"empty label value", "ev{a=\"\"} 2\n", 0, "ev{a=\"\"}", 0, true, 2, GAUGE, 1, 0, 0},
    {"UTF-8 in a label value", "city{name=\"Z\xc3\xbcrich\"} 1\n", 0,
     "city{name=\"Z\xc3\xbcrich\"}", 0, true, 1, GAUGE, 1, 0, 0},
    {"a timestamp", "ts 5 1700000000000\nts2 6 -1\n", 0, "ts", 0, true, 5, GAUGE, 1, 0, 0},
    {"a timestamp that is not an integer", "ts 5 12.5\n", 0, "ts", 0, false, 0, GAUGE, 0, 1, 0},
    {"+Inf", "g +Inf\n", 0, "g", 0, true, INFINITY, GAUGE, 1, 0, 0},
    {"-Inf", "g -Inf\n", 0, "g", 0, true, -INFINITY, GAUGE, 1, 0, 0},
    {"NaN", "g NaN\n", 0, "g", 0, true, NAN, GAUGE, 1, 0, 0},
    {"exponents", "g 1.5e3\nh 2E-2\n", 0, "h", 0, true, 0.02, GAUGE, 1, 0, 0},
    {"underflow is 0, overflow is malformed", "g 1e-400\nh 1e400\n", 0, "g", 0, true, 0, GAUGE, 1,
     1, 0},
    {"comments", "# a comment\n#another\n# HELP g help with \\\\ and \\n\n#TYPE g counter\ng 1\n",
     0, "g", 0, true, 1, COUNTER, 1, 0, 0},
    {"CRLF", "# TYPE c counter\r\nc 2\r\n\r\n", 0, "c", 0, true, 2, COUNTER, 1, 0, 0},
    {"blank lines and indentation", "\n\n  \n \t g 1\n\n", 0, "g", 0, true, 1, GAUGE, 1, 0, 0},
    {"truncated label set", "tr{a=\"1\"} 3\ntr{a=\"1", 0, "tr{a=\"1\"}", 0, true, 3, GAUGE, 1, 1,
     0},
    {"truncated after the labels", "tr{a=\"1\"} \n", 0, "tr{a=\"1\"}", 0, false, 0, GAUGE, 0, 1, 0},
    {"a line with only a name", "lonely\n", 0, "lonely", 0, false, 0, GAUGE, 0, 1, 0},
    {"duplicate series: the first counts", "d{a=\"1\"} 1\nd{a=\"1\"} 5\n", 0, "d{a=\"1\"}", 0, true,
     1, GAUGE, 1, 0, 1},
    {"duplicates not summed twice", "d{a=\"1\",b=\"2\"} 1\nd{b=\"2\",a=\"1\"} 5\nd{a=\"2\"} 3\n", 0,
     "d", 0, true, 4, GAUGE, 2, 0, 1},
    {"an unknown type", "# TYPE c countr\nc 3\n", 0, "c", 0, true, 3, GAUGE, 1, 1, 0},
    {"a TYPE line without a type", "# TYPE c\nc 3\n", 0, "c", 0, true, 3, GAUGE, 1, 1, 0},
    {"the first TYPE counts", "# TYPE c counter\n# TYPE c gauge\nc 1\n", 0, "c", 0, true, 1,
     COUNTER, 1, 0, 0},
    {"TYPE after the samples", "c 5\n# TYPE c counter\n", 0, "c", 0, true, 5, COUNTER, 1, 0, 0},
    {"garbage", "\x01\x02 garbage ###\n{}\n=\n\"\nc=1\n1abc 3\nc 1\n", 0, "c", 0, true, 1, GAUGE, 1,
     6, 0},
    {"a value that is not a number", "g abc\ng 0x\n", 0, "g", 0, false, 0, GAUGE, 0, 2, 0},
    {"extra tokens", "g 1 2 3\n", 0, "g", 0, false, 0, GAUGE, 0, 1, 0},
    {"an unknown escape", "e{a=\"\\t\"} 1\n", 0, "e{a=\"\\\\t\"}", 0, false, 0, GAUGE, 0, 1, 0},
    {"a NUL in the value", "g 1\0x\ng 2\n", 10, "g", 0, true, 2, GAUGE, 1, 1, 0},
    {"colons in names", "job:rate5m 0.5\n", 0, "job:rate5m", 0, true, 0.5, GAUGE, 1, 0, 0},
    {"histogram parts are counters",
     "# TYPE h histogram\nh_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 4\nh_sum 2.5\nh_count 4\n",
     0, "h_bucket{le=\"+Inf\"}", 0, true, 4, COUNTER, 1, 0, 0},
    {"histogram buckets summed",
     "# TYPE h histogram\nh_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 4\n", 0, "h_bucket", 0,
     true, 5, COUNTER, 2, 0, 0},
    {"histogram _sum", "# TYPE h histogram\nh_sum 2.5\nh_count 4\n", 0, "h_sum", 0, true, 2.5,
     COUNTER, 1, 0, 0},
    {"summary _count", "# TYPE s summary\ns{quantile=\"0.9\"} 0.2\ns_sum 10\ns_count 3\n", 0,
     "s_count", 0, true, 3, COUNTER, 1, 0, 0},
    {"summary quantiles are gauges", "# TYPE s summary\ns{quantile=\"0.9\"} 0.2\ns_count 3\n", 0,
     "s{quantile=\"0.9\"}", 0, true, 0.2, GAUGE, 1, 0, 0},
    {"a part's own TYPE wins", "# TYPE h histogram\n# TYPE h_count gauge\nh_count 4\n", 0,
     "h_count", 0, true, 4, GAUGE, 1, 0, 0},
    {"_count of a gauge family is not a part", "# TYPE q gauge\nq_count 4\n", 0, "q_count", 0, true,
     4, GAUGE, 1, 0, 0},
    {"_total of an OpenMetrics counter", "# TYPE req counter\nreq_total 9\n", 0, "req_total", 0,
     true, 9, COUNTER, 1, 0, 0},
    {"absent", "other 1\n", 0, "wanted", 0, false, 0, GAUGE, 0, 0, 0},
    {"a prefix is another series", "abc 1\nab 2\n", 0, "ab", 0, true, 2, GAUGE, 1, 0, 0},
    {"empty body", "", 0, "c", 0, false, 0, GAUGE, 0, 0, 0},
};

START_TEST(prometheus_case)
{
    const struct prom_case *c = &prom_cases[_i];
    struct metrics_select sel = select_of(c->selector, c->force);
    struct metrics_snapshot snap;
    size_t len = c->len ? c->len : strlen(c->text);
    metrics_parse_prometheus(c->text, len, &sel, 1, &snap);
    ck_assert_uint_eq(snap.n, 1);
    const struct metrics_value *v = &snap.values[0];
    ck_assert_msg(v->found == c->found, "%s: found %d", c->what, v->found);
    ck_assert_msg(v->kind == c->kind, "%s: kind %s", c->what, metrics_kind_name(v->kind));
    ck_assert_msg(v->series == c->series, "%s: %zu series", c->what, v->series);
    ck_assert_msg(snap.skipped_lines == c->skipped, "%s: %zu lines skipped", c->what,
                  snap.skipped_lines);
    ck_assert_msg(snap.duplicates == c->duplicates, "%s: %zu duplicates", c->what, snap.duplicates);
    if (c->found) {
        ck_assert_int_eq(v->miss, METRICS_MISS_NONE);
        assert_value(c->what, v->value, c->value);
    } else {
        ck_assert_int_eq(v->miss, METRICS_MISS_ABSENT);
        ck_assert(isnan(v->value));
    }
    ck_assert_uint_eq(snap.mono_ns, 0);
    metrics_snapshot_release(&snap);
    selects_release(&sel, 1);
}
END_TEST

/* Several selections in one parse: shared names, results in selection order, the first
 * skipped line's number, unselected series ignored. */
START_TEST(prometheus_many_selections)
{
    static const char *const selectors[] = {
        "http_requests_total{code=\"500\"}",
        "http_requests_total",
        "up",
        "missing",
        "http_requests_total{code=\"200\",method=\"get\"}",
    };
    const char *text = "# TYPE http_requests_total counter\n"
                       "http_requests_total{code=\"200\",method=\"get\"} 100\n"
                       "http_requests_total{code=\"200\",method=\"post\"} 20\n"
                       "not a sample\n"
                       "http_requests_total{code=\"500\"} 3\n"
                       "unselected{a=\"b\"} 5\n"
                       "# TYPE up gauge\n"
                       "up 1\n"
                       "{broken\n";
    struct metrics_endpoint ep = prometheus_endpoint("http://x/", selectors, 5);
    struct metrics_snapshot snap;
    metrics_parse_prometheus(text, strlen(text), ep.select, ep.n_select, &snap);
    ck_assert_uint_eq(snap.n, 5);
    const double want[] = {3, 123, 1, NAN, 100};
    const enum metrics_kind kinds[] = {COUNTER, COUNTER, GAUGE, GAUGE, COUNTER};
    const size_t series[] = {1, 3, 1, 0, 1};
    for (size_t i = 0; i < 5; i++) {
        ck_assert_msg(snap.values[i].found == !isnan(want[i]), "%s", selectors[i]);
        assert_value(selectors[i], snap.values[i].value, want[i]);
        ck_assert_int_eq(snap.values[i].kind, kinds[i]);
        ck_assert_uint_eq(snap.values[i].series, series[i]);
    }
    ck_assert_uint_eq(snap.skipped_lines, 2);
    ck_assert_uint_eq(snap.first_skipped, 4);
    char *why = metrics_miss_text(&ep, &snap, 3);
    ck_assert_str_eq(why, "no sample of missing");
    free(why);
    why = metrics_miss_text(&ep, &snap, 0);
    ck_assert_str_eq(why, "found");
    free(why);
    metrics_snapshot_release(&snap);
    metrics_endpoint_release(&ep);
}
END_TEST

/* A sample with 1000 labels, selected by its whole set written in another order; a 1 MB
 * label value on an unselected line before it. */
START_TEST(prometheus_huge_label_sets)
{
    enum { N_LABELS = 1000, BIG_VALUE = 1 << 20 };
    size_t cap = BIG_VALUE + (size_t)N_LABELS * 32 + 256;
    char *text = xmalloc(cap), *t = text;
    t += sprintf(t, "wide_unselected{v=\"");
    memset(t, 'v', BIG_VALUE);
    t += BIG_VALUE;
    t += sprintf(t, "\"} 1\nwide{");
    for (int i = 0; i < N_LABELS; i++)
        t += sprintf(t, "%sl%d=\"%d\"", i ? "," : "", i, i * 7);
    t += sprintf(t, "} 42\n");
    char *selector = xmalloc((size_t)N_LABELS * 32), *s = selector;
    s += sprintf(s, "wide{");
    for (int i = N_LABELS - 1; i >= 0; i--)
        s += sprintf(s, "l%d=\"%d\"%s", i, i * 7, i ? "," : "}");
    struct metrics_select sel[3] = {
        select_of(selector, METRICS_KIND_AUTO),
        select_of("wide{l0=\"0\"}", METRICS_KIND_AUTO),
        select_of("wide", METRICS_KIND_AUTO),
    };
    ck_assert_uint_eq(sel[0].n_labels, N_LABELS);
    struct metrics_snapshot snap;
    metrics_parse_prometheus(text, (size_t)(t - text), sel, 3, &snap);
    ck_assert(snap.values[0].found);
    ck_assert_double_eq(snap.values[0].value, 42);
    ck_assert(!snap.values[1].found);
    ck_assert_double_eq(snap.values[2].value, 42);
    ck_assert_uint_eq(snap.skipped_lines, 0);
    metrics_snapshot_release(&snap);
    selects_release(sel, 3);
    free(selector);
    free(text);
}
END_TEST

/* 10 MB of series, the selected one last, and a name summed over 100 000 label sets. No
 * timing assertion: the time is printed. */
START_TEST(prometheus_big_body)
{
    size_t cap = 11u << 20;
    char *text = xmalloc(cap);
    size_t len = 0, lines = 0;
    len += (size_t)sprintf(text, "# HELP big_total Many series.\n# TYPE big_total counter\n");
    while (len < (10u << 20)) {
        len += (size_t)sprintf(text + len,
                               "big_total{shard=\"%06zu\",instance=\"host-%06zu:9100\","
                               "path=\"/api/v1/items\"} 1 1700000000000\n",
                               lines, lines % 977);
        lines++;
    }
    len += (size_t)sprintf(text + len, "last_series{a=\"b\"} 42");
    ck_assert_uint_lt(len, cap);
    struct metrics_select sel[3] = {
        select_of("last_series{a=\"b\"}", METRICS_KIND_AUTO),
        select_of("big_total", METRICS_KIND_AUTO),
        select_of("big_total{shard=\"000017\",instance=\"host-000017:9100\","
                  "path=\"/api/v1/items\"}",
                  METRICS_KIND_AUTO),
    };
    struct metrics_snapshot snap;
    uint64_t t0 = mono_ns();
    metrics_parse_prometheus(text, len, sel, 3, &snap);
    uint64_t t1 = mono_ns();
    printf("prometheus_big_body: %zu bytes, %zu series parsed in %.1f ms\n", len, lines + 1,
           (double)(t1 - t0) / 1e6);
    ck_assert(snap.values[0].found);
    ck_assert_double_eq(snap.values[0].value, 42);
    ck_assert_double_eq(snap.values[1].value, (double)lines);
    ck_assert_uint_eq(snap.values[1].series, lines);
    ck_assert_int_eq(snap.values[1].kind, METRICS_COUNTER);
    ck_assert_double_eq(snap.values[2].value, 1);
    ck_assert_uint_eq(snap.skipped_lines, 0);
    ck_assert_uint_eq(snap.duplicates, 0);
    metrics_snapshot_release(&snap);
    selects_release(sel, 3);
    free(text);
}
END_TEST

/* ---- Selectors and endpoint checks ----------------------------------------------------- */

START_TEST(selector_parse)
{
    struct metrics_select sel = {0};
    struct lb_error err;
    ck_assert_int_eq(metrics_select_parse("http_requests_total", &sel, &err), 0);
    ck_assert_str_eq(sel.name, "http_requests_total");
    ck_assert_uint_eq(sel.n_labels, 0);
    ck_assert_ptr_null(sel.labels);

    ck_assert_int_eq(metrics_select_parse("  rq { code = \"200\" , method=\"GET\", } ", &sel, &err),
                     0);
    ck_assert_str_eq(sel.name, "rq");
    ck_assert_uint_eq(sel.n_labels, 2);
    ck_assert_str_eq(sel.labels[0], "code=200");
    ck_assert_str_eq(sel.labels[1], "method=GET");

    const char *escaped = "e{p=\"C:\\\\d\",q=\"say \\\"hi\\\"\",n=\"a\\nb\",v=\"x=y,}\"}";
    ck_assert_int_eq(metrics_select_parse(escaped, &sel, &err), 0);
    ck_assert_uint_eq(sel.n_labels, 4);
    ck_assert_str_eq(sel.labels[0], "p=C:\\d");
    ck_assert_str_eq(sel.labels[1], "q=say \"hi\"");
    ck_assert_str_eq(sel.labels[2], "n=a\nb");
    ck_assert_str_eq(sel.labels[3], "v=x=y,}");
    sel.key = xstrdup("k");
    struct metrics_endpoint ep = {.format = METRICS_PROMETHEUS, .select = &sel, .n_select = 1};
    char *text = metrics_select_text(&ep, 0);
    ck_assert_str_eq(text, escaped); /* escaped back as written */
    free(text);

    static const struct {
        const char *selector, *message;
    } bad[] = {
        {"", "series selector '': expected a series name at byte 1"},
        {"1abc", "series selector '1abc': expected a series name at byte 1"},
        {"x{code=200}", "series selector 'x{code=200}': expected a quoted label value at byte 8"},
        {"x{code=\"200\"",
         "series selector 'x{code=\"200\"': expected ',' or '}' after a label value at byte 13"},
        {"x{code=\"200} ",
         "series selector 'x{code=\"200} ': expected the label value's closing quote at byte 14"},
        {"x{c=\"\\t\"}", "series selector 'x{c=\"\\t\"}': expected an escape \\\\, \\\" or \\n at "
                         "byte 6"},
        {"x y", "series selector 'x y': expected the end after the series name or its labels at "
                "byte 3"},
        {"x{c=\"1\"} z", "series selector 'x{c=\"1\"} z': expected the end after the series name "
                         "or its labels at byte 10"},
        {"x{1c=\"1\"}", "series selector 'x{1c=\"1\"}': expected a label name or '}' at byte 3"},
        {"x{c:d=\"1\"}", "series selector 'x{c:d=\"1\"}': expected '=' after a label name at "
                         "byte 4"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        ck_assert_int_eq(metrics_select_parse(bad[i].selector, &sel, &err), -1);
        ck_assert_str_eq(err.msg, bad[i].message);
        ck_assert_str_eq(sel.name, "e"); /* untouched */
        ck_assert_uint_eq(sel.n_labels, 4);
    }
    selects_release(&sel, 1);
}
END_TEST

START_TEST(select_text_and_kind_names)
{
    static const char *const paths[] = {"stats.loop.missed16ms"};
    struct metrics_endpoint ep = json_endpoint("http://x/", paths, 1);
    char *text = metrics_select_text(&ep, 0);
    ck_assert_str_eq(text, "stats.loop.missed16ms");
    free(text);
    metrics_endpoint_release(&ep);
    metrics_endpoint_release(&ep); /* a released (zeroed) endpoint can be released again */
    ck_assert_str_eq(metrics_kind_name(METRICS_COUNTER), "counter");
    ck_assert_str_eq(metrics_kind_name(METRICS_GAUGE), "gauge");
    ck_assert_str_eq(metrics_kind_name(METRICS_KIND_AUTO), "auto");
}
END_TEST

START_TEST(endpoint_check)
{
    char *labels_bad_name[] = {"1c=2"}, *labels_colon[] = {"a:b=1"}, *labels_no_eq[] = {"code"};
    char *labels_twice[] = {"c=1", "d=2", "c=3"}, *labels_ok[] = {"code=200", "m=a=b"};
    char *path_ok[] = {"stats", "loop"}, *path_hole[] = {"stats", NULL};
    struct metrics_select prom_ok = {.key = "a", .name = "x", .labels = labels_ok, .n_labels = 2};
    struct metrics_select json_ok = {
        .key = "a", .json_path = path_ok, .json_depth = 2, .kind = METRICS_COUNTER};
    struct metrics_select two[2] = {prom_ok, prom_ok};
    two[1].key = "b";
    struct metrics_endpoint good = {.url = "http://127.0.0.1:9100/metrics",
                                    .format = METRICS_PROMETHEUS,
                                    .select = two,
                                    .n_select = 2};
    struct lb_error err;
    ck_assert_msg(metrics_endpoint_check(&good, &err) == 0, "%s", err.msg);
    struct metrics_endpoint good_json = {.url = "https://host/stats",
                                         .format = METRICS_JSON,
                                         .timeout_s = 600,
                                         .select = &json_ok,
                                         .n_select = 1};
    ck_assert_msg(metrics_endpoint_check(&good_json, &err) == 0, "%s", err.msg);

    struct {
        struct metrics_endpoint ep;
        struct metrics_select sel[2];
        const char *message;
    } bad[] = {
        {{.url = NULL}, {prom_ok}, "metrics endpoint: expected a URL"},
        {{.url = "ftp://x/"},
         {prom_ok},
         "metrics endpoint 'ftp://x/': expected an http:// or https:// URL"},
        {{.url = "http://x/", .timeout_s = -1},
         {prom_ok},
         "metrics endpoint: the timeout must be 0 to 600 seconds"},
        {{.url = "http://x/", .timeout_s = NAN},
         {prom_ok},
         "metrics endpoint: the timeout must be 0 to 600 seconds"},
        {{.url = "http://x/", .timeout_s = 601},
         {prom_ok},
         "metrics endpoint: the timeout must be 0 to 600 seconds"},
        {{.url = "http://x/"},
         {prom_ok},
         "metrics endpoint: expected at least one value to select"},
        {{.url = "http://x/"},
         {{.key = "", .name = "x"}},
         "metrics endpoint: selection 1: expected a key of 1 to 63 bytes"},
        {{.url = "http://x/"},
         {{.key = "k234567890123456789012345678901234567890123456789012345678901234", .name = "x"}},
         "metrics endpoint: selection 1: expected a key of 1 to 63 bytes"},
        {{.url = "http://x/"}, {prom_ok, prom_ok}, "metrics endpoint: key 'a' is used twice"},
        {{.url = "http://x/"},
         {{.key = "a", .name = "1x"}},
         "metrics endpoint: 'a': expected a series name ([a-zA-Z_:][a-zA-Z0-9_:]*), not '1x'"},
        {{.url = "http://x/"},
         {{.key = "a"}},
         "metrics endpoint: 'a': expected a series name ([a-zA-Z_:][a-zA-Z0-9_:]*), not ''"},
        {{.url = "http://x/"},
         {{.key = "a", .name = "x", .json_path = path_ok, .json_depth = 2}},
         "metrics endpoint: 'a': a JSON key path is for a JSON endpoint"},
        {{.url = "http://x/"},
         {{.key = "a", .name = "x", .labels = labels_no_eq, .n_labels = 1}},
         "metrics endpoint: 'a': label 'code': expected name=value, the name "
         "[a-zA-Z_][a-zA-Z0-9_]*"},
        {{.url = "http://x/"},
         {{.key = "a", .name = "x", .labels = labels_bad_name, .n_labels = 1}},
         "metrics endpoint: 'a': label '1c=2': expected name=value, the name "
         "[a-zA-Z_][a-zA-Z0-9_]*"},
        {{.url = "http://x/"},
         {{.key = "a", .name = "x", .labels = labels_colon, .n_labels = 1}},
         "metrics endpoint: 'a': label 'a:b=1': expected name=value, the name "
         "[a-zA-Z_][a-zA-Z0-9_]*"},
        {{.url = "http://x/"},
         {{.key = "a", .name = "x", .labels = labels_twice, .n_labels = 3}},
         "metrics endpoint: 'a': label 'c' is given twice"},
        {{.url = "http://x/", .format = METRICS_JSON},
         {{.key = "a", .name = "x"}},
         "metrics endpoint: 'a': a series name and labels are for a Prometheus endpoint"},
        {{.url = "http://x/", .format = METRICS_JSON},
         {{.key = "a", .kind = METRICS_GAUGE}},
         "metrics endpoint: 'a': expected a key path of one or more member names"},
        {{.url = "http://x/", .format = METRICS_JSON},
         {{.key = "a", .json_path = path_hole, .json_depth = 2, .kind = METRICS_GAUGE}},
         "metrics endpoint: 'a': key path member 2 is missing"},
        {{.url = "http://x/", .format = METRICS_JSON},
         {{.key = "a", .json_path = path_ok, .json_depth = 2}},
         "metrics endpoint: 'a': expected a kind, counter or gauge (JSON has no types)"},
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        struct metrics_endpoint ep = bad[i].ep;
        ep.select = bad[i].sel;
        /* The "expected at least one" case has none; the others as many as they list. */
        ep.n_select = strstr(bad[i].message, "at least one") ? 0 : bad[i].sel[1].key ? 2 : 1;
        ck_assert_int_eq(metrics_endpoint_check(&ep, &err), -1);
        ck_assert_str_eq(err.msg, bad[i].message);
    }
}
END_TEST

/* ---- JSON ----------------------------------------------------------------------------- */

static const char stats_json[] =
    "{\"stats\": {\"loop\": {\"missed16ms\": 3, \"ticks\": \"12345\", \"lag\": 1.5e-3,"
    " \"big\": 18446744073709551615, \"big_str\": \"18446744073709551615\","
    " \"bad_str\": \"12abc\", \"nul_str\": \"1\\u00002\", \"flag\": true, \"none\": null,"
    " \"obj\": {}, \"list\": [1, 2]},"
    " \"shards\": [{\"x\": 1}]},"
    " \"scalar\": 5}";

START_TEST(json_paths)
{
    static const struct {
        const char *path;
        bool found;
        double value;
        enum metrics_miss miss;
        size_t at;
        const char *why;
    } cases[] = {
        {"stats.loop.missed16ms", true, 3, METRICS_MISS_NONE, 3, "found"},
        {"stats.loop.ticks", true, 12345, METRICS_MISS_NONE, 3, "found"},
        {"stats.loop.lag", true, 1.5e-3, METRICS_MISS_NONE, 3, "found"},
        {"stats.loop.big", true, 18446744073709551615.0, METRICS_MISS_NONE, 3, "found"},
        {"stats.loop.big_str", true, 18446744073709551615.0, METRICS_MISS_NONE, 3, "found"},
        {"stats.loop.bad_str", false, NAN, METRICS_MISS_NOT_NUMBER, 3,
         "stats.loop.bad_str is not a number, nor a string holding one"},
        {"stats.loop.nul_str", false, NAN, METRICS_MISS_NOT_NUMBER, 3,
         "stats.loop.nul_str is not a number, nor a string holding one"},
        {"stats.loop.flag", false, NAN, METRICS_MISS_NOT_NUMBER, 3,
         "stats.loop.flag is not a number, nor a string holding one"},
        {"stats.loop.none", false, NAN, METRICS_MISS_NOT_NUMBER, 3,
         "stats.loop.none is not a number, nor a string holding one"},
        {"stats.loop.obj", false, NAN, METRICS_MISS_NOT_NUMBER, 3,
         "stats.loop.obj is not a number, nor a string holding one"},
        {"stats.loop.list", false, NAN, METRICS_MISS_NOT_NUMBER, 3,
         "stats.loop.list is not a number, nor a string holding one"},
        {"stats.shards.0.x", false, NAN, METRICS_MISS_ARRAY, 2,
         "stats.shards is an array: key paths go through objects only"},
        {"stats.nope.x", false, NAN, METRICS_MISS_ABSENT, 1, "stats has no member 'nope'"},
        {"nope", false, NAN, METRICS_MISS_ABSENT, 0, "the document has no member 'nope'"},
        {"scalar.x", false, NAN, METRICS_MISS_NOT_OBJECT, 1,
         "scalar is not an object: no member 'x' in it"},
    };
    enum { N = ARRAY_SIZE(cases) };
    const char *paths[N];
    for (size_t i = 0; i < N; i++)
        paths[i] = cases[i].path;
    struct metrics_endpoint ep = json_endpoint("http://x/", paths, N);
    ep.select[0].kind = METRICS_COUNTER;
    struct metrics_snapshot snap;
    struct lb_error err;
    ck_assert_msg(metrics_parse_json(stats_json, strlen(stats_json), ep.select, N, &snap, &err) ==
                      0,
                  "%s", err.msg);
    ck_assert_uint_eq(snap.n, N);
    for (size_t i = 0; i < N; i++) {
        const struct metrics_value *v = &snap.values[i];
        ck_assert_msg(v->found == cases[i].found, "%s", cases[i].path);
        assert_value(cases[i].path, v->value, cases[i].value);
        ck_assert_int_eq(v->miss, cases[i].miss);
        ck_assert_uint_eq(v->series, cases[i].found ? 1 : 0);
        if (!cases[i].found)
            ck_assert_uint_eq(v->at, cases[i].at);
        ck_assert_int_eq(v->kind, i == 0 ? METRICS_COUNTER : METRICS_GAUGE);
        char *why = metrics_miss_text(&ep, &snap, i);
        ck_assert_str_eq(why, cases[i].why);
        free(why);
    }
    metrics_snapshot_release(&snap);
    metrics_endpoint_release(&ep);
}
END_TEST

START_TEST(json_documents)
{
    static const char *const paths[] = {"a"};
    struct metrics_endpoint ep = json_endpoint("http://x/", paths, 1);
    struct metrics_snapshot snap;
    struct lb_error err;
    /* A document that is an array, or a scalar: a miss, not an error. */
    ck_assert_int_eq(metrics_parse_json("[1]", 3, ep.select, 1, &snap, &err), 0);
    ck_assert_int_eq(snap.values[0].miss, METRICS_MISS_ARRAY);
    char *why = metrics_miss_text(&ep, &snap, 0);
    ck_assert_str_eq(why, "the document is an array: key paths go through objects only");
    free(why);
    metrics_snapshot_release(&snap);
    ck_assert_int_eq(metrics_parse_json("7", 1, ep.select, 1, &snap, &err), 0);
    ck_assert_int_eq(snap.values[0].miss, METRICS_MISS_NOT_OBJECT);
    metrics_snapshot_release(&snap);
    /* Not JSON at all. */
    ck_assert_int_eq(metrics_parse_json("{\"a\": ", 6, ep.select, 1, &snap, &err), -1);
    ck_assert_msg(strncmp(err.msg, "the body is not JSON: ", 22) == 0, "%s", err.msg);
    ck_assert_ptr_nonnull(strstr(err.msg, "(line 1, column "));
    ck_assert_ptr_null(snap.values);
    ck_assert_int_eq(metrics_parse_json("<html>", 6, ep.select, 1, &snap, &err), -1);
    /* The body jansson quotes near the error reaches a terminal: its escapes are shown. */
    const char *osc = "{\"a\": \033]0;title\007}";
    ck_assert_int_eq(metrics_parse_json(osc, strlen(osc), ep.select, 1, &snap, &err), -1);
    ck_assert_msg(!strchr(err.msg, '\033') && !strchr(err.msg, '\007') && strstr(err.msg, "\\x1b"),
                  "%s", err.msg);
    /* Only len bytes are read. */
    ck_assert_int_eq(metrics_parse_json("{\"a\": 1}garbage", 8, ep.select, 1, &snap, &err), 0);
    ck_assert_double_eq(snap.values[0].value, 1);
    metrics_snapshot_release(&snap);
    metrics_endpoint_release(&ep);
}
END_TEST

/* ---- Windows ------------------------------------------------------------------------- */

static const struct metrics_value absent_value = {.miss = METRICS_MISS_ABSENT, .value = NAN};

static struct metrics_value counter(double v)
{
    return (struct metrics_value){.found = true, .kind = METRICS_COUNTER, .value = v, .series = 1};
}

static struct metrics_value gauge(double v)
{
    return (struct metrics_value){.found = true, .kind = METRICS_GAUGE, .value = v, .series = 1};
}

START_TEST(window_counters)
{
    struct metrics_value a[] = {counter(100), counter(500), absent_value, counter(7), counter(3)};
    struct metrics_value b[] = {counter(160), counter(20), counter(9), absent_value, counter(3)};
    for (size_t i = 0; i < ARRAY_SIZE(b); i++)
        b[i].kind = a[i].kind = METRICS_COUNTER;
    struct metrics_snapshot start = {.values = a, .n = 5, .mono_ns = 10 * NS_PER_SEC};
    struct metrics_snapshot end = {.values = b, .n = 5, .mono_ns = 40 * NS_PER_SEC};
    struct metrics_window_value w[5];
    metrics_window(&start, &end, NULL, w);
    /* Plain: 60 in 30 s. */
    ck_assert(w[0].found && !w[0].reset && !w[0].appeared);
    ck_assert_int_eq(w[0].kind, METRICS_COUNTER);
    ck_assert_double_eq(w[0].start, 100);
    ck_assert_double_eq(w[0].end, 160);
    ck_assert_double_eq(w[0].delta, 60);
    ck_assert_double_eq_tol(w[0].rate_per_s, 2, 1e-12);
    ck_assert(isnan(w[0].min) && isnan(w[0].mean));
    /* Reset: counted from 0. */
    ck_assert(w[1].found && w[1].reset);
    ck_assert_double_eq(w[1].delta, 20);
    ck_assert_double_eq_tol(w[1].rate_per_s, 20.0 / 30, 1e-12);
    /* Appeared during the window: counted from 0. */
    ck_assert(w[2].found && w[2].appeared && !w[2].reset);
    ck_assert(isnan(w[2].start));
    ck_assert_double_eq(w[2].delta, 9);
    /* Gone at the end: not found. */
    ck_assert(!w[3].found);
    ck_assert(isnan(w[3].end) && isnan(w[3].delta) && isnan(w[3].rate_per_s));
    /* Unchanged. */
    ck_assert_double_eq(w[4].delta, 0);
    ck_assert_double_eq(w[4].rate_per_s, 0);
    /* Taken at the same time: no rate. */
    end.mono_ns = start.mono_ns;
    metrics_window(&start, &end, NULL, w);
    ck_assert_double_eq(w[0].delta, 60);
    ck_assert(isnan(w[0].rate_per_s));
}
END_TEST

START_TEST(window_gauges)
{
    struct metrics_series series;
    metrics_series_init(&series, 3);
    /* Between the edges: 4, NaN (not counted), absent (not counted), 1; a counter is not
     * accumulated. */
    const double between[] = {4, NAN, NAN, 1};
    for (size_t k = 0; k < ARRAY_SIZE(between); k++) {
        struct metrics_value v[3] = {gauge(between[k]), gauge(5), counter(1e9)};
        if (k == 2)
            v[0] = absent_value;
        struct metrics_snapshot s = {.values = v, .n = 3};
        metrics_series_add(&series, &s);
    }
    ck_assert_uint_eq(series.acc[0].samples, 2);
    ck_assert_uint_eq(series.acc[2].samples, 0);
    struct metrics_value a[] = {gauge(2), absent_value, counter(1)};
    struct metrics_value b[] = {gauge(3), absent_value, counter(2)};
    a[1].kind = b[1].kind = METRICS_GAUGE;
    struct metrics_snapshot start = {.values = a, .n = 3, .mono_ns = 1};
    struct metrics_snapshot end = {.values = b, .n = 3, .mono_ns = 2};
    struct metrics_window_value w[3];
    metrics_window(&start, &end, &series, w);
    /* 2 (start), 4, 1, 3 (end). */
    ck_assert(w[0].found);
    ck_assert_int_eq(w[0].kind, METRICS_GAUGE);
    ck_assert_double_eq(w[0].start, 2);
    ck_assert_double_eq(w[0].end, 3);
    ck_assert_double_eq(w[0].min, 1);
    ck_assert_double_eq(w[0].max, 4);
    ck_assert_double_eq(w[0].mean, 2.5);
    ck_assert_uint_eq(w[0].samples, 4);
    ck_assert(isnan(w[0].delta) && isnan(w[0].rate_per_s));
    /* Absent at both edges but seen between: found, no end value. */
    ck_assert(w[1].found);
    ck_assert(isnan(w[1].end));
    ck_assert_double_eq(w[1].mean, 5);
    ck_assert_uint_eq(w[1].samples, 4);
    ck_assert_double_eq(w[2].delta, 1);

    /* Cleared for the next window, without the series: only the edges. */
    metrics_series_clear(&series);
    ck_assert_uint_eq(series.acc[0].samples, 0);
    metrics_window(&start, &end, &series, w);
    ck_assert_double_eq(w[0].mean, 2.5);
    ck_assert_uint_eq(w[0].samples, 2);
    ck_assert(!w[1].found);
    ck_assert(isnan(w[1].min) && isnan(w[1].max) && isnan(w[1].mean));
    metrics_window(&start, &end, NULL, w);
    ck_assert_double_eq(w[0].min, 2);
    ck_assert_double_eq(w[0].max, 3);
    metrics_series_release(&series);
    ck_assert_ptr_null(series.acc);
}
END_TEST

/* Start and end scrapes parsed from text, the window over them. */
START_TEST(window_from_expositions)
{
    static const char *const selectors[] = {"req_total", "inflight"};
    struct metrics_endpoint ep = prometheus_endpoint("http://x/", selectors, 2);
    const char *t1 = "# TYPE req_total counter\nreq_total{c=\"a\"} 10\nreq_total{c=\"b\"} 5\n"
                     "# TYPE inflight gauge\ninflight 3\n";
    const char *t2 = "# TYPE req_total counter\nreq_total{c=\"a\"} 30\nreq_total{c=\"b\"} 5\n"
                     "req_total{c=\"new\"} 1\n# TYPE inflight gauge\ninflight 1\n";
    struct metrics_snapshot s1, s2;
    metrics_parse_prometheus(t1, strlen(t1), ep.select, 2, &s1);
    metrics_parse_prometheus(t2, strlen(t2), ep.select, 2, &s2);
    s1.mono_ns = 0;
    s2.mono_ns = 2 * NS_PER_SEC;
    struct metrics_window_value w[2];
    metrics_window(&s1, &s2, NULL, w);
    ck_assert_double_eq(w[0].delta, 21);
    ck_assert_double_eq(w[0].rate_per_s, 10.5);
    ck_assert_double_eq(w[1].end, 1);
    ck_assert_double_eq(w[1].mean, 2);
    metrics_snapshot_release(&s1);
    metrics_snapshot_release(&s2);
    metrics_endpoint_release(&ep);
}
END_TEST

/* ---- metrics_scrape against a local HTTP server ---------------------------------------- */

#define PROM_BODY                                                                                  \
    "# HELP loop_missed_total Missed ticks.\\n# TYPE loop_missed_total counter\\n"                 \
    "loop_missed_total{shard=\\\"0\\\"} 12\\r\\nloop_missed_total{shard=\\\"1\\\"} 30\\n"          \
    "# TYPE loop_lag_ms gauge\\nloop_lag_ms 1.25"

static const char stub_script[] =
    "[{\"method\": \"GET\", \"path\": \"/metrics\", \"times\": -1,"
    "  \"headers\": {\"Content-Type\": \"text/plain; version=0.0.4\"}, \"body\": \"" PROM_BODY
    "\"},"
    " {\"method\": \"GET\", \"path\": \"/stats\", \"times\": -1,"
    "  \"body\": {\"stats\": {\"loop\": {\"missed16ms\": 3, \"ticks\": \"12345\"}}}},"
    " {\"method\": \"GET\", \"path\": \"/broken\", \"status\": 500, \"times\": -1,"
    "  \"body\": \"oops\"},"
    " {\"method\": \"GET\", \"path\": \"/html\", \"times\": -1, \"body\": \"<html></html>\"}]";

/* Set in the parent by stub_start, read by the forked tests. */
static pid_t stub_pid = -1;
static int stub_port;
static char *stub_dir;
static char stub_problem[512];

static void stub_start(void)
{
    const char *data = getenv("TESTS_DATA");
    if (!data) {
        snprintf(stub_problem, sizeof(stub_problem), "TESTS_DATA is not set");
        return;
    }
    char *stub = xasprintf("%s/../helpers/httpstub.py", data);
    stub_dir = testlib_tmpdir();
    char *script = path_join(stub_dir, "script.json");
    char *port_file = path_join(stub_dir, "port");
    char *log = path_join(stub_dir, "requests.log");
    char *stderr_file = path_join(stub_dir, "stderr");
    FILE *f = fopen(script, "w");
    if (f) {
        fputs(stub_script, f);
        fclose(f);
    }
#ifdef __linux__
    pid_t parent = getpid();
#endif
    stub_pid = fork();
    if (stub_pid == 0) {
#ifdef __linux__
        /* Dies with this test process, even when it is killed. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
#endif
        int fd = open(stderr_file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0)
            dup2(fd, STDERR_FILENO);
        execlp("python3", "python3", stub, "--port-file", port_file, "--log", log, "--script",
               script, (char *)NULL);
        perror("cannot run python3");
        _exit(127);
    }
    /* Up to 20 s for the port: python starts slowly on a busy machine. */
    for (int tries = 0; stub_pid > 0 && tries < 1000 && !stub_port; tries++) {
        int status;
        if (waitpid(stub_pid, &status, WNOHANG) == stub_pid) {
            stub_pid = -1;
            char *err = NULL;
            read_file(stderr_file, &err, NULL, NULL);
            snprintf(stub_problem, sizeof(stub_problem), "httpstub exited: %s",
                     err ? err : "(no message)");
            free(err);
            break;
        }
        char *text = NULL;
        if (read_file(port_file, &text, NULL, NULL) == 0)
            stub_port = atoi(text);
        free(text);
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    }
    if (!stub_port && !stub_problem[0])
        snprintf(stub_problem, sizeof(stub_problem), "httpstub did not start (%s)", stub);
    free(stub);
    free(script);
    free(port_file);
    free(log);
    free(stderr_file);
}

static void stub_stop(void)
{
    if (stub_pid > 0) {
        kill(stub_pid, SIGTERM);
        int status;
        /* 5 s to go, then SIGKILL: the test must not leave it behind. */
        for (int tries = 0; waitpid(stub_pid, &status, WNOHANG) == 0; tries++) {
            if (tries == 250)
                kill(stub_pid, SIGKILL);
            nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
        }
        stub_pid = -1;
    }
    if (stub_dir)
        testlib_rmtree(stub_dir);
    free(stub_dir);
    stub_dir = NULL;
}

static char *stub_url(const char *path)
{
    ck_assert_msg(stub_port > 0, "%s", stub_problem);
    return xasprintf("http://127.0.0.1:%d%s", stub_port, path);
}

/* The Accept header of every request the stub logged for path; fails when there was none. */
static void assert_accept(const char *path, const char *accept)
{
    char *log = path_join(stub_dir, "requests.log");
    char *text = testlib_read(log);
    size_t seen = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        json_t *req = json_loads(line, 0, NULL);
        ck_assert_ptr_nonnull(req);
        if (strcmp(json_string_value(json_object_get(req, "path")), path) == 0) {
            json_t *got = json_object_get(json_object_get(req, "headers"), "accept");
            ck_assert_ptr_nonnull(got);
            ck_assert_str_eq(json_string_value(got), accept);
            seen++;
        }
        json_decref(req);
    }
    ck_assert_msg(seen > 0, "no request for %s in the stub's log", path);
    free(text);
    free(log);
}

START_TEST(scrape_prometheus)
{
    static const char *const selectors[] = {"loop_missed_total", "loop_lag_ms",
                                            "loop_missed_total{shard=\"1\"}", "absent"};
    char *url = stub_url("/metrics");
    struct metrics_endpoint ep = prometheus_endpoint(url, selectors, 4);
    ep.timeout_s = 10;
    struct metrics_snapshot snap;
    struct lb_error err;
    uint64_t before = mono_ns();
    ck_assert_msg(metrics_scrape(&ep, &snap, &err) == 0, "%s", err.msg);
    uint64_t after = mono_ns();
    ck_assert_uint_eq(snap.n, 4);
    ck_assert_double_eq(snap.values[0].value, 42);
    ck_assert_int_eq(snap.values[0].kind, METRICS_COUNTER);
    ck_assert_uint_eq(snap.values[0].series, 2);
    ck_assert_double_eq(snap.values[1].value, 1.25);
    ck_assert_int_eq(snap.values[1].kind, METRICS_GAUGE);
    ck_assert_double_eq(snap.values[2].value, 30);
    ck_assert(!snap.values[3].found);
    ck_assert_uint_eq(snap.skipped_lines, 0);
    ck_assert_uint_ge(snap.mono_ns, before);
    ck_assert_uint_le(snap.mono_ns, after);
    ck_assert_uint_gt(snap.fetch_ns, 0);
    ck_assert_uint_le(snap.fetch_ns, after - before);
    assert_accept("/metrics", METRICS_ACCEPT_PROMETHEUS);
    metrics_snapshot_release(&snap);
    metrics_endpoint_release(&ep);
    free(url);
}
END_TEST

START_TEST(scrape_json)
{
    static const char *const paths[] = {"stats.loop.missed16ms", "stats.loop.ticks"};
    char *url = stub_url("/stats");
    struct metrics_endpoint ep = json_endpoint(url, paths, 2);
    ep.select[0].kind = METRICS_COUNTER;
    struct metrics_snapshot snap;
    struct lb_error err;
    ck_assert_msg(metrics_scrape(&ep, &snap, &err) == 0, "%s", err.msg);
    ck_assert_double_eq(snap.values[0].value, 3);
    ck_assert_int_eq(snap.values[0].kind, METRICS_COUNTER);
    ck_assert_double_eq(snap.values[1].value, 12345);
    ck_assert_int_eq(snap.values[1].kind, METRICS_GAUGE);
    assert_accept("/stats", METRICS_ACCEPT_JSON);
    metrics_snapshot_release(&snap);
    metrics_endpoint_release(&ep);
    free(url);
}
END_TEST

START_TEST(scrape_errors)
{
    static const char *const selectors[] = {"x"};
    struct lb_error err;
    struct metrics_snapshot snap;
    /* A 500, through a URL with credentials: they stay out of the message. */
    ck_assert_msg(stub_port > 0, "%s", stub_problem);
    char *url = xasprintf("http://user:s3cret@127.0.0.1:%d/broken", stub_port);
    struct metrics_endpoint ep = prometheus_endpoint(url, selectors, 1);
    ck_assert_int_eq(metrics_scrape(&ep, &snap, &err), -1);
    char *want =
        xasprintf("GET http://127.0.0.1:%d/broken: HTTP 500, expected a 2xx status", stub_port);
    ck_assert_str_eq(err.msg, want);
    ck_assert_ptr_null(snap.values);
    free(want);
    metrics_endpoint_release(&ep);
    free(url);

    /* A JSON endpoint answering HTML. */
    static const char *const paths[] = {"a"};
    url = stub_url("/html");
    ep = json_endpoint(url, paths, 1);
    ck_assert_int_eq(metrics_scrape(&ep, &snap, &err), -1);
    want = xasprintf("GET %s: the body is not JSON: ", url);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    ck_assert_ptr_null(snap.values);
    free(want);
    metrics_endpoint_release(&ep);
    free(url);
}
END_TEST

/* A port bound but not listening refuses connections, and stays ours meanwhile. */
START_TEST(scrape_refused)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    socklen_t addr_len = sizeof(addr);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&addr, &addr_len), 0);
    static const char *const selectors[] = {"x"};
    char *url = xasprintf("http://127.0.0.1:%d/metrics", ntohs(addr.sin_port));
    struct metrics_endpoint ep = prometheus_endpoint(url, selectors, 1);
    struct metrics_snapshot snap;
    struct lb_error err;
    ck_assert_int_eq(metrics_scrape(&ep, &snap, &err), -1);
    char *want = xasprintf("GET %s: ", url);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    ck_assert_msg(strstr(err.msg, "onnect"), "%s", err.msg);
    ck_assert_ptr_null(snap.values);
    free(want);
    metrics_endpoint_release(&ep);
    free(url);
    close(fd);
}
END_TEST

int main(void)
{
    /* The server is local: no proxy in between. */
    static const char *const proxies[] = {"http_proxy",  "https_proxy", "HTTP_PROXY",
                                          "HTTPS_PROXY", "all_proxy",   "ALL_PROXY"};
    for (size_t i = 0; i < ARRAY_SIZE(proxies); i++)
        unsetenv(proxies[i]);

    Suite *s = suite_create("metrics");
    TCase *prom = tcase_create("prometheus");
    tcase_add_loop_test(prom, prometheus_case, 0, ARRAY_SIZE(prom_cases));
    tcase_add_test(prom, prometheus_many_selections);
    tcase_add_test(prom, prometheus_huge_label_sets);
    tcase_add_test(prom, prometheus_big_body);
    suite_add_tcase(s, prom);

    TCase *spec = tcase_create("spec");
    tcase_add_test(spec, selector_parse);
    tcase_add_test(spec, select_text_and_kind_names);
    tcase_add_test(spec, endpoint_check);
    suite_add_tcase(s, spec);

    TCase *json = tcase_create("json");
    tcase_add_test(json, json_paths);
    tcase_add_test(json, json_documents);
    suite_add_tcase(s, json);

    TCase *window = tcase_create("window");
    tcase_add_test(window, window_counters);
    tcase_add_test(window, window_gauges);
    tcase_add_test(window, window_from_expositions);
    suite_add_tcase(s, window);

    TCase *scrape = tcase_create("scrape");
    tcase_add_unchecked_fixture(scrape, stub_start, stub_stop);
    tcase_set_timeout(scrape, 60);
    tcase_add_test(scrape, scrape_prometheus);
    tcase_add_test(scrape, scrape_json);
    tcase_add_test(scrape, scrape_errors);
    tcase_add_test(scrape, scrape_refused);
    suite_add_tcase(s, scrape);
    return testlib_run(s);
}
