/* What the network probes are asked to do, and what they record over a run's window (the
 * campaign's records, campaign.h): the round trips of the rtt probe (rtt.h runs it) and the
 * values of an HTTP metrics endpoint (endpoint.h scrapes it, prometheus.h reads its
 * answers). */
#ifndef LOOPBENCH_PROBES_H
#define LOOPBENCH_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "msg.h"

/* What the rtt probe is asked to do (a profile's rtt). Limits rtt_check enforces;
 * rate * timeout_s bounds the requests in flight, for which rtt_start sets memory aside
 * (8 bytes each). */
#define RTT_MAX_RATE 1000000.0
#define RTT_MAX_CONNECTIONS 1024
#define RTT_MAX_TIMEOUT_S 60.0
#define RTT_MAX_IN_FLIGHT 1000000.0
/* Each timed connection leaves a port in TIME_WAIT for a minute on this side: a few
 * hundred a second would exhaust the ephemeral ports. */
#define RTT_MAX_CONNECT_RATE 100.0

struct rtt_opts {
    const char *host; /* numeric address or name, e.g. "127.0.0.1", "::1" */
    int port;
    const char *send;   /* one request's bytes (copied) */
    size_t send_len;    /* > 0 */
    const char *expect; /* one reply's bytes (copied); NULL or expect_len 0: the
                           request itself, echoed back (line echo when it is a line) */
    size_t expect_len;
    double rate_per_s;         /* requests per second, over all connections */
    int connections;           /* persistent connections, >= 1 */
    double timeout_s;          /* > 0 */
    double connect_rate_per_s; /* fresh connections timed per second; 0: none */
};

/* The checks rtt_start makes on opts, without starting anything (for profiles): 0, or
 * -1 with err saying which option is out of bounds ("rtt: ..."). */
int rtt_check(const struct rtt_opts *opts, struct lb_error *err);

/* What happened to the requests of one schedule (rtt.h: "Fate of a request"). */
struct rtt_counts {
    uint64_t scheduled; /* came due before the stop */
    uint64_t sent;      /* of which at least partly written */
    uint64_t completed; /* full reply received (== the histogram's count) */
    uint64_t errors;
    uint64_t timeouts;
    uint64_t unfinished; /* still waiting for a reply (or to be written) at the stop */
    /* how long the oldest of those had been due at the stop, ns (0: none): all the
     * unfinished came due within it, so a stall at the window's end shows here */
    uint64_t unfinished_oldest_ns;
};

struct rtt_result {
    struct histogram rtt;   /* ns: due time -> full reply, completed requests */
    struct histogram lag;   /* ns: due time -> first byte written, sent requests */
    struct histogram setup; /* ns: due time -> full reply on a fresh connection */
    struct rtt_counts requests;
    struct rtt_counts setups;     /* all 0 without connect_rate_per_s */
    uint64_t connection_failures; /* resets, ends of file, bad replies, failed connects */
    uint64_t probe_cpu_ns;        /* the probe thread's CPU time, start to stop */
    uint64_t duration_ns;         /* monotonic time from the schedule's start to the stop */
};

void rtt_result_release(struct rtt_result *r);

enum metrics_kind { METRICS_KIND_AUTO = 0, METRICS_COUNTER, METRICS_GAUGE };
/* "counter", "gauge" ("auto" for METRICS_KIND_AUTO), static strings. The inverse: 0 with
 * *out set, or -1 for any other word ("auto" too, which names no kind in a profile or a
 * result); *out is then unchanged. */
const char *metrics_kind_name(enum metrics_kind k);
int metrics_kind_parse(const char *name, enum metrics_kind *out);

/* One metric over a window. */
struct metrics_window_value {
    bool found;             /* counter: found at the end; gauge: found in any scrape */
    enum metrics_kind kind; /* the end scrape's */
    double start, end;      /* the values at the window's edges, NAN where not found */
    /* Counters. */
    double delta;      /* end - start; end after a reset; end when it appeared */
    double rate_per_s; /* delta over the scrapes' time apart (NAN at 0 s apart) */
    bool reset;        /* it went down (the target restarted): counted from 0, as
                          Prometheus' increase() does; a reset of one of several
                          summed series is seen only if the sum goes down */
    bool appeared;     /* absent at the start: counted from 0 (client libraries
                          create a labelled counter at its first increment) */
    /* Gauges: over the start, end and every scrape added to the series between, those
     * that found it and not NaN; mean unweighted. NAN when none. */
    double min, max, mean;
    size_t samples;
};

struct endpoint_result {
    size_t n;                             /* the endpoint's selections */
    struct metrics_window_value *values;  /* n; all not found when error is set */
    size_t scrapes, failed_scrapes;       /* every scrape made, and those that failed */
    size_t skipped_lines, duplicates;     /* Prometheus damage seen, over all scrapes */
    double fetch_ms_max;                  /* the slowest scrape */
    char *error;                          /* the first failure, or NULL */
    char **missing;                       /* n: why a value was not found at the end, or NULL */
};

void endpoint_result_release(struct endpoint_result *r);

#endif
