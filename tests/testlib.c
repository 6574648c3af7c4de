#include "testlib.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "platform/platform.h"
#include "util.h"

static char root[PATH_MAX];
static char data[PATH_MAX];

/* Copy a plat_realpath result into a static buffer, failing the test when there is none. */
static void real_into(const char *path, char *out, size_t size)
{
    char *real = plat_realpath(path);
    ck_assert_msg(real != NULL, "cannot resolve '%s'", path);
    ck_assert_uint_lt(strlen(real), size);
    strcpy(out, real);
    free(real);
}

/* mkdtemp's job, which Windows lacks: a new directory prefix-N (new string). */
static char *unique_dir(const char *prefix)
{
    static unsigned serial;
    for (;;) {
        char *dir = xasprintf("%s-%ld-%llx-%u", prefix, (long)getpid(),
                              (unsigned long long)(mono_ns() & 0xffffffffffULL), serial++);
        if (plat_mkdir(dir, 0700) == 0)
            return dir;
        ck_assert_msg(errno == EEXIST, "cannot create '%s'", dir);
        free(dir);
    }
}

static const char *tmp_base(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = getenv("TEMP"); /* Windows */
    return base && *base ? base : "/tmp";
}

void testlib_root_make(void)
{
    char *prefix = xasprintf("%s/loopbench-check", tmp_base());
    char *dir = unique_dir(prefix);
    ck_assert_uint_lt(strlen(dir), sizeof(root));
    strcpy(root, dir);
    free(dir);
    free(prefix);
    const char *env = getenv("TESTS_DATA");
    ck_assert_ptr_nonnull(env);
    real_into(env, data, sizeof(data));
}

void testlib_root_remove(void)
{
    testlib_rmtree(root);
}

const char *testlib_case_dir(void)
{
    static char real[PATH_MAX];
    ck_assert_msg(root[0], "testlib_case_dir needs testlib_root_make as a fixture");
    char *prefix = path_join(root, "case");
    char *dir = unique_dir(prefix);
    ck_assert_int_eq(chdir(dir), 0);
    real_into(dir, real, sizeof(real));
    free(dir);
    free(prefix);
    return real;
}

const char *testlib_data(void)
{
    return data;
}

char *testlib_tmpdir(void)
{
    char *prefix = xasprintf("%s/loopbench-test", tmp_base());
    char *dir = unique_dir(prefix);
    free(prefix);
    return dir;
}

void testlib_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *child = path_join(path, e->d_name);
            testlib_rmtree(child);
            free(child);
        }
        if (d)
            closedir(d);
        rmdir(path);
        return;
    }
    /* Windows does not delete a read-only file. */
    if (remove(path) < 0 && chmod(path, 0600) == 0)
        remove(path);
}

void testlib_write(const char *path, const char *text, unsigned mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    ck_assert_int_ge(fd, 0);
    size_t len = strlen(text);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    ck_assert_int_eq(chmod(path, mode), 0);
}

unsigned testlib_mode_kept(unsigned mode)
{
    char *dir = testlib_tmpdir();
    char *path = path_join(dir, "mode");
    testlib_write(path, "", mode);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    testlib_rmtree(dir);
    free(path);
    free(dir);
    return (unsigned)st.st_mode & 07777;
}

char *testlib_read(const char *path)
{
    char *data = NULL;
    struct lb_error err;
    ck_assert_msg(read_file(path, &data, NULL, &err) == 0, "%s", err.msg);
    return data;
}

FILE *testlib_capture(void)
{
    struct lb_error err;
    FILE *f = plat_scratch_file(&err);
    ck_assert_msg(f != NULL, "%s", err.msg);
    return f;
}

char *testlib_captured(FILE *f)
{
    struct lb_error err;
    char *text = read_back(f, NULL, &err);
    ck_assert_msg(text != NULL, "%s", err.msg);
    return text;
}

int testlib_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
