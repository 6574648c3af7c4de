#include "loopstats.h"

#include <inttypes.h>
#include <stdio.h>

void loopstats_format(char *buf, size_t len, const struct loopstats_totals *from,
                      const struct loopstats_totals *to, const struct loopstats_now *now)
{
    const struct wheel_counters *a = &from->wheel, *b = &to->wheel;
    double wall_ms = (double)(to->mono_ms - from->mono_ms);
    uint64_t iterations = to->iterations - from->iterations;
    uint64_t sleeps = to->sleeps - from->sleeps;

    /* Guard a zero-length window: it reports zeroes rather than dividing by nothing. */
    double cpu = wall_ms > 0 ? (double)(to->cpu_ns - from->cpu_ns) / 1e4 / wall_ms : 0;
    double cps = wall_ms > 0 ? (double)iterations * 1000 / wall_ms : 0;
    double ratio = iterations > 0 ? (double)sleeps * 100 / (double)iterations : 0;

    snprintf(buf, len,
             "loop: cpu=%.1f%% cps=%.0f missed8ms=%" PRIu64 " missed16ms=%" PRIu64 " sched=%" PRIu64
             " slots=%" PRIu64 "/%" PRIu64 " tickLagPeak=%" PRId64 "ms"
             " sleeps=%" PRIu64 "/%" PRIu64 " (%.1f%%) wakes=%" PRIu64 " elided=%" PRIu64
             " backoffs=%" PRIu64 "%s idleWait=%dms",
             cpu, cps, b->missed8 - a->missed8, b->missed16 - a->missed16, b->sched - a->sched,
             b->skipped - a->skipped, b->turns - a->turns, now->lag_peak_ms, sleeps, iterations,
             ratio, to->wakes - from->wakes, to->elided - from->elided,
             to->backoffs - from->backoffs, now->suspended ? " (SUSPENDED)" : "",
             now->idle_wait_ms);
}
