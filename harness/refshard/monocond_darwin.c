/* The monotonic condition variable on macOS, which has no pthread_condattr_setclock: an absolute
 * wait there runs on the wall clock, so the wait is made relative, for the time left to the
 * deadline. Written against Apple's pthread headers; not built on Linux. */
#include "monocond.h"

#include <errno.h>
#include <stdint.h>

#define NS_PER_S 1000000000LL

int monocond_init(pthread_cond_t *cond)
{
    return pthread_cond_init(cond, NULL);
}

int monocond_wait_until(pthread_cond_t *cond, pthread_mutex_t *lock,
                        const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t left_ns =
        (int64_t)(deadline->tv_sec - now.tv_sec) * NS_PER_S + (deadline->tv_nsec - now.tv_nsec);
    if (left_ns <= 0)
        return ETIMEDOUT;
    struct timespec left = {.tv_sec = (time_t)(left_ns / NS_PER_S),
                            .tv_nsec = (long)(left_ns % NS_PER_S)};
    return pthread_cond_timedwait_relative_np(cond, lock, &left);
}
