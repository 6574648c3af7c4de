#include "worker.h"

#include <errno.h>
#include <time.h>

#include "monocond.h"

static void add_ns(struct timespec *ts, long ns)
{
    ts->tv_nsec += ns;
    while (ts->tv_nsec >= 1000000000L) {
        ts->tv_nsec -= 1000000000L;
        ts->tv_sec++;
    }
}

static void *run(void *arg)
{
    struct worker *w = arg;
    long period_ns = 1000000000L / w->per_second;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);

    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        /* Absolute deadlines, so the rate does not drift by the time each post takes. */
        add_ns(&next, period_ns);
        while (!w->stop && monocond_wait_until(&w->cond, &w->lock, &next) != ETIMEDOUT)
            ;
        if (w->stop)
            break;
        pthread_mutex_unlock(&w->lock);
        post_submit(w->q);
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int worker_start(struct worker *w, struct post_queue *q, long per_second, struct rs_error *err)
{
    w->stop = false;
    w->per_second = per_second;
    w->q = q;

    int rc = monocond_init(&w->cond);
    if (rc != 0)
        return rs_fail_errno(err, rc, "cannot create the worker's condition variable");
    pthread_mutex_init(&w->lock, NULL);

    rc = pthread_create(&w->thread, NULL, run, w);
    if (rc != 0) {
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        return rs_fail_errno(err, rc, "cannot start the worker thread");
    }
    return 0;
}

void worker_stop(struct worker *w)
{
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
}
