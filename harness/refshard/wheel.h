/* The timer wheel: one slot per 8 ms tick, turned by the loop from the timestamps it is fed.
 *
 * Pure arithmetic over the caller's timestamps (milliseconds of a monotonic clock), so every
 * counter is unit-tested without a clock. The counters are those of ModernUO's wheel:
 *   turns     slots turned;
 *   skipped   turns beyond the first in one pass (slots that came due while the loop was
 *             elsewhere), the "S" of slots=S/T;
 *   missed8   passes with 2+ turns: a slot fired 8-15 ms late;
 *   missed16  passes with 3+ turns: a slot fired 16 ms late or worse;
 *   sched     missed16 passes that followed a sleep, the scheduler's share;
 * and the lag of a pass: how far past one tick since the last turn it came, in ms.
 * They only grow, so each reader differences its own samples; the peak lag is the one
 * value a reader resets. */
#ifndef REFSHARD_WHEEL_H
#define REFSHARD_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

#define WHEEL_TICK_MS 8
#define WHEEL_SLOTS 512 /* 4.1 s per revolution; longer delays wait out whole rounds */

struct wheel_timer;
typedef void (*wheel_fn)(struct wheel_timer *t, void *ctx);

/* A repeating timer. The caller owns it and fills fn, ctx and interval_ms (> 0); the other
 * fields belong to the wheel while the timer is armed. */
struct wheel_timer {
    wheel_fn fn;
    void *ctx;
    int64_t interval_ms;
    uint64_t rounds; /* revolutions to wait before the slot fires it */
    struct wheel_timer *next;
};

struct wheel_counters {
    uint64_t turns;
    uint64_t skipped;
    uint64_t missed8;
    uint64_t missed16;
    uint64_t sched;
};

struct wheel {
    int64_t last_turned; /* ms of the last turn, advanced a tick at a time */
    unsigned cursor;     /* slot of the last turn */
    struct wheel_timer *slots[WHEEL_SLOTS];
    struct wheel_counters counters;
    int64_t lag_last; /* lag of the latest pass, ms */
    int64_t lag_peak; /* worst lag since the last wheel_reset_peak(), ms */
};

/* An empty wheel whose last turn was at now_ms. */
void wheel_init(struct wheel *w, int64_t now_ms);
/* Arm t to fire delay_ms from the wheel's last turn (rounded up to whole ticks, at least
 * one), then every t->interval_ms. */
void wheel_add(struct wheel *w, struct wheel_timer *t, int64_t delay_ms);
/* Turn the wheel once per tick elapsed by now_ms, firing the timers in each slot, and
 * count the pass; slept says whether the loop slept since the previous pass. Returns the
 * number of turns. */
unsigned wheel_slice(struct wheel *w, int64_t now_ms, bool slept);
/* Milliseconds from now_ms to the next turn; 0 or less when a turn is due. */
int64_t wheel_ms_until_next_tick(const struct wheel *w, int64_t now_ms);
/* Start a new window for lag_peak. */
void wheel_reset_peak(struct wheel *w);

#endif
