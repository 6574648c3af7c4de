/* results.c's reader, compare.c and report.c on a results.json written by the test: the
 * verdicts follow from the figures, the Markdown table is well-formed. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "metric.h"
#include "platform/platform.h"
#include "report.h"
#include "results.h"
#include "testlib.h"
#include "util.h"
#include "verdict.h"

/* A campaign of settings "0" and "2", interleaved, three runs each, with the CPU
 * figures given and a peak lag of 2 ms (missed16ms: `miss` in the last run of "2"); the
 * host's hypervisor stole 3.5% during the first run. */
static char *write_campaign(const char *name, const char *host, const double cpu0[3],
                            const double cpu2[3], double miss)
{
    json_t *runs = json_array();
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 2; s++) {
            double m = s == 1 && k == 2 ? miss : 0;
            json_array_append_new(
                runs, json_pack("{s:s, s:i, s:s, s:f, s:{s:{s:s, s:i, s:f, s:f, s:f, s:f}, "
                                "s:{s:s, s:i, s:f, s:f, s:f, s:f}}}",
                                "setting", s ? "2" : "0", "repeat", k + 1, "status", "ok",
                                "cpu_percent", s ? cpu2[k] : cpu0[k], "metrics",
                                "tickLagPeak", "type", "duration_ms", "windows", 2, "mean", 2.0,
                                "min", 2.0, "max", 2.0, "sum", 4.0,
                                "missed16ms", "type", "number", "windows", 2, "mean", m / 2,
                                "min", 0.0, "max", m, "sum", m));
        }
    json_t *doc = json_pack(
        "{s:s, s:{s:s, s:s, s:{s:s, s:[s, s], s:s}, s:[{s:s, s:s, s:s, s:b}, "
        "{s:s, s:s, s:s, s:b}]}, s:{s:s}, s:{s:[s, s], s:s, s:s}, s:o}",
        "schema", "loopbench/results/1",
        "profile", "name", "fake", "hash", "fnv1a64:0", "knob", "label", "idle wait (ms)",
        "values", "0", "2", "baseline", "0", "health",
        "key", "tickLagPeak", "label", "peak lag", "better", "lower", "must_be_zero", 0,
        "key", "missed16ms", "label", "missed16ms", "better", "lower", "must_be_zero", 1,
        "host", "hostname", host,
        "campaign", "settings", "0", "2", "baseline", "0", "order", "interleave",
        "runs", runs);
    json_object_set_new(json_array_get(runs, 0), "steal_percent", json_real(3.5));
    char *path = path_join(testlib_case_dir(), name);
    ck_assert_int_eq(json_dump_file(doc, path, 0), 0);
    json_decref(doc);
    return path;
}

/* idle's rounds are not exactly a tenth of busy's: with no spread at all the gate has only
 * the sign test, which 3 rounds cannot make significant */
static const double busy[3] = {100, 98, 99}, idle[3] = {10, 9.8, 9.95};
static const double idle_hot[3] = {30, 29, 31};

START_TEST(load_fixed_keys)
{
    char *path = write_campaign("a.json", "desk", busy, idle, 0);
    struct campaign r;
    struct lb_error err;
    ck_assert_int_eq(results_load(path, &r, &err), 0);
    ck_assert_uint_eq(r.spec.values.n, 2);
    ck_assert_uint_eq(r.n_runs, 6);
    ck_assert_uint_eq(r.profile.n_health, 2);
    ck_assert_str_eq(campaign_health_type(&r, 0), "duration_ms");
    ck_assert(r.profile.health[1].must_be_zero);
    double a[6], b[6];
    ck_assert_uint_eq(campaign_values(&r, 1, campaign_metric(&r, "cpu"), a), 3);
    ck_assert_double_eq(a[1], 9.8);
    ck_assert_uint_eq(campaign_pairs(&r, 0, 1, campaign_metric(&r, "cpu"), a, b), 3); /* a round each */
    ck_assert_double_eq(a[2], 99);
    ck_assert_double_eq(b[2], 9.95);
    campaign_release(&r);
    free(path);
}
END_TEST

START_TEST(load_refuses_other_schema)
{
    char *path = path_join(testlib_case_dir(), "b.json");
    testlib_write(path, "{\"schema\": \"loopbench/results/3\"}", 0644);
    struct campaign r;
    struct lb_error err;
    ck_assert_int_eq(results_load(path, &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "schema 'loopbench/results/3'"));
    campaign_release(&r);
    ck_assert_int_eq(results_load("/nonexistent/results.json", &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot read"));
    campaign_release(&r);
    free(path);
}
END_TEST

/* Gate NEW against the BASE files (one, or a history) and return the worst verdict
 * at setting "2"; drift < 0 keeps the default allowance. */
static enum verdict verdict_of(const char *const *base, size_t n_base, const char *new_,
                               const char *metric, double drift)
{
    struct campaign a[4], b;
    const struct campaign *pa[4];
    struct lb_error err;
    struct compare_opts o = {.metric = metric, .gate = gate_opts_default()};
    if (drift >= 0)
        o.gate.drift = drift;
    struct compare_result r;
    for (size_t i = 0; i < n_base; i++) {
        ck_assert_int_eq(results_load(base[i], &a[i], &err), 0);
        pa[i] = &a[i];
    }
    ck_assert_int_eq(results_load(new_, &b, &err), 0);
    ck_assert_int_eq(compare_results(pa, n_base, &b, &o, &r, &err), 0);
    struct gate_result at2[8];
    size_t n = 0;
    for (size_t i = 0; i < r.n_rows; i++)
        if (strcmp(r.rows[i].setting, "2") == 0 && r.rows[i].gated)
            at2[n++] = r.rows[i].g;
    enum verdict v = gate_worst(at2, n);
    compare_result_release(&r);
    for (size_t i = 0; i < n_base; i++)
        campaign_release(&a[i]);
    campaign_release(&b);
    return v;
}

START_TEST(compare_verdicts)
{
    char *base = write_campaign("base.json", "ci", busy, idle, 0);
    char *hot = write_campaign("hot.json", "ci", busy, idle_hot, 0);
    char *miss = write_campaign("miss.json", "ci", busy, idle, 1);
    const double idle_up[3] = {10.4, 10.2, 10.3}, idle_down[3] = {9.5, 9.4, 9.6};
    char *up = write_campaign("up.json", "ci", busy, idle_up, 0);
    char *down = write_campaign("down.json", "ci", busy, idle_down, 0);
    /* one campaign a side: a drift of 18% could hide a 10% change, so a campaign against
     * itself is inconclusive; with no drift allowed its runs prove no change */
    ck_assert_int_eq(verdict_of((const char *[]){base}, 1, base, NULL, -1), VERDICT_INCONCLUSIVE);
    ck_assert_int_eq(verdict_of((const char *[]){base}, 1, base, NULL, 0), VERDICT_NO_CHANGE);
    ck_assert_int_eq(verdict_of((const char *[]){base}, 1, hot, "cpu", -1), VERDICT_REGRESSED);
    ck_assert_int_eq(verdict_of((const char *[]){hot}, 1, base, "cpu", -1), VERDICT_IMPROVED);
    /* missed16ms must stay 0: one window with a miss regresses whatever the test says */
    ck_assert_int_eq(verdict_of((const char *[]){base}, 1, miss, "missed16ms", -1),
                     VERDICT_REGRESSED);
    /* a history of three whose CPU at 2 spreads by 4%: 3x is far outside it */
    const char *history[3] = {base, up, down};
    ck_assert_int_eq(verdict_of(history, 3, hot, "cpu", -1), VERDICT_REGRESSED);
    free(base);
    free(hot);
    free(miss);
    free(up);
    free(down);
}
END_TEST

/* The report as a string into *text (new). */
static void render(const struct campaign *r, size_t n, int csv, char **text)
{
    FILE *f = testlib_capture();
    struct report_opts o = {.charts = true};
    if (csv)
        report_csv(r, n, f);
    else
        ck_assert_int_eq(report_markdown(r, n, &o, f, NULL), 0);
    *text = testlib_captured(f);
}

START_TEST(markdown_from_the_figures)
{
    char *p1 = write_campaign("desk.json", "desk", busy, idle, 0);
    char *p2 = write_campaign("vps.json", "vps", busy, idle_hot, 0);
    struct campaign r[2];
    struct lb_error err;
    ck_assert_int_eq(results_load(p1, &r[0], &err), 0);
    ck_assert_int_eq(results_load(p2, &r[1], &err), 0);
    char *md, *csv;
    render(r, 1, 0, &md);
    /* 99 / 9.95, about 10x, from the data, in the gate's words (compare's); peak lag identical:
     * no change */
    ck_assert_ptr_nonnull(strstr(md, "- idle wait (ms) 2 against 0:\n"
                                     "  - CPU: improved, 9.98x less (90% CI "));
    ck_assert_ptr_nonnull(strstr(md, "  - peak lag: no change.\n"));
    ck_assert_ptr_nonnull(strstr(md, "| 0 (baseline) | 99.0 (98.0-100) | - | - |"));
    ck_assert_ptr_nonnull(strstr(md, "| 2 | 9.95 (9.80-10.0) | 9.98x less ("));
    /* the PR's Markdown links no local file: its charts are Mermaid */
    ck_assert_ptr_null(strstr(md, "]("));
    ck_assert_ptr_nonnull(strstr(md, "| 2.00 ms |"));
    /* CPU per setting drawn for GitHub: 99 and 9.9 span 10x, not more: one linear chart */
    ck_assert_ptr_nonnull(strstr(md, "### Charts\n\n```mermaid\n"));
    ck_assert_ptr_nonnull(strstr(md, "Warning: steal was above 1% in 1 of 6 runs (up to 3.5%)"));
    free(md);
    render(r, 2, 0, &md);
    ck_assert_ptr_nonnull(strstr(md, "| desk: CPU % of one core |"));
    ck_assert_ptr_nonnull(strstr(md, "| vps: CPU % of one core |"));
    ck_assert_ptr_nonnull(strstr(md, "- **vps**: idle wait (ms) 2 against 0:\n"
                                     "  - CPU: improved, 3.30x less"));
    /* well-formed: every table line has as many cells as the header */
    int cols = -1, c = 0;
    size_t at = (size_t)(strstr(md, "\n| idle wait") - md) + 1;
    for (; md[at] == '|'; at++) {
        for (c = 0; md[at] && md[at] != '\n'; at++)
            c += md[at] == '|';
        if (cols < 0)
            cols = c;
        ck_assert_int_eq(c, cols);
    }
    ck_assert_int_eq(cols, 2 + 2 * 6); /* a pipe around each of 1 + 2 x 6 cells */
    free(md);
    render(r, 1, 1, &csv);
    ck_assert_ptr_nonnull(strstr(csv, "host,kind,setting,baseline,repeat,runs,cpu_percent,"
                                      "cpu_min,cpu_max,tickLagPeak,missed16ms,voluntary_per_s\n"));
    ck_assert_ptr_nonnull(strstr(csv, "desk,setting,2,false,,3,9.95,9.8,10,2,0,"));
    free(csv);
    campaign_release(&r[0]);
    campaign_release(&r[1]);
    free(p1);
    free(p2);
}
END_TEST

/* One set of words and one direction rule (verdict.c), whoever says them. */
START_TEST(verdict_words)
{
    /* more or less only when the interval excludes 1 */
    ck_assert_str_eq(verdict_direction(1.01, 1.3), "more");
    ck_assert_str_eq(verdict_direction(0.7, 0.99), "less");
    ck_assert_str_eq(verdict_direction(0.975, 1.05), "no clear difference");
    ck_assert_str_eq(verdict_direction(0.467, 16.2), "no clear difference");
    ck_assert_str_eq(verdict_direction(NAN, NAN), "no clear difference");
    struct gate_opts o = gate_opts_default();
    struct compare_row rows[2] = {
        {.setting = "2",
         .metric = "cpu",
         .label = "CPU %",
         .name = "CPU",
         .variant = "head",
         .gated = true},
        {.setting = "2",
         .metric = "tickLagPeak",
         .label = "peak lag",
         .name = "peak lag",
         .variant = "head",
         .gated = true},
    };
    /* one round: nothing to test, and it says why */
    rows[0].a.n = rows[0].b.n = 1;
    rows[0].g = (struct gate_result){.verdict = VERDICT_INCONCLUSIVE, .n = 1};
    struct compare_result r = {.rows = rows, .n_rows = 1, .worst = VERDICT_INCONCLUSIVE};
    struct verdict_frame f = verdict_frame_of(&r, &o);
    char why[512];
    ck_assert_str_eq(verdict_word(&rows[0]), "cannot test");
    verdict_why(&rows[0], &f, why, sizeof(why));
    ck_assert_str_eq(why, "1 round paired: a paired test needs 2");
    verdict_headline(&r, &f, "idle wait (ms)", why, sizeof(why));
    ck_assert_str_eq(why, "CPU at idle wait (ms) 2 head cannot be tested: 1 round paired: a "
                          "paired test needs 2");
    /* a must_be_zero guardrail is decided without a test: not "cannot test" */
    rows[1].g = (struct gate_result){.verdict = VERDICT_NO_CHANGE, .test = "must stay 0"};
    ck_assert_str_eq(verdict_word(&rows[1]), "no change");
    /* every gated change within the threshold: the headline says so, not inconclusive */
    for (int i = 0; i < 2; i++)
        rows[i].g = (struct gate_result){
            .verdict = VERDICT_NO_CHANGE, .tested = true, .change = 0.01, .lo = -0.02, .hi = 0.04};
    r = (struct compare_result){.rows = rows, .n_rows = 2, .worst = VERDICT_NO_CHANGE};
    verdict_headline(&r, &f, "idle wait (ms)", why, sizeof(why));
    ck_assert_str_eq(verdict_result_word(&r), "no change");
    ck_assert_str_eq(why, "all 2 gated changes lie within +-10.0% (90% intervals)");
    /* a regression names its row and change */
    rows[1].g.verdict = VERDICT_REGRESSED;
    rows[1].g.change = 0.5;
    rows[1].g.lo = 0.2;
    rows[1].g.hi = 0.9;
    r.worst = VERDICT_REGRESSED;
    verdict_headline(&r, &f, "idle wait (ms)", why, sizeof(why));
    ck_assert_str_eq(why, "peak lag at idle wait (ms) 2 head +50.0% (90% CI +20.0% to +90.0%)");
}
END_TEST

/* A run within 1% of its setting's median is no outlier, however small the spread; one
 * far from it is. */
START_TEST(outliers_that_matter)
{
    const double flat[3] = {100, 99.99, 99.9}, off[3] = {100, 98, 60};
    const char *paths[2] = {write_campaign("flat.json", "desk", flat, idle, 0),
                            write_campaign("off.json", "desk", off, idle, 0)};
    for (int i = 0; i < 2; i++) {
        struct campaign c;
        struct lb_error err;
        ck_assert_int_eq(results_load(paths[i], &c, &err), 0);
        char *md;
        render(&c, 1, 0, &md);
        ck_assert_int_eq(strstr(md, "(an outlier)") != NULL, i == 1);
        free(md);
        campaign_release(&c);
        free((char *)paths[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");
    tcase_add_unchecked_fixture(tc, testlib_root_make, testlib_root_remove);
    tcase_add_test(tc, load_fixed_keys);
    tcase_add_test(tc, load_refuses_other_schema);
    tcase_add_test(tc, compare_verdicts);
    tcase_add_test(tc, markdown_from_the_figures);
    tcase_add_test(tc, verdict_words);
    tcase_add_test(tc, outliers_that_matter);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
