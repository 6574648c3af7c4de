/* The worker thread: posts work to the loop at a steady rate, standing for the async I/O
 * completions (database, HTTP, file) whose continuations a real shard resumes on its loop. */
#ifndef REFSHARD_WORKER_H
#define REFSHARD_WORKER_H

#include <pthread.h>
#include <stdbool.h>

#include "error.h"
#include "post.h"

struct worker {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* a monocond (monocond.h): waits time out on the monotonic clock */
    bool stop;
    long per_second;
    struct post_queue *q;
};

/* Start posting to q per_second times a second (> 0). */
int worker_start(struct worker *w, struct post_queue *q, long per_second, struct rs_error *err);
/* Stop the thread at once (it may be between posts) and join it. */
void worker_stop(struct worker *w);

#endif
