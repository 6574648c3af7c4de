#include "backoff.h"

/* Doubling stops here: 5 s << 5 is past the ceiling. */
#define BACKOFF_MAX_SHIFT 5

void backoff_init(struct backoff *b, long threshold, long percent)
{
    *b = (struct backoff){
        .threshold = threshold,
        .percent = percent,
        .suspended_until = INT64_MIN,
    };
}

bool backoff_suspended(const struct backoff *b, int64_t now_ms)
{
    return now_ms < b->suspended_until;
}

/* Lateness is a rate: an idle loop sleeps hundreds of times a second, so a few late wakes are
 * tail noise, while a host that cannot schedule the process returns most of them late. The
 * floor covers seconds with too few sleeps for a proportion to mean anything. */
static bool sample_bad(const struct backoff *b, long late, long sleeps)
{
    return late > b->threshold && late * 100 > sleeps * b->percent;
}

static struct backoff_step suspend(struct backoff *b, int64_t now_ms)
{
    unsigned shift = b->streak < BACKOFF_MAX_SHIFT ? b->streak : BACKOFF_MAX_SHIFT;
    int64_t duration = (int64_t)BACKOFF_BASE_MS << shift;
    if (duration > BACKOFF_MAX_MS)
        duration = BACKOFF_MAX_MS;

    b->streak++;
    b->total++;
    b->bad_samples = 0;
    b->suspended_until = now_ms + duration;
    /* The loop spins while suspended, so those seconds say nothing about the host: the clean
     * streak can only start once sleeping resumes. */
    b->clean_since = b->suspended_until;

    struct backoff_step step = {
        .action = BACKOFF_SUSPEND,
        .level = b->streak < BACKOFF_WARN_FROM ? LOG_DBG : LOG_WRN,
        .duration_ms = duration,
        .streak = b->streak,
    };
    if (duration >= BACKOFF_MAX_MS) {
        /* Escalation has run out of room: say so once, until a clean streak re-arms it. */
        step.level = b->ceiling_logged ? LOG_NONE : LOG_ERR;
        b->ceiling_logged = true;
    }
    return step;
}

struct backoff_step backoff_sample(struct backoff *b, int64_t now_ms, long late, long sleeps)
{
    struct backoff_step step = {.action = BACKOFF_NONE, .level = LOG_NONE};

    if (b->streak > 0 && now_ms - b->clean_since >= BACKOFF_CLEAN_MS) {
        step.action = BACKOFF_CLEAR;
        step.streak = b->streak;
        /* Tiered like the backoffs it ends: news to the operator only if they were warned. */
        step.level = b->streak >= BACKOFF_WARN_FROM ? LOG_INF : LOG_DBG;
        b->streak = 0;
        b->ceiling_logged = false;
    }

    if (!sample_bad(b, late, sleeps)) {
        b->bad_samples = 0;
        return step;
    }
    if (now_ms > b->clean_since)
        b->clean_since = now_ms;
    /* Any host can drop one sample to unrelated load; one that cannot schedule the process
     * stays bad. */
    if (++b->bad_samples < 2)
        return step;
    return suspend(b, now_ms);
}
