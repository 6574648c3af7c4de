/* The monotonic condition variable where POSIX's clock attribute exists (Linux): the condition
 * variable itself times its waits on CLOCK_MONOTONIC, so the deadline is passed as it is. */
#include "monocond.h"

int monocond_init(pthread_cond_t *cond)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

int monocond_wait_until(pthread_cond_t *cond, pthread_mutex_t *lock,
                        const struct timespec *deadline)
{
    return pthread_cond_timedwait(cond, lock, deadline);
}
