#include "energy.h"

#include <string.h>

#include "platform/platform.h"
#include "util.h"

/* A reading that took longer than this was most likely descheduled halfway: when its
 * counters were read is uncertain by as much, so it is taken again (a few times at most). */
#define ENERGY_READ_SLACK_NS (1000 * 1000)
#define ENERGY_READ_TRIES 4

int energy_take(struct energy_reading *out, struct lb_error *err)
{
    for (int tries = 1;; tries++) {
        uint64_t before = mono_ns();
        int n = plat_energy_read(out->zones, err);
        uint64_t after = mono_ns();
        if (n < 0)
            return -1;
        out->n = (size_t)n;
        out->mono_ns = before + (after - before) / 2;
        if (after - before <= ENERGY_READ_SLACK_NS || tries == ENERGY_READ_TRIES)
            return 0;
    }
}

uint64_t energy_delta_uj(uint64_t before, uint64_t after, uint64_t range_uj)
{
    return after >= before ? after - before : range_uj - before + after;
}

int energy_since(const struct energy_reading *from, struct run_energy *out,
                 struct lb_error *err)
{
    struct energy_reading to;
    if (energy_take(&to, err) < 0)
        return -1;
    bool same = to.n == from->n;
    for (size_t i = 0; same && i < to.n; i++)
        same = strcmp(to.zones[i].zone, from->zones[i].zone) == 0;
    if (!same)
        return lb_fail(err, "the packages' energy counters changed between two readings (%zu "
                            "zones, then %zu)", from->n, to.n);
    run_energy_release(out);
    out->domains = xcalloc(to.n, sizeof(*out->domains));
    out->n_domains = to.n;
    for (size_t i = 0; i < to.n; i++) {
        const struct plat_energy_zone *a = &from->zones[i], *b = &to.zones[i];
        out->domains[i] = (struct run_energy_domain){
            .zone = xstrdup(b->zone),
            .name = xstrdup(b->name),
            .joules = (double)energy_delta_uj(a->energy_uj, b->energy_uj, b->range_uj) / 1e6,
        };
        out->joules += out->domains[i].joules;
    }
    out->seconds = (double)(to.mono_ns - from->mono_ns) / 1e9;
    for (size_t i = 0; i < to.n; i++)
        out->domains[i].watts = out->seconds > 0 ? out->domains[i].joules / out->seconds : 0;
    out->watts = out->seconds > 0 ? out->joules / out->seconds : 0;
    return 0;
}

/* Wait until the monotonic deadline, through children's events; -1 with err when
 * interrupted. */
static int wait_quietly(uint64_t until, struct lb_error *err)
{
    enum plat_event ev;
    while ((ev = plat_wait_until(until)) != PLAT_EVENT_TIMEOUT)
        if (ev == PLAT_EVENT_INTERRUPT)
            return lb_fail(err, "interrupted while measuring the packages' idle power");
    return 0;
}

int energy_campaign_begin(struct campaign *c, struct lb_error *err)
{
    struct energy_reading from;
    struct lb_error why;
    free(c->energy_unavailable);
    c->energy_unavailable = NULL;
    if (energy_take(&from, &why) < 0) {
        c->energy_unavailable = xstrdup(why.msg);
        return 0;
    }
    if (c->spec.order == ORDER_DUET)
        c->energy_unavailable = xstrdup("a duet's targets run at once on one package, which "
                                        "counts them together");
    /* the reference: nothing of the campaign runs, loopbench only waits */
    if (c->energy_idle.domains)
        return 0;
    if (wait_quietly(from.mono_ns + (uint64_t)(ENERGY_IDLE_S * 1e9), err) < 0)
        return -1;
    if (energy_since(&from, &c->energy_idle, &why) < 0)
        msg_info("energy: no idle reference: %s", why.msg);
    return 0;
}
