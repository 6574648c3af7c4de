/* The host's CPU counters (hostcpus.h), read at the window's edges: what the CPUs of the
 * run's target did over it, less what loopbench's own processes used of them. */
#include "instrument.h"

#include <stdlib.h>

#include "hostcpus.h"

struct host_cpus_window {
    struct hostcpus before, after;
    bool have_before, have_after;
};

static int host_cpus_open(struct window *w, size_t j, void **state, struct lb_error *err)
{
    (void)j, (void)err;
    *state = w->watch ? xcalloc(1, sizeof(struct host_cpus_window)) : NULL;
    return 0;
}

static void host_cpus_edge(struct window *w, size_t j, void *state, bool end)
{
    (void)j;
    struct host_cpus_window *h = state;
    struct lb_error e;
    if (!end)
        h->have_before = hostcpus_take(w->watch, &h->before, &e) == 0;
    else
        h->have_after = h->have_before && hostcpus_take(w->watch, &h->after, &e) == 0;
}

/* The CPUs target j ran on (rotating: all the duet's; unpinned: all watched), less what
 * the targets on them and loopbench, when it shared them, used. */
static void host_cpus_close(struct window *w, size_t j, void *state, bool keep)
{
    struct host_cpus_window *h = state;
    const struct campaign_spec *s = &w->c->spec;
    if (keep && h->have_after) {
        const struct cpuset *on =
            w->t[j].cpus && !(s->rotate_s > 0 && s->order == ORDER_DUET) ? w->t[j].cpus : w->watch;
        uint64_t ours = w->pin_self ? 0 : w->t[j].res->self_cpu_ns;
        for (size_t m = 0; m < w->k; m++)
            if (!w->t[m].cpus || cpuset_within(w->t[m].cpus, on))
                ours += w->t[m].res->cpu_ns;
        struct run_record *r = w->t[j].r;
        run_host_cpus_release(&r->host_cpus);
        hostcpus_record(&h->before, &h->after, on, ours, w->t[j].res->wall_ns, &r->host_cpus);
    }
    hostcpus_release(&h->before);
    hostcpus_release(&h->after);
    free(h);
}

const struct window_instrument host_cpus_instrument = {
    .open = host_cpus_open,
    .edge = host_cpus_edge,
    .close = host_cpus_close,
};
