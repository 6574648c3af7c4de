/* What the core needs from POSIX and mingw-w64 lacks, for the Windows build.
 *
 * The POSIX sibling (src/base/posix/compat.h) only includes system headers; here
 * the few missing names are made, with Linux's values and encodings, so that the core,
 * results files and docs read the same on both systems. Windows has no signals between
 * processes: these numbers are only names the back-end maps to what Windows does
 * (console control events, job termination; see windows.c). */
#ifndef LOOPBENCH_COMPAT_H
#define LOOPBENCH_COMPAT_H

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* Signal numbers mingw-w64 does not define (it has SIGINT 2, SIGILL 4, SIGFPE 8,
 * SIGSEGV 11, SIGTERM 15 and SIGABRT 22), at Linux's values: profiles name them
 * ("stop": {"signal": "SIGQUIT"}) and wait statuses carry them. */
#ifndef SIGHUP
#define SIGHUP 1
#endif
#ifndef SIGQUIT
#define SIGQUIT 3
#endif
#ifndef SIGKILL
#define SIGKILL 9
#endif
#ifndef SIGUSR1
#define SIGUSR1 10
#endif
#ifndef SIGUSR2
#define SIGUSR2 12
#endif
#ifndef SIGPIPE
#define SIGPIPE 13
#endif

/* Wait statuses in Linux's encoding, which the back-end produces from exit codes: exit
 * code e is (e & 0xff) << 8, a process ended by "signal" s (terminated by loopbench:
 * SIGKILL; a crash: SIGSEGV, SIGILL, SIGFPE, SIGABRT; Ctrl+C: SIGINT) is s. */
#define WIFEXITED(s) (((s) & 0x7f) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s) & 0x7f) != 0 && ((s) & 0x7f) != 0x7f)
#define WTERMSIG(s) ((s) & 0x7f)
#define WCOREDUMP(s) ((s) & 0x80)

/* Every open() of the core says O_CLOEXEC, so on Windows it also says O_BINARY: in its
 * default text mode the CRT turns LF into CRLF and stops reading at a Ctrl+Z, so a
 * restored config would not be byte-identical, nor a log's offsets its file offsets.
 * O_NOINHERIT is the CRT's name for close-on-exec (the back-end passes targets an
 * explicit handle list anyway). */
#ifndef O_CLOEXEC
#define O_CLOEXEC (O_NOINHERIT | O_BINARY)
#endif

/* The core's links are POSIX ones (see lstat below): nothing to refuse to follow. */
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
/* Opening a FIFO does not block on Windows, which has none in its file system. */
#ifndef O_NONBLOCK
#define O_NONBLOCK 0
#endif

/* plat_lock_try's "the file left its path" (POSIX only: Windows cannot remove an open
 * file), at Linux's value; the CRT's errno.h has no such error. */
#ifndef ESTALE
#define ESTALE 116
#endif

/* The CRT's names for these. Its stat does not tell a link from its target, and the
 * core has no links to tell apart (only the tests ask), nor makes any (it makes one only
 * to put back a link plat_link_text found, and that finds none here): symlink() fails
 * with ENOSYS (compat.c), since Windows' links need a privilege or developer mode. */
#define fsync _commit
#define lstat stat
#define S_ISLNK(m) 0
int symlink(const char *target, const char *linkpath);

/* The name of a signal number ("Terminated", "Killed", else "Signal N"), as glibc's;
 * the CRT has none. */
char *strsignal(int sig);

/* mingw declares the _r forms only under _POSIX_C_SOURCE or
 * _POSIX_THREAD_SAFE_FUNCTIONS, which also change other parts of its headers; the CRT's
 * _s forms do the same with the arguments swapped. */
#ifndef _POSIX_THREAD_SAFE_FUNCTIONS
static inline struct tm *lb_localtime_r(const time_t *t, struct tm *out)
{
    return localtime_s(out, t) ? NULL : out;
}
static inline struct tm *lb_gmtime_r(const time_t *t, struct tm *out)
{
    return gmtime_s(out, t) ? NULL : out;
}
#define localtime_r lb_localtime_r
#define gmtime_r lb_gmtime_r
#endif

#endif
