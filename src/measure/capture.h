/* Capturing a target's stdout and stderr: what reaches the run's stdout.log and
 * stderr.log, what is scraped, and what the readiness rule sees.
 *
 * The target writes into pipes that a thread of loopbench reads as the bytes arrive
 * (the sampler, on the main thread, is not slowed or woken by a chatty target). Each
 * stream's file receives its head up to half the limit; past that, the most recent
 * bytes are kept in a buffer of the other half, written after the head when the run
 * ends, behind a line saying how many bytes were dropped between. Every line is
 * scraped as it arrives, kept or not, so a cut log loses no health line. */
#ifndef LOOPBENCH_CAPTURE_H
#define LOOPBENCH_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "msg.h"
#include "platform/platform.h"
#include "scrape.h"
#include "window.h"

struct capture_opts {
    const char *paths[CAPTURE_STREAMS]; /* stdout.log, stderr.log */
    uint64_t limit;                     /* bytes kept per stream */
    const char *marker;                 /* of the health lines */
    const struct plat_regex *ready;     /* the readiness pattern, NULL: none (borrowed) */
};

struct capture;

/* Create the files and the pipes. */
int capture_open(const struct capture_opts *o, struct capture **out, struct lb_error *err);
/* Point the target's stdout and stderr at the capture (in place of the paths). */
void capture_spawn_opts(struct capture *cap, struct plat_spawn_opts *so);
/* The target was started: drop loopbench's copies of the pipes' write ends (so the
 * streams end when the target's tree is gone) and start reading. */
int capture_started(struct capture *cap, struct lb_error *err);
/* Whether a line matching the readiness pattern has arrived. */
bool capture_ready(struct capture *cap);
/* The sample window opens and closes (wall-clock edges as the sampler recorded them):
 * a line that arrives between is in it, a stamped line also by its time of day. */
void capture_window_open(struct capture *cap);
void capture_window_close(struct capture *cap, uint64_t start_wall_ns, uint64_t end_wall_ns);
/* The target's tree is gone: read what is left, write each file's tail, and add the
 * window's health lines and the log's levels to scrape (NULL: the run was not sampled).
 * logs[] gets each stream's figures. -1 with err when a file could not be written. */
int capture_finish(struct capture *cap, struct scrape_run *scrape,
                   struct capture_log logs[CAPTURE_STREAMS], struct lb_error *err);
/* Stop reading (if still), close everything and free. */
void capture_free(struct capture *cap);

#endif
