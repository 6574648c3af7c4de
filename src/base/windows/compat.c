/* The C library functions mingw-w64's CRT lacks (compat.h), for the Windows build. */
#include "compat.h"

#include <errno.h>
#include <stdio.h>

char *strsignal(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGHUP, "Hangup"},
        {SIGINT, "Interrupt"},
        {SIGQUIT, "Quit"},
        {SIGILL, "Illegal instruction"},
        {SIGFPE, "Floating point exception"},
        {SIGKILL, "Killed"},
        {SIGUSR1, "User defined signal 1"},
        {SIGSEGV, "Segmentation fault"},
        {SIGUSR2, "User defined signal 2"},
        {SIGPIPE, "Broken pipe"},
        {SIGTERM, "Terminated"},
        {SIGABRT, "Aborted"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].sig == sig)
            return (char *)names[i].name;
    static char other[32];
    snprintf(other, sizeof(other), "Signal %d", sig);
    return other;
}

int symlink(const char *target, const char *linkpath)
{
    (void)target;
    (void)linkpath;
    errno = ENOSYS;
    return -1;
}
