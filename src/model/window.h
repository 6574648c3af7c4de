/* What a run's sample window recorded (the campaign's records, campaign.h): the CPU
 * figures of the target's tree (sampler.h measures them) and what became of its stdout
 * and stderr (capture.h keeps them). */
#ifndef LOOPBENCH_WINDOW_H
#define LOOPBENCH_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A warm-up or a window lasts at most a day: a longer one is a typo (1e308 s), and a
 * campaign of them would outlast the host. */
#define WINDOW_MAX_S 86400.0
/* The shortest window: below it the CPU clock's resolution (a Windows tick is 15.6 ms)
 * and the sampler's own reads at its edges are much of the figure. */
#define WINDOW_MIN_S 0.1
/* Runs per setting: more would take years at the shortest window of a real target. */
#define REPEAT_MAX 100000

/* The most targets one window samples at once (loopbench run --order duet). */
#define SAMPLER_MAX_TARGETS 8

enum sample_end {
    SAMPLE_DONE = 0,
    SAMPLE_TARGET_EXITED, /* the leader exited during the window: see wstatus */
    SAMPLE_INTERRUPTED,   /* SIGINT/SIGTERM/SIGHUP: see plat_last_signal() */
    SAMPLE_ABANDONED,     /* sampler_opts.abandon asked to stop: the window does not count */
};

struct sample_result {
    enum sample_end end;
    int wstatus;                 /* with SAMPLE_TARGET_EXITED */
    uint64_t start_wall_ns, end_wall_ns;
    uint64_t cpu_ns;             /* CPU used by the tree between the edges */
    uint64_t wall_ns;            /* monotonic time between the edges */
    double cpu_percent;          /* cpu_ns / wall_ns * 100: % of one core */
    uint64_t resolution_ns;
    bool unreliable;             /* see sampler.h's SAMPLER_RESOLUTION_GUARD */
    uint64_t voluntary_ctxsw;    /* deltas over the window (live threads) */
    uint64_t involuntary_ctxsw;
    uint64_t rss_peak_bytes;
    double steal_percent;        /* host steal over the window */
    /* What else ran on the host over the window, in % of one core: its busy time less
     * the target's CPU and loopbench's own (to the kernel's tick, 10 ms per CPU). */
    double others_cpu_percent;
    uint64_t self_cpu_ns;        /* loopbench's own CPU over the window */
    size_t n_points;             /* series points written */
    /* sampler_opts.rotate_ns: the swaps made, and the time spent on each CPU set of
     * sampler_opts.slices (slice_ns[k] on slices[k]). */
    size_t rotations;
    uint64_t slice_ns[SAMPLER_MAX_TARGETS];
};

/* 64 MiB per stream per run: an hour of a server logging a line a millisecond, and no
 * more than a small disk can take for every run of a long campaign. */
#define CAPTURE_LIMIT_DEFAULT (64ULL << 20)
/* The smallest limit: room for a head and a tail of a few lines each. */
#define CAPTURE_LIMIT_MIN (4ULL << 10)

enum capture_stream { CAPTURE_STDOUT = 0, CAPTURE_STDERR, CAPTURE_STREAMS };

/* What became of one stream: bytes the target wrote, bytes the file kept (the head and
 * the tail, not the marker line between), bytes dropped (bytes - kept). */
struct capture_log {
    uint64_t bytes, kept, dropped;
};

#endif
