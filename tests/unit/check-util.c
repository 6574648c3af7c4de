/* util.c: the helpers everything else leans on. */
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "testlib.h"
#include "util.h"

START_TEST(atomic_write_replaces_content_and_keeps_mode)
{
    char *dir = testlib_tmpdir();
    char *path = path_join(dir, "config.json");
    testlib_write(path, "old", 0640);
    struct lb_error err;
    ck_assert_int_eq(write_file_atomic(path, "new content", 11, 0640, &err), 0);
    char *text = testlib_read(path);
    ck_assert_str_eq(text, "new content");
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, testlib_mode_kept(0640));
    free(text);
    free(path);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(atomic_write_to_missing_directory_fails_with_path)
{
    struct lb_error err;
    ck_assert_int_eq(write_file_atomic("/nonexistent-dir/x.json", "x", 1, 0644, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent-dir/x.json"));
}
END_TEST

/* The temporary name write_file_atomic tried in dir (missing, so the creation fails
 * and the message names it): new string. */
static char *tmp_name_tried(const char *path)
{
    struct lb_error err;
    ck_assert_int_eq(write_file_atomic(path, "x", 1, 0644, &err), -1);
    const char *at = strstr(err.msg, "x.json.lbtmp.");
    ck_assert_msg(at, "%s", err.msg);
    return xstrndup(at, strcspn(at, "'"));
}

/* PATH.lbtmp.<16 random hex digits>, new at each write: no name to plant a link at in
 * advance (it was PATH.lbtmp.PID). */
START_TEST(atomic_write_temp_name_is_unpredictable)
{
    char *a = tmp_name_tried("/nonexistent-dir/x.json");
    char *b = tmp_name_tried("/nonexistent-dir/x.json");
    const char *suffix = a + strlen("x.json.lbtmp.");
    ck_assert_msg(strlen(suffix) == 16 && strspn(suffix, "0123456789abcdef") == 16, "%s", a);
    ck_assert_str_ne(a, b);
    char *by_pid = xasprintf("x.json.lbtmp.%ld", (long)getpid());
    ck_assert_str_ne(a, by_pid);
    free(by_pid);
    free(a);
    free(b);
}
END_TEST

/* A link planted at the old predictable temporary name is neither written through nor
 * chmodded through, nor renamed over the file; the mode comes from the descriptor. */
START_TEST(atomic_write_ignores_planted_link)
{
    char *dir = testlib_tmpdir();
    char *path = path_join(dir, "config.json"), *victim = path_join(dir, "victim");
    char *planted = xasprintf("%s.lbtmp.%ld", path, (long)getpid());
    testlib_write(path, "old", 0640);
    testlib_write(victim, "precious", 0600);
    ck_assert_int_eq(symlink(victim, planted), 0);
    struct lb_error err;
    ck_assert_msg(write_file_atomic(path, "new", 3, 0640, &err) == 0, "%s", err.msg);
    char *text = testlib_read(victim);
    ck_assert_str_eq(text, "precious");
    free(text);
    struct stat st;
    ck_assert_int_eq(stat(victim, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0600);
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    ck_assert_uint_eq(st.st_mode & 07777, 0640);
    text = testlib_read(path);
    ck_assert_str_eq(text, "new");
    free(text);
    ck_assert_int_eq(lstat(planted, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    free(planted);
    free(victim);
    free(path);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

/* A run's dir read from a campaign made elsewhere stays inside that campaign. */
START_TEST(paths_within_a_directory)
{
    static const char *const inside[] = {"runs/2-1", "runs/base/0-3", "a..b", "..x/y", "./runs"};
    static const char *const outside[] = {"", "/etc", "..", "../x", "runs/../../x", "a/..",
                                          "runs//..//x"};
    for (size_t i = 0; i < sizeof(inside) / sizeof(inside[0]); i++)
        ck_assert_msg(path_is_within(inside[i]), "'%s' refused", inside[i]);
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
        ck_assert_msg(!path_is_within(outside[i]), "'%s' accepted", outside[i]);
}
END_TEST

START_TEST(paths_join_and_split)
{
    char *p = path_join("a/b", "c.json");
    ck_assert_str_eq(p, "a/b/c.json");
    free(p);
    p = path_join("a/b/", "c.json");
    ck_assert_str_eq(p, "a/b/c.json");
    free(p);
    p = path_join("a", "/abs/c.json");
    ck_assert_str_eq(p, "/abs/c.json");
    free(p);
    p = path_dirname("dir/file");
    ck_assert_str_eq(p, "dir");
    free(p);
    p = path_dirname("file");
    ck_assert_str_eq(p, ".");
    free(p);
    p = path_dirname("/file");
    ck_assert_str_eq(p, "/");
    free(p);
    ck_assert_str_eq(path_basename("a/b/c.json"), "c.json");
    ck_assert_str_eq(path_basename("c.json"), "c.json");
}
END_TEST

/* Windows paths: both separators, drive and UNC roots; elsewhere '\' is a name's. */
START_TEST(paths_of_the_system)
{
    static const struct {
        const char *path, *windows_dir, *posix_dir;
    } dirs[] = {
        {"C:\\srv\\cfg.json", "C:\\srv", "."},
        {"C:\\cfg.json", "C:\\", "."},
        {"C:/srv/cfg.json", "C:/srv", "C:/srv"},
        {"\\\\host\\share\\cfg.json", "\\\\host\\share\\", "."},
        {"Z:\\tmp\\case/a.json", "Z:\\tmp\\case", "Z:\\tmp\\case"},
    };
    bool windows = strcmp(plat_name(), "windows") == 0;
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        char *d = path_dirname(dirs[i].path);
        ck_assert_str_eq(d, windows ? dirs[i].windows_dir : dirs[i].posix_dir);
        free(d);
    }
    char *p = path_join("C:\\srv", "D:\\other\\cfg.json");
    ck_assert_str_eq(p, windows ? "D:\\other\\cfg.json" : "C:\\srv/D:\\other\\cfg.json");
    free(p);
    p = path_join("C:\\srv\\", "cfg.json");
    ck_assert_str_eq(p, windows ? "C:\\srv\\cfg.json" : "C:\\srv\\/cfg.json");
    free(p);
    ck_assert_str_eq(path_basename("C:\\srv\\cfg.json"), windows ? "cfg.json" : "C:\\srv\\cfg.json");
}
END_TEST

START_TEST(numbers_parse_strictly)
{
    long l;
    double d;
    ck_assert_int_eq(parse_long("42", 0, 100, &l), 0);
    ck_assert_int_eq(l, 42);
    ck_assert_int_eq(parse_long("42x", 0, 100, &l), -1);
    ck_assert_int_eq(parse_long("", 0, 100, &l), -1);
    ck_assert_int_eq(parse_long("101", 0, 100, &l), -1);
    ck_assert_int_eq(parse_double("2.5", &d), 0);
    ck_assert_double_eq(d, 2.5);
    ck_assert_int_eq(parse_double("nan", &d), -1);
    ck_assert_int_eq(parse_double("1e999", &d), -1);
    ck_assert_int_eq(parse_double("3 ", &d), -1);
}
END_TEST

/* results.json and every --json output write an undefined figure as null, never as
 * an invalid NaN token or a dropped key. */
START_TEST(figures_are_numbers_or_null)
{
    json_t *x = json_num_or_null(2.5);
    ck_assert(json_is_real(x));
    ck_assert_double_eq(json_real_value(x), 2.5);
    json_decref(x);
    const double undefined[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < ARRAY_SIZE(undefined); i++) {
        x = json_num_or_null(undefined[i]);
        ck_assert(json_is_null(x));
        json_decref(x);
    }
}
END_TEST

START_TEST(names_are_looked_up_whole)
{
    static const char *const names[] = {"lower", NULL, "higher"};
    ck_assert_int_eq(name_index(names, ARRAY_SIZE(names), "lower"), 0);
    ck_assert_int_eq(name_index(names, ARRAY_SIZE(names), "higher"), 2);
    ck_assert_int_eq(name_index(names, ARRAY_SIZE(names), "high"), -1);
    ck_assert_int_eq(name_index(names, ARRAY_SIZE(names), ""), -1);
    ck_assert_str_eq(name_of(names, ARRAY_SIZE(names), 2), "higher");
    ck_assert_str_eq(name_of(names, ARRAY_SIZE(names), 1), "unknown");
    ck_assert_str_eq(name_of(names, ARRAY_SIZE(names), 3), "unknown");
}
END_TEST

START_TEST(mkdir_p_makes_every_level)
{
    char *dir = testlib_tmpdir();
    char *deep = path_join(dir, "a/b/c");
    struct lb_error err;
    ck_assert_int_eq(mkdir_p(deep, 0755, &err), 0);
    struct stat st;
    ck_assert_int_eq(stat(deep, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    ck_assert_int_eq(mkdir_p(deep, 0755, &err), 0); /* again: already there is fine */
    free(deep);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(fnv1a64_matches_reference_vectors)
{
    /* Reference values of FNV-1a 64 from the algorithm's published test vectors. */
    char out[17];
    hash_fnv1a64_hex("", 0, out);
    ck_assert_str_eq(out, "cbf29ce484222325");
    hash_fnv1a64_hex("a", 1, out);
    ck_assert_str_eq(out, "af63dc4c8601ec8c");
    hash_fnv1a64_hex("foobar", 6, out);
    ck_assert_str_eq(out, "85944171f73967e8");
}
END_TEST

START_TEST(utc_formats)
{
    char buf[32];
    format_utc(1764686337ULL * 1000000000ULL, false, buf, sizeof(buf));
    ck_assert_str_eq(buf, "2025-12-02T14:38:57Z");
    format_utc(1764686337ULL * 1000000000ULL, true, buf, sizeof(buf));
    ck_assert_str_eq(buf, "20251202T143857Z");
}
END_TEST

START_TEST(utc_parses_what_it_formats)
{
    /* Epoch, a leap day, the last second of a leap year, a date past 2038. */
    static const uint64_t seconds[] = {0, 951782400, 1230767999, 1764686337, 4102444800};
    for (size_t i = 0; i < sizeof(seconds) / sizeof(seconds[0]); i++) {
        char buf[32];
        uint64_t back = 1;
        format_utc(seconds[i] * NS_PER_SEC, false, buf, sizeof(buf));
        ck_assert_msg(parse_utc(buf, &back) == 0, "%s", buf);
        ck_assert_msg(back == seconds[i] * NS_PER_SEC, "%s", buf);
    }
    static const char *const bad[] = {"", "2025-12-02", "2025-12-02T14:38:57", "2025-12-02 14:38:57Z",
                                      "2025-13-02T14:38:57Z", "2025-02-29T00:00:00Z",
                                      "2025-12-32T00:00:00Z", "2025-12-02T24:00:00Z",
                                      "2025-12-02T14:38:57Zx", "1969-12-31T23:59:59Z"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t wall = 7;
        ck_assert_msg(parse_utc(bad[i], &wall) == -1, "'%s' was accepted", bad[i]);
        ck_assert_msg(wall == 7, "'%s' changed the output", bad[i]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");
    tcase_add_test(tc, atomic_write_replaces_content_and_keeps_mode);
    tcase_add_test(tc, atomic_write_to_missing_directory_fails_with_path);
    tcase_add_test(tc, atomic_write_temp_name_is_unpredictable);
    /* Windows' symbolic links need a privilege or developer mode. */
    if (strcmp(plat_name(), "windows") != 0)
        tcase_add_test(tc, atomic_write_ignores_planted_link);
    tcase_add_test(tc, paths_join_and_split);
    tcase_add_test(tc, paths_within_a_directory);
    tcase_add_test(tc, paths_of_the_system);
    tcase_add_test(tc, numbers_parse_strictly);
    tcase_add_test(tc, figures_are_numbers_or_null);
    tcase_add_test(tc, names_are_looked_up_whole);
    tcase_add_test(tc, mkdir_p_makes_every_level);
    tcase_add_test(tc, fnv1a64_matches_reference_vectors);
    tcase_add_test(tc, utc_formats);
    tcase_add_test(tc, utc_parses_what_it_formats);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
