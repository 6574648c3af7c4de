/* Files through the platform (platform.h): atomic replacement, mkdir -p and lock files.
 * Above base/ (util.h), which calls nothing of the platform; the back-ends, below it,
 * call nothing of it. */
#ifndef LOOPBENCH_FILES_H
#define LOOPBENCH_FILES_H

#include <stddef.h>

#include "msg.h"

/* Replace path atomically: temp file in the same directory, fsync, rename, fsync dir.
 * mode is applied to the new file. */
int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode,
                      struct lb_error *err);
/* Write a new file at path, with mode, synced (and its directory): never over a file
 * that exists, nor through a link at path. 1 when path is taken (nothing written). */
int write_file_new(const char *path, const void *data, size_t len, unsigned mode,
                   struct lb_error *err);
/* Make path the symbolic link text in one step, whatever is there now: a link at a
 * fresh name beside it (as write_file_atomic's), renamed over it. */
int link_atomic(const char *path, const char *text, struct lb_error *err);
/* mkdir -p. */
int mkdir_p(const char *path, unsigned mode, struct lb_error *err);

/* A file made elsewhere (a campaign's results.json and series.csv, a report to publish, a
 * config and journal a target could have replaced), read whole (new buffer, NUL-terminated):
 * never through a symbolic link at path, only a regular file (a FIFO, a socket or a device
 * is refused, without waiting on it), and at most cap bytes. -1 with err naming the file
 * and, for one too large, `what` it was expected to be and the cap; errno is ENOENT when
 * there is no such file. */
int read_file_bounded(const char *path, const char *what, size_t cap, char **data, size_t *len,
                      struct lb_error *err);
/* The most one process reads back of campaigns (read_back_file): what report, compare,
 * history and pool read in all, however many directories they are given. */
#define READ_BACK_TOTAL_MAX (256ULL << 20)
/* read_file_bounded of a campaign's file, counted against READ_BACK_TOTAL_MAX: a file that
 * would take this process past it is refused before it is read, saying so. */
int read_back_file(const char *path, const char *what, size_t cap, char **data, size_t *len,
                   struct lb_error *err);

/* Take an exclusive advisory lock (flock) on the lock file at path, created with mode
 * 0600 and holding this process's id, without waiting: the kernel drops it when the
 * process dies, however it dies. Returns the descriptor to pass to lock_drop, or -1
 * with err saying "WHAT is in use by another loopbench (pid N)". */
int lock_take(const char *path, const char *what, struct lb_error *err);
/* Remove the lock file and release the lock. */
void lock_drop(const char *path, int fd);

#endif
