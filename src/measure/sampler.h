/* The sample window: CPU of a target's process tree between two instants, plus a
 * time series at a fixed interval.
 *
 * The window's total is read at its edges, not summed from the series, so the
 * interval changes nothing but the series. The loop between the edges is the hot path
 * of a measurement: it does not allocate, log or wake more often than the interval. */
#ifndef LOOPBENCH_SAMPLER_H
#define LOOPBENCH_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "platform/platform.h"
#include "window.h"

/* A window whose CPU delta is under this many units of the source's resolution is
 * flagged unreliable: the figure is mostly quantisation. */
#define SAMPLER_RESOLUTION_GUARD 5

struct series_point {
    double t_s;              /* seconds since the window started */
    double cpu_percent;      /* of one core, over the preceding interval */
    uint64_t rss_bytes;
    double voluntary_per_s;  /* voluntary context switches per second: the wake-up rate */
    double involuntary_per_s;
    double steal_percent;    /* host steal over the interval, % of all CPU time */
};

/* Called once per interval from the sampling loop (e.g. to redraw a progress line);
 * must not allocate. done is 0..1. */
typedef void (*sampler_tick_fn)(void *ctx, double done);

struct sampler_opts {
    uint64_t window_ns;
    uint64_t interval_ns;
    struct series_point *points; /* caller-allocated, capacity sampler_points_needed() */
    size_t points_cap;
    sampler_tick_fn on_tick;     /* may be NULL */
    void *tick_ctx;
    /* Called at each point after every target's was taken (opts[0]'s, with the results
     * so far); true ends every window as SAMPLE_ABANDONED. Must not allocate. NULL: never. */
    bool (*abandon)(void *ctx, const struct sample_result *so_far, size_t n);
    void *abandon_ctx;
    /* Rotation inside the window (run --rotate): every rotate_ns (opts[0]'s; 0: never)
     * the target's whole tree moves to the next of the n_slices CPU sets of slices
     * (at most SAMPLER_MAX_TARGETS), from slices[slice], where it is put as the window
     * opens. A swap wakes the loop but takes no point. */
    uint64_t rotate_ns;
    const struct cpuset *slices;
    size_t n_slices, slice;
};

size_t sampler_points_needed(uint64_t window_ns, uint64_t interval_ns);

/* Measure one window on t. Returns 0 with r->end saying how it ended (a target exit
 * or an interrupt is not an error: the partial window is still described), -1 on a
 * failure to read the CPU source. */
int sampler_run(struct plat_target *t, const struct sampler_opts *opts,
                struct sample_result *r, struct lb_error *err);

/* The most points of a window that its steadiness check reads (the first ones). */
#define SAMPLER_MAX_POINTS_CHECKED 4096


/* One window over n targets at once (n <= SAMPLER_MAX_TARGETS), opts[i] and r[i] target
 * i's, the window's length and interval opts[0]'s: each is read at the same edges and
 * points as the others, one after the other. A target that exits, or an interrupt, ends
 * its window (an interrupt every one's); the others go on to the end. */
int sampler_run_many(struct plat_target *const *t, size_t n, const struct sampler_opts *opts,
                     struct sample_result *r, struct lb_error *err);

#endif
