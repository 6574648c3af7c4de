/* What the host's CPUs did over a window: their steal, what other processes took of
 * them, and their idle states (loopbench run records it per run, results.md). Read at
 * the window's edges only, never at its points. */
#ifndef LOOPBENCH_HOSTCPUS_H
#define LOOPBENCH_HOSTCPUS_H

#include <stdint.h>

#include "campaign.h"
#include "cpuset.h"
#include "msg.h"

/* The counters of a set of CPUs at one instant. */
struct hostcpus {
    struct cpuset cpus;
    size_t n;                          /* cpuset_count(&cpus) */
    struct plat_cpu_counters *at;      /* per CPU, in the set's order */
};

/* Read the counters of every CPU of s into h (release with hostcpus_release, also on
 * failure). */
int hostcpus_take(const struct cpuset *s, struct hostcpus *h, struct lb_error *err);
/* The window between two readings, for the CPUs of s (within theirs), into out (its
 * strings new): ours_ns is what loopbench's own processes (the targets on s, and
 * loopbench when it shared them) used on s over the window, wall_ns its length. */
void hostcpus_record(const struct hostcpus *from, const struct hostcpus *to,
                     const struct cpuset *s, uint64_t ours_ns, uint64_t wall_ns,
                     struct run_host_cpus *out);
void hostcpus_release(struct hostcpus *h);

#endif
