/* Scraping health lines: the line parser, table-driven over well-formed and damaged
 * lines, then whole logs (canned in tests/data/logs/, or generated into a temporary
 * directory that the fixture removes even when a test fails). */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/platform.h"
#include "scrape.h"
#include "util.h"
#include "testlib.h"

#define MARKER "loop: "
#define REF_LINE                                                                                   \
    "[14:02:11 INF] loop: cpu=0.8% cps=412 missed8ms=1 missed16ms=0 sched=0 slots=1/1875 "         \
    "tickLagPeak=11ms sleeps=5821/6090 (95.6%) wakes=12 elided=3 backoffs=0 idleWait=2ms "         \
    "<s:Server.Commands.LoopStats>"
#define REF_SUSPENDED                                                                              \
    "[14:02:26 WRN] loop: cpu=0.8% cps=412 missed8ms=1 missed16ms=0 sched=0 slots=1/1875 "         \
    "tickLagPeak=11ms sleeps=5821/6090 (95.6%) wakes=12 elided=3 backoffs=2 (SUSPENDED) "          \
    "idleWait=2ms <s:Server.Commands.LoopStats>"
#define KEY63 "k23456789012345678901234567890123456789012345678901234567890123"
#define KEY64 KEY63 "4"
#define A16 "AAAAAAAAAAAAAAAA"

/* ---- the line parser, table-driven ---- */

struct want {
    const char *key;
    enum scrape_type type;
    double value, total, percent; /* percent only checked when has_percent */
    bool has_percent;
};

/* one expected value per call, so that the tables below read as tables */
/* clang-format off */
#define N(k, v) {k, SCRAPE_NUMBER, v, 0, 0, false}
#define P(k, v) {k, SCRAPE_PERCENT, v, 0, 0, false}
#define D(k, v) {k, SCRAPE_DURATION_MS, v, 0, 0, false}
#define R(k, v, t) {k, SCRAPE_RATIO, v, t, 0, false}
#define RP(k, v, t, p) {k, SCRAPE_RATIO, v, t, p, true}
#define F(k) {k, SCRAPE_FLAG, 1, 0, 0, false}
/* clang-format on */

struct line_case {
    const char *name;
    const char *text;
    size_t len;
    const char *marker; /* NULL: MARKER */
    bool has_time;
    int tod;
    int level;
    bool is_marker;
    size_t n;
    struct want v[16];
};

/* sizeof, not strlen: some lines hold NUL bytes */
#define TEXT(s) .text = (s), .len = sizeof(s) - 1
#define STAMP(t, l) .has_time = true, .tod = (t), .level = (l)
#define T141 (14 * 3600 + 2 * 60 + 11)

#define REF_VALUES                                                                                 \
    P("cpu", 0.8), N("cps", 412), N("missed8ms", 1), N("missed16ms", 0), N("sched", 0),            \
        R("slots", 1, 1875), D("tickLagPeak", 11), RP("sleeps", 5821, 6090, 95.6), N("wakes", 12), \
        N("elided", 3)

static const struct line_case good[] = {
    {"reference line", TEXT(REF_LINE), STAMP(T141, LOG_INF), .is_marker = true, .n = 12,
     .v = {REF_VALUES, N("backoffs", 0), D("idleWait", 2)}},
    {"suspended line", TEXT(REF_SUSPENDED), STAMP(T141 + 15, LOG_WRN), .is_marker = true, .n = 13,
     .v = {REF_VALUES, N("backoffs", 2), F("SUSPENDED"), D("idleWait", 2)}},
    {"reference with crlf", TEXT(REF_LINE "\r"), STAMP(T141, LOG_INF), .is_marker = true, .n = 12,
     .v = {REF_VALUES, N("backoffs", 0), D("idleWait", 2)}},
    {"percent", TEXT("loop: cpu=0.8%"), .level = -1, .is_marker = true, .n = 1,
     .v = {P("cpu", 0.8)}},
    {"percent whole", TEXT("loop: cpu=100%"), .level = -1, .is_marker = true, .n = 1,
     .v = {P("cpu", 100)}},
    {"percent negative", TEXT("loop: drift=-1.5%"), .level = -1, .is_marker = true, .n = 1,
     .v = {P("drift", -1.5)}},
    {"ratio", TEXT("loop: slots=1/1875"), .level = -1, .is_marker = true, .n = 1,
     .v = {R("slots", 1, 1875)}},
    {"ratio of zeros", TEXT("loop: sleeps=0/0"), .level = -1, .is_marker = true, .n = 1,
     .v = {R("sleeps", 0, 0)}},
    {"ratio with percent", TEXT("loop: sleeps=5821/6090 (95.6%)"), .level = -1, .is_marker = true,
     .n = 1, .v = {RP("sleeps", 5821, 6090, 95.6)}},
    {"ratio with zero percent", TEXT("loop: sleeps=0/10 (0.0%) wakes=1"), .level = -1,
     .is_marker = true, .n = 2, .v = {RP("sleeps", 0, 10, 0), N("wakes", 1)}},
    {"duration ms", TEXT("loop: tickLagPeak=11ms"), .level = -1, .is_marker = true, .n = 1,
     .v = {D("tickLagPeak", 11)}},
    {"duration decimal ms", TEXT("loop: lag=7.8ms"), .level = -1, .is_marker = true, .n = 1,
     .v = {D("lag", 7.8)}},
    {"duration s", TEXT("loop: gc=2s"), .level = -1, .is_marker = true, .n = 1,
     .v = {D("gc", 2000)}},
    {"duration fractional s", TEXT("loop: gc=0.25s"), .level = -1, .is_marker = true, .n = 1,
     .v = {D("gc", 250)}},
    {"duration us", TEXT("loop: wait=1500us"), .level = -1, .is_marker = true, .n = 1,
     .v = {D("wait", 1.5)}},
    {"duration micro sign", TEXT("loop: wait=250\xc2\xb5s"), .level = -1, .is_marker = true, .n = 1,
     .v = {D("wait", 0.25)}},
    {"duration greek mu", TEXT("loop: wait=5821\xce\xbcs"), .level = -1, .is_marker = true, .n = 1,
     .v = {D("wait", 5.821)}},
    {"duration ns", TEXT("loop: wait=2500000ns"), .level = -1, .is_marker = true, .n = 1,
     .v = {D("wait", 2.5)}},
    {"integer", TEXT("loop: cps=412"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("cps", 412)}},
    {"negative", TEXT("loop: drift=-3"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("drift", -3)}},
    {"decimal", TEXT("loop: load=0.25"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("load", 0.25)}},
    {"exponent", TEXT("loop: big=1e5 small=2.5E-3"), .level = -1, .is_marker = true, .n = 2,
     .v = {N("big", 100000), N("small", 0.0025)}},
    {"plus sign", TEXT("loop: x=+4"), .level = -1, .is_marker = true, .n = 1, .v = {N("x", 4)}},
    {"digits past int64 stay a double", TEXT("loop: n=123456789012345678901234567890"), .level = -1,
     .is_marker = true, .n = 1, .v = {N("n", 123456789012345678901234567890.0)}},
    {"flag alone", TEXT("loop: (SUSPENDED)"), .level = -1, .is_marker = true, .n = 1,
     .v = {F("SUSPENDED")}},
    {"flag with digits and underscore", TEXT("loop: (GC_GEN2) cps=1"), .level = -1,
     .is_marker = true, .n = 2, .v = {F("GC_GEN2"), N("cps", 1)}},
    {"unknown keys kept", TEXT("loop: fooBar=7 gc.gen-0=3"), .level = -1, .is_marker = true, .n = 2,
     .v = {N("fooBar", 7), N("gc.gen-0", 3)}},
    {"longest key", TEXT("loop: " KEY63 "=1"), .level = -1, .is_marker = true, .n = 1,
     .v = {N(KEY63, 1)}},
    {"duplicate key keeps the last", TEXT("loop: cps=1 cpu=2% cps=3"), .level = -1,
     .is_marker = true, .n = 2, .v = {N("cps", 3), P("cpu", 2)}},
    {"duplicate ratio drops the old percent", TEXT("loop: s=1/2 (50%) s=3/4"), .level = -1,
     .is_marker = true, .n = 1, .v = {R("s", 3, 4)}},
    {"duplicate key may change type", TEXT("loop: lag=3 lag=4ms"), .level = -1, .is_marker = true,
     .n = 1, .v = {D("lag", 4)}},
    {"no prefix", TEXT("loop: cps=5"), .level = -1, .is_marker = true, .n = 1, .v = {N("cps", 5)}},
    {"marker mid-line without prefix", TEXT("refshard[42]: loop: cps=5"), .level = -1,
     .is_marker = true, .n = 1, .v = {N("cps", 5)}},
    {"marker mid-line after prefix", TEXT("[14:02:11 INF] Stats: loop: cps=5 <s:X>"),
     STAMP(T141, LOG_INF), .is_marker = true, .n = 1, .v = {N("cps", 5)}},
    {"custom marker", TEXT("[14:02:11 INF] health| cps=5 loop: x=1"), .marker = "health| ",
     STAMP(T141, LOG_INF), .is_marker = true, .n = 2, .v = {N("cps", 5), N("x", 1)}},
    {"words before the first pair", TEXT("loop: window 3 cps=5"), .level = -1, .is_marker = true,
     .n = 1, .v = {N("cps", 5)}},
    {"second marker is just words", TEXT("loop: a=1 loop: b=2"), .level = -1, .is_marker = true,
     .n = 2, .v = {N("a", 1), N("b", 2)}},
    {"source suffix is not a value", TEXT("loop: cps=1 <s:A=2>"), .level = -1, .is_marker = true,
     .n = 1, .v = {N("cps", 1)}},
    {"tabs separate", TEXT("loop: cps=1\tcpu=2%\t\t(SUSPENDED)"), .level = -1, .is_marker = true,
     .n = 3, .v = {N("cps", 1), P("cpu", 2), F("SUSPENDED")}},
    {"byte order mark", TEXT("\xef\xbb\xbf[14:02:11 INF] loop: cps=1"), STAMP(T141, LOG_INF),
     .is_marker = true, .n = 1, .v = {N("cps", 1)}},
    {"marker with nothing after", TEXT("[14:02:11 INF] loop: "), STAMP(T141, LOG_INF),
     .is_marker = true},
    {"not a marker line", TEXT("[14:02:11 INF] Server started cps=1 <s:Server.Core>"),
     STAMP(T141, LOG_INF)},
    {"start-up line is no marker",
     TEXT("[14:02:11 INF] loop stats: reporting every 15s "
          "(idleWait=2ms) <s:Server.Commands.LoopStats>"),
     STAMP(T141, LOG_INF)},
    {"midnight", TEXT("[00:00:00 VRB] tick"), STAMP(0, LOG_VRB)},
    {"last second of the day", TEXT("[23:59:59 DBG] tick"), STAMP(86399, LOG_DBG)},
    {"level ERR", TEXT("[09:05:07 ERR] save failed"), STAMP(9 * 3600 + 5 * 60 + 7, LOG_ERR)},
    {"level FTL", TEXT("[12:00:00 FTL] crash"), STAMP(43200, LOG_FTL)},
    {"prefix only", TEXT("[12:00:00 WRN]"), STAMP(43200, LOG_WRN)},
};

static const struct line_case bad[] = {
    {"empty", TEXT(""), .level = -1},
    {"carriage return only", TEXT("\r"), .level = -1},
    {"unparseable value skipped", TEXT("loop: cps=abc cpu=1%"), .level = -1, .is_marker = true,
     .n = 1, .v = {P("cpu", 1)}},
    {"double equals", TEXT("loop: == cps=1"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("cps", 1)}},
    {"equals without key", TEXT("loop: =5"), .level = -1, .is_marker = true},
    {"key without value", TEXT("loop: cps= cpu=1%"), .level = -1, .is_marker = true, .n = 1,
     .v = {P("cpu", 1)}},
    {"key without value at end", TEXT("loop: cpu=1% cps="), .level = -1, .is_marker = true, .n = 1,
     .v = {P("cpu", 1)}},
    {"value with equals", TEXT("loop: a=1=2 b==3 c=4"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("c", 4)}},
    {"overflowing exponent", TEXT("loop: big=1e400 cps=1"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("cps", 1)}},
    {"underflowing exponent", TEXT("loop: tiny=1e-400 cps=1"), .level = -1, .is_marker = true,
     .n = 1, .v = {N("cps", 1)}},
    {"duration overflowing once in ms", TEXT("loop: t=1e307s u=1e400ms v=1ms"), .level = -1,
     .is_marker = true, .n = 1, .v = {D("v", 1)}},
    {"hundreds of digits",
     TEXT("loop: n=9999999999999999999999999999999999999999999999999999999"
          "99999999999999999999999999999999999999999999 m=2"),
     .level = -1, .is_marker = true, .n = 1, .v = {N("m", 2)}},
    {"not numbers", TEXT("loop: a=inf b=nan c=0x10 d=. e=- f=1e g=.% h=% i=1.2.3 j=5"), .level = -1,
     .is_marker = true, .n = 1, .v = {N("j", 5)}},
    {"broken ratios", TEXT("loop: a=1/ b=/5 c=1/2/3 d=1/x e=1//2 f=1/2% g=3/4"), .level = -1,
     .is_marker = true, .n = 1, .v = {R("g", 3, 4)}},
    {"unknown units", TEXT("loop: a=5min b=5MS c=5m d=5 ms e=5msec"), .level = -1,
     .is_marker = true, .n = 1, .v = {N("d", 5)}},
    {"doubled percent", TEXT("loop: cpu=0.8%% cps=1"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("cps", 1)}},
    {"percent after a number", TEXT("loop: cps=1 (95.6%)"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("cps", 1)}},
    {"percent not right after its ratio", TEXT("loop: s=1/2 x=3 (50%)"), .level = -1,
     .is_marker = true, .n = 2, .v = {R("s", 1, 2), N("x", 3)}},
    {"bad percent after a ratio", TEXT("loop: s=1/2 (abc%) t=3/4 (5)"), .level = -1,
     .is_marker = true, .n = 2, .v = {R("s", 1, 2), R("t", 3, 4)}},
    {"flag after a ratio", TEXT("loop: s=1/2 (SUSPENDED)"), .level = -1, .is_marker = true, .n = 2,
     .v = {R("s", 1, 2), F("SUSPENDED")}},
    {"not flags", TEXT("loop: (Suspended) () ( ) (SUSPENDED (1A) (A-B) SUSPENDED) x=1"),
     .level = -1, .is_marker = true, .n = 1, .v = {N("x", 1)}},
    {"key too long", TEXT("loop: " KEY64 "=1 x=2"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("x", 2)}},
    {"flag too long", TEXT("loop: (" A16 A16 A16 A16 ")"), .level = -1, .is_marker = true},
    {"key with bad characters", TEXT("loop: c\xffps=1 \"q\"=2 (a=3 a:b=4 ok=5"), .level = -1,
     .is_marker = true, .n = 1, .v = {N("ok", 5)}},
    {"nul splits tokens", TEXT("loop: cps=1\0cpu=2%"), .level = -1, .is_marker = true, .n = 2,
     .v = {N("cps", 1), P("cpu", 2)}},
    {"nul inside a key", TEXT("loop: cp\0s=1"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("s", 1)}},
    {"nul before the marker", TEXT("[14:02:11 INF] \0loop: cps=1"), STAMP(T141, LOG_INF),
     .is_marker = true, .n = 1, .v = {N("cps", 1)}},
    {"nul inside the marker", TEXT("[14:02:11 INF] lo\0op: cps=1"), STAMP(T141, LOG_INF)},
    {"invalid utf-8 in a value", TEXT("loop: cps=4\xc3 cpu=\xff% x=\xe2\x82 y=1"), .level = -1,
     .is_marker = true, .n = 1, .v = {N("y", 1)}},
    {"binary garbage", TEXT("\x01\x02\xfe\xff\x80=\x80 \x1b[31m=\x00\x7f(\xff)"), .level = -1},
    {"binary garbage around the marker", TEXT("\xff\xfe\x00loop: \x01=\x02 \xc0\xaf x=1 \xff"),
     .level = -1, .is_marker = true, .n = 1, .v = {N("x", 1)}},
    {"marker cut short", TEXT("[14:02:11 INF] loop:"), STAMP(T141, LOG_INF)},
    {"reference cut mid-ratio", TEXT("[14:02:11 INF] loop: cpu=0.8% cps=412 slots=1/"),
     STAMP(T141, LOG_INF), .is_marker = true, .n = 2, .v = {P("cpu", 0.8), N("cps", 412)}},
    {"reference cut mid-percent", TEXT("[14:02:11 INF] loop: sleeps=5821/6090 (95.6"),
     STAMP(T141, LOG_INF), .is_marker = true, .n = 1, .v = {R("sleeps", 5821, 6090)}},
    {"prefix cut short", TEXT("[14:02:1"), .level = -1},
    {"prefix without level", TEXT("[14:02:11] loop: cps=1"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("cps", 1)}},
    {"prefix with level cut", TEXT("[14:02:11 IN"), .level = -1},
    {"hour 24", TEXT("[24:00:00 INF] x"), .level = -1},
    {"minute 60", TEXT("[12:60:00 INF] x"), .level = -1},
    {"letters for digits", TEXT("[aa:bb:cc INF] x"), .level = -1},
    {"unknown level", TEXT("[14:02:11 XYZ] loop: cps=1"), .level = -1, .is_marker = true, .n = 1,
     .v = {N("cps", 1)}},
    {"lower-case level", TEXT("[14:02:11 inf] x"), .level = -1},
    {"prefix not at start", TEXT(" [14:02:11 INF] x"), .level = -1},
    {"empty marker", TEXT("loop: cps=1"), .marker = "", .level = -1},
    {"marker longer than the line", TEXT("loo"), .level = -1},
};

_Static_assert(ARRAY_SIZE(good) >= 30, "at least 30 well-formed lines");
_Static_assert(ARRAY_SIZE(bad) >= 30, "at least 30 damaged lines");

static void check_case(const struct line_case *c)
{
    struct scrape_line l;
    scrape_parse_line(c->text, c->len, c->marker ? c->marker : MARKER, &l);
    ck_assert_msg(l.has_time == c->has_time, "%s: has_time", c->name);
    if (c->has_time)
        ck_assert_msg(l.seconds_of_day == c->tod, "%s: seconds_of_day %d", c->name,
                      l.seconds_of_day);
    ck_assert_msg(l.level == c->level, "%s: level %d", c->name, l.level);
    ck_assert_msg(l.is_marker == c->is_marker, "%s: is_marker", c->name);
    ck_assert_msg(l.n_values == c->n, "%s: %zu values, expected %zu", c->name, l.n_values, c->n);
    for (size_t i = 0; i < c->n; i++) {
        const struct scrape_value *got = &l.values[i];
        const struct want *w = &c->v[i];
        ck_assert_msg(strcmp(got->key, w->key) == 0, "%s: key %zu is '%s', expected '%s'", c->name,
                      i, got->key, w->key);
        ck_assert_msg(got->type == w->type, "%s: '%s' is a %s", c->name, w->key,
                      scrape_type_name(got->type));
        ck_assert_msg(got->value == w->value, "%s: '%s' = %.17g", c->name, w->key, got->value);
        if (w->type == SCRAPE_RATIO)
            ck_assert_msg(got->total == w->total, "%s: '%s' total %.17g", c->name, w->key,
                          got->total);
        if (w->has_percent)
            ck_assert_msg(got->percent == w->percent, "%s: '%s' percent %.17g", c->name, w->key,
                          got->percent);
        else
            ck_assert_msg(isnan(got->percent), "%s: '%s' has a percent", c->name, w->key);
    }
    scrape_line_release(&l);
    ck_assert(l.values == NULL && l.n_values == 0);
}

START_TEST(test_good_lines)
{
    check_case(&good[_i]);
}
END_TEST

START_TEST(test_bad_lines)
{
    check_case(&bad[_i]);
}
END_TEST

START_TEST(test_null_marker_and_line)
{
    struct scrape_line l;
    scrape_parse_line(REF_LINE, strlen(REF_LINE), NULL, &l);
    ck_assert(l.has_time && l.level == LOG_INF && !l.is_marker && l.n_values == 0);
    scrape_line_release(&l);
    scrape_parse_line(NULL, 0, MARKER, &l);
    ck_assert(!l.has_time && l.level == -1 && !l.is_marker && l.values == NULL);
    scrape_line_release(&l);
}
END_TEST

/* The length given is obeyed: bytes past it are never read. */
START_TEST(test_length_is_obeyed)
{
    const char *text = "loop: cps=412 cpu=1%";
    struct scrape_line l;
    scrape_parse_line(text, strlen("loop: cps=41"), MARKER, &l);
    ck_assert_uint_eq(l.n_values, 1);
    ck_assert_double_eq(l.values[0].value, 41);
    scrape_line_release(&l);

    /* an exact-size heap copy lets ASan catch any read past the end */
    char *copy = xmalloc(strlen(REF_LINE));
    memcpy(copy, REF_LINE, strlen(REF_LINE));
    scrape_parse_line(copy, strlen(REF_LINE), MARKER, &l);
    ck_assert_uint_eq(l.n_values, 12);
    scrape_line_release(&l);
    free(copy);
}
END_TEST

START_TEST(test_ten_thousand_keys)
{
    size_t cap = 10000 * 16 + 16;
    char *text = xmalloc(cap);
    size_t n = (size_t)snprintf(text, cap, "loop:");
    for (int i = 0; i < 10000; i++)
        n += (size_t)snprintf(text + n, cap - n, " k%d=%d", i, i);
    struct scrape_line l;
    scrape_parse_line(text, n, MARKER, &l);
    ck_assert_uint_eq(l.n_values, SCRAPE_VALUES_MAX);
    ck_assert_str_eq(l.values[0].key, "k0");
    ck_assert_str_eq(l.values[SCRAPE_VALUES_MAX - 1].key, "k255");
    ck_assert_double_eq(l.values[SCRAPE_VALUES_MAX - 1].value, 255);
    ck_assert_uint_eq(l.n_dropped, 10000 - SCRAPE_VALUES_MAX);
    scrape_line_release(&l);

    /* a full line still takes the last value of a key it already holds */
    n = (size_t)snprintf(text, cap, "loop:");
    for (int i = 0; i < 10000; i++)
        n += (size_t)snprintf(text + n, cap - n, " k%d=%d", i % 300, i);
    scrape_parse_line(text, n, MARKER, &l);
    ck_assert_uint_eq(l.n_values, SCRAPE_VALUES_MAX);
    ck_assert_str_eq(l.values[0].key, "k0");
    ck_assert_double_eq(l.values[0].value, 9900);
    scrape_line_release(&l);
    free(text);
}
END_TEST

/* The parser itself has no length limit (the file reader has): a 1 MB line is parsed. */
START_TEST(test_megabyte_line_parsed_whole)
{
    size_t n = 1 << 20;
    char *text = xmalloc(n);
    memset(text, 'x', n);
    memcpy(text, "loop: junk=", strlen("loop: junk="));
    memcpy(text + n - strlen(" cps=9"), " cps=9", strlen(" cps=9"));
    struct scrape_line l;
    scrape_parse_line(text, n, MARKER, &l);
    ck_assert(l.is_marker);
    ck_assert_uint_eq(l.n_values, 1);
    ck_assert_str_eq(l.values[0].key, "cps");
    scrape_line_release(&l);

    /* one megabyte of digits is a number too long to keep */
    memset(text, '7', n);
    memcpy(text, "loop: cps=", strlen("loop: cps="));
    scrape_parse_line(text, n, MARKER, &l);
    ck_assert(l.is_marker && l.n_values == 0);
    scrape_line_release(&l);
    free(text);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(scrape_type_name(SCRAPE_NUMBER), "number");
    ck_assert_str_eq(scrape_type_name(SCRAPE_PERCENT), "percent");
    ck_assert_str_eq(scrape_type_name(SCRAPE_RATIO), "ratio");
    ck_assert_str_eq(scrape_type_name(SCRAPE_DURATION_MS), "duration_ms");
    ck_assert_str_eq(scrape_type_name(SCRAPE_FLAG), "flag");
    ck_assert_str_eq(log_level_name(LOG_VRB), "VRB");
    ck_assert_str_eq(log_level_name(LOG_FTL), "FTL");
    ck_assert_str_eq(log_level_name(LOG_LEVELS), "unknown");
}
END_TEST

/* ---- aggregates as results.json keeps them ---- */

static void add_value(struct scrape_run *r, const char *key, enum scrape_type type, double value,
                      double total)
{
    struct scrape_value v = {.type = type, .value = value, .total = total, .percent = NAN};
    snprintf(v.key, sizeof(v.key), "%s", key);
    scrape_run_add(r, &v);
}

/* A run written into results.json and read back (by resume, by report) must be the
 * run that was measured: every figure, in the order the keys were first seen, with an
 * undefined one kept undefined; and written again, the same object. */
START_TEST(test_json_round_trip)
{
    struct scrape_run run = {0};
    add_value(&run, "cps", SCRAPE_NUMBER, 412, 0);
    add_value(&run, "slots", SCRAPE_RATIO, 1, 1875);
    add_value(&run, "cps", SCRAPE_NUMBER, 0.1, 0);
    add_value(&run, "slots", SCRAPE_RATIO, 0, 1875);
    add_value(&run, "tickLagPeak", SCRAPE_DURATION_MS, 11, 0);
    add_value(&run, "cpu", SCRAPE_PERCENT, 0.8, 0);
    run.aggs[2].mean = NAN; /* tickLagPeak: as a sum that overflowed would leave it */

    json_t *m = scrape_run_to_json(&run);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(m, "cps"), "type")),
                     "number");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(m, "cps"), "windows")), 2);
    ck_assert_ptr_null(json_object_get(json_object_get(m, "cps"), "total_sum"));
    ck_assert_double_eq(json_real_value(json_object_get(json_object_get(m, "slots"), "total_sum")),
                        3750);
    ck_assert(json_is_null(json_object_get(json_object_get(m, "tickLagPeak"), "mean")));

    /* Through text, as a file holds it. */
    char *text = json_dumps(m, 0);
    json_t *loaded = json_loads(text, 0, NULL);
    ck_assert_ptr_nonnull(loaded);
    struct scrape_run back;
    struct lb_error err;
    ck_assert_int_eq(scrape_run_from_json(loaded, &back, "r.json: runs[0]", &err), 0);
    ck_assert_uint_eq(back.n_aggs, run.n_aggs);
    for (size_t i = 0; i < run.n_aggs; i++) {
        const struct scrape_agg *a = &run.aggs[i], *b = &back.aggs[i];
        ck_assert_str_eq(b->key, a->key);
        ck_assert_int_eq(b->type, a->type);
        ck_assert_uint_eq(b->n, a->n);
        const double want[] = {a->mean, a->min, a->max, a->sum};
        const double got[] = {b->mean, b->min, b->max, b->sum};
        for (size_t k = 0; k < ARRAY_SIZE(want); k++)
            ck_assert(isnan(want[k]) ? isnan(got[k]) : got[k] == want[k]);
        if (a->type == SCRAPE_RATIO)
            ck_assert_double_eq(b->total_sum, a->total_sum);
    }
    json_t *again = scrape_run_to_json(&back);
    ck_assert_msg(json_equal(again, m), "written again: %s", json_dumps(again, 0));

    /* Read back, a run still aggregates: a known key and a new one. */
    add_value(&back, "cps", SCRAPE_NUMBER, 100, 0);
    add_value(&back, "missed16ms", SCRAPE_NUMBER, 0, 0);
    ck_assert_uint_eq(scrape_run_find(&back, "cps")->n, 3);
    ck_assert_uint_eq(back.n_aggs, 5);
    ck_assert_str_eq(back.aggs[4].key, "missed16ms");

    json_decref(again);
    json_decref(loaded);
    json_decref(m);
    free(text);
    scrape_run_release(&back);
    scrape_run_release(&run);
}
END_TEST

/* A damaged results.json is refused with where, the key and what was wrong, and the
 * run is left empty rather than half filled. */
static const struct {
    const char *json;
    const char *error;
} bad_metrics[] = {
    {"[]", "r.json: runs[1]: metrics: expected an object"},
    {"{\"cps\": {\"type\": \"gauge\", \"windows\": 1, \"mean\": 1, \"min\": 1, \"max\": 1, "
     "\"sum\": 1}}",
     "r.json: runs[1]: metrics.cps.type: unknown type 'gauge'"},
    {"{\"cps\": {\"type\": \"number\", \"mean\": 1, \"min\": 1, \"max\": 1, \"sum\": 1}}",
     "r.json: runs[1]: metrics.cps: "},
    {"{\"cps\": {\"type\": \"number\", \"windows\": -1, \"mean\": 1, \"min\": 1, \"max\": 1, "
     "\"sum\": 1}}",
     "r.json: runs[1]: metrics.cps.windows: expected a count >= 0, got -1"},
    {"{\"cps\": {\"type\": \"number\", \"windows\": 1, \"mean\": \"1\", \"min\": 1, \"max\": 1, "
     "\"sum\": 1}}",
     "r.json: runs[1]: metrics.cps: expected mean, min, max, sum as numbers or null"},
    {"{\"slots\": {\"type\": \"ratio\", \"windows\": 1, \"mean\": 1, \"min\": 1, \"max\": 1, "
     "\"sum\": 1}}",
     "r.json: runs[1]: metrics.slots: total_sum is missing"},
    {"{\"cps\": {\"type\": \"number\", \"windows\": 1, \"mean\": 1, \"min\": 1, \"max\": 1, "
     "\"sum\": 1, \"total_sum\": 1}}",
     "r.json: runs[1]: metrics.cps: total_sum is for ratio keys only"},
    {"{\"cps\": {\"type\": \"number\", \"windows\": 1, \"mean\": 1, \"min\": 1, \"max\": 1, "
     "\"sum\": 1, \"median\": 1}}",
     "r.json: runs[1]: metrics.cps: "},
    {"{\"" KEY64 "\": {\"type\": \"number\", \"windows\": 1, \"mean\": 1, \"min\": 1, "
     "\"max\": 1, \"sum\": 1}}",
     "r.json: runs[1]: metrics." KEY64 ": expected a key of at most 63 bytes"},
};

START_TEST(test_json_refused)
{
    const char *text = bad_metrics[_i].json;
    /* A good key first, so that a refusal after it must free what was read. */
    char *doc = text[0] == '{'
                    ? xasprintf("{\"ok\": {\"type\": \"flag\", \"windows\": 1, \"mean\": 1, "
                                "\"min\": 1, \"max\": 1, \"sum\": 1}, %s",
                                text + 1)
                    : xstrdup(text);
    json_error_t je;
    json_t *m = json_loads(doc, 0, &je);
    ck_assert_msg(m != NULL, "case %d: %s", _i, je.text);
    struct scrape_run run;
    struct lb_error err;
    ck_assert_int_eq(scrape_run_from_json(m, &run, "r.json: runs[1]", &err), -1);
    ck_assert_msg(strncmp(err.msg, bad_metrics[_i].error, strlen(bad_metrics[_i].error)) == 0,
                  "case %d: got '%s'", _i, err.msg);
    ck_assert_uint_eq(run.n_aggs, 0);
    ck_assert_ptr_null(run.aggs);
    json_decref(m);
    free(doc);
}
END_TEST

/* ---- whole logs ---- */

static char tmpdir[256];

static void tmpdir_create(void)
{
    char *dir = testlib_tmpdir();
    ck_assert_uint_lt(strlen(dir), sizeof(tmpdir));
    strcpy(tmpdir, dir);
    free(dir);
}

/* Unchecked, so it runs in the parent even when a forked test failed half-way. */
static void tmpdir_remove(void)
{
    testlib_rmtree(tmpdir);
}

/* A new file in the temporary directory; returns its path (caller frees). */
static char *tmp_write(const char *name, const void *data, size_t len)
{
    char *path = path_join(tmpdir, name);
    FILE *fp = fopen(path, "wb");
    ck_assert_msg(fp != NULL, "cannot create '%s'", path);
    ck_assert(fwrite(data, 1, len, fp) == len);
    ck_assert(fclose(fp) == 0);
    return path;
}

static char *data_path(const char *name)
{
    const char *dir = getenv("TESTS_DATA");
    ck_assert_msg(dir && *dir, "TESTS_DATA is not set");
    char *logs = path_join(dir, "logs");
    char *path = path_join(logs, name);
    free(logs);
    return path;
}

static void scrape_ok(const char *path, const struct scrape_window_filter *f,
                      struct scrape_run *run)
{
    struct lb_error err = {{0}};
    int rc = scrape_file(path, MARKER, f, run, &err);
    ck_assert_msg(rc == 0, "scrape_file '%s': %s", path, err.msg);
}

/* Scrapes a canned log; the caller releases run. */
static void scrape_data(const char *name, const struct scrape_window_filter *f,
                        struct scrape_run *run)
{
    char *path = data_path(name);
    scrape_ok(path, f, run);
    free(path);
}

static const struct scrape_agg *agg(const struct scrape_run *r, const char *key)
{
    const struct scrape_agg *a = scrape_run_find(r, key);
    ck_assert_msg(a != NULL, "no aggregate '%s'", key);
    return a;
}

#define TOD(h, m, s) ((h)*3600 + (m)*60 + (s))
/* Byte offsets exclude every line without a timestamp. */
#define BY_TIME(a, b)                                                                              \
    {                                                                                              \
        .tod_start = (a), .tod_end = (b), .off_start = 0, .off_end = 0                             \
    }

START_TEST(test_file_window_and_aggregates)
{
    struct scrape_window_filter f = BY_TIME(TOD(14, 0, 0), TOD(14, 1, 0));
    struct scrape_run run = {0};
    scrape_data("modernuo.log", &f, &run);

    ck_assert_uint_eq(run.lines, 19);
    ck_assert_uint_eq(run.n_windows, 4);
    /* the lines of 14:00:05 to 14:00:50 */
    ck_assert_double_eq(agg(&run, "cps")->sum, 412 + 398 + 405 + 420);

    /* "skipped 3 of 7500 slots" */
    const struct scrape_agg *a = agg(&run, "slots");
    ck_assert_int_eq(a->type, SCRAPE_RATIO);
    ck_assert_uint_eq(a->n, 4);
    ck_assert_double_eq(a->sum, 3);
    ck_assert_double_eq(a->total_sum, 7500);
    ck_assert_double_eq(a->min, 0);
    ck_assert_double_eq(a->max, 2);
    /* "peak lag averaged over windows" */
    a = agg(&run, "tickLagPeak");
    ck_assert_int_eq(a->type, SCRAPE_DURATION_MS);
    ck_assert_double_eq(a->mean, 10.5);
    ck_assert_double_eq(a->min, 7);
    ck_assert_double_eq(a->max, 15);
    ck_assert_double_eq(a->sum, 42);
    a = agg(&run, "sleeps");
    ck_assert_double_eq(a->sum, 23243);
    ck_assert_double_eq(a->total_sum, 24346);
    a = agg(&run, "cpu");
    ck_assert_int_eq(a->type, SCRAPE_PERCENT);
    ck_assert_double_eq_tol(a->mean, 0.85, 1e-12);
    ck_assert_double_eq(a->total_sum, 0);
    a = agg(&run, "SUSPENDED");
    ck_assert_int_eq(a->type, SCRAPE_FLAG);
    ck_assert_uint_eq(a->n, 1);
    ck_assert_ptr_null(scrape_run_find(&run, "nothere"));
    ck_assert_ptr_null(scrape_run_find(&run, NULL));

    /* first-seen order: the flag first appears in the third window */
    static const char *const order[] = {
        "cpu",    "cps",   "missed8ms", "missed16ms", "sched",    "slots",    "tickLagPeak",
        "sleeps", "wakes", "elided",    "backoffs",   "idleWait", "SUSPENDED"};
    ck_assert_uint_eq(run.n_aggs, ARRAY_SIZE(order));
    for (size_t i = 0; i < ARRAY_SIZE(order); i++)
        ck_assert_str_eq(run.aggs[i].key, order[i]);

    /* levels over the whole log, not only the window */
    ck_assert_uint_eq(run.level_counts[LOG_VRB], 1);
    ck_assert_uint_eq(run.level_counts[LOG_DBG], 2);
    ck_assert_uint_eq(run.level_counts[LOG_INF], 11);
    ck_assert_uint_eq(run.level_counts[LOG_WRN], 1);
    ck_assert_uint_eq(run.level_counts[LOG_ERR], 1);
    ck_assert_uint_eq(run.level_counts[LOG_FTL], 1);
    scrape_run_release(&run);
    ck_assert(run.aggs == NULL && run.n_windows == 0);
}
END_TEST

START_TEST(test_file_window_ends_inclusive)
{
    struct scrape_window_filter f = BY_TIME(TOD(14, 0, 5), TOD(14, 0, 50));
    struct scrape_run run = {0};
    scrape_data("modernuo.log", &f, &run);
    ck_assert_uint_eq(run.n_windows, 4);
    scrape_run_release(&run);

    f = (struct scrape_window_filter)BY_TIME(TOD(14, 0, 6), TOD(14, 0, 49));
    scrape_data("modernuo.log", &f, &run);
    ck_assert_uint_eq(run.n_windows, 2);
    ck_assert_double_eq(agg(&run, "cps")->sum, 398 + 405);
    scrape_run_release(&run);
}
END_TEST

/* Without a filter every marker line counts, the one without a timestamp too. */
START_TEST(test_file_no_filter)
{
    struct scrape_run run = {0};
    scrape_data("modernuo.log", NULL, &run);
    ck_assert_uint_eq(run.n_windows, 7);
    ck_assert_double_eq(agg(&run, "cps")->sum, 9120 + 412 + 398 + 405 + 420 + 380 + 999);
    scrape_run_release(&run);
}
END_TEST

START_TEST(test_file_midnight_wrap)
{
    /* cps doubles line by line, so the sum names the lines taken */
    struct scrape_window_filter f = BY_TIME(TOD(23, 59, 20), TOD(0, 0, 20));
    struct scrape_run run = {0};
    scrape_data("midnight.log", &f, &run);
    ck_assert_uint_eq(run.n_windows, 5);
    ck_assert_double_eq(agg(&run, "cps")->sum, 4 + 8 + 16 + 32 + 64);
    scrape_run_release(&run);

    f = (struct scrape_window_filter)BY_TIME(TOD(0, 0, 0), TOD(23, 59, 59));
    scrape_data("midnight.log", &f, &run);
    ck_assert_double_eq(agg(&run, "cps")->sum, 255);
    scrape_run_release(&run);

    f = (struct scrape_window_filter)BY_TIME(TOD(23, 59, 51), TOD(0, 0, 4));
    scrape_data("midnight.log", &f, &run);
    ck_assert_uint_eq(run.n_windows, 0);
    ck_assert_uint_eq(run.n_aggs, 0);
    ck_assert_uint_eq(run.level_counts[LOG_INF], 8);
    scrape_run_release(&run);
}
END_TEST

/* Offset of the start of line `line` (1-based) in a file. */
static uint64_t line_offset(const char *path, int line)
{
    char *data;
    size_t len;
    struct lb_error err;
    ck_assert_msg(read_file(path, &data, &len, &err) == 0, "%s", err.msg);
    size_t off = 0;
    for (int i = 1; i < line; i++) {
        const char *nl = memchr(data + off, '\n', len - off);
        ck_assert(nl != NULL);
        off = (size_t)(nl - data) + 1;
    }
    free(data);
    return off;
}

START_TEST(test_file_window_by_offset)
{
    char *path = data_path("plain.log");
    struct scrape_window_filter f = {.tod_start = 0,
                                     .tod_end = 86399,
                                     .off_start = line_offset(path, 4),
                                     .off_end = line_offset(path, 6)};
    struct scrape_run run = {0};
    scrape_ok(path, &f, &run);
    ck_assert_uint_eq(run.lines, 7);
    ck_assert_uint_eq(run.n_windows, 2);
    ck_assert_double_eq(agg(&run, "slots")->sum, 1);
    ck_assert_double_eq(agg(&run, "slots")->total_sum, 250);
    ck_assert_double_eq(agg(&run, "tickLagPeak")->mean, 7);
    ck_assert_uint_eq(agg(&run, "SUSPENDED")->n, 1);
    for (int l = 0; l < LOG_LEVELS; l++)
        ck_assert_uint_eq(run.level_counts[l], 0);
    scrape_run_release(&run);

    /* a line counts by where it starts: one byte more takes line 6 in */
    f.off_end++;
    scrape_ok(path, &f, &run);
    ck_assert_uint_eq(run.n_windows, 3);
    scrape_run_release(&run);
    free(path);
}
END_TEST

/* stdout, then stderr of the same run, into one result. */
START_TEST(test_file_twice_adds)
{
    struct scrape_window_filter f = BY_TIME(TOD(14, 0, 0), TOD(14, 1, 0));
    struct scrape_run run = {0};
    scrape_data("modernuo.log", &f, &run);
    scrape_data("plain.log", NULL, &run);
    ck_assert_uint_eq(run.lines, 19 + 7);
    ck_assert_uint_eq(run.n_windows, 4 + 4);
    ck_assert_uint_eq(run.level_counts[LOG_INF], 11);
    const struct scrape_agg *a = agg(&run, "slots");
    ck_assert_uint_eq(a->n, 8);
    ck_assert_double_eq(a->sum, 3 + 3);
    ck_assert_double_eq(a->total_sum, 7500 + 500);
    ck_assert_uint_eq(agg(&run, "SUSPENDED")->n, 2);
    ck_assert_uint_eq(agg(&run, "cps")->n, 4);
    scrape_run_release(&run);
}
END_TEST

/* A key keeps its first type across windows: durations never average with numbers. */
START_TEST(test_file_type_change_left_out)
{
    static const char log[] = "loop: lag=4ms\nloop: lag=100\nloop: lag=6ms\n";
    char *path = tmp_write("types.log", log, sizeof(log) - 1);
    struct scrape_run run = {0};
    scrape_ok(path, NULL, &run);
    const struct scrape_agg *a = agg(&run, "lag");
    ck_assert_int_eq(a->type, SCRAPE_DURATION_MS);
    ck_assert_uint_eq(a->n, 2);
    ck_assert_double_eq(a->mean, 5);
    ck_assert_uint_eq(run.n_windows, 3);
    scrape_run_release(&run);
    free(path);
}
END_TEST

START_TEST(test_file_crlf_and_no_final_newline)
{
    static const char log[] = "[10:00:00 INF] loop: cps=1 tickLagPeak=3ms\r\n"
                              "[10:00:15 WRN] slow\r\n"
                              "\r\n"
                              "[10:00:30 INF] loop: cps=2 idleWait=2ms";
    char *path = tmp_write("crlf.log", log, sizeof(log) - 1);
    struct scrape_run run = {0};
    scrape_ok(path, NULL, &run);
    ck_assert_uint_eq(run.lines, 4);
    ck_assert_uint_eq(run.n_windows, 2);
    ck_assert_double_eq(agg(&run, "tickLagPeak")->sum, 3);
    ck_assert_double_eq(agg(&run, "cps")->sum, 3);
    ck_assert_double_eq(agg(&run, "idleWait")->sum, 2);
    ck_assert_uint_eq(run.level_counts[LOG_INF], 2);
    ck_assert_uint_eq(run.level_counts[LOG_WRN], 1);
    scrape_run_release(&run);
    free(path);
}
END_TEST

/* The window began mid-second: the line stamped in that second but written before the
 * window started belongs to the warm-up, the one written after it to the window. */
START_TEST(test_file_written_in_window)
{
    static const char before[] = "[10:00:00 INF] loop: tickLagPeak=30ms\n";
    static const char log[] = "[10:00:00 INF] loop: tickLagPeak=30ms\n"
                              "[10:00:00 INF] loop: tickLagPeak=4ms\n"
                              "[10:00:02 INF] loop: tickLagPeak=6ms\n";
    char *path = tmp_write("written.log", log, sizeof(log) - 1);
    struct scrape_window_filter f = {.tod_start = TOD(10, 0, 0), .tod_end = TOD(10, 0, 2),
                                     .off_start = sizeof(before) - 1, .off_end = sizeof(log) - 1,
                                     .written_in_window = true};
    struct scrape_run run = {0};
    scrape_ok(path, &f, &run);
    ck_assert_uint_eq(run.n_windows, 2);
    ck_assert_double_eq(agg(&run, "tickLagPeak")->max, 6);
    scrape_run_release(&run);
    f.written_in_window = false; /* by the stamps alone, all three count */
    memset(&run, 0, sizeof(run));
    scrape_ok(path, &f, &run);
    ck_assert_uint_eq(run.n_windows, 3);
    scrape_run_release(&run);
    free(path);
}
END_TEST

START_TEST(test_file_empty_and_missing)
{
    char *path = tmp_write("empty.log", "", 0);
    struct scrape_run run = {0};
    scrape_ok(path, NULL, &run);
    ck_assert_uint_eq(run.lines, 0);
    ck_assert_uint_eq(run.n_windows, 0);
    scrape_run_release(&run);
    free(path);

    path = path_join(tmpdir, "missing.log");
    struct lb_error err = {{0}};
    ck_assert_int_eq(scrape_file(path, MARKER, NULL, &run, &err), -1);
    char *want = xasprintf("cannot open '%s': ", path);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "message '%s'", err.msg);
    free(want);
    free(path);
}
END_TEST

/* A 1 MB line is cut at SCRAPE_LINE_MAX: what precedes the cut is kept, the lines after
 * it are read normally, and a token split by the cut is dropped, not misread. */
START_TEST(test_file_megabyte_line)
{
    static const char head[] = "[10:00:00 WRN] loop: cps=7 ";
    size_t big = 1 << 20;
    char *log = xmalloc(big + 128);
    memcpy(log, head, strlen(head));
    size_t n = strlen(head);
    for (; n < SCRAPE_LINE_MAX; n++)
        log[n] = n % 4 == 3 ? ' ' : 'x';
    /* "lag=412ms" straddles the limit: "lag=41" must not be read */
    n = SCRAPE_LINE_MAX - strlen(" lag=41");
    memcpy(log + n, " lag=412ms ", strlen(" lag=412ms "));
    n += strlen(" lag=412ms ");
    memset(log + n, 'y', big - n);
    n = big;
    n += (size_t)snprintf(log + n, 128, "\n[10:00:01 INF] loop: cps=8\n");
    char *path = tmp_write("big.log", log, n);
    free(log);

    struct scrape_run run = {0};
    scrape_ok(path, NULL, &run);
    ck_assert_uint_eq(run.lines, 2);
    ck_assert_uint_eq(run.n_windows, 2);
    ck_assert_uint_eq(run.n_aggs, 1);
    ck_assert_double_eq(agg(&run, "cps")->min, 7);
    ck_assert_ptr_null(scrape_run_find(&run, "lag"));
    ck_assert_double_eq(agg(&run, "cps")->sum, 15);
    ck_assert_uint_eq(run.level_counts[LOG_WRN], 1);
    ck_assert_uint_eq(run.level_counts[LOG_INF], 1);
    scrape_run_release(&run);
    free(path);
}
END_TEST

/* More lines than one read holds: lines across read boundaries and their offsets. */
START_TEST(test_file_streams_many_lines)
{
    size_t cap = 20000 * 24, n = 0;
    char *log = xmalloc(cap);
    uint64_t from = 0, to = 0;
    for (int i = 0; i < 20000; i++) {
        if (i == 15000)
            from = n;
        if (i == 15010)
            to = n;
        n += (size_t)snprintf(log + n, cap - n, "loop: n=%d\n", i);
    }
    ck_assert(n > 3 * 65536);
    char *path = tmp_write("many.log", log, n);
    free(log);

    struct scrape_window_filter f = {.off_start = from, .off_end = to};
    struct scrape_run run = {0};
    scrape_ok(path, &f, &run);
    ck_assert_uint_eq(run.lines, 20000);
    ck_assert_uint_eq(run.n_windows, 10);
    const struct scrape_agg *a = agg(&run, "n");
    ck_assert_double_eq(a->min, 15000);
    ck_assert_double_eq(a->max, 15009);
    scrape_run_release(&run);

    scrape_ok(path, NULL, &run);
    ck_assert_uint_eq(run.n_windows, 20000);
    ck_assert_double_eq(agg(&run, "n")->sum, 20000.0 * 19999 / 2);
    scrape_run_release(&run);
    free(path);
}
END_TEST

/* Random bytes with NULs and no structure, then one good line: no crash, line kept. */
START_TEST(test_file_binary_garbage)
{
    size_t n = 300000;
    char *log = xmalloc(n + 64);
    uint32_t x = 2463534242u;
    unsigned long newlines = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        log[i] = (char)(x & 0xff);
        newlines += log[i] == '\n';
    }
    n += (size_t)snprintf(log + n, 64, "\n[10:00:00 INF] loop: cps=5");
    char *path = tmp_write("garbage.log", log, n);
    free(log);

    struct scrape_run run = {0};
    scrape_ok(path, NULL, &run);
    ck_assert_uint_eq(run.lines, newlines + 2);
    ck_assert_uint_ge(run.level_counts[LOG_INF], 1);
    ck_assert_uint_ge(run.n_windows, 1);
    ck_assert_double_eq(agg(&run, "cps")->max, 5);
    scrape_run_release(&run);
    free(path);
}
END_TEST

/* ---- a stream's window kept as aggregates (issue 23: memory bounded by keys, not lines) ---- */

static void feed_line(struct scrape_stream *s, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    ck_assert(n > 0 && (size_t)n < sizeof(line) - 1);
    line[n++] = '\n';
    scrape_stream_feed(s, line, (size_t)n);
}

#define HMS(t) (t) / 3600, (t) / 60 % 60, (t) % 60

/* A window as capture.c brackets it: open at the stream's end, lines, close. */
struct bracket {
    struct scrape_stream s;
    struct scrape_window_filter so_far;
};

static void bracket_init(struct bracket *b)
{
    scrape_stream_init(&b->s, MARKER);
    b->so_far = (struct scrape_window_filter){.tod_start = 0, .tod_end = 86399,
                                              .off_start = UINT64_MAX, .off_end = UINT64_MAX,
                                              .written_in_window = true};
    b->s.so_far = &b->so_far;
}

static void bracket_open(struct bracket *b)
{
    b->so_far.off_start = b->s.pos;
}

/* Close at times of day [from, to] and finish into run. */
static void bracket_finish(struct bracket *b, int from, int to, struct scrape_run *run)
{
    b->so_far.off_end = b->s.pos;
    struct scrape_window_filter f = b->so_far;
    f.tod_start = from;
    f.tod_end = to;
    scrape_stream_finish(&b->s, &f, run);
    scrape_stream_release(&b->s);
}

/* 200 000 marker lines in one window: what the stream holds does not grow with them,
 * and the figures are those of every line. */
START_TEST(test_stream_many_lines_bounded)
{
    struct bracket b;
    bracket_init(&b);
    feed_line(&b.s, "[10:00:00 INF] loop: a=99 before the window");
    bracket_open(&b);
    for (int i = 0; i < 200000; i++)
        feed_line(&b.s, "[10:00:%02d INF] loop: a=1 b=%d", 1 + i / 10000, i % 3);
    ck_assert_uint_eq(b.s.kept.n_windows, 200000);
    ck_assert_uint_le(b.s.n_classes, SCRAPE_CLASSES_MAX);
    ck_assert_uint_eq(b.s.kept.n_aggs, 2);
    for (size_t i = 0; i < b.s.n_classes; i++)
        ck_assert_uint_le(b.s.classes[i].run.n_aggs, 2);
    struct scrape_run run = {0};
    bracket_finish(&b, TOD(10, 0, 1), TOD(10, 0, 20), &run);
    ck_assert_uint_eq(run.n_windows, 200000);
    ck_assert_uint_eq(agg(&run, "a")->n, 200000);
    ck_assert_double_eq(agg(&run, "a")->sum, 200000);
    ck_assert_double_eq(agg(&run, "a")->max, 1);
    ck_assert_double_eq(agg(&run, "b")->max, 2);
    ck_assert_uint_eq(run.lines_dropped + run.values_dropped, 0);
    scrape_run_release(&run);
}
END_TEST

/* The lines stamped in the second before the window and after it are left out by class;
 * unstamped lines count by offset; the figures are those of the lines in, whether or not
 * the stamped seconds outnumber the classes. */
START_TEST(test_stream_classes_out_of_window)
{
    for (int seconds = 5; seconds <= 40; seconds += 35) {
        struct bracket b;
        bracket_init(&b);
        bracket_open(&b);
        int t0 = TOD(23, 59, 50);
        feed_line(&b.s, "[%02d:%02d:%02d INF] loop: lag=1000ms", HMS(t0 - 1));
        double sum = 0;
        for (int i = 0; i < seconds; i++) {
            int t = (t0 + i) % 86400; /* past midnight too */
            for (int k = 0; k < 3; k++) {
                feed_line(&b.s, "[%02d:%02d:%02d INF] loop: lag=%d.5ms", HMS(t), i);
                sum += i + 0.5;
            }
            if (i == 2)
                feed_line(&b.s, "loop: lag=0ms unstamped");
        }
        int end = (t0 + seconds - 1) % 86400;
        feed_line(&b.s, "[%02d:%02d:%02d INF] loop: lag=2000ms", HMS((end + 1) % 86400));
        struct scrape_run run = {0};
        bracket_finish(&b, t0, end, &run);
        ck_assert_uint_eq(run.n_windows, 3 * (size_t)seconds + 1);
        ck_assert_double_eq_tol(agg(&run, "lag")->sum, sum, 1e-9);
        ck_assert_double_eq(agg(&run, "lag")->min, 0);
        ck_assert_double_eq(agg(&run, "lag")->max, seconds - 0.5);
        ck_assert_uint_eq(run.lines_dropped, 0);
        scrape_run_release(&run);
    }
}
END_TEST

/* Every line in the window: the figures are those of the lines added one by one, to the
 * last bit (0.1 + 0.2 + 0.3 is not 0.1 + (0.2 + 0.3)). */
START_TEST(test_stream_sum_in_order)
{
    struct bracket b;
    bracket_init(&b);
    bracket_open(&b);
    static const double v[] = {0.1, 0.2, 0.3, 0.7, 1.1, 2.3};
    struct scrape_run one_by_one = {0};
    for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
        feed_line(&b.s, "[10:00:0%zu INF] loop: cpu=%.1f%%", i / 2, v[i]);
        add_value(&one_by_one, "cpu", SCRAPE_PERCENT, v[i], 0);
    }
    struct scrape_run run = {0};
    bracket_finish(&b, TOD(10, 0, 0), TOD(10, 0, 2), &run);
    ck_assert(agg(&run, "cpu")->sum == agg(&one_by_one, "cpu")->sum);
    ck_assert(agg(&run, "cpu")->mean == agg(&one_by_one, "cpu")->mean);
    scrape_run_release(&run);
    scrape_run_release(&one_by_one);
}
END_TEST

/* Times of day scattered past the classes: a class partly in the window is left out and
 * its lines counted; nothing is kept per line. */
START_TEST(test_stream_scattered_times_counted)
{
    struct bracket b;
    bracket_init(&b);
    bracket_open(&b);
    for (int i = 0; i < 1000; i++)
        feed_line(&b.s, "[%02d:%02d:%02d INF] loop: n=1", HMS((i * 7919) % 86400));
    ck_assert_uint_eq(b.s.n_classes, SCRAPE_CLASSES_MAX - 1);
    struct scrape_run run = {0};
    bracket_finish(&b, TOD(12, 0, 0), TOD(12, 10, 0), &run);
    const struct scrape_agg *a = scrape_run_find(&run, "n");
    size_t in = a ? a->n : 0;
    ck_assert_uint_eq(run.n_windows, in);
    ck_assert_uint_gt(run.lines_dropped, 0);
    ck_assert_uint_le(in + run.lines_dropped, 1000);
    scrape_run_release(&run);
}
END_TEST

/* The window opened again (warm-up given up): what was kept before is gone. */
START_TEST(test_stream_reopened_window)
{
    struct bracket b;
    bracket_init(&b);
    bracket_open(&b);
    feed_line(&b.s, "loop: n=100");
    feed_line(&b.s, "[10:00:01 INF] loop: n=100");
    bracket_open(&b);
    feed_line(&b.s, "loop: n=1");
    feed_line(&b.s, "[10:00:02 INF] loop: n=2");
    struct scrape_run run = {0};
    bracket_finish(&b, TOD(10, 0, 0), TOD(10, 0, 5), &run);
    ck_assert_uint_eq(run.n_windows, 2);
    ck_assert_double_eq(agg(&run, "n")->sum, 3);
    scrape_run_release(&run);
}
END_TEST

/* A stream of ever-new keys: the first SCRAPE_VALUES_MAX are kept, the rest counted. */
START_TEST(test_stream_new_keys_counted)
{
    struct bracket b;
    bracket_init(&b);
    bracket_open(&b);
    for (int i = 0; i < 1000; i++)
        feed_line(&b.s, "loop: k%d=1 common=2", i);
    struct scrape_run run = {0};
    bracket_finish(&b, 0, 0, &run);
    ck_assert_uint_eq(run.n_windows, 1000);
    ck_assert_uint_eq(run.n_aggs, SCRAPE_VALUES_MAX);
    ck_assert_uint_eq(agg(&run, "common")->n, 1000);
    ck_assert_uint_eq(run.values_dropped, 1000 - (SCRAPE_VALUES_MAX - 1));
    scrape_run_release(&run);
}
END_TEST

static Suite *scrape_suite(void)
{
    Suite *s = suite_create("scrape");
    TCase *tc = tcase_create("line");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_good_lines, 0, (int)ARRAY_SIZE(good));
    tcase_add_loop_test(tc, test_bad_lines, 0, (int)ARRAY_SIZE(bad));
    tcase_add_test(tc, test_null_marker_and_line);
    tcase_add_test(tc, test_length_is_obeyed);
    tcase_add_test(tc, test_ten_thousand_keys);
    tcase_add_test(tc, test_megabyte_line_parsed_whole);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("json");
    tcase_add_test(tc, test_json_round_trip);
    tcase_add_loop_test(tc, test_json_refused, 0, (int)ARRAY_SIZE(bad_metrics));
    suite_add_tcase(s, tc);

    tc = tcase_create("file");
    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, tmpdir_create, tmpdir_remove);
    tcase_add_test(tc, test_file_window_and_aggregates);
    tcase_add_test(tc, test_file_window_ends_inclusive);
    tcase_add_test(tc, test_file_no_filter);
    tcase_add_test(tc, test_file_midnight_wrap);
    tcase_add_test(tc, test_file_window_by_offset);
    tcase_add_test(tc, test_file_twice_adds);
    tcase_add_test(tc, test_file_type_change_left_out);
    tcase_add_test(tc, test_file_crlf_and_no_final_newline);
    tcase_add_test(tc, test_file_written_in_window);
    tcase_add_test(tc, test_file_empty_and_missing);
    tcase_add_test(tc, test_file_megabyte_line);
    tcase_add_test(tc, test_file_streams_many_lines);
    tcase_add_test(tc, test_file_binary_garbage);
    tcase_add_test(tc, test_stream_many_lines_bounded);
    tcase_add_test(tc, test_stream_classes_out_of_window);
    tcase_add_test(tc, test_stream_sum_in_order);
    tcase_add_test(tc, test_stream_scattered_times_counted);
    tcase_add_test(tc, test_stream_reopened_window);
    tcase_add_test(tc, test_stream_new_keys_counted);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return testlib_run(scrape_suite());
}
