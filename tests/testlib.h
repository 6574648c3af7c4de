/* Shared fixtures for the unit tests. */
#ifndef LOOPBENCH_TESTLIB_H
#define LOOPBENCH_TESTLIB_H

#include <stddef.h>

/* A fresh temporary directory (new string); testlib_rmtree removes it and its content. */
char *testlib_tmpdir(void);
void testlib_rmtree(const char *path);
/* Write a file with the given text (and mode); aborts the test on failure. */
void testlib_write(const char *path, const char *text, unsigned mode);
/* Read a whole file (new string). */
char *testlib_read(const char *path);

#endif
