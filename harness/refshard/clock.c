#include "clock.h"

#include <time.h>

static int64_t read_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t clock_mono_ns(void)
{
    return read_ns(CLOCK_MONOTONIC);
}

uint64_t clock_cpu_ns(void)
{
    return (uint64_t)read_ns(CLOCK_PROCESS_CPUTIME_ID);
}

void clock_burn_us(long us)
{
    if (us <= 0)
        return;
    int64_t until = read_ns(CLOCK_THREAD_CPUTIME_ID) + (int64_t)us * 1000;
    while (read_ns(CLOCK_THREAD_CPUTIME_ID) < until)
        ;
}
