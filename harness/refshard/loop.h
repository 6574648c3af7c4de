/* The event loop, shaped like ModernUO's Core.RunEventLoop.
 *
 * Each iteration reads the clock once, turns the wheel, handles ready sockets, wakes and
 * signals without blocking, and runs posted work. Then, only when idle -- no socket work left
 * over, nothing posted, no turn due -- it sleeps in the wait set for min(time to the next
 * tick, idle wait), re-reading the clock right before computing the wait. An idle wait of 0
 * never sleeps: the loop spins on a non-blocking look at the wait set.
 *
 * Every sleep is timed; one that returns a tick or more past what it asked for is a late
 * wake. Once a second the late wakes and sleeps of that second go to the backoff, which may
 * suspend sleeping (the loop then spins). Every loopStatsIntervalSeconds a wheel timer logs
 * the loop: line (see loopstats.h). */
#ifndef REFSHARD_LOOP_H
#define REFSHARD_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "backoff.h"
#include "error.h"
#include "loopstats.h"
#include "net.h"
#include "post.h"
#include "settings.h"
#include "waitset.h"
#include "wheel.h"

struct loop {
    struct waitset *ws;
    struct net *net;
    struct post_queue *posts;
    struct wheel wheel;
    struct backoff backoff;
    int idle_wait_ms;
    long work_per_tick_us;

    int64_t now_ms; /* the clock as read at the top of this iteration */
    bool slept;     /* the previous iteration slept */
    bool net_busy;  /* this iteration left socket work over */
    int signo;      /* a termination signal arrived */
    uint64_t iterations;
    uint64_t sleeps;

    /* The backoff's one-second sample. */
    int64_t next_sample_ms;
    long sample_late;
    long sample_sleeps;

    /* Reporting. */
    struct wheel_timer report_timer;
    int64_t report_min_window_ms;
    struct loopstats_totals reported;
};

/* A loop over ws, net and posts (borrowed), with the wheel's clock started now. idle_wait_ms
 * is the effective idle wait (0 after a failed calibration). */
void loop_init(struct loop *l, const struct settings *s, struct waitset *ws, struct net *net,
               struct post_queue *posts, int idle_wait_ms);
/* Log the loop: line every interval_s seconds from now on. */
void loop_start_reporting(struct loop *l, long interval_s);
/* Run until SIGTERM or SIGINT, whose number goes in *signo. */
int loop_run(struct loop *l, int *signo, struct rs_error *err);

#endif
