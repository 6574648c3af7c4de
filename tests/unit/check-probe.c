/* probe.c: the verdict logic (bands, wake summaries, the judgement and its words). The
 * measurements themselves are exercised end to end by tests/e2e/probe.sh. And noise.c,
 * the campaign's half of the same question (was the host quiet?), whose e2e test is
 * tests/e2e/noise.sh. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "probe.h"
#include "testlib.h"

/* Table: ns against a reference, the band and the ratio (HostLatencyProbe's < 3, < 10). */
START_TEST(verdict_bands)
{
    static const struct {
        double ns, ref;
        enum probe_verdict want;
    } cases[] = {
        {20, 20, PROBE_NORMAL},  {59.9, 20, PROBE_NORMAL}, {60, 20, PROBE_SLOW},
        {199, 20, PROBE_SLOW},   {200, 20, PROBE_TRAPPING}, {5000, 25, PROBE_TRAPPING},
        {1, 250, PROBE_NORMAL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double ratio;
        ck_assert_int_eq(probe_verdict_of(cases[i].ns, cases[i].ref, &ratio), cases[i].want);
        ck_assert_double_eq_tol(ratio, cases[i].ns / cases[i].ref, 1e-12);
    }
    ck_assert_int_eq(probe_verdict_of(100, 20, NULL), PROBE_SLOW);
    ck_assert_str_eq(probe_verdict_name(PROBE_NORMAL), "normal");
    ck_assert_str_eq(probe_verdict_name(PROBE_SLOW), "SLOW");
    ck_assert_str_eq(probe_verdict_name(PROBE_TRAPPING), "TRAPPING");
}
END_TEST

START_TEST(wake_summary)
{
    /* 10 waits, unsorted: two of them a full tick (8 ms) late or more. */
    uint64_t over[] = {300000, 100000, 8000000, 200000, 150000,
                       120000, 9500000, 110000, 130000, 140000};
    struct probe_wake w;
    probe_wake_summarize(over, 10, &w);
    ck_assert_uint_eq(w.n, 10);
    ck_assert_double_eq_tol(w.min_ms, 0.1, 1e-12);
    ck_assert_double_eq_tol(w.p50_ms, 0.14, 1e-12); /* 5th of 10 sorted */
    ck_assert_double_eq_tol(w.p99_ms, 9.5, 1e-12);  /* ceil(9.9) = 10th */
    ck_assert_double_eq_tol(w.max_ms, 9.5, 1e-12);
    ck_assert_double_eq_tol(w.tick_late_share, 0.2, 1e-12);
    ck_assert(w.min_ms <= w.p50_ms && w.p50_ms <= w.p99_ms && w.p99_ms <= w.max_ms);

    uint64_t one[] = {7999999};
    probe_wake_summarize(one, 1, &w);
    ck_assert_double_eq_tol(w.p50_ms, 7.999999, 1e-12);
    ck_assert_double_eq(w.tick_late_share, 0); /* just under a tick is not late */

    probe_wake_summarize(one, 0, &w);
    ck_assert_uint_eq(w.n, 0);
    ck_assert(isnan(w.p50_ms) && isnan(w.tick_late_share));
}
END_TEST

/* A report of a good host: cheap clocks, prompt waits, no steal. */
static void healthy(struct probe_report *r)
{
    memset(r, 0, sizeof(*r));
    for (int i = 0; i < PROBE_N_OPS; i++) {
        r->costs[i].ref_ns = 20;
        r->costs[i].ns = 25;
        r->costs[i].verdict = PROBE_NORMAL;
    }
    r->n_wakes = 4;
    for (size_t i = 0; i < r->n_wakes; i++)
        r->wakes[i] = (struct probe_wake){.kind = PLAT_WAIT_POLLER, .ms = 1u << i, .n = 200,
                                          .p50_ms = 0.1, .tick_late_share = 0};
    r->steal_percent = 0;
}

static bool advises(const struct probe_judgement *j, const char *words)
{
    const char *lines[8];
    size_t n = probe_advice(j, lines, 8);
    for (size_t i = 0; i < n; i++)
        if (strstr(lines[i], words))
            return true;
    return false;
}

START_TEST(judge_healthy)
{
    struct probe_report r;
    healthy(&r);
    probe_judge(&r);
    ck_assert(r.judgement.viable);
    ck_assert(advises(&r.judgement, "is viable"));
    ck_assert(!advises(&r.judgement, "remedies"));
}
END_TEST

START_TEST(judge_trapping_clock)
{
    struct probe_report r;
    healthy(&r);
    r.costs[PROBE_OP_MONOTONIC].verdict = PROBE_TRAPPING;
    probe_judge(&r);
    ck_assert(r.judgement.clock_traps && !r.judgement.viable);
    ck_assert(advises(&r.judgement, "trap"));
    ck_assert(advises(&r.judgement, "dedicated CPU"));
    ck_assert(advises(&r.judgement, "idle wait to 0"));
}
END_TEST

START_TEST(judge_slow_syscall_is_not_the_loops)
{
    /* The process CPU clock and the sampling read are what measuring costs, not what
     * the loop pays every iteration. */
    struct probe_report r;
    healthy(&r);
    r.costs[PROBE_OP_PROCESS_CPU].verdict = PROBE_TRAPPING;
    r.costs[PROBE_OP_SAMPLE_READ].verdict = PROBE_TRAPPING;
    probe_judge(&r);
    ck_assert(r.judgement.viable && !r.judgement.clock_slow && !r.judgement.clock_traps);
    r.costs[PROBE_OP_REALTIME].verdict = PROBE_SLOW;
    probe_judge(&r);
    ck_assert(r.judgement.viable && r.judgement.clock_slow);
    ck_assert(advises(&r.judgement, "slow"));
}
END_TEST

START_TEST(judge_late_waits)
{
    struct probe_report r;
    healthy(&r);
    r.wakes[1].tick_late_share = 0.10; /* at the gate: still fine */
    probe_judge(&r);
    ck_assert(r.judgement.viable);
    ck_assert_double_eq(r.judgement.worst_late_share, 0.10);
    r.wakes[1].tick_late_share = 0.11;
    probe_judge(&r);
    ck_assert(r.judgement.waits_late && !r.judgement.viable);
    ck_assert(advises(&r.judgement, "tick late"));

    /* Typically a tick late (no high-resolution wait), though under the share gate. */
    healthy(&r);
    r.wakes[0].p50_ms = 8.0;
    probe_judge(&r);
    ck_assert(r.judgement.waits_late);

    /* Contended and nanosleep waits do not decide; contention is said in words. */
    healthy(&r);
    r.wakes[0].contended = true;
    r.wakes[0].tick_late_share = 0.9;
    r.wakes[1].kind = PLAT_WAIT_SLEEP;
    r.wakes[1].tick_late_share = 0.9;
    probe_judge(&r);
    ck_assert(r.judgement.viable && r.judgement.contended_late);
    ck_assert(advises(&r.judgement, "every core busy"));
    ck_assert(!advises(&r.judgement, "remedies"));
}
END_TEST

START_TEST(judge_steal)
{
    struct probe_report r;
    healthy(&r);
    r.steal_percent = 1.0;
    probe_judge(&r);
    ck_assert(r.judgement.viable);
    r.steal_percent = 2.5;
    probe_judge(&r);
    ck_assert(r.judgement.steal_high && !r.judgement.viable);
    ck_assert(advises(&r.judgement, "steals"));
    r.steal_percent = NAN; /* unreadable: not held against the host */
    probe_judge(&r);
    ck_assert(r.judgement.viable);
}
END_TEST

START_TEST(judge_loaded)
{
    struct probe_report r;
    healthy(&r);
    r.host.logical_cpus = 2;
    r.host.loadavg[0] = 2.0;
    probe_judge(&r);
    ck_assert(!r.judgement.loaded);
    r.host.loadavg[0] = 2.5;
    probe_judge(&r);
    ck_assert(r.judgement.loaded && r.judgement.viable);
    ck_assert(advises(&r.judgement, "quiet host"));
}
END_TEST

START_TEST(advice_capped)
{
    struct probe_judgement j = {.clock_traps = true, .waits_late = true, .steal_high = true,
                                .contended_late = true, .loaded = true};
    const char *lines[2];
    ck_assert_uint_eq(probe_advice(&j, lines, 2), 2);
    const char *all[8];
    ck_assert_uint_eq(probe_advice(&j, all, 8), 7);
}
END_TEST

/* ---- noise ------------------------------------------------------------------------ */

/* A campaign of one setting, its runs' CPU given, on a quiet 4-CPU host. */
static void campaign_of(struct campaign *c, const double *cpu, size_t n)
{
    memset(c, 0, sizeof(*c));
    strv_push(&c->spec.values, "2");
    c->host.logical_cpus = 4;
    c->runs = calloc(n, sizeof(*c->runs));
    c->n_runs = n;
    for (size_t i = 0; i < n; i++) {
        struct run_record *r = &c->runs[i];
        r->repeat = (long)i + 1;
        r->status = RUN_OK;
        r->sampled = true;
        r->sample.cpu_percent = cpu[i];
    }
}

static void campaign_free(struct campaign *c)
{
    strv_release(&c->spec.values);
    free(c->runs);
}

START_TEST(noise_quiet)
{
    const double cpu[] = {1.0, 1.1, 0.9, 1.05, 0.95};
    struct campaign c;
    campaign_of(&c, cpu, 5);
    c.host.loadavg[0] = 4.0; /* at the CPU count: not above it */
    c.runs[0].sample.steal_percent = 1.0;
    c.runs[1].sample.others_cpu_percent = 10.0;
    struct noise n;
    noise_assess(&c, &n);
    ck_assert_uint_eq(n.warnings.n, 0);
    for (size_t i = 0; i < c.n_runs; i++)
        ck_assert(!n.runs[i].steal && !n.runs[i].others && !n.runs[i].outlier);
    noise_release(&n);
    campaign_free(&c);
}
END_TEST

START_TEST(noise_load_steal_others)
{
    const double cpu[] = {1.0, 1.1, 0.9};
    struct campaign c;
    campaign_of(&c, cpu, 3);
    c.host.loadavg[0] = 4.5;
    c.runs[0].sample.steal_percent = 3.5;
    c.runs[2].sample.others_cpu_percent = 95;
    c.runs[1].status = RUN_FAILED; /* failed runs are not judged */
    c.runs[1].sample.others_cpu_percent = 150;
    struct noise n;
    noise_assess(&c, &n);
    ck_assert_uint_eq(n.warnings.n, 3);
    ck_assert_ptr_nonnull(strstr(n.warnings.v[0], "load average 4.50"));
    ck_assert_ptr_nonnull(strstr(n.warnings.v[1], "steal was above 1% in 1 of 2 runs (up to 3.5%)"));
    ck_assert_ptr_nonnull(strstr(n.warnings.v[2], "more than 10% of a core in 1 of 2 runs (up to 95%)"));
    ck_assert(n.runs[0].steal && !n.runs[0].others);
    ck_assert(!n.runs[1].others);
    ck_assert(n.runs[2].others && !n.runs[2].steal);
    noise_release(&n);
    campaign_free(&c);
}
END_TEST

START_TEST(noise_outlier)
{
    /* Median 1.0, MAD about 0.1: 1.4 is 4 MADs out, 1.25 only 2.5. */
    const double cpu[] = {1.0, 0.9, 1.1, 1.4, 1.0, 0.95, 1.25};
    struct campaign c;
    campaign_of(&c, cpu, 7);
    struct noise n;
    noise_assess(&c, &n);
    ck_assert_uint_eq(n.warnings.n, 1);
    ck_assert(n.runs[3].outlier);
    ck_assert(!n.runs[6].outlier && !n.runs[0].outlier);
    ck_assert_ptr_nonnull(strstr(n.warnings.v[0], "run 2 #4"));
    ck_assert_ptr_nonnull(strstr(n.warnings.v[0], "outlier"));
    noise_release(&n);
    campaign_free(&c);
}
END_TEST

START_TEST(noise_outlier_needs_runs)
{
    /* Two runs, or identical ones, give no spread to judge by. */
    const double two[] = {1.0, 50.0};
    struct campaign c;
    campaign_of(&c, two, 2);
    struct noise n;
    noise_assess(&c, &n);
    ck_assert_uint_eq(n.warnings.n, 0);
    noise_release(&n);
    campaign_free(&c);
    const double same[] = {1.0, 1.0, 1.0, 9.0};
    campaign_of(&c, same, 4);
    noise_assess(&c, &n);
    ck_assert_uint_eq(n.warnings.n, 0);
    noise_release(&n);
    campaign_free(&c);
}
END_TEST

START_TEST(noise_saturated_capacity)
{
    /* pinned to 1 CPU at 97%: flagged; unpinned on the 4-CPU host at 97%: a quarter of it;
     * at 370% of one core: 92% of the 4; pinned to 2 CPUs at 50%: a quarter */
    const double cpu[] = {97, 97, 370, 50};
    struct campaign c;
    campaign_of(&c, cpu, 4);
    char one[] = "1", two[] = "0-1";
    c.runs[0].cpus = one;
    c.runs[3].cpus = two;
    struct noise n;
    noise_assess(&c, &n);
    ck_assert_str_eq(n.runs[0].saturated, "the target used 97% of its 1 CPU: it wanted more "
                                          "than they gave");
    ck_assert_ptr_null(n.runs[1].saturated);
    ck_assert_str_eq(n.runs[2].saturated, "the target used 92% of its 4 CPUs: it wanted more "
                                          "than they gave");
    ck_assert_ptr_null(n.runs[3].saturated);
    ck_assert_uint_eq(n.warnings.n, 2); /* and 370% an outlier among the four */
    ck_assert_str_eq(n.warnings.v[0], "2 of 4 runs at 2 saturated (the first: the target used "
                                      "97% of its 1 CPU: it wanted more than they gave): their "
                                      "figures measured contention for the CPUs, not the target "
                                      "alone");
    char *why = noise_setting_saturated(&c, "2");
    ck_assert_str_eq(why, "2 of 4 runs at 2 saturated (the first: the target used 97% of its 1 "
                          "CPU: it wanted more than they gave)");
    free(why);
    ck_assert_ptr_null(noise_setting_saturated(&c, "8")); /* no such setting */
    noise_release(&n);
    campaign_free(&c);
}
END_TEST

START_TEST(noise_saturated_host)
{
    const double cpu[] = {60, 60, 60, 60, 60};
    struct campaign c;
    campaign_of(&c, cpu, 5);
    char all[] = "0-3", one[] = "1";
    for (size_t i = 0; i < 5; i++)
        c.runs[i].host_cpus = (struct run_host_cpus){.cpus = all, .busy_percent = 99,
                                                     .others_percent = 10};
    c.runs[1].host_cpus.others_percent = 75; /* other processes filled them: their noise */
    c.runs[2].host_cpus.busy_percent = 90;   /* idle time left */
    c.runs[3].host_cpus.busy_percent = NAN;  /* not recorded (an older results.json) */
    c.runs[4].cpus = one;                    /* pinned: the CPUs watched its own */
    c.runs[4].host_cpus.cpus = one;
    c.runs[4].host_cpus.busy_percent = 100;
    struct noise n;
    noise_assess(&c, &n);
    ck_assert_str_eq(n.runs[0].saturated, "the host had no idle CPU: 99% busy over the window");
    ck_assert_ptr_null(n.runs[1].saturated);
    ck_assert_ptr_null(n.runs[2].saturated);
    ck_assert_ptr_null(n.runs[3].saturated);
    ck_assert_str_eq(n.runs[4].saturated, "its CPUs had no idle time: 100% busy over the window");
    ck_assert_uint_eq(n.warnings.n, 1);
    ck_assert_ptr_nonnull(strstr(n.warnings.v[0], "2 of 5 runs at 2 saturated (the first: the host"));
    noise_release(&n);
    campaign_free(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("probe");
    TCase *tc = tcase_create("probe");
    tcase_add_test(tc, verdict_bands);
    tcase_add_test(tc, wake_summary);
    tcase_add_test(tc, judge_healthy);
    tcase_add_test(tc, judge_trapping_clock);
    tcase_add_test(tc, judge_slow_syscall_is_not_the_loops);
    tcase_add_test(tc, judge_late_waits);
    tcase_add_test(tc, judge_steal);
    tcase_add_test(tc, judge_loaded);
    tcase_add_test(tc, advice_capped);
    suite_add_tcase(s, tc);
    TCase *tn = tcase_create("noise");
    tcase_add_test(tn, noise_quiet);
    tcase_add_test(tn, noise_load_steal_others);
    tcase_add_test(tn, noise_outlier);
    tcase_add_test(tn, noise_outlier_needs_runs);
    tcase_add_test(tn, noise_saturated_capacity);
    tcase_add_test(tn, noise_saturated_host);
    suite_add_tcase(s, tn);
    return testlib_run(s);
}
