/* loopbench probe: what this host does to an event loop.
 *
 * After the seeds' HostLatencyProbe: the cost of the primitives a loop pays on every
 * iteration (clock reads) and that loopbench pays at every sample (its read of the
 * target's tree), each against a reference for a desktop on dedicated cores; how late
 * the host returns the idle waits a loop blocks in, quiet and with every core busy;
 * and the steal over the probe. The verdict (probe_judge, probe_advice) is pure and
 * unit-tested; probe_run does the measuring. */
#ifndef LOOPBENCH_PROBE_H
#define LOOPBENCH_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "platform/platform.h"

#define PROBE_SCHEMA "loopbench/probe/1"
#define PROBE_DEFAULT_SECONDS 20.0

/* The server's wheel tick: a wait this late lets a slot come due unturned, the lateness
 * its backoff acts on (elapsed - requested >= tick). */
#define PROBE_TICK_NS (8 * 1000000ULL)
/* HostLatencyProbe's bands: under 3x the reference is normal, under 10x slow. */
#define PROBE_SLOW_RATIO 3.0
#define PROBE_TRAPPING_RATIO 10.0
/* The server's late-wake gate (server.lateWakePercent, default 10): a host that cannot
 * schedule the loop returns most waits late, not a few. */
#define PROBE_LATE_SHARE_MAX 0.10
/* The same steal that makes a campaign's result noisy. */
#define PROBE_STEAL_MAX_PERCENT 1.0

enum probe_verdict { PROBE_NORMAL = 0, PROBE_SLOW, PROBE_TRAPPING };
/* "normal", "SLOW", "TRAPPING" (static). */
const char *probe_verdict_name(enum probe_verdict v);
/* The band of ns against ref_ns; *ratio (may be NULL) gets ns / ref_ns. */
enum probe_verdict probe_verdict_of(double ns, double ref_ns, double *ratio);

enum probe_op {
    PROBE_OP_MONOTONIC = 0, /* what a loop reads every iteration */
    PROBE_OP_REALTIME,
    PROBE_OP_PROCESS_CPU,
    PROBE_OP_SAMPLE_READ, /* loopbench's own read of another process's tree */
    PROBE_N_OPS,
};

struct probe_cost {
    const char *name;   /* static */
    const char *detail; /* static, may be NULL: e.g. the CPU source of the sampling read */
    double ref_ns;
    double ns;          /* median ns/op over the batches; NaN when not measured */
    uint64_t iterations;
    double ratio;
    enum probe_verdict verdict;
};

#define PROBE_N_WAIT_MS 4
/* Both primitives, 1/2/4/8 ms, quiet and contended. */
#define PROBE_N_WAKES (2 * PROBE_N_WAIT_MS * 2)

struct probe_wake {
    enum plat_wait_kind kind;
    unsigned ms;
    bool contended;
    size_t n;
    /* Overshoot past the requested time, in ms; NaN when n is 0. */
    double min_ms, p50_ms, p99_ms, max_ms;
    double tick_late_share; /* 0..1: came back PROBE_TICK_NS or more late */
};

/* Summarise n overshoots (sorted in place) into w's figures. Nearest-rank percentiles. */
void probe_wake_summarize(uint64_t *overshoot_ns, size_t n, struct probe_wake *w);

struct probe_judgement {
    bool clock_traps;   /* a monotonic or realtime clock read is TRAPPING */
    bool clock_slow;    /* ... or SLOW */
    bool waits_late;    /* quiet epoll waits: typically or often a tick late */
    bool steal_high;
    bool viable;        /* idle sleeping is viable on this host */
    bool contended_late; /* with every core busy, epoll waits a tick late too often */
    bool loaded;        /* load average above the CPU count: others' work is in the figures */
    double worst_late_share; /* over the quiet epoll waits */
};

struct probe_report {
    struct plat_host_facts host;
    double seconds;                    /* how long the probe took */
    struct probe_cost costs[PROBE_N_OPS];
    struct probe_wake wakes[PROBE_N_WAKES];
    size_t n_wakes;
    unsigned busy_processes;           /* competing in the contended waits; 0 if skipped */
    double steal_percent;              /* over the probe; NaN if unreadable */
    struct probe_judgement judgement;
};

/* Judge a report's figures (fills r->judgement). */
void probe_judge(struct probe_report *r);
/* The verdict in words: up to cap static lines into lines; returns how many. */
size_t probe_advice(const struct probe_judgement *j, const char **lines, size_t cap);

/* Probe the host in about `seconds`. Returns -1 on failure or when interrupted (see
 * plat_last_signal()); call plat_events_init() first. Release with probe_report_release,
 * also on failure. */
int probe_run(double seconds, struct probe_report *r, struct lb_error *err);
void probe_report_release(struct probe_report *r);

#endif
