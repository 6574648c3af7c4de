/* Package energy (src/measure/energy.c): the counters' wrap-around, and which powercap
 * zones count (src/platform/linux.c), on fake trees under $LOOPBENCH_TEST_SYSFS. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "energy.h"
#include "platform/files.h"
#include "testlib.h"
#include "util.h"

START_TEST(delta_without_wrap_is_the_difference)
{
    ck_assert_uint_eq(energy_delta_uj(100, 250, 1000), 150);
    ck_assert_uint_eq(energy_delta_uj(400, 400, 1000), 0);
}
END_TEST

START_TEST(delta_across_the_range_counts_the_way_round)
{
    /* 900 -> range 1000 -> 0 -> 100: 100 before the wrap, 100 after it */
    ck_assert_uint_eq(energy_delta_uj(900, 100, 1000), 200);
    ck_assert_uint_eq(energy_delta_uj(900, 0, 1000), 100);
    /* a real Intel range (262 kJ), wrapped 1 J before its end and read 2 J after it */
    const uint64_t range = 262143328850ULL;
    ck_assert_uint_eq(energy_delta_uj(range - 1000000, 2000000, range), 3000000);
}
END_TEST

/* A powercap zone under the case's fake sysfs: its name and counters (energy NULL:
 * a control type's directory, which has neither). */
static void zone(const char *dir, const char *name, const char *energy, const char *range)
{
    char *path = xasprintf("sys/class/powercap/%s", dir);
    struct lb_error err;
    ck_assert_int_eq(mkdir_p(path, 0777, &err), 0);
    char *file = xasprintf("%s/%s", path, name ? "name" : "enabled");
    testlib_write(file, name ? name : "1\n", 0644);
    free(file);
    if (energy) {
        file = xasprintf("%s/energy_uj", path);
        testlib_write(file, energy, 0644);
        free(file);
        file = xasprintf("%s/max_energy_range_uj", path);
        testlib_write(file, range, 0644);
        free(file);
    }
    free(path);
}

static void fake_sysfs(void)
{
    const char *dir = testlib_case_dir();
    char *root = xasprintf("%s/sys", dir);
    setenv("LOOPBENCH_TEST_SYSFS", root, 1);
    free(root);
}

START_TEST(the_packages_count_and_nothing_else)
{
    fake_sysfs();
    zone("intel-rapl", NULL, NULL, NULL);
    zone("intel-rapl:1", "package-1\n", "7000\n", "9000\n");
    zone("intel-rapl:0", "package-0\n", "1000\n", "5000\n");
    zone("intel-rapl:0:0", "core\n", "300\n", "5000\n");
    zone("intel-rapl:0:1", "uncore\n", "30\n", "5000\n");
    zone("intel-rapl-mmio:0", "package-0\n", "1111\n", "5000\n"); /* the same package */
    zone("amd-rapl:0", "package-0-die-1\n", "42\n", "100\n");
    struct plat_energy_zone z[PLAT_ENERGY_ZONES_MAX];
    struct lb_error err;
    int n = plat_energy_read(z, &err);
    ck_assert_msg(n == 3, "%d zones: %s", n, n < 0 ? err.msg : "");
    ck_assert_str_eq(z[0].zone, "amd-rapl:0");
    ck_assert_str_eq(z[0].name, "package-0-die-1");
    ck_assert_uint_eq(z[0].energy_uj, 42);
    ck_assert_uint_eq(z[0].range_uj, 100);
    ck_assert_str_eq(z[1].zone, "intel-rapl:0");
    ck_assert_str_eq(z[1].name, "package-0");
    ck_assert_uint_eq(z[1].energy_uj, 1000);
    ck_assert_str_eq(z[2].zone, "intel-rapl:1");
    ck_assert_uint_eq(z[2].energy_uj, 7000);
    ck_assert_uint_eq(z[2].range_uj, 9000);
}
END_TEST

START_TEST(no_package_zone_is_no_rapl)
{
    struct plat_energy_zone z[PLAT_ENERGY_ZONES_MAX];
    struct lb_error err;
    fake_sysfs();
    ck_assert_int_eq(plat_energy_read(z, &err), -1); /* no powercap at all */
    ck_assert_msg(strncmp(err.msg, "no RAPL", 7) == 0, "%s", err.msg);
    zone("intel-rapl:0:0", "core\n", "300\n", "5000\n");
    ck_assert_int_eq(plat_energy_read(z, &err), -1);
    ck_assert_msg(strstr(err.msg, "no RAPL: no package zone under") != NULL, "%s", err.msg);
    zone("intel-rapl:0", "package-0\n", "\n", "5000\n"); /* a counter that says nothing */
    ck_assert_int_eq(plat_energy_read(z, &err), -1);
    ck_assert_msg(strstr(err.msg, "cannot read the counters of") != NULL, "%s", err.msg);
}
END_TEST

START_TEST(a_window_across_the_wrap_sums_the_packages)
{
    fake_sysfs();
    zone("intel-rapl:0", "package-0\n", "4000000\n", "5000000\n");
    zone("intel-rapl:1", "package-1\n", "1000000\n", "9000000\n");
    struct energy_reading from;
    struct lb_error err;
    ck_assert_msg(energy_take(&from, &err) == 0, "%s", err.msg);
    /* package-0: 4 J -> 5 J (wraps) -> 1.5 J: 2.5 J; package-1: 1 J -> 1.25 J */
    zone("intel-rapl:0", "package-0\n", "1500000\n", "5000000\n");
    zone("intel-rapl:1", "package-1\n", "1250000\n", "9000000\n");
    struct run_energy e = {0};
    ck_assert_msg(energy_since(&from, &e, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(e.n_domains, 2);
    ck_assert_str_eq(e.domains[0].name, "package-0");
    ck_assert_double_eq_tol(e.domains[0].joules, 2.5, 1e-9);
    ck_assert_double_eq_tol(e.domains[1].joules, 0.25, 1e-9);
    ck_assert_double_eq_tol(e.joules, 2.75, 1e-9);
    ck_assert(e.seconds > 0);
    ck_assert_double_eq_tol(e.watts, e.joules / e.seconds, 1e-9);
    ck_assert_double_eq_tol(e.domains[0].watts, 2.5 / e.seconds, 1e-9);
    run_energy_release(&e);
}
END_TEST

START_TEST(packages_that_change_are_no_window)
{
    fake_sysfs();
    zone("intel-rapl:0", "package-0\n", "4000000\n", "5000000\n");
    struct energy_reading from;
    struct lb_error err;
    ck_assert_msg(energy_take(&from, &err) == 0, "%s", err.msg);
    zone("intel-rapl:1", "package-1\n", "1000000\n", "9000000\n");
    struct run_energy e = {0};
    ck_assert_int_eq(energy_since(&from, &e, &err), -1);
    ck_assert_ptr_null(e.domains);
}
END_TEST

static Suite *energy_suite(void)
{
    Suite *s = suite_create("energy");
    TCase *tc = tcase_create("energy");
    tcase_add_unchecked_fixture(tc, testlib_root_make, testlib_root_remove);
    tcase_add_test(tc, delta_without_wrap_is_the_difference);
    tcase_add_test(tc, delta_across_the_range_counts_the_way_round);
    tcase_add_test(tc, the_packages_count_and_nothing_else);
    tcase_add_test(tc, no_package_zone_is_no_rapl);
    tcase_add_test(tc, a_window_across_the_wrap_sums_the_packages);
    tcase_add_test(tc, packages_that_change_are_no_window);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return testlib_run(energy_suite());
}
