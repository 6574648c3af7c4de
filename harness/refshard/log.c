#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static const char *const level_names[] = {"VRB", "DBG", "INF", "WRN", "ERR", "FTL"};

void log_line(enum log_level level, const char *source, const char *fmt, ...)
{
    if (level < LOG_VRB || level > LOG_FTL)
        return;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);

    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);

    /* One write and a flush per line: stdout is usually a file a harness polls, and it must
     * never see half a line or wait for a buffer to fill. */
    fprintf(stdout, "[%02d:%02d:%02d %s] %s <s:%s>\n", tm.tm_hour, tm.tm_min, tm.tm_sec,
            level_names[level], msg, source);
    fflush(stdout);
}
