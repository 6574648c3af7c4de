#include "endpoint.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform/platform.h"
#include "util.h"

struct endpoint_window {
    const struct metrics_endpoint *ep;
    uint64_t interval_ns;
    struct metrics_snapshot start;
    struct metrics_series series;
    /* The tally, written by whichever thread scrapes (one at a time: the opener, then
     * the poller until joined, then the closer). */
    struct endpoint_result tally;
    bool started;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
};

/* One scrape into snap, counted in the tally; false when it failed. */
static bool scrape(struct endpoint_window *w, struct metrics_snapshot *snap)
{
    struct lb_error err;
    w->tally.scrapes++;
    if (metrics_scrape(w->ep, snap, &err) < 0) {
        w->tally.failed_scrapes++;
        if (!w->tally.error)
            w->tally.error = xstrdup(err.msg);
        return false;
    }
    w->tally.skipped_lines += snap->skipped_lines;
    w->tally.duplicates += snap->duplicates;
    w->tally.fetch_ms_max = fmax(w->tally.fetch_ms_max, (double)snap->fetch_ns / 1e6);
    return true;
}

static void *poll_loop(void *arg)
{
    struct endpoint_window *w = arg;
    uint64_t next = mono_ns() + w->interval_ns;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        struct timespec at = {(time_t)(next / NS_PER_SEC), (long)(next % NS_PER_SEC)};
        if (pthread_cond_timedwait(&w->wake, &w->lock, &at) == 0 || w->stop ||
            mono_ns() < next)
            continue;
        pthread_mutex_unlock(&w->lock);
        struct metrics_snapshot snap;
        if (scrape(w, &snap))
            metrics_series_add(&w->series, &snap);
        metrics_snapshot_release(&snap);
        /* On a fixed grid: a slow scrape delays the next one, it does not shift them. */
        uint64_t now = mono_ns();
        while (next <= now)
            next += w->interval_ns;
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

struct endpoint_window *endpoint_window_open(const struct metrics_endpoint *ep,
                                             uint64_t interval_ns)
{
    struct endpoint_window *w = xcalloc(1, sizeof(*w));
    w->ep = ep;
    w->interval_ns = interval_ns;
    metrics_series_init(&w->series, ep->n_select);
    scrape(w, &w->start);
    if (interval_ns == 0)
        return w;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&w->lock, NULL);
    w->started = plat_thread_start(&w->thread, poll_loop, w) == 0;
    if (!w->started) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
    }
    return w;
}

void endpoint_window_close(struct endpoint_window *w, struct endpoint_result *out)
{
    if (w->started) {
        pthread_mutex_lock(&w->lock);
        w->stop = true;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
    }
    struct metrics_snapshot end;
    bool ended = scrape(w, &end);
    *out = w->tally;
    size_t n = w->ep->n_select;
    out->n = n;
    out->values = xcalloc(n ? n : 1, sizeof(*out->values));
    out->missing = xcalloc(n ? n : 1, sizeof(*out->missing));
    if (ended && w->start.n == n) {
        metrics_window(&w->start, &end, &w->series, out->values);
        for (size_t i = 0; i < n; i++)
            if (!end.values[i].found)
                out->missing[i] = metrics_miss_text(w->ep, &end, i);
    }
    metrics_snapshot_release(&end);
    metrics_snapshot_release(&w->start);
    metrics_series_release(&w->series);
    free(w);
}

