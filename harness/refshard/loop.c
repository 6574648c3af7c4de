#include "loop.h"

#include "clock.h"
#include "log.h"

#define HEALTH_SAMPLE_MS 1000
#define LOOP_EVENTS 64

void loop_init(struct loop *l, const struct settings *s, struct waitset *ws, struct net *net,
               struct post_queue *posts, int idle_wait_ms)
{
    *l = (struct loop){
        .ws = ws,
        .net = net,
        .posts = posts,
        .idle_wait_ms = idle_wait_ms,
        .work_per_tick_us = s->work_per_tick_us,
        .now_ms = clock_mono_ns() / NS_PER_MS,
    };
    wheel_init(&l->wheel, l->now_ms);
    backoff_init(&l->backoff, s->late_wake_threshold, s->late_wake_percent);
    l->next_sample_ms = l->now_ms + HEALTH_SAMPLE_MS;
}

static void snapshot(const struct loop *l, struct loopstats_totals *t)
{
    *t = (struct loopstats_totals){
        .mono_ms = l->now_ms,
        .cpu_ns = clock_cpu_ns(),
        .wheel = l->wheel.counters,
        .iterations = l->iterations,
        .sleeps = l->sleeps,
        .wakes = atomic_load(&l->posts->wakes),
        .elided = l->posts->elided,
        .backoffs = l->backoff.total,
    };
}

/* The reporter is itself a wheel timer, so after a stall it comes due once per interval the
 * wheel then catches up on, all in the same millisecond. The first report describes the
 * stall; the rest would cover no time, and are dropped. */
static void report(struct wheel_timer *t, void *ctx)
{
    struct loop *l = ctx;
    (void)t;
    if (l->now_ms - l->reported.mono_ms < l->report_min_window_ms)
        return;

    struct loopstats_totals now;
    snapshot(l, &now);
    struct loopstats_now state = {
        .lag_peak_ms = l->wheel.lag_peak,
        .suspended = backoff_suspended(&l->backoff, l->now_ms),
        .idle_wait_ms = l->idle_wait_ms,
    };
    char line[512];
    loopstats_format(line, sizeof(line), &l->reported, &now, &state);
    log_line(LOG_INF, LOG_SRC_LOOPSTATS, "%s", line);
    l->reported = now;
    wheel_reset_peak(&l->wheel);
}

void loop_start_reporting(struct loop *l, long interval_s)
{
    int64_t interval_ms = (int64_t)interval_s * 1000;
    l->report_min_window_ms = interval_ms * 3 / 4;
    l->report_timer = (struct wheel_timer){.fn = report, .ctx = l, .interval_ms = interval_ms};
    l->now_ms = clock_mono_ns() / NS_PER_MS;
    snapshot(l, &l->reported);
    wheel_reset_peak(&l->wheel);
    wheel_add(&l->wheel, &l->report_timer, interval_ms);
    log_line(LOG_INF, LOG_SRC_LOOPSTATS, "loop stats: reporting every %lds (idleWait=%dms)",
             interval_s, l->idle_wait_ms);
}

static void log_backoff(const struct loop *l, const struct backoff_step *step)
{
    if (step->level == LOG_NONE)
        return;
    if (step->action == BACKOFF_CLEAR) {
        log_line(step->level, LOG_SRC_CORE,
                 "This host has returned idle waits on time for %dms; idle sleeping is back to "
                 "normal",
                 BACKOFF_CLEAN_MS);
    } else if (step->level == LOG_ERR) {
        log_line(LOG_ERR, LOG_SRC_CORE,
                 "This host keeps returning idle waits late and idle sleeping has backed off "
                 "%llu times: the process is not being scheduled promptly, as is typical of "
                 "shared or burstable vCPUs. Set server.eventLoopIdleWaitMs=0 to stop sleeping "
                 "for good, trading a full core for timer accuracy",
                 (unsigned long long)l->backoff.total);
    } else {
        log_line(step->level, LOG_SRC_CORE,
                 "This host returned a %dms idle wait at least %dms late %ld of %ld time(s) in "
                 "the last second (backoff %u in a row); idle sleeping suspended for %lldms",
                 l->idle_wait_ms, WHEEL_TICK_MS, l->sample_late, l->sample_sleeps, step->streak,
                 (long long)step->duration_ms);
    }
}

static void sample_health(struct loop *l)
{
    if (l->now_ms < l->next_sample_ms)
        return;
    l->next_sample_ms = l->now_ms + HEALTH_SAMPLE_MS;
    struct backoff_step step =
        backoff_sample(&l->backoff, l->now_ms, l->sample_late, l->sample_sleeps);
    log_backoff(l, &step);
    l->sample_late = 0;
    l->sample_sleeps = 0;
}

static void dispatch(struct loop *l, const struct waitset_event *ev, int n)
{
    for (int i = 0; i < n; i++) {
        switch (ev[i].kind) {
        case WAITSET_FD:
            if (net_handle(l->net, ev[i].tag, ev[i].flags))
                l->net_busy = true;
            break;
        case WAITSET_WAKE:
            post_woken(l->posts);
            break;
        case WAITSET_SIGNAL:
            l->signo = ev[i].signo;
            break;
        }
    }
}

static bool idle(struct loop *l)
{
    return l->idle_wait_ms > 0 && !backoff_suspended(&l->backoff, l->now_ms) && !l->net_busy &&
           post_empty(l->posts);
}

/* Block for min(time to the next tick, idle wait) and time it. */
static int sleep_idle(struct loop *l, struct waitset_event *ev, struct rs_error *err)
{
    /* Re-read the clock: the iteration has consumed real time, and a stale timestamp would
     * overstate what is left before the next tick, sleep past it and manufacture the very lag
     * the bound exists to prevent. */
    int64_t start = clock_mono_ns();
    int64_t due = wheel_ms_until_next_tick(&l->wheel, start / NS_PER_MS);
    if (due <= 0)
        return 0;
    int wait_ms = due < l->idle_wait_ms ? (int)due : l->idle_wait_ms;

    l->sleeps++;
    l->sample_sleeps++;
    l->slept = true;
    int n = waitset_wait(l->ws, wait_ms, ev, LOOP_EVENTS, err);
    if (n < 0)
        return -1;
    if (clock_mono_ns() - start >= (wait_ms + WHEEL_TICK_MS) * NS_PER_MS)
        l->sample_late++;
    dispatch(l, ev, n);
    return 0;
}

int loop_run(struct loop *l, int *signo, struct rs_error *err)
{
    struct waitset_event ev[LOOP_EVENTS];
    while (!l->signo) {
        l->now_ms = clock_mono_ns() / NS_PER_MS;
        unsigned turns = wheel_slice(&l->wheel, l->now_ms, l->slept);
        l->slept = false;
        clock_burn_us(l->work_per_tick_us * (long)turns);

        l->net_busy = false;
        int n = waitset_wait(l->ws, 0, ev, LOOP_EVENTS, err);
        if (n < 0)
            return -1;
        dispatch(l, ev, n);
        post_run(l->posts);

        l->iterations++;
        sample_health(l);
        if (!l->signo && idle(l) && sleep_idle(l, ev, err) < 0)
            return -1;
    }
    *signo = l->signo;
    return 0;
}
