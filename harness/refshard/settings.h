/* The configuration file, ModernUO-shaped:
 *
 *   { "listeners": ["127.0.0.1:2593"], "settings": { "server.eventLoopIdleWaitMs": "2", ... } }
 *
 * Every value under "settings" is a JSON string ("2", "False"; booleans case-insensitive).
 * Like the real server, loading rewrites the file when settings are missing, adding each with
 * its default; every other key, unknown ones included, keeps its place and value. */
#ifndef REFSHARD_SETTINGS_H
#define REFSHARD_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

#define SETTINGS_LISTENERS_MAX 8

struct settings_listener {
    char host[16]; /* IPv4 dotted quad */
    uint16_t port; /* 0: any free port */
};

struct settings {
    long idle_wait_ms;          /* server.eventLoopIdleWaitMs */
    long stats_interval_s;      /* server.loopStatsIntervalSeconds */
    long late_wake_threshold;   /* server.lateWakeThreshold */
    long late_wake_percent;     /* server.lateWakePercent */
    bool auto_detect_idle_wait; /* server.autoDetectIdleWait */
    long timers;                /* refshard.timers */
    long timer_min_ms;          /* refshard.timerMinMs */
    long timer_max_ms;          /* refshard.timerMaxMs */
    long work_per_tick_us;      /* refshard.workPerTickUs */
    long work_per_timer_us;     /* refshard.workPerTimerUs */
    long posts_per_second;      /* refshard.postsPerSecond */
    struct settings_listener listeners[SETTINGS_LISTENERS_MAX];
    unsigned n_listeners;
};

/* Read and validate path into s, adding missing settings to the file (atomically: a temp file
 * in the same directory, then rename). *added says how many were added. */
int settings_load(struct settings *s, const char *path, unsigned *added, struct rs_error *err);

#endif
