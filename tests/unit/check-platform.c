/* The platform contract's file, program, network and host functions, with the same
 * expectations on every back-end (Linux and, under wine, Windows). Windows' Check has
 * no fork mode: the tests share one process, so each cleans up all it makes. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <netinet/in.h>
#include <sys/socket.h>
#endif

#include "compat.h"
#include "platform/platform.h"
#include "testlib.h"
#include "util.h"

static bool on_windows(void)
{
    return strcmp(plat_name(), "windows") == 0;
}

/* A program's text output with Windows' CR LF line ends made LF. */
static void drop_cr(char *s)
{
    char *o = s;
    for (; *s; s++)
        if (*s != '\r')
            *o++ = *s;
    *o = '\0';
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(replace_file_puts_the_new_content_under_the_old_name)
{
    char *dir = testlib_tmpdir();
    char *path = path_join(dir, "config.json");
    char *tmp = path_join(dir, "config.json.tmp");
    testlib_write(path, "old", 0644);
    testlib_write(tmp, "new content", 0644);
    ck_assert_int_eq(plat_replace_file(tmp, path), 0);
    char *text = testlib_read(path);
    ck_assert_str_eq(text, "new content");
    ck_assert(!exists(tmp));
    free(text);
    free(tmp);
    free(path);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(realpath_is_absolute_and_missing_files_are_enoent)
{
    char *dir = testlib_tmpdir();
    char *path = path_join(dir, "file.txt");
    testlib_write(path, "here", 0644);
    char *real = plat_realpath(path);
    ck_assert_ptr_nonnull(real);
    bool absolute = on_windows() ? (real[0] && real[1] == ':') || real[0] == '\\' : real[0] == '/';
    ck_assert_msg(absolute, "'%s' is not absolute", real);
    char *text = testlib_read(real);
    ck_assert_str_eq(text, "here");
    char *missing = path_join(dir, "missing.txt");
    errno = 0;
    ck_assert_ptr_null(plat_realpath(missing));
    ck_assert_int_eq(errno, ENOENT);
    free(missing);
    free(text);
    free(real);
    free(path);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(mkdir_makes_a_directory_once)
{
    char *dir = testlib_tmpdir();
    char *sub = path_join(dir, "sub");
    ck_assert_int_eq(plat_mkdir(sub, 0755), 0);
    struct stat st;
    ck_assert_int_eq(stat(sub, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    errno = 0;
    ck_assert_int_eq(plat_mkdir(sub, 0755), -1);
    ck_assert_int_eq(errno, EEXIST);
    free(sub);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(a_lock_excludes_a_second_open_but_not_readers)
{
    char *dir = testlib_tmpdir();
    char *path = path_join(dir, "lock");
    int held = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ck_assert_int_ge(held, 0);
    ck_assert_int_eq(write(held, "4242\n", 5), 5);
    ck_assert_int_eq(plat_lock_try(held, path), 0);
    /* flock locks belong to an open file, LockFileEx locks to a handle: a second open
     * in this same process is refused on both systems. */
    int other = open(path, O_RDWR | O_CLOEXEC);
    ck_assert_int_ge(other, 0);
    errno = 0;
    ck_assert_int_eq(plat_lock_try(other, path), -1);
    ck_assert_int_eq(errno, EWOULDBLOCK);
    char pid[16] = "";
    ck_assert_int_eq(read(other, pid, sizeof(pid) - 1), 5);
    ck_assert_str_eq(pid, "4242\n");
    close(other);
    plat_lock_release(path, held);
    ck_assert(!exists(path));
    free(path);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(a_lock_is_never_taken_on_a_file_gone_from_its_path)
{
    char *dir = testlib_tmpdir();
    char *path = path_join(dir, "lock");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    ck_assert_int_ge(fd, 0);
    if (remove(path) == 0) {
        /* POSIX: the holder before us removed the file between our open and our lock,
         * and the next one made a new file there. */
        testlib_write(path, "", 0600);
        errno = 0;
        ck_assert_int_eq(plat_lock_try(fd, path), -1);
        ck_assert_int_eq(errno, ESTALE);
    } else {
        /* Windows: an open file cannot be removed, so the race cannot happen. */
        ck_assert_int_eq(plat_lock_try(fd, path), 0);
    }
    plat_lock_release(path, fd);
    ck_assert(!exists(path));
    free(path);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(a_scratch_file_reads_back_what_was_written)
{
    struct lb_error err;
    FILE *f = plat_scratch_file(&err);
    ck_assert_msg(f != NULL, "%s", err.msg);
    ck_assert_int_ge(fputs("scratch line\n", f), 0);
    rewind(f);
    char line[64] = "";
    ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
    ck_assert_str_eq(line, "scratch line\n");
    fclose(f);
}
END_TEST

START_TEST(run_program_gives_the_exit_status_and_output)
{
    char *dir = testlib_tmpdir();
    char *out = path_join(dir, "out.txt");
    char *const posix[] = {"/bin/sh", "-c", "echo hi; exit 3", NULL};
    char *const windows[] = {"cmd", "/c", "echo hi & exit /b 3", NULL};
    int status = -1;
    struct lb_error err;
    ck_assert_msg(plat_run_program(on_windows() ? windows : posix, dir, out, &status, &err) == 0,
                  "%s", err.msg);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 3);
    char *text = testlib_read(out);
    ck_assert_msg(strncmp(text, "hi", 2) == 0, "output '%s'", text);
    free(text);
    free(out);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(run_program_names_a_missing_program)
{
    char *dir = testlib_tmpdir();
    char *out = path_join(dir, "out.txt");
    char *const argv[] = {"loopbench-no-such-program", NULL};
    int status;
    struct lb_error err;
    errno = 0;
    ck_assert_int_eq(plat_run_program(argv, dir, out, &status, &err), -1);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_msg(strstr(err.msg, "loopbench-no-such-program") != NULL, "%s", err.msg);
    free(out);
    testlib_rmtree(dir);
    free(dir);
}
END_TEST

/* This test executable itself, run with ECHO_ARGS first, prints each argument after it
 * on a line of its own: what a program receives of the arguments it was given. */
#define ECHO_ARGS "--echo-args"

START_TEST(run_program_passes_arguments_unchanged)
{
    struct lb_error err;
    char *exe_dir = plat_exe_dir(&err);
    ck_assert_msg(exe_dir != NULL, "%s", err.msg);
    char *self = path_join(exe_dir, "check-platform");
    char *dir = testlib_tmpdir();
    char *out = path_join(dir, "args.txt");
    /* Blanks, quotes, backslashes before a quote and at the end, an empty argument. */
    char *const argv[] = {self, ECHO_ARGS, "a b", "c\"d", "e\\", "f\\\\\"g h", "", "\\\\srv\\x",
                          "tab\there", NULL};
    int status = -1;
    ck_assert_msg(plat_run_program(argv, dir, out, &status, &err) == 0, "%s", err.msg);
    ck_assert(WIFEXITED(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    char *text = testlib_read(out);
    drop_cr(text);
    char *want = xstrdup("");
    for (size_t i = 2; argv[i]; i++) {
        char *next = xasprintf("%s[%s]\n", want, argv[i]);
        free(want);
        want = next;
    }
    ck_assert_str_eq(text, want);
    free(want);
    free(text);
    free(out);
    testlib_rmtree(dir);
    free(dir);
    free(self);
    free(exe_dir);
}
END_TEST

/* A listening socket on 127.0.0.1 at a port the system picks; returns its port. */
#ifdef _WIN32
typedef SOCKET socket_t;
#define close_socket closesocket
#else
typedef int socket_t;
#define close_socket close
#endif

static int listen_local(socket_t *out)
{
#ifdef _WIN32
    WSADATA wsa; /* the test's own sockets need it; the back-end starts its own */
    ck_assert_int_eq(WSAStartup(MAKEWORD(2, 2), &wsa), 0);
#endif
    socket_t s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(s, 4), 0);
    ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &len), 0);
    *out = s;
    return ntohs(a.sin_port);
}

START_TEST(tcp_accepting_tells_an_open_port_from_a_closed_one)
{
    socket_t s;
    int port = listen_local(&s);
    ck_assert_int_eq(plat_tcp_accepting("127.0.0.1", port), 1);
    close_socket(s);
    ck_assert_int_eq(plat_tcp_accepting("127.0.0.1", port), 0);
#ifdef _WIN32
    WSACleanup();
#endif
}
END_TEST

START_TEST(self_usage_counts_cpu_and_memory)
{
    uint64_t end = mono_ns() + 50 * 1000000ULL;
    for (volatile unsigned long spin = 0; mono_ns() < end; spin++)
        ;
    struct plat_self_usage u;
    plat_self_usage(&u);
    ck_assert_uint_gt(u.cpu_ns, 0);
    ck_assert_uint_gt(u.max_rss_bytes, 0);
}
END_TEST

START_TEST(regular_expressions_match_or_are_refused_with_a_reason)
{
    struct plat_regex *re = NULL;
    struct lb_error err;
    int rc = plat_regex_compile("^ready [0-9]+$", &re, &err);
    if (on_windows()) {
        ck_assert_int_eq(rc, -1);
        ck_assert_msg(strstr(err.msg, "not available") != NULL, "%s", err.msg);
        return;
    }
    ck_assert_msg(rc == 0, "%s", err.msg);
    ck_assert(plat_regex_match(re, "ready 42"));
    ck_assert(!plat_regex_match(re, "ready x"));
    plat_regex_free(re);
}
END_TEST

START_TEST(host_facts_and_cpu_are_sane)
{
    struct plat_host_facts f;
    struct lb_error err;
    ck_assert_msg(plat_host_facts(&f, &err) == 0, "%s", err.msg);
    ck_assert_ptr_nonnull(f.os);
    ck_assert_int_gt(f.logical_cpus, 0);
    ck_assert_uint_gt(f.mem_total_bytes, 0);
    plat_host_facts_release(&f);
    struct plat_host_cpu a, b;
    ck_assert_msg(plat_host_cpu(&a, &err) == 0, "%s", err.msg);
    ck_assert_msg(plat_host_cpu(&b, &err) == 0, "%s", err.msg);
    ck_assert_uint_le(a.busy_ns, a.total_ns);
    ck_assert_uint_ge(b.total_ns, a.total_ns);
}
END_TEST

START_TEST(wait_until_sleeps_to_the_deadline)
{
    uint64_t start = mono_ns(), deadline = start + 30 * 1000000ULL;
    ck_assert_int_eq(plat_wait_until(deadline), PLAT_EVENT_TIMEOUT);
    ck_assert_uint_ge(mono_ns(), deadline);
    ck_assert_int_eq(plat_wait_until(0), PLAT_EVENT_TIMEOUT);
}
END_TEST

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], ECHO_ARGS) == 0) {
        for (int i = 2; i < argc; i++)
            printf("[%s]\n", argv[i]);
        return 0;
    }
    Suite *s = suite_create("platform");
    TCase *tc = tcase_create("platform");
    tcase_add_test(tc, replace_file_puts_the_new_content_under_the_old_name);
    tcase_add_test(tc, realpath_is_absolute_and_missing_files_are_enoent);
    tcase_add_test(tc, mkdir_makes_a_directory_once);
    tcase_add_test(tc, a_lock_excludes_a_second_open_but_not_readers);
    tcase_add_test(tc, a_lock_is_never_taken_on_a_file_gone_from_its_path);
    tcase_add_test(tc, a_scratch_file_reads_back_what_was_written);
    tcase_add_test(tc, run_program_gives_the_exit_status_and_output);
    tcase_add_test(tc, run_program_names_a_missing_program);
    tcase_add_test(tc, run_program_passes_arguments_unchanged);
    tcase_add_test(tc, tcp_accepting_tells_an_open_port_from_a_closed_one);
    tcase_add_test(tc, self_usage_counts_cpu_and_memory);
    tcase_add_test(tc, regular_expressions_match_or_are_refused_with_a_reason);
    tcase_add_test(tc, host_facts_and_cpu_are_sane);
    tcase_add_test(tc, wait_until_sleeps_to_the_deadline);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
