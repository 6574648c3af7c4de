/* mermaid.c: the Mermaid charts of reports.
 *
 * Each case checks the text a reader's renderer gets. With MERMAID_SAMPLES set to a
 * file, every chart made here is also appended to it as Markdown, and
 * tests/node/mermaid-samples.sh has Mermaid's own parser read them all
 * (tests/node/check-mermaid.mjs): this file checks what is written, that one that
 * GitHub's renderer can read it. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mermaid.h"
#include "testlib.h"
#include "util.h"

/* Append a chart to $MERMAID_SAMPLES under a heading. */
static void keep_sample(const char *what, const char *chart)
{
    const char *path = getenv("MERMAID_SAMPLES");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "## %s\n\n%s\n", what, chart);
    ck_assert_int_eq(fclose(f), 0);
}

static char *bars_text(const struct mermaid_bars *c, const char *what)
{
    struct lb_error err;
    FILE *f = testlib_capture();
    ck_assert_msg(mermaid_bars_write(f, c, &err) == 0, "%s", err.msg);
    char *text = testlib_captured(f);
    keep_sample(what, text);
    return text;
}

static char *lines_text(const struct mermaid_lines *c, const char *what)
{
    struct lb_error err;
    FILE *f = testlib_capture();
    ck_assert_msg(mermaid_lines_write(f, c, &err) == 0, "%s", err.msg);
    char *text = testlib_captured(f);
    keep_sample(what, text);
    return text;
}

static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The `i`th (from 0) ```mermaid block of text, without its fences (new string). */
static char *block(const char *text, size_t i)
{
    const char *p = text;
    for (size_t k = 0; k <= i; k++) {
        p = strstr(p, "```mermaid\n");
        ck_assert_ptr_nonnull(p);
        p += strlen("```mermaid\n");
    }
    const char *end = strstr(p, "```\n");
    ck_assert_ptr_nonnull(end);
    return xstrndup(p, (size_t)(end - p));
}

static const char *const idle_waits[] = {"0", "2", "8"};

/* The docs' example campaign (docs/report.md): idle wait 0 at 99.5 % of a core, 2 and
 * 8 ms at under 1 %. */
START_TEST(bars_spanning_100x_get_a_log_chart)
{
    const double cpu[] = {99.5, 0.870, 0.565};
    struct mermaid_series series = {.values = cpu};
    struct mermaid_bars c = {
        .axis = {.knob_label = "idle wait (ms)", .settings = idle_waits, .n = 3},
        .title = "CPU per setting, median of runs",
        .unit = "CPU % of one core",
        .series = &series,
        .n_series = 1,
    };
    char *text = bars_text(&c, "CPU per setting: idle wait 0, 2, 8 ms");
    ck_assert_uint_eq(count_of(text, "```mermaid\n"), 2);
    char *linear = block(text, 0), *log = block(text, 1);
    /* The linear chart: from 0 to a round top, each value in its label. */
    ck_assert_ptr_nonnull(strstr(linear, "xychart-beta horizontal\n"
                                         "    title \"CPU per setting, median of runs\"\n"
                                         "    x-axis \"idle wait (ms)\" [\"0 (baseline): 99.5\", "
                                         "\"2: 0.870\", \"8: 0.565\"]\n"
                                         "    y-axis \"CPU % of one core\" 0 --> 100\n"
                                         "    bar [99.5, 0.870, 0.565]\n"));
    /* The log chart: the same labels, log10 values above a floor of 0.1 %, and an axis
     * title saying what each step is. */
    ck_assert_ptr_nonnull(strstr(log, "    title \"CPU per setting, median of runs, log10 "
                                      "scale\"\n"));
    ck_assert_ptr_nonnull(strstr(log, "\"2: 0.870\""));
    ck_assert_ptr_nonnull(strstr(log, "    y-axis \"log10 of CPU % of one core\" -1 --> 2\n"
                                      "    bar [2.00, -0.0605, -0.248]\n"));
    /* Below it, what the scale means. */
    ck_assert_ptr_nonnull(strstr(text, "```\nLog scale: each bar is log10 of its value (2 = 100, "
                                       "1 = 10, 0 = 1, -1 = 0.1), so equal steps are equal "
                                       "factors"));
    /* The palette and a height for three bars are set where the chart starts, in an
     * init directive. */
    ck_assert_ptr_nonnull(strstr(linear, "%%{init: {\"xyChart\": {\"height\": 255}, "
                                         "\"themeVariables\": {\"xyChart\": "
                                         "{\"plotColorPalette\": \"#1E88E5, "));
    free(linear);
    free(log);
    free(text);
}
END_TEST

/* The small bars stay visible on the log chart: each is at least a tenth of its height. */
START_TEST(log_chart_keeps_small_bars_tall)
{
    const double cpu[] = {400, 0.05, 0.0021, 12};
    static const char *const settings[] = {"0", "1", "4", "16"};
    struct mermaid_series series = {.values = cpu};
    struct mermaid_bars c = {
        .axis = {.knob_label = "wait", .settings = settings, .n = 4, .baseline = 0},
        .title = "CPU",
        .unit = "CPU %",
        .series = &series,
        .n_series = 1,
    };
    char *text = bars_text(&c, "CPU spanning five decades");
    char *log = block(text, 1);
    /* Axis from 10^-3 to 10^3: 0.0021 is log10 -2.68, 0.32 above the floor of 6. */
    ck_assert_ptr_nonnull(strstr(log, "\" -3 --> 3\n    bar [2.60, -1.30, -2.68, 1.08]\n"));
    ck_assert_ptr_nonnull(strstr(text, "(3 = 1000, 2 = 100, 1 = 10, 0 = 1, -1 = 0.1, -2 = 0.01, "
                                       "-3 = 0.001)"));
    free(log);
    free(text);
}
END_TEST

START_TEST(bars_within_10x_get_one_chart)
{
    const double cpu[] = {50, 40, 5.5};
    struct mermaid_series series = {.values = cpu};
    struct mermaid_bars c = {
        .axis = {.knob_label = "idle wait (ms)", .settings = idle_waits, .n = 3, .baseline = 1},
        .title = "CPU",
        .unit = "CPU % of one core",
        .series = &series,
        .n_series = 1,
    };
    char *text = bars_text(&c, "CPU within 10x, baseline 2");
    ck_assert_uint_eq(count_of(text, "```mermaid\n"), 1);
    ck_assert_ptr_nonnull(strstr(text, "[\"0: 50.0\", \"2 (baseline): 40.0\", \"8: 5.50\"]\n"
                                       "    y-axis \"CPU % of one core\" 0 --> 50\n"));
    ck_assert_ptr_null(strstr(text, "log10"));
    free(text);
}
END_TEST

/* Ratios near 1 (the pool's chart of each host's change): the axis' top is a round
 * number above them, written with its decimals (1.2, not 1). */
START_TEST(bars_near_one_get_a_top_above_them)
{
    const double ratio[] = {1.07, 0.992, 1.09};
    struct mermaid_series series = {.values = ratio};
    struct mermaid_bars c = {
        .axis = {.knob_label = "host",
                 .settings = idle_waits,
                 .n = 3,
                 .baseline = MERMAID_NO_BASELINE},
        .title = "CPU head / base, by host",
        .unit = "ratio (1 = no change)",
        .series = &series,
        .n_series = 1,
    };
    char *text = bars_text(&c, "ratios near 1");
    ck_assert_ptr_nonnull(strstr(text, "    y-axis \"ratio (1 = no change)\" 0 --> 1.2\n"));
    free(text);
}
END_TEST

/* A setting without a value has no bar and says "-"; several series are lines, named
 * below. */
START_TEST(bars_of_several_series_and_a_missing_value)
{
    const double a[] = {20, NAN, 12}, b[] = {22, 9.5, 14};
    struct mermaid_series series[] = {{.name = "main", .values = a},
                                      {.name = "pr #12", .values = b}};
    struct mermaid_bars c = {
        .axis = {.knob_label = "idle wait (ms)", .settings = idle_waits, .n = 3},
        .title = "CPU per variant",
        .unit = "CPU % of one core",
        .series = series,
        .n_series = 2,
    };
    char *text = bars_text(&c, "two variants, one value missing");
    /* Several series: the labels are the settings alone. */
    ck_assert_ptr_nonnull(strstr(text, "[\"0 (baseline)\", \"2\", \"8\"]\n"
                                       "    y-axis \"CPU % of one core\" 0 --> 25\n"
                                       "    line \"main\" [20.0, 0, 12.0]\n"
                                       "    line \"pr #35;12\" [22.0, 9.50, 14.0]\n"));
    ck_assert_ptr_nonnull(strstr(text, "```\n\xF0\x9F\x9F\xA6 main \xC2\xB7 "
                                       "\xF0\x9F\x9F\xA7 pr \\#12\n"));
    free(text);
    const double one[] = {5, NAN, 4};
    struct mermaid_series single = {.values = one};
    c.series = &single;
    c.n_series = 1;
    text = bars_text(&c, "one value missing");
    ck_assert_ptr_nonnull(strstr(text, "\"2: -\""));
    ck_assert_ptr_nonnull(strstr(text, "bar [5.00, 0, 4.00]\n"));
    free(text);
}
END_TEST

/* What Mermaid or Markdown would read as syntax is written so they draw it as text. */
START_TEST(labels_are_escaped)
{
    static const char *const settings[] = {"say \"hi\"", "[1, 2]", "a#b; <i>&amp;</i>",
                                           "`tick` 50%% done\nnext"};
    const double cpu[] = {1, 2, 3, 4};
    struct mermaid_series series = {.values = cpu};
    struct mermaid_bars c = {
        .axis = {.knob_label = "knob \"x\" [ms]", .settings = settings, .n = 4},
        .title = "CPU \"quoted\" %%{init: {}}%%",
        .unit = "CPU % <of> one core",
        .series = &series,
        .n_series = 1,
    };
    char *text = bars_text(&c, "labels with quotes, brackets, entities and a newline");
    ck_assert_ptr_nonnull(strstr(text, "    title \"CPU #quot;quoted#quot; #37;#37;{init: "
                                       "{}}#37;#37;\"\n"));
    ck_assert_ptr_nonnull(strstr(text, "    x-axis \"knob #quot;x#quot; [ms]\" ["
                                       "\"say #quot;hi#quot; (baseline): 1.00\", "
                                       "\"[1, 2]: 2.00\", "
                                       "\"a#35;b; #lt;i#gt;#amp;amp;#lt;/i#gt;: 3.00\", "
                                       "\"#96;tick#96; 50#37;#37; done next: 4.00\"]\n"));
    ck_assert_ptr_nonnull(strstr(text, "    y-axis \"CPU % #lt;of#gt; one core\" 0 --> 4\n"));
    free(text);

    /* In a legend, Markdown's punctuation is escaped. */
    const struct mermaid_point pts[] = {{0, 1}, {1, 2}};
    const struct mermaid_curve curves[] = {{pts, 2, 1}, {pts, 2, 1}, {pts, 2, 1}, {pts, 2, 1}};
    struct mermaid_lines l = {.axis = c.axis, .title = "t", .unit = "u", .curves = curves};
    text = lines_text(&l, "line labels with Markdown punctuation");
    ck_assert_ptr_nonnull(strstr(text, "\xF0\x9F\x9F\xA6 say \"hi\" (baseline) \xC2\xB7 "
                                       "\xF0\x9F\x9F\xA7 \\[1, 2\\] \xC2\xB7 "
                                       "\xF0\x9F\x9F\xA9 a\\#b; \\<i\\>\\&amp;\\</i\\> \xC2\xB7 "
                                       "\xF0\x9F\x9F\xA5 \\`tick\\` 50%% done next  \n"));
    free(text);
}
END_TEST

/* Runs of 300 points each, 10 ms apart: each line has 60 points, the median of the
 * runs in each slot. */
START_TEST(lines_are_medians_in_at_most_60_slots)
{
    enum { RUNS = 3, POINTS = 300 };
    static struct mermaid_point pts[3][RUNS * POINTS];
    const double level[3] = {98, 1.2, 0.6};
    for (size_t s = 0; s < 3; s++)
        for (size_t r = 0; r < RUNS; r++)
            for (size_t j = 0; j < POINTS; j++)
                /* Runs at level - 0.1, level, level + 0.1: the median is the level. */
                pts[s][r * POINTS + j] = (struct mermaid_point){
                    .t_s = 0.01 * (double)(j + 1), .value = level[s] + 0.1 * ((double)r - 1)};
    const struct mermaid_curve curves[] = {{pts[0], RUNS * POINTS, RUNS},
                                           {pts[1], RUNS * POINTS, RUNS},
                                           {pts[2], RUNS * POINTS, RUNS}};
    struct mermaid_lines c = {
        .axis = {.knob_label = "idle wait (ms)", .settings = idle_waits, .n = 3},
        .title = "CPU over the sample window",
        .unit = "CPU % of one core",
        .curves = curves,
    };
    char *text = lines_text(&c, "CPU over time: 3 settings, 3 runs of 300 points");
    ck_assert_uint_eq(count_of(text, "```mermaid\n"), 1);
    ck_assert_ptr_nonnull(strstr(text, "    x-axis \"seconds into the window\" 0.0100 --> 3.00\n"));
    /* 98 against 0.6 spans more than 10x: log10 from 0.1 to 100. */
    ck_assert_ptr_nonnull(strstr(text, "    title \"CPU over the sample window, log10 scale\"\n"));
    ck_assert_ptr_nonnull(strstr(text, "\" -1 --> 2\n"));
    char *blk = block(text, 0);
    const char *line = strstr(blk, "    line \"2\" [");
    ck_assert_ptr_nonnull(line);
    /* 60 values, every one log10(1.2) = 0.0792. */
    ck_assert_uint_eq(count_of(line, "0.0792"), 60);
    ck_assert_ptr_nonnull(strstr(blk, "    line \"0 (baseline)\" [1.99, 1.99,"));
    free(blk);
    ck_assert_ptr_nonnull(strstr(text, "```\n\xF0\x9F\x9F\xA6 0 (baseline) \xC2\xB7 "
                                       "\xF0\x9F\x9F\xA7 2 \xC2\xB7 \xF0\x9F\x9F\xA9 8  \n"
                                       "Each line is a setting: in each of 60 slots"));
    free(text);
    /* Runs of 30 points (the first 30 of each run): 30 slots, one point of each run in
     * each. */
    for (size_t s = 0; s < 3; s++)
        for (size_t r = 0; r < RUNS; r++)
            memmove(&pts[s][r * 30], &pts[s][r * POINTS], 30 * sizeof(pts[s][0]));
    const struct mermaid_curve short_curves[] = {{pts[0], RUNS * 30, RUNS},
                                                 {pts[1], RUNS * 30, RUNS},
                                                 {pts[2], RUNS * 30, RUNS}};
    c.curves = short_curves;
    text = lines_text(&c, "CPU over time: 3 settings, 3 runs of 30 points");
    ck_assert_ptr_nonnull(strstr(text, "Each line is a setting: in each of 30 slots"));
    ck_assert_uint_eq(count_of(text, "0.0792"), 30);
    free(text);
}
END_TEST

/* Sparse points (a 1 s series against a 0.1 s one): the slots between them are the
 * straight line joining them; a setting without points has no line. */
START_TEST(lines_fill_gaps_and_skip_empty_settings)
{
    const struct mermaid_point sparse[] = {{0, 10}, {1, 20}, {2, 30}};
    struct mermaid_point dense[21];
    for (size_t j = 0; j < 21; j++)
        dense[j] = (struct mermaid_point){.t_s = 0.1 * (double)j, .value = 25};
    const struct mermaid_curve curves[] = {{sparse, 3, 1}, {dense, 21, 1}, {NULL, 0, 0}};
    struct mermaid_lines c = {
        .axis = {.knob_label = "idle wait (ms)", .settings = idle_waits, .n = 3},
        .title = "CPU over the sample window",
        .unit = "CPU % of one core",
        .curves = curves,
    };
    char *text = lines_text(&c, "CPU over time: sparse points and a setting without any");
    ck_assert_ptr_nonnull(strstr(text, "    x-axis \"seconds into the window\" 0 --> 2.00\n"
                                       "    y-axis \"CPU % of one core\" 0 --> 30\n"
                                       "    line \"0 (baseline)\" [10.0, 11.0, 12.0, 13.0,"));
    ck_assert_ptr_nonnull(strstr(text, "19.0, 20.0, 21.0,"));
    ck_assert_ptr_nonnull(strstr(text, "29.0, 30.0]\n    line \"2\" [25.0,"));
    ck_assert_ptr_null(strstr(text, "line \"8\""));
    ck_assert_ptr_nonnull(strstr(text, "\xF0\x9F\x9F\xA7 2 \xC2\xB7 8 (no points)  \n"));
    free(text);
}
END_TEST

/* Nine settings: colours repeat after the eighth, and the legend says so. */
START_TEST(lines_past_the_palette)
{
    static const char *const settings[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8"};
    const struct mermaid_point pts[] = {{0, 1}, {1, 2}};
    struct mermaid_curve curves[9];
    for (size_t i = 0; i < 9; i++)
        curves[i] = (struct mermaid_curve){pts, 2, 1};
    struct mermaid_lines c = {
        .axis = {.knob_label = "k", .settings = settings, .n = 9},
        .title = "t",
        .unit = "u",
        .curves = curves,
    };
    char *text = lines_text(&c, "nine lines");
    ck_assert_uint_eq(count_of(text, "    line \""), 9);
    ck_assert_ptr_nonnull(strstr(text, "\xF0\x9F\x9F\xA8 7 \xC2\xB7 \xF0\x9F\x9F\xA6 8  \n"));
    ck_assert_ptr_nonnull(strstr(text, "Colours repeat after the eighth line."));
    free(text);
}
END_TEST

/* Points that do not span any time make no chart. */
START_TEST(lines_without_time_write_nothing)
{
    const struct mermaid_point one[] = {{1.5, 40}};
    const struct mermaid_curve curves[] = {{one, 1, 1}, {one, 1, 1}, {NULL, 0, 0}};
    struct mermaid_lines c = {
        .axis = {.knob_label = "k", .settings = idle_waits, .n = 3},
        .title = "t",
        .unit = "u",
        .curves = curves,
    };
    struct lb_error err;
    FILE *f = testlib_capture();
    ck_assert_int_eq(mermaid_lines_write(f, &c, &err), 0);
    char *text = testlib_captured(f);
    ck_assert_str_eq(text, "");
    free(text);
}
END_TEST

START_TEST(bad_charts_are_refused)
{
    const double v[] = {1, 2, 3};
    struct mermaid_series series = {.values = v};
    struct mermaid_bars c = {
        .axis = {.knob_label = "k", .settings = idle_waits, .n = 3, .baseline = 3},
        .title = "t",
        .unit = "u",
        .series = &series,
        .n_series = 1,
    };
    struct lb_error err;
    FILE *f = testlib_capture();
    ck_assert_int_eq(mermaid_bars_write(f, &c, &err), -1);
    ck_assert_str_eq(err.msg, "the baseline (3) is not one of the chart's 3 settings");
    c.axis.baseline = 0;
    c.n_series = 0;
    ck_assert_int_eq(mermaid_bars_write(f, &c, &err), -1);
    ck_assert_str_eq(err.msg, "a bar chart needs at least one series");
    c.axis.n = 0;
    struct mermaid_lines l = {.axis = c.axis, .title = "t", .unit = "u"};
    ck_assert_int_eq(mermaid_lines_write(f, &l, &err), -1);
    ck_assert_str_eq(err.msg, "a chart needs at least one setting");
    char *text = testlib_captured(f);
    ck_assert_str_eq(text, "");
    free(text);
}
END_TEST

/* Figures read from a results.json made elsewhere: the largest double, an infinity (a sum
 * of two of them), the smallest denormal and NaN. The charts are written, short, and the
 * log axis' 632 steps are not spelt out one by one (the loop over them never ended when
 * the top was infinite: 513 MB of output in 3 s). */
START_TEST(absurd_values_are_bounded)
{
    const double a[] = {1e308, INFINITY, 5e-324}, b[] = {NAN, -1e308, 1e308};
    const struct mermaid_series two[] = {{"a", a}, {"b", b}};
    struct mermaid_bars c = {
        .axis = {.knob_label = "idle wait (ms)", .settings = idle_waits, .n = 3},
        .title = "CPU per setting, median of runs",
        .unit = "CPU % of one core",
        .series = two,
        .n_series = 2,
    };
    char *text = bars_text(&c, "absurd values");
    ck_assert_uint_lt(strlen(text), 16384);
    ck_assert_uint_eq(count_of(text, "```mermaid\n"), 2);
    ck_assert_ptr_nonnull(strstr(text, "(308 = 1e+308, ..., -324 = 0)"));
    ck_assert_ptr_null(strstr(text, "inf"));
    ck_assert_ptr_null(strstr(text, "nan"));
    free(text);

    const struct mermaid_point pts[] = {{0, 1e308}, {1, 1e308}, {1, INFINITY}, {2, 5e-324},
                                        {1e308, 1}, {NAN, 1}, {3, NAN}};
    const struct mermaid_curve curves[] = {{pts, 7, 1}, {pts, 2, 1}, {NULL, 0, 0}};
    struct mermaid_lines l = {
        .axis = {.knob_label = "idle wait (ms)", .settings = idle_waits, .n = 3},
        .title = "CPU over the sample window",
        .unit = "CPU % of one core",
        .curves = curves,
    };
    text = lines_text(&l, "absurd points");
    ck_assert_uint_lt(strlen(text), 65536);
    ck_assert_ptr_nonnull(strstr(text, ", ..., "));
    ck_assert_ptr_null(strstr(text, "inf"));
    ck_assert_ptr_null(strstr(text, "nan"));
    free(text);
}
END_TEST

START_TEST(scatter_places_marks_and_sanitises)
{
    const struct mermaid_dot dots[] = {
        {"0", 0, 8, MERMAID_DOT_FRONT},
        {"4", 8, 2, MERMAID_DOT_MARKED},
        {"x: \"y\" %% [1]", 16, 1, MERMAID_DOT_FADED},
        {"none", NAN, 3, MERMAID_DOT_PLAIN},
    };
    struct mermaid_scatter c = {"cpu against lag: <b>", "lag \"ms\"", "CPU %", dots, 4};
    struct lb_error err;
    FILE *f = testlib_capture();
    ck_assert_msg(mermaid_scatter_write(f, &c, &err) == 0, "%s", err.msg);
    char *text = testlib_captured(f);
    keep_sample("a scatter: the frontier of a tune", text);
    ck_assert_ptr_nonnull(strstr(text, "quadrantChart\n    title cpu against lag_ _b_\n"));
    ck_assert_ptr_nonnull(strstr(text, "    x-axis \"lag #quot;ms#quot; 0\" --> \"16.0\"\n"
                                       "    y-axis \"CPU % 1.00\" --> \"8.00\"\n"));
    /* the ends of each axis at 0.05 and 0.95, the rest in proportion */
    ck_assert_ptr_nonnull(strstr(text, "    point 0: [0.050, 0.950] radius: 6, color: #1E88E5\n"));
    ck_assert_ptr_nonnull(strstr(text, "    point 4: [0.500, 0.179] radius: 10, color: #E53935\n"));
    /* what the grammar would read as syntax is gone from a label */
    ck_assert_ptr_nonnull(strstr(text, "    point x_ _y_ __ _1_: [0.950, 0.050] radius: 4"));
    ck_assert_ptr_null(strstr(text, "none"));
    free(text);
    /* fewer than two finite dots: nothing */
    c.n = 1;
    f = testlib_capture();
    ck_assert_int_eq(mermaid_scatter_write(f, &c, &err), 0);
    text = testlib_captured(f);
    ck_assert_str_eq(text, "");
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mermaid");
    TCase *tc = tcase_create("mermaid");
    tcase_add_test(tc, bars_spanning_100x_get_a_log_chart);
    tcase_add_test(tc, log_chart_keeps_small_bars_tall);
    tcase_add_test(tc, bars_within_10x_get_one_chart);
    tcase_add_test(tc, bars_near_one_get_a_top_above_them);
    tcase_add_test(tc, bars_of_several_series_and_a_missing_value);
    tcase_add_test(tc, labels_are_escaped);
    tcase_add_test(tc, lines_are_medians_in_at_most_60_slots);
    tcase_add_test(tc, lines_fill_gaps_and_skip_empty_settings);
    tcase_add_test(tc, lines_past_the_palette);
    tcase_add_test(tc, lines_without_time_write_nothing);
    tcase_add_test(tc, bad_charts_are_refused);
    tcase_add_test(tc, absurd_values_are_bounded);
    tcase_add_test(tc, scatter_places_marks_and_sanitises);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
