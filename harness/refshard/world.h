/* The synthetic world: timers on the wheel standing for a shard's items and mobiles (combat
 * swings, AI ticks, spawners, decay), each on its own cadence, each firing costing
 * work_per_timer_us of CPU. */
#ifndef REFSHARD_WORLD_H
#define REFSHARD_WORLD_H

#include <stddef.h>

#include "error.h"
#include "settings.h"
#include "wheel.h"

struct world {
    struct wheel_timer *timers; /* owned */
    size_t n_timers;
    long work_per_timer_us;
};

/* Create s->timers timers with cadences spread evenly over [timerMinMs, timerMaxMs] and first
 * firings spread over each cadence (deterministically: the same settings give the same
 * world), and arm them on w. */
int world_init(struct world *world, struct wheel *w, const struct settings *s,
               struct rs_error *err);
void world_release(struct world *world);

#endif
