#include "post.h"

void post_init(struct post_queue *q, struct waitset *ws)
{
    q->ws = ws;
    q->loop_thread = pthread_self();
    atomic_init(&q->remote, 0);
    atomic_init(&q->wake_pending, false);
    atomic_init(&q->wakes, 0);
    q->local = 0;
    q->elided = 0;
}

void post_submit(struct post_queue *q)
{
    if (pthread_equal(pthread_self(), q->loop_thread)) {
        q->local++;
        q->elided++;
        return;
    }
    /* Queue before looking at the wake: the loop re-arms the wake before it empties the
     * queue, so either it sees this post or this post sees the wake re-armed. */
    atomic_fetch_add(&q->remote, 1);
    if (!atomic_exchange(&q->wake_pending, true)) {
        atomic_fetch_add(&q->wakes, 1);
        waitset_wake(q->ws);
    }
}

void post_woken(struct post_queue *q)
{
    atomic_store(&q->wake_pending, false);
}

void post_run(struct post_queue *q)
{
    unsigned long remote = atomic_exchange(&q->remote, 0);
    q->local = 0;
    for (unsigned long i = 0; i < remote; i++)
        post_submit(q);
}

bool post_empty(struct post_queue *q)
{
    return q->local == 0 && atomic_load(&q->remote) == 0;
}
