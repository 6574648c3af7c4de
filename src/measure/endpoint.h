/* A profile's HTTP metrics endpoint over one sample window: scraped at the window's
 * start, every interval in a thread of its own (so the sampler's loop never waits on the
 * network), and at its end; counters differenced, gauges sampled (prometheus.h). */
#ifndef LOOPBENCH_ENDPOINT_H
#define LOOPBENCH_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "prometheus.h"
#include "msg.h"

struct endpoint_window;

/* Scrape ep now (the window's start) and start the thread that scrapes it every
 * interval_ns (0: none between start and end). Never fails: a failed scrape is counted
 * and its message kept for the result. Signals stay with the calling thread. */
struct endpoint_window *endpoint_window_open(const struct metrics_endpoint *ep,
                                             uint64_t interval_ns);
/* Stop the thread, scrape the end, and fill out (endpoint_result_release). Frees w. */
void endpoint_window_close(struct endpoint_window *w, struct endpoint_result *out);

#endif
