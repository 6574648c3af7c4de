#include "msg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"

static int quiet;

int lb_exit_for_signal(int sig)
{
    switch (sig) {
    case SIGHUP:
        return LB_EXIT_SIGHUP;
    case SIGINT:
        return LB_EXIT_SIGINT;
    case SIGTERM:
        return LB_EXIT_SIGTERM;
    default:
        return LB_EXIT_FAILURE;
    }
}

static void vfill(struct lb_error *err, const char *fmt, va_list ap)
{
    if (err)
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int lb_fail(struct lb_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfill(err, fmt, ap);
    va_end(ap);
    return -1;
}

int lb_fail_errno(struct lb_error *err, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfill(err, fmt, ap);
    va_end(ap);
    if (err) {
        size_t len = strlen(err->msg);
        snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(errnum));
    }
    return -1;
}

static void vmsg(const char *level, const char *fmt, va_list ap)
{
    fputs("loopbench: ", stderr);
    if (level)
        fputs(level, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void msg_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(NULL, fmt, ap);
    va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg("warning: ", fmt, ap);
    va_end(ap);
}

void msg_info(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vmsg(NULL, fmt, ap);
    va_end(ap);
}

int msg_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(NULL, fmt, ap);
    va_end(ap);
    if (cmd)
        fprintf(stderr, "try 'loopbench %s --help'\n", cmd);
    else
        fputs("try 'loopbench --help'\n", stderr);
    return LB_EXIT_USAGE;
}

void msg_set_quiet(int q)
{
    quiet = q;
}

int msg_quiet(void)
{
    return quiet;
}

int msg_color(void)
{
    const char *no_color = getenv("NO_COLOR");
    if (no_color && *no_color)
        return 0;
    return isatty(STDERR_FILENO);
}
