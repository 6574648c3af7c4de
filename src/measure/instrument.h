/* What a run measures beside its target's CPU, window by window: round trips, the metrics
 * endpoint, the host's CPU counters, the packages' energy, a duet's rotation. Each is one
 * window instrument (this contract) in a file of its own, listed in instrument.c's table;
 * sample_window (run.c) opens every one for each target before the window, reads them at
 * its edges, and closes them after it, their figures recorded into the run. Nothing of
 * theirs runs inside the sampling loop: what reads on a tick reads on its own thread
 * (round trips, the endpoint) or is the sampler's (rotation). */
#ifndef LOOPBENCH_INSTRUMENT_H
#define LOOPBENCH_INSTRUMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"
#include "cpuset.h"
#include "msg.h"
#include "profile.h"
#include "sampler.h"

/* One target of a window, as the instruments see it. */
struct window_target {
    struct run_record *r;
    const struct profile *prof;
    const struct cpuset *cpus;       /* pinned to; NULL: any */
    struct sampler_opts *so;         /* its sampler's options, set before the window */
    const struct sample_result *res; /* the sampler's figures, once the window is over */
};

/* One window of one target, or of a duet's targets at once. */
struct window {
    const struct campaign *c;
    struct window_target t[SAMPLER_MAX_TARGETS];
    size_t k;                    /* targets in it */
    const struct cpuset *watch;  /* the CPUs whose counters are read; NULL: none */
    bool pin_self;               /* loopbench on CPUs of its own, not the targets' */
    const struct cpuset *slices; /* a duet's CPU sets, campaign_spec_duet_width of them */
};

struct window_instrument {
    /* Before the campaign's first window: say in c what it cannot measure on this host
     * (the report's footnote reads it there), and take any reference it needs. NULL:
     * nothing to say. -1 with err when the campaign cannot go on. */
    int (*begin)(struct campaign *c, struct lb_error *err);
    /* Before the window, for target j: set up what it reads into *state (NULL: nothing
     * to read of it). -1 with err when the run cannot be measured as asked: it fails. */
    int (*open)(struct window *w, size_t j, void **state, struct lb_error *err);
    /* At the window's edges: end false right before the sampler starts, true right after
     * it ended (not called when it failed). NULL: it reads at neither. */
    void (*edge)(struct window *w, size_t j, void *state, bool end);
    /* After the window: with keep, its figures into w->t[j].r; state freed either way. */
    void (*close)(struct window *w, size_t j, void *state, bool keep);
};

/* The most instruments the table may hold. */
#define WINDOW_INSTRUMENTS_MAX 8

/* The table: in the order they open and are recorded (and read at the end edge in
 * reverse, so the one read last before the sampler is read first after it). */
extern const struct window_instrument *const window_instruments[];
extern const size_t n_window_instruments;

#endif
