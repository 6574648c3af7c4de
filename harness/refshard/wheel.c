#include "wheel.h"

#include <string.h>

void wheel_init(struct wheel *w, int64_t now_ms)
{
    memset(w, 0, sizeof(*w));
    w->last_turned = now_ms;
}

/* A timer ticks turns away lands in the slot the cursor reaches after that many turns, and
 * waits there for the revolutions that pass it by first. */
static void arm(struct wheel *w, struct wheel_timer *t, uint64_t ticks)
{
    unsigned slot = (unsigned)((w->cursor + ticks) % WHEEL_SLOTS);
    t->rounds = (ticks - 1) / WHEEL_SLOTS;
    t->next = w->slots[slot];
    w->slots[slot] = t;
}

void wheel_add(struct wheel *w, struct wheel_timer *t, int64_t delay_ms)
{
    uint64_t ticks = delay_ms > 0 ? ((uint64_t)delay_ms + WHEEL_TICK_MS - 1) / WHEEL_TICK_MS : 1;
    arm(w, t, ticks);
}

static void turn(struct wheel *w)
{
    w->cursor = (w->cursor + 1) % WHEEL_SLOTS;
    /* Detach the slot first: a timer re-armed a whole revolution ahead lands in this same
     * slot and must not fire twice in one turn. */
    struct wheel_timer *t = w->slots[w->cursor];
    w->slots[w->cursor] = NULL;
    while (t) {
        struct wheel_timer *next = t->next;
        if (t->rounds > 0) {
            t->rounds--;
            t->next = w->slots[w->cursor];
            w->slots[w->cursor] = t;
        } else {
            wheel_add(w, t, t->interval_ms);
            t->fn(t, t->ctx);
        }
        t = next;
    }
}

unsigned wheel_slice(struct wheel *w, int64_t now_ms, bool slept)
{
    int64_t since = now_ms - w->last_turned;
    /* Arriving exactly one tick after the last turn is on time; only what is beyond it was
     * owed and not paid. */
    w->lag_last = since > WHEEL_TICK_MS ? since - WHEEL_TICK_MS : 0;
    if (w->lag_last > w->lag_peak)
        w->lag_peak = w->lag_last;

    unsigned turns = 0;
    while (since >= WHEEL_TICK_MS) {
        since -= WHEEL_TICK_MS;
        w->last_turned += WHEEL_TICK_MS;
        turn(w);
        turns++;
    }

    struct wheel_counters *c = &w->counters;
    c->turns += turns;
    if (turns >= 2) {
        c->skipped += turns - 1;
        c->missed8++;
    }
    if (turns >= 3) {
        c->missed16++;
        if (slept)
            c->sched++;
    }
    return turns;
}

int64_t wheel_ms_until_next_tick(const struct wheel *w, int64_t now_ms)
{
    return w->last_turned + WHEEL_TICK_MS - now_ms;
}

void wheel_reset_peak(struct wheel *w)
{
    w->lag_peak = 0;
}
