/* The timer wheel's arithmetic (harness/refshard/wheel.c), fed synthetic timestamps: the
 * counters loopbench reads off refshard's loop: line, and the firing of timers. */
#include <check.h>
#include <stdlib.h>

#include "wheel.h"
#include "testlib.h"

/* One pass from a wheel whose last turn was at 0. */
struct slice_case {
    int64_t at_ms;
    bool slept;
    unsigned turns;
    uint64_t skipped, missed8, missed16, sched;
    int64_t lag;
};

static const struct slice_case slice_cases[] = {
    /* early: nothing is due, nothing is late */
    {3, false, 0, 0, 0, 0, 0, 0},
    /* exactly one tick later is on time */
    {8, false, 1, 0, 0, 0, 0, 0},
    {15, false, 1, 0, 0, 0, 0, 7},
    /* 16 ms: two turns, the oldest slot 8 ms late -- the 8 ms budget only */
    {16, false, 2, 1, 1, 0, 0, 8},
    {16, true, 2, 1, 1, 0, 0, 8},
    /* 24 ms: three turns, the 16 ms budget too; the scheduler's share only after a sleep */
    {24, false, 3, 2, 1, 1, 0, 16},
    {24, true, 3, 2, 1, 1, 1, 16},
    /* 30 ms against an 8 ms tick: 22 ms owed and not paid */
    {30, true, 3, 2, 1, 1, 1, 22},
    {100, false, 12, 11, 1, 1, 0, 92},
};

START_TEST(test_slice_counts_one_pass)
{
    const struct slice_case *c = &slice_cases[_i];
    struct wheel w;
    wheel_init(&w, 0);
    unsigned turns = wheel_slice(&w, c->at_ms, c->slept);
    ck_assert_uint_eq(turns, c->turns);
    ck_assert_uint_eq(w.counters.turns, c->turns);
    ck_assert_uint_eq(w.counters.skipped, c->skipped);
    ck_assert_uint_eq(w.counters.missed8, c->missed8);
    ck_assert_uint_eq(w.counters.missed16, c->missed16);
    ck_assert_uint_eq(w.counters.sched, c->sched);
    ck_assert_int_eq(w.lag_last, c->lag);
    ck_assert_int_eq(w.lag_peak, c->lag);
}
END_TEST

START_TEST(test_steady_turns_skip_nothing)
{
    struct wheel w;
    wheel_init(&w, 1000);
    for (int64_t t = 1008; t <= 1080; t += 8)
        wheel_slice(&w, t, true);
    ck_assert_uint_eq(w.counters.turns, 10);
    ck_assert_uint_eq(w.counters.skipped, 0);
    ck_assert_uint_eq(w.counters.missed8, 0);
    ck_assert_uint_eq(w.counters.missed16, 0);
    ck_assert_uint_eq(w.counters.sched, 0);
    ck_assert_int_eq(w.lag_peak, 0);
}
END_TEST

START_TEST(test_counters_accumulate_across_passes)
{
    struct wheel w;
    wheel_init(&w, 0);
    wheel_slice(&w, 16, false); /* 2 turns */
    wheel_slice(&w, 40, true);  /* 3 turns, after a sleep */
    wheel_slice(&w, 48, true);  /* 1 turn */
    wheel_slice(&w, 80, false); /* 4 turns */
    ck_assert_uint_eq(w.counters.turns, 10);
    ck_assert_uint_eq(w.counters.skipped, 1 + 2 + 3);
    ck_assert_uint_eq(w.counters.missed8, 3);
    ck_assert_uint_eq(w.counters.missed16, 2);
    ck_assert_uint_eq(w.counters.sched, 1);
}
END_TEST

START_TEST(test_peak_is_kept_until_reset)
{
    struct wheel w;
    wheel_init(&w, 0);
    wheel_slice(&w, 100, false); /* badly late: turns up to 96 */
    wheel_slice(&w, 104, false); /* back on schedule */
    ck_assert_int_eq(w.lag_last, 0);
    ck_assert_int_eq(w.lag_peak, 92);

    wheel_reset_peak(&w);
    ck_assert_int_eq(w.lag_peak, 0);
    wheel_slice(&w, 115, false); /* 11 ms since the turn at 104 */
    ck_assert_int_eq(w.lag_peak, 3);
}
END_TEST

START_TEST(test_time_to_next_tick)
{
    struct wheel w;
    wheel_init(&w, 500);
    ck_assert_int_eq(wheel_ms_until_next_tick(&w, 500), 8);
    ck_assert_int_eq(wheel_ms_until_next_tick(&w, 503), 5);
    ck_assert_int_eq(wheel_ms_until_next_tick(&w, 508), 0);
    ck_assert_int_eq(wheel_ms_until_next_tick(&w, 511), -3);
    /* turns advance a whole tick at a time, not to the slice's time */
    wheel_slice(&w, 511, false);
    ck_assert_int_eq(wheel_ms_until_next_tick(&w, 511), 5);
}
END_TEST

struct fired {
    unsigned count;
    int64_t at[64];
    const struct wheel *w;
};

static void record(struct wheel_timer *t, void *ctx)
{
    struct fired *f = ctx;
    (void)t;
    if (f->count < 64)
        f->at[f->count] = f->w->last_turned;
    f->count++;
}

/* Turn the wheel one tick at a time up to end_ms. */
static void run_until(struct wheel *w, int64_t end_ms)
{
    for (int64_t t = w->last_turned + WHEEL_TICK_MS; t <= end_ms; t += WHEEL_TICK_MS)
        wheel_slice(w, t, false);
}

START_TEST(test_timer_fires_on_its_cadence)
{
    struct wheel w;
    struct fired f = {.w = &w};
    struct wheel_timer t = {.fn = record, .ctx = &f, .interval_ms = 100};
    wheel_init(&w, 0);
    wheel_add(&w, &t, 100);
    run_until(&w, 1000);
    /* 100 ms rounds up to 13 ticks: 104, 208, ... */
    ck_assert_uint_eq(f.count, 9);
    for (unsigned i = 0; i < f.count; i++)
        ck_assert_int_eq(f.at[i], 104 * (int64_t)(i + 1));
}
END_TEST

START_TEST(test_timer_longer_than_a_revolution)
{
    /* 5000 ms is 625 ticks, more than the wheel's slots: it must wait out a whole round. */
    struct wheel w;
    struct fired f = {.w = &w};
    struct wheel_timer t = {.fn = record, .ctx = &f, .interval_ms = 5000};
    wheel_init(&w, 0);
    wheel_add(&w, &t, 5000);
    run_until(&w, 4992);
    ck_assert_uint_eq(f.count, 0);
    run_until(&w, 5000);
    ck_assert_uint_eq(f.count, 1);
    run_until(&w, 10000);
    ck_assert_uint_eq(f.count, 2);
    ck_assert_int_eq(f.at[1], 10000);
}
END_TEST

START_TEST(test_timer_of_one_revolution_fires_once_per_turn)
{
    /* A timer re-armed exactly one revolution ahead lands in the slot being turned. */
    struct wheel w;
    struct fired f = {.w = &w};
    struct wheel_timer t = {.fn = record, .ctx = &f, .interval_ms = WHEEL_SLOTS * WHEEL_TICK_MS};
    wheel_init(&w, 0);
    wheel_add(&w, &t, WHEEL_SLOTS * WHEEL_TICK_MS);
    run_until(&w, 3 * WHEEL_SLOTS * WHEEL_TICK_MS);
    ck_assert_uint_eq(f.count, 3);
    ck_assert_int_eq(f.at[2], 3 * WHEEL_SLOTS * WHEEL_TICK_MS);
}
END_TEST

START_TEST(test_stall_fires_each_due_slot_in_one_pass)
{
    /* A 200 ms stall: a 40 ms timer comes due five times, all in the catching-up pass. */
    struct wheel w;
    struct fired f = {.w = &w};
    struct wheel_timer t = {.fn = record, .ctx = &f, .interval_ms = 40};
    wheel_init(&w, 0);
    wheel_add(&w, &t, 40);
    ck_assert_uint_eq(wheel_slice(&w, 200, false), 25);
    ck_assert_uint_eq(f.count, 5);
    ck_assert_uint_eq(w.counters.skipped, 24);
}
END_TEST

START_TEST(test_zero_delay_waits_one_tick)
{
    struct wheel w;
    struct fired f = {.w = &w};
    struct wheel_timer t = {.fn = record, .ctx = &f, .interval_ms = 8};
    wheel_init(&w, 0);
    wheel_add(&w, &t, 0);
    wheel_slice(&w, 7, false);
    ck_assert_uint_eq(f.count, 0);
    wheel_slice(&w, 8, false);
    ck_assert_uint_eq(f.count, 1);
}
END_TEST

static Suite *wheel_suite(void)
{
    Suite *s = suite_create("wheel");
    TCase *tc = tcase_create("counters");
    tcase_add_loop_test(tc, test_slice_counts_one_pass, 0,
                        (int)(sizeof(slice_cases) / sizeof(slice_cases[0])));
    tcase_add_test(tc, test_steady_turns_skip_nothing);
    tcase_add_test(tc, test_counters_accumulate_across_passes);
    tcase_add_test(tc, test_peak_is_kept_until_reset);
    tcase_add_test(tc, test_time_to_next_tick);
    suite_add_tcase(s, tc);

    tc = tcase_create("timers");
    tcase_add_test(tc, test_timer_fires_on_its_cadence);
    tcase_add_test(tc, test_timer_longer_than_a_revolution);
    tcase_add_test(tc, test_timer_of_one_revolution_fires_once_per_turn);
    tcase_add_test(tc, test_stall_fires_each_due_slot_in_one_pass);
    tcase_add_test(tc, test_zero_delay_waits_one_tick);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return testlib_run(wheel_suite());
}
