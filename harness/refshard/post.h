/* Work posted to the loop: simulated async continuations, like ModernUO's LoopContext.Post.
 *
 * Any thread may post. A post from another thread wakes a sleeping loop through the wait set
 * (counted in `wakes`); the wake is sticky, so posts that find one already pending do not
 * issue another. A post from the loop thread itself needs no wake -- the loop looks at the
 * queue before it sleeps -- so it is elided and counted in `elided`. */
#ifndef REFSHARD_POST_H
#define REFSHARD_POST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "waitset.h"

struct post_queue {
    struct waitset *ws;
    pthread_t loop_thread;
    atomic_ulong remote;      /* posted off the loop, not yet run */
    atomic_bool wake_pending; /* a wake was issued and the loop has not seen it yet */
    atomic_ulong wakes;       /* wakes issued */
    unsigned long local;      /* loop thread only: posted on the loop, not yet run */
    unsigned long elided;     /* loop thread only */
};

/* The calling thread becomes the loop thread. */
void post_init(struct post_queue *q, struct waitset *ws);
/* Post one continuation. Any thread. */
void post_submit(struct post_queue *q);
/* Loop thread: the wait set reported the wake; re-arm it. */
void post_woken(struct post_queue *q);
/* Loop thread: run what is queued. A continuation that came from another thread resumes on
 * the loop and queues its own follow-up there (an elided post), as an await chain does. */
void post_run(struct post_queue *q);
/* Loop thread: nothing queued. */
bool post_empty(struct post_queue *q);

#endif
