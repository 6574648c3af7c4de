#include "hostcpus.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

int hostcpus_take(const struct cpuset *s, struct hostcpus *h, struct lb_error *err)
{
    h->cpus = *s;
    h->n = cpuset_count(s);
    h->at = xcalloc(h->n + 1, sizeof(*h->at));
    return plat_cpu_counters(s, h->at, err);
}

/* The index of cpu in h's set, which holds it. */
static size_t slot_of(const struct hostcpus *h, int cpu)
{
    size_t k = 0;
    for (int c = 0; c < cpu; c++)
        k += cpuset_has(&h->cpus, c);
    return k;
}

static uint64_t grown(uint64_t to, uint64_t from)
{
    return to > from ? to - from : 0;
}

/* CPU cpu's idle states over the window, appended to out's. */
static void idle_record(int cpu, const struct plat_cpu_counters *a,
                        const struct plat_cpu_counters *b, struct run_host_cpus *out)
{
    out->idle = xrealloc(out->idle, (out->n_idle + b->n_idle + 1) * sizeof(*out->idle));
    for (size_t k = 0; k < b->n_idle && k < a->n_idle; k++) {
        const struct plat_idle_state *x = &a->idle[k], *y = &b->idle[k];
        out->idle[out->n_idle++] = (struct run_idle_state){
            .cpu = cpu,
            .name = xstrdup(y->name),
            .usage = grown(y->usage, x->usage),
            .time_us = grown(y->time_us, x->time_us),
            .above = grown(y->above, x->above),
            .below = grown(y->below, x->below),
        };
    }
}

void hostcpus_record(const struct hostcpus *from, const struct hostcpus *to,
                     const struct cpuset *s, uint64_t ours_ns, uint64_t wall_ns,
                     struct run_host_cpus *out)
{
    char list[256];
    memset(out, 0, sizeof(*out));
    cpuset_format(s, list, sizeof(list));
    out->cpus = xstrdup(list);
    uint64_t busy = 0, steal = 0, total = 0;
    for (int cpu = 0; cpu < CPUSET_MAX; cpu++) {
        if (!cpuset_has(s, cpu))
            continue;
        const struct plat_cpu_counters *a = &from->at[slot_of(from, cpu)];
        const struct plat_cpu_counters *b = &to->at[slot_of(to, cpu)];
        busy += grown(b->busy_ns, a->busy_ns);
        steal += grown(b->steal_ns, a->steal_ns);
        total += grown(b->total_ns, a->total_ns);
        idle_record(cpu, a, b, out);
    }
    out->steal_percent = total ? (double)steal * 100.0 / (double)total : 0;
    out->busy_percent = total ? (double)busy * 100.0 / (double)total : 0;
    /* The kernel's ticks against the window's nanoseconds: of the CPUs' whole time. */
    double span = (double)wall_ns * (double)cpuset_count(s);
    out->others_percent = span > 0 ? (double)grown(busy, ours_ns) * 100.0 / span : 0;
}

void hostcpus_release(struct hostcpus *h)
{
    free(h->at);
    memset(h, 0, sizeof(*h));
}
