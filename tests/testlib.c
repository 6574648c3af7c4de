#include "testlib.h"

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static char root[PATH_MAX];
static char data[PATH_MAX];

void testlib_root_make(void)
{
    const char *tmp = getenv("TMPDIR");
    ck_assert_int_lt(snprintf(root, sizeof(root), "%s/loopbench-check-XXXXXX",
                              tmp && *tmp ? tmp : "/tmp"),
                     (int)sizeof(root));
    ck_assert_ptr_nonnull(mkdtemp(root));
    const char *env = getenv("TESTS_DATA");
    ck_assert_ptr_nonnull(env);
    ck_assert_ptr_nonnull(realpath(env, data));
}

void testlib_root_remove(void)
{
    testlib_rmtree(root);
}

const char *testlib_case_dir(void)
{
    static char dir[PATH_MAX], real[PATH_MAX];
    ck_assert_int_lt(snprintf(dir, sizeof(dir), "%s/case-XXXXXX", root), (int)sizeof(dir));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chdir(dir), 0);
    ck_assert_ptr_nonnull(realpath(dir, real));
    return real;
}

const char *testlib_data(void)
{
    return data;
}

char *testlib_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char *tmpl = xasprintf("%s/loopbench-test-XXXXXX", base && *base ? base : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    return tmpl;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void testlib_rmtree(const char *path)
{
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void testlib_write(const char *path, const char *text, unsigned mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    ck_assert_int_ge(fd, 0);
    size_t len = strlen(text);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    ck_assert_int_eq(fchmod(fd, mode), 0);
    close(fd);
}

char *testlib_read(const char *path)
{
    char *data = NULL;
    struct lb_error err;
    ck_assert_msg(read_file(path, &data, NULL, &err) == 0, "%s", err.msg);
    return data;
}

int testlib_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
