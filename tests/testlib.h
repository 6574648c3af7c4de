/* Shared fixtures for the unit tests. */
#ifndef LOOPBENCH_TESTLIB_H
#define LOOPBENCH_TESTLIB_H

#include <stddef.h>
#include <stdio.h>

/* One directory per test executable, made in the parent before the tests fork and
 * removed after them (a Check unchecked fixture), so a failing test leaves nothing
 * behind; TESTS_DATA is made absolute before any test changes directory. */
void testlib_root_make(void);
void testlib_root_remove(void);
/* A fresh directory for one test under the root, made the current one; returns its
 * real path (static storage, valid until the next call). */
const char *testlib_case_dir(void);
/* The tests' data directory (tests/data), absolute. */
const char *testlib_data(void);

/* Run every test of s (Check forks each); the exit status for main(). */
struct Suite;
int testlib_run(struct Suite *s);

/* A fresh temporary directory (new string); testlib_rmtree removes it and its content. */
char *testlib_tmpdir(void);
void testlib_rmtree(const char *path);
/* Write a file with the given text and mode; fails the test on error. */
void testlib_write(const char *path, const char *text, unsigned mode);
/* The permission bits a file made with mode ends up with on this file system (all of
 * them on POSIX; Windows keeps only read-only). */
unsigned testlib_mode_kept(unsigned mode);
/* Read a whole file (new string). */
char *testlib_read(const char *path);
/* A stream whose text testlib_captured returns (new string) and closes it: what
 * open_memstream does, which Windows lacks. */
FILE *testlib_capture(void);
char *testlib_captured(FILE *f);

#endif
