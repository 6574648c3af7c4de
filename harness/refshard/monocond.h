/* A condition variable whose timed waits run on the monotonic clock, so that a wall-clock step
 * neither stalls nor floods a waiter. How a condition variable is tied to that clock differs by
 * platform: each brings its own sibling (monocond_posix.c, monocond_darwin.c), picked by meson
 * from host_machine.system(), as the wait set is. */
#ifndef REFSHARD_MONOCOND_H
#define REFSHARD_MONOCOND_H

#include <pthread.h>
#include <time.h>

/* Initialise cond; returns 0 or an errno value. Destroy it with pthread_cond_destroy(). */
int monocond_init(pthread_cond_t *cond);
/* With lock held, wait on cond until signalled or until deadline, a CLOCK_MONOTONIC time.
 * Returns ETIMEDOUT once the deadline has passed, otherwise 0 (signalled, or woken early for
 * no reason: check the condition and wait again). */
int monocond_wait_until(pthread_cond_t *cond, pthread_mutex_t *lock,
                        const struct timespec *deadline);

#endif
