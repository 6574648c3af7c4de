/* The periodic health line, ModernUO's LoopStats:
 *
 *   loop: cpu={Cpu:F1}% cps={Cps:F0} missed8ms={Missed8} missed16ms={Missed16}
 *   sched={SchedMissed} slots={Skipped}/{Turns} tickLagPeak={PeakLag}ms
 *   sleeps={Sleeps}/{Iterations} ({SleepRatio:F1}%) wakes={WakesIssued}
 *   elided={WakesElided} backoffs={Backoffs}{Suspended} idleWait={IdleWait}ms
 *
 * (one line). The loop keeps monotonic totals; a window is the difference of two snapshots,
 * so formatting is pure and tested without a server. */
#ifndef REFSHARD_LOOPSTATS_H
#define REFSHARD_LOOPSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wheel.h"

struct loopstats_totals {
    int64_t mono_ms; /* when the snapshot was taken */
    uint64_t cpu_ns; /* the process's CPU time, all threads */
    struct wheel_counters wheel;
    uint64_t iterations;
    uint64_t sleeps;
    uint64_t wakes;
    uint64_t elided;
    uint64_t backoffs;
};

/* The window state that is not a difference of totals. */
struct loopstats_now {
    int64_t lag_peak_ms;
    bool suspended;
    int idle_wait_ms;
};

/* Write the line for the window from `from` to `to` into buf (NUL-terminated, cut to len). */
void loopstats_format(char *buf, size_t len, const struct loopstats_totals *from,
                      const struct loopstats_totals *to, const struct loopstats_now *now);

#endif
