#include "world.h"

#include <stdlib.h>

#include "clock.h"

static void timer_fire(struct wheel_timer *t, void *ctx)
{
    const struct world *world = ctx;
    (void)t;
    clock_burn_us(world->work_per_timer_us);
}

int world_init(struct world *world, struct wheel *w, const struct settings *s, struct rs_error *err)
{
    *world =
        (struct world){.n_timers = (size_t)s->timers, .work_per_timer_us = s->work_per_timer_us};
    if (world->n_timers == 0)
        return 0;
    world->timers = calloc(world->n_timers, sizeof(*world->timers));
    if (!world->timers)
        return rs_fail(err, "out of memory creating %zu timers", world->n_timers);

    int64_t span = s->timer_max_ms - s->timer_min_ms;
    for (size_t i = 0; i < world->n_timers; i++) {
        struct wheel_timer *t = &world->timers[i];
        t->fn = timer_fire;
        t->ctx = world;
        t->interval_ms = s->timer_min_ms;
        if (world->n_timers > 1)
            t->interval_ms += span * (int64_t)i / (int64_t)(world->n_timers - 1);
        /* A multiplicative hash for the phase: timers that all started at once would fire
         * in lockstep, which no world does. */
        uint64_t phase = ((uint64_t)i * 2654435761u) % (uint64_t)t->interval_ms;
        wheel_add(w, t, (int64_t)phase + 1);
    }
    return 0;
}

void world_release(struct world *world)
{
    free(world->timers);
    world->timers = NULL;
    world->n_timers = 0;
}
