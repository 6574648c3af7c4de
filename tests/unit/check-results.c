/* results.c: the names reports, CI jobs and other people's scripts read are fixed
 * (docs/results.md); the summary's figures come from the runs. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "document.h"
#include "platform/platform.h"
#include "report.h"
#include "results.h"
#include "scrape.h"
#include "testlib.h"

/* A campaign of two settings, two runs each, as run.c leaves it: no process needed. */
static void fake_campaign(struct campaign *c, const char *out_dir)
{
    memset(c, 0, sizeof(*c));
    json_t *profile = json_pack(
        "{s:s, s:s, s:s, s:{s:s, s:s, s:[s, s], s:s}, s:s, s:[{s:s, s:s, s:s, s:b}], s:{s:s}}",
        "name", "fake", "path", "fake.json", "hash", "fnv1a64:0123456789abcdef", "knob", "name",
        "server.eventLoopIdleWaitMs", "label", "idle wait (ms)", "values", "0", "2", "baseline",
        "0", "marker", "loop: ", "health", "key", "tickLagPeak", "label", "peak lag", "better",
        "lower", "must_be_zero", 0, "document", "name", "fake");
    struct lb_error perr;
    ck_assert_int_eq(campaign_profile_from_json(profile, "fake.json", &c->profile, &perr), 0);
    json_decref(profile);
    strv_push(&c->spec.values, "0");
    strv_push(&c->spec.values, "2");
    c->spec.baseline = 0;
    c->spec.repeat = 2;
    c->spec.warmup_s = 1;
    c->spec.sample_s = 5;
    c->spec.interval_ms = 1000;
    c->spec.seed = 7;
    c->out_dir = xstrdup(out_dir);
    c->command_line = xstrdup("loopbench run fake.json");
    c->n_runs = 4;
    c->runs = xcalloc(4, sizeof(*c->runs));
    const double cpu[] = {98.0, 1.0, 99.0, 0.8}; /* interleaved: 0 2 0 2 */
    const char *lines[] = {
        "[10:00:01 INF] loop: tickLagPeak=0ms slots=0/625",
        "[10:00:01 INF] loop: tickLagPeak=10ms slots=1/625",
        "[10:00:01 INF] loop: tickLagPeak=0ms slots=0/625",
        "[10:00:01 INF] loop: tickLagPeak=12ms slots=0/625",
    };
    for (size_t i = 0; i < 4; i++) {
        struct run_record *r = &c->runs[i];
        r->setting_index = i % 2;
        r->repeat = (long)(i / 2 + 1);
        r->status = RUN_OK;
        r->dir = xasprintf("runs/%s-%ld", c->spec.values.v[r->setting_index], r->repeat);
        r->sampled = true;
        r->started_wall_ns = 1764686337ULL * NS_PER_SEC;
        r->sample.wall_ns = 5 * NS_PER_SEC;
        r->sample.cpu_ns = (uint64_t)(cpu[i] / 100.0 * 5e9);
        r->sample.cpu_percent = cpu[i];
        r->sample.voluntary_ctxsw = 2000;
        /* Scrape a one-line log so the aggregates are the real ones. */
        char *log = xasprintf("%s/run%zu.log", out_dir, i);
        char *text = xasprintf("%s\n", lines[i]);
        testlib_write(log, text, 0644);
        struct scrape_window_filter f = {.tod_start = 0, .tod_end = 86399, .off_start = 0,
                                         .off_end = UINT64_MAX};
        struct lb_error err;
        ck_assert_int_eq(scrape_file(log, "loop: ", &f, &r->scrape, &err), 0);
        free(log);
        free(text);
    }
}

START_TEST(document_has_the_fixed_names)
{
    char *dir = testlib_tmpdir();
    struct campaign c;
    fake_campaign(&c, dir);
    json_t *doc = results_to_json(&c);
    ck_assert_str_eq(json_string_value(json_object_get(doc, "schema")), "loopbench/results/2");
    ck_assert_ptr_nonnull(json_object_get(doc, "profile"));
    ck_assert_ptr_nonnull(json_object_get(doc, "host"));
    json_t *runs = json_object_get(doc, "runs");
    ck_assert_uint_eq(json_array_size(runs), 4);
    json_t *run = json_array_get(runs, 1);
    ck_assert_str_eq(json_string_value(json_object_get(run, "setting")), "2");
    ck_assert_int_eq(json_integer_value(json_object_get(run, "repeat")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(run, "status")), "ok");
    ck_assert_str_eq(json_string_value(json_object_get(run, "started_at")),
                     "2025-12-02T14:38:57Z");
    ck_assert_double_eq_tol(json_real_value(json_object_get(run, "cpu_seconds")), 0.05, 1e-9);
    ck_assert_double_eq_tol(json_real_value(json_object_get(run, "wall_seconds")), 5.0, 1e-9);
    ck_assert_double_eq_tol(json_real_value(json_object_get(run, "cpu_percent")), 1.0, 1e-9);
    json_t *lag = json_object_get(json_object_get(run, "metrics"), "tickLagPeak");
    ck_assert_ptr_nonnull(lag);
    ck_assert_double_eq_tol(json_real_value(json_object_get(lag, "mean")), 10.0, 1e-9);

    json_t *summary = json_object_get(doc, "summary");
    ck_assert_uint_eq(json_array_size(summary), 2);
    json_t *base = json_array_get(summary, 0), *two = json_array_get(summary, 1);
    ck_assert(json_is_true(json_object_get(base, "baseline")));
    ck_assert(json_is_false(json_object_get(two, "baseline")));
    ck_assert_int_eq(json_integer_value(json_object_get(two, "runs")), 2);
    json_t *cpu = json_object_get(two, "cpu_percent");
    ck_assert_double_eq_tol(json_real_value(json_object_get(cpu, "median")), 0.9, 1e-9);
    ck_assert_double_eq_tol(json_real_value(json_object_get(cpu, "min")), 0.8, 1e-9);
    ck_assert_double_eq_tol(json_real_value(json_object_get(cpu, "max")), 1.0, 1e-9);
    /* baseline median 98.5 over 0.9 */
    ck_assert_double_eq_tol(json_real_value(json_object_get(two, "cpu_ratio")), 98.5 / 0.9, 1e-9);
    json_t *h = json_object_get(json_object_get(two, "health"), "tickLagPeak");
    ck_assert_double_eq_tol(json_real_value(json_object_get(h, "median")), 11.0, 1e-9);
    json_decref(doc);
    campaign_release(&c);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(failed_runs_are_listed_but_not_summarised)
{
    char *dir = testlib_tmpdir();
    struct campaign c;
    fake_campaign(&c, dir);
    c.runs[3].status = RUN_FAILED;
    c.runs[3].failure = xstrdup("the target exited with status 1 during warm-up");
    json_t *doc = results_to_json(&c);
    json_t *run = json_array_get(json_object_get(doc, "runs"), 3);
    ck_assert_str_eq(json_string_value(json_object_get(run, "status")), "failed");
    ck_assert_str_eq(json_string_value(json_object_get(run, "failure")),
                     "the target exited with status 1 during warm-up");
    json_t *two = json_array_get(json_object_get(doc, "summary"), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(two, "runs")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(two, "runs_attempted")), 2);
    json_t *cpu = json_object_get(two, "cpu_percent");
    ck_assert_double_eq_tol(json_real_value(json_object_get(cpu, "median")), 1.0, 1e-9);
    json_decref(doc);
    campaign_release(&c);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(written_file_parses_and_table_marks_baseline)
{
    char *dir = testlib_tmpdir();
    struct campaign c;
    fake_campaign(&c, dir);
    struct lb_error err;
    ck_assert_msg(results_write(&c, &err) == 0, "%s", err.msg);
    char *path = path_join(dir, "results.json");
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    ck_assert_msg(doc != NULL, "%s", jerr.text);
    json_decref(doc);

    FILE *out = testlib_capture();
    report_terminal(&c, out);
    char *buf = testlib_captured(out);
    ck_assert_ptr_nonnull(strstr(buf, "0 (baseline)"));
    /* the rounds' ratios 98/1 and 99/0.8, their geometric mean */
    ck_assert_ptr_nonnull(strstr(buf, "110x less"));
    ck_assert_ptr_nonnull(strstr(buf, "peak lag"));
    free(buf);
    free(path);
    campaign_release(&c);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

/* What the writer writes, the reader reads whole: written again, the same bytes. */
START_TEST(read_back_and_written_again_is_the_same_document)
{
    char *dir = testlib_tmpdir();
    struct campaign c;
    fake_campaign(&c, dir);
    c.runs[3].status = RUN_FAILED;
    c.runs[3].failure = xstrdup("the target exited with status 1 during the sample window");
    c.runs[3].exited = true;
    c.runs[3].wstatus = 1 << 8;
    c.runs[1].sample.cpu_ns = 123456789; /* more digits than a number keeps */
    c.runs[1].sample.steal_percent = 1.23456789012345;
    struct lb_error err;
    ck_assert_msg(results_write(&c, &err) == 0, "%s", err.msg);
    char *path = path_join(dir, "results.json"), *written;
    size_t len;
    ck_assert_int_eq(read_file(path, &written, &len, &err), 0);
    struct campaign back;
    ck_assert_msg(results_load(path, &back, &err) == 0, "%s", err.msg);
    char *again = results_text(&back);
    ck_assert_str_eq(again, written);
    ck_assert_uint_eq(back.runs[3].status, RUN_FAILED);
    ck_assert_int_eq(back.runs[3].wstatus, 1 << 8);
    free(again);
    free(written);
    free(path);
    campaign_release(&back);
    campaign_release(&c);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

/* What ran and where: the commits and the host's provenance read back as written, and a
 * commit that is none refused naming its key. */
START_TEST(provenance_reads_back_and_bad_commits_are_refused)
{
    char *dir = testlib_tmpdir();
    struct campaign c;
    fake_campaign(&c, dir);
    struct lb_error err;
    ck_assert_int_eq(commit_parse("0123456789ABCDEF0123456789abcdef01234567,dirty", "option",
                                  &c.commit, &err), 0);
    c.host.kernel = xstrdup("6.18.44");
    c.host.cpuidle_driver = xstrdup("haltpoll");
    c.host.runner_image_os = xstrdup("ubuntu24");
    c.host.runner_image_version = xstrdup("20250101.1");
    ck_assert_msg(results_write(&c, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(c.commit.sha, "0123456789abcdef0123456789abcdef01234567");
    ck_assert(c.commit.dirty);
    ck_assert_str_eq(c.commit.source, "option");
    ck_assert_str_eq(c.host.cpuidle_driver, "haltpoll");
    ck_assert_str_eq(c.host.runner_image_version, "20250101.1");
    ck_assert_ptr_null(c.host.runner_name);
    ck_assert_uint_eq(strlen(campaign_fingerprint(&c)), 8);
    json_t *doc = results_to_json(&c);
    ck_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(json_object_get(doc, "host"), "fingerprint"), "id")),
                     campaign_fingerprint(&c));
    static const char *const bad[] = {"{\"sha\": \"0123\", \"dirty\": false, \"source\": \"git\"}",
                                      "{\"sha\": \"0123456789abcdef0123456789abcdef0123456g\", "
                                      "\"dirty\": false, \"source\": \"git\"}",
                                      "{\"sha\": \"0123456789abcdef0123456789abcdef01234567\", "
                                      "\"dirty\": false, \"source\": \"guess\"}",
                                      "\"0123456789abcdef0123456789abcdef01234567\""};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *copy = json_deep_copy(doc);
        json_object_set_new(json_object_get(copy, "campaign"), "commit",
                            json_loads(bad[i], JSON_DECODE_ANY, NULL));
        struct campaign back;
        ck_assert_msg(results_from_json(copy, dir, "edited.json", &back, &err) == -1, "case %zu",
                      i);
        ck_assert_msg(strstr(err.msg, "campaign.commit: expected null or"), "%s", err.msg);
        campaign_release(&back);
        json_decref(copy);
    }
    json_decref(doc);
    campaign_release(&c);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("results");
    TCase *tc = tcase_create("results");
    tcase_add_test(tc, document_has_the_fixed_names);
    tcase_add_test(tc, failed_runs_are_listed_but_not_summarised);
    tcase_add_test(tc, written_file_parses_and_table_marks_baseline);
    tcase_add_test(tc, read_back_and_written_again_is_the_same_document);
    tcase_add_test(tc, provenance_reads_back_and_bad_commits_are_refused);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
