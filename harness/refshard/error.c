#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rs_fail(struct rs_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return -1;
}

int rs_fail_errno(struct rs_error *err, int errnum, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    size_t len = strlen(err->msg);
    snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(errnum));
    return -1;
}
