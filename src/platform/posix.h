/* What the POSIX back-ends (linux.c, darwin.c) share beyond platform.h, from posix.c. */
#ifndef LOOPBENCH_PLATFORM_POSIX_H
#define LOOPBENCH_PLATFORM_POSIX_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "msg.h"

/* Clock ticks (sysconf(_SC_CLK_TCK) a second: /proc's, host_statistics') in ns. */
uint64_t posix_clock_ticks_ns(unsigned long long ticks);
/* user + system time of a rusage, in ns. */
uint64_t posix_rusage_ns(const struct rusage *ru);

/* Move a new descriptor above 0, 1 and 2 (closing the old one), so a child's dup2 onto
 * the standard descriptors cannot clobber it when loopbench started with one closed.
 * A negative fd is passed through. */
int posix_fd_high(int fd);
/* Create or truncate an output file for a target (NULL: /dev/null), close-on-exec and
 * above the standard descriptors; -1 with err naming it. */
int posix_open_output(const char *path, struct lb_error *err);

/* Look file up as execvp does, but in envp's PATH (a target's, not loopbench's): call
 * attempt with file itself when it has a slash, else with each PATH entry joined to it
 * (an empty entry is the current directory), until one returns 0. attempt returns 0 or
 * an errno. Returns 0, or the errno that describes the failure best (EACCES over
 * ENOENT). Async-signal-safe, for a child between fork and exec. */
int posix_path_try(const char *file, char *const *envp,
                   int (*attempt)(const char *path, void *ctx), void *ctx);

/* The body of a busy process of plat_hogs_start (posix.c), in the forked child: spin
 * until killed, and not outlive loopbench (each back-end has its own way). */
_Noreturn void posix_hog_run(pid_t parent);

#endif
