/* The idle-sleep backoff (harness/refshard/backoff.c, seed 003's rules), fed synthetic
 * one-second samples: which samples trip it, how the suspension escalates, what is logged at
 * which level, and how a clean streak clears it. */
#include <check.h>
#include <stdlib.h>

#include "backoff.h"
#include "testlib.h"

/* An idle loop sleeps about 500 times a second at a 2 ms idle wait. */
#define SLEEPS 500
#define ALL_LATE SLEEPS

static struct backoff b;
static int64_t now;

static void setup(void)
{
    backoff_init(&b, 1, 10);
    now = 0;
}

/* The sample of the next second. */
static struct backoff_step feed(long late, long sleeps)
{
    now += 1000;
    return backoff_sample(&b, now, late, sleeps);
}

/* Two bad seconds in a row, right after the current suspension (if any) has ended. */
static struct backoff_step trip(void)
{
    if (b.suspended_until > now)
        now = b.suspended_until;
    ck_assert_int_eq(feed(ALL_LATE, SLEEPS).action, BACKOFF_NONE);
    return feed(ALL_LATE, SLEEPS);
}

START_TEST(test_clean_samples_do_nothing)
{
    for (int i = 0; i < 120; i++) {
        struct backoff_step s = feed(0, SLEEPS);
        ck_assert_int_eq(s.action, BACKOFF_NONE);
        ck_assert_int_eq(s.level, LOG_NONE);
    }
    ck_assert(!backoff_suspended(&b, now));
    ck_assert_uint_eq(b.total, 0);
}
END_TEST

START_TEST(test_one_bad_sample_does_not_trip)
{
    ck_assert_int_eq(feed(ALL_LATE, SLEEPS).action, BACKOFF_NONE);
    ck_assert_int_eq(feed(0, SLEEPS).action, BACKOFF_NONE);
    ck_assert_int_eq(feed(ALL_LATE, SLEEPS).action, BACKOFF_NONE);
    ck_assert(!backoff_suspended(&b, now));
    ck_assert_uint_eq(b.total, 0);
}
END_TEST

START_TEST(test_two_bad_samples_suspend_for_five_seconds)
{
    feed(ALL_LATE, SLEEPS);
    struct backoff_step s = feed(ALL_LATE, SLEEPS);
    ck_assert_int_eq(s.action, BACKOFF_SUSPEND);
    ck_assert_int_eq(s.level, LOG_DBG);
    ck_assert_int_eq(s.duration_ms, 5000);
    ck_assert_uint_eq(s.streak, 1);
    ck_assert_uint_eq(b.total, 1);
    ck_assert(backoff_suspended(&b, now));
    ck_assert(backoff_suspended(&b, now + 4999));
    ck_assert(!backoff_suspended(&b, now + 5000));
}
END_TEST

START_TEST(test_tail_outliers_are_not_a_bad_host)
{
    /* Five late of 500 is a 1% tail: above the floor, below the proportion. */
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(feed(5, SLEEPS).action, BACKOFF_NONE);
    /* 51 of 500 is above 10%. */
    feed(51, SLEEPS);
    ck_assert_int_eq(feed(51, SLEEPS).action, BACKOFF_SUSPEND);
}
END_TEST

START_TEST(test_proportion_must_be_exceeded)
{
    /* Exactly 10% does not exceed 10%. */
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(feed(50, SLEEPS).action, BACKOFF_NONE);
}
END_TEST

START_TEST(test_floor_guards_seconds_with_few_sleeps)
{
    /* One sleep, late: 100% of the sleeps, but not above the floor of one. */
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(feed(1, 1).action, BACKOFF_NONE);
    /* Two of two exceed both. */
    feed(2, 2);
    ck_assert_int_eq(feed(2, 2).action, BACKOFF_SUSPEND);
}
END_TEST

START_TEST(test_zero_percent_leaves_the_floor_in_charge)
{
    backoff_init(&b, 3, 0);
    feed(3, SLEEPS);
    ck_assert_int_eq(feed(3, SLEEPS).action, BACKOFF_NONE);
    feed(4, SLEEPS);
    ck_assert_int_eq(feed(4, SLEEPS).action, BACKOFF_SUSPEND);
}
END_TEST

START_TEST(test_escalation_doubles_to_the_ceiling)
{
    static const struct {
        int64_t duration;
        enum log_level level;
    } want[] = {
        {5000, LOG_DBG},  {10000, LOG_DBG},  {20000, LOG_WRN},   {40000, LOG_WRN},
        {80000, LOG_WRN}, {120000, LOG_ERR}, {120000, LOG_NONE}, {120000, LOG_NONE},
    };
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        struct backoff_step s = trip();
        ck_assert_int_eq(s.action, BACKOFF_SUSPEND);
        ck_assert_int_eq(s.duration_ms, want[i].duration);
        ck_assert_int_eq(s.level, want[i].level);
        ck_assert_uint_eq(s.streak, i + 1);
    }
    ck_assert_uint_eq(b.total, 8);
}
END_TEST

START_TEST(test_seconds_spent_suspended_are_not_a_clean_streak)
{
    /* Escalate to an 80 s suspension: the loop spins through it and its samples are clean,
     * yet they must not clear the escalation, or the ceiling could never be reached. */
    for (int i = 0; i < 5; i++)
        trip();
    while (now < b.suspended_until)
        ck_assert_int_eq(feed(0, 0).action, BACKOFF_NONE);
    ck_assert_uint_eq(b.streak, 5);
    ck_assert_int_eq(trip().duration_ms, 120000);
}
END_TEST

START_TEST(test_clean_streak_clears_the_escalation)
{
    trip();
    trip(); /* 10 s */
    int64_t until = b.suspended_until;
    while (now < until + 59000)
        ck_assert_int_eq(feed(0, SLEEPS).action, BACKOFF_NONE);
    struct backoff_step s = feed(0, SLEEPS);
    ck_assert_int_eq(s.action, BACKOFF_CLEAR);
    ck_assert_uint_eq(s.streak, 2);
    /* The operator never saw these two backoffs above Debug. */
    ck_assert_int_eq(s.level, LOG_DBG);
    ck_assert_int_eq(feed(0, SLEEPS).action, BACKOFF_NONE);

    /* The next backoff starts again from the base. */
    s = trip();
    ck_assert_int_eq(s.duration_ms, 5000);
    ck_assert_int_eq(s.level, LOG_DBG);
    ck_assert_uint_eq(b.total, 3);
}
END_TEST

START_TEST(test_clearing_a_warned_escalation_is_information)
{
    for (int i = 0; i < 3; i++)
        trip();
    now = b.suspended_until + 59000;
    struct backoff_step s = feed(0, SLEEPS);
    ck_assert_int_eq(s.action, BACKOFF_CLEAR);
    ck_assert_int_eq(s.level, LOG_INF);
    ck_assert_uint_eq(s.streak, 3);
}
END_TEST

START_TEST(test_one_bad_sample_restarts_the_clean_streak)
{
    trip();
    now = b.suspended_until + 30000;
    feed(ALL_LATE, SLEEPS); /* bad but alone: no backoff, but not clean either */
    int64_t bad_at = now;
    while (now < bad_at + 59000)
        ck_assert_int_eq(feed(0, SLEEPS).action, BACKOFF_NONE);
    ck_assert_int_eq(feed(0, SLEEPS).action, BACKOFF_CLEAR);
}
END_TEST

START_TEST(test_ceiling_error_is_rearmed_by_a_clean_streak)
{
    for (int i = 0; i < 6; i++)
        trip();
    ck_assert_int_eq(trip().level, LOG_NONE);

    now = b.suspended_until + 59000;
    ck_assert_int_eq(feed(0, SLEEPS).action, BACKOFF_CLEAR);
    struct backoff_step s = {0};
    for (int i = 0; i < 6; i++)
        s = trip();
    ck_assert_int_eq(s.duration_ms, 120000);
    ck_assert_int_eq(s.level, LOG_ERR);
}
END_TEST

static Suite *backoff_suite(void)
{
    Suite *s = suite_create("backoff");
    TCase *tc = tcase_create("trip");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_clean_samples_do_nothing);
    tcase_add_test(tc, test_one_bad_sample_does_not_trip);
    tcase_add_test(tc, test_two_bad_samples_suspend_for_five_seconds);
    tcase_add_test(tc, test_tail_outliers_are_not_a_bad_host);
    tcase_add_test(tc, test_proportion_must_be_exceeded);
    tcase_add_test(tc, test_floor_guards_seconds_with_few_sleeps);
    tcase_add_test(tc, test_zero_percent_leaves_the_floor_in_charge);
    suite_add_tcase(s, tc);

    tc = tcase_create("escalation");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_escalation_doubles_to_the_ceiling);
    tcase_add_test(tc, test_seconds_spent_suspended_are_not_a_clean_streak);
    tcase_add_test(tc, test_clean_streak_clears_the_escalation);
    tcase_add_test(tc, test_clearing_a_warned_escalation_is_information);
    tcase_add_test(tc, test_one_bad_sample_restarts_the_clean_streak);
    tcase_add_test(tc, test_ceiling_error_is_rearmed_by_a_clean_streak);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return testlib_run(backoff_suite());
}
