/* The idle-sleep backoff: when the host keeps returning idle waits late, stop sleeping for a
 * while, longer each time.
 *
 * A pure state machine (seed 003's rules). The loop feeds it one sample a second -- the late
 * wakes and the sleeps of that second, and the time -- and it answers with the transition and
 * the level to log it at; the loop applies it. No clock is read here, so every transition is
 * unit-tested with synthetic samples.
 *
 * A sample is bad when its late wakes exceed both the floor (server.lateWakeThreshold) and the
 * proportion server.lateWakePercent of its sleeps. Two bad samples in a row suspend sleeping
 * for 5 s, doubling with each consecutive backoff up to a 120 s ceiling. A clean streak of
 * 60 s (counted from the last bad sample or the end of the last suspension, whichever is
 * later) clears the escalation; it is checked on every sample. */
#ifndef REFSHARD_BACKOFF_H
#define REFSHARD_BACKOFF_H

#include <stdbool.h>
#include <stdint.h>

#include "log.h"

#define BACKOFF_BASE_MS 5000
#define BACKOFF_MAX_MS 120000
#define BACKOFF_CLEAN_MS 60000
/* Backoffs before this many in a row are recoverable and not actionable: Debug only. */
#define BACKOFF_WARN_FROM 3

enum backoff_action {
    BACKOFF_NONE,    /* nothing changed */
    BACKOFF_SUSPEND, /* sleeping is suspended for duration_ms */
    BACKOFF_CLEAR,   /* a clean streak cleared an escalation of `streak` backoffs */
};

struct backoff_step {
    enum backoff_action action;
    enum log_level level; /* LOG_NONE: say nothing */
    int64_t duration_ms;  /* BACKOFF_SUSPEND */
    unsigned streak;      /* consecutive backoffs: including this one, or the ones cleared */
};

struct backoff {
    long threshold;
    long percent;
    unsigned bad_samples; /* consecutive */
    unsigned streak;      /* consecutive backoffs not yet cleared */
    bool ceiling_logged;
    int64_t suspended_until;
    int64_t clean_since;
    uint64_t total; /* backoffs since start */
};

/* threshold: late wakes per second tolerated whatever the proportion; percent: share of a
 * second's sleeps (0-100) that may come back late. */
void backoff_init(struct backoff *b, long threshold, long percent);
/* Feed the sample that ends at now_ms. */
struct backoff_step backoff_sample(struct backoff *b, int64_t now_ms, long late, long sleeps);
bool backoff_suspended(const struct backoff *b, int64_t now_ms);

#endif
