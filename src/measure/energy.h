/* What the CPU packages drew: RAPL's counters (platform.h) read at the edges of a run's
 * window, for runs in turn only, and over a quiet spell before the first run as the
 * host's idle reference (docs/method.md: Energy). */
#ifndef LOOPBENCH_ENERGY_H
#define LOOPBENCH_ENERGY_H

#include <stdint.h>

#include "campaign.h"
#include "msg.h"

/* How long the idle reference is measured, with no target running. */
#define ENERGY_IDLE_S 2.0

/* The packages' counters at one instant. */
struct energy_reading {
    size_t n;
    struct plat_energy_zone zones[PLAT_ENERGY_ZONES_MAX];
    uint64_t mono_ns;
};

int energy_take(struct energy_reading *out, struct lb_error *err);

/* What a counter that starts again at 0 past range_uj advanced from before to after,
 * once round at most: a package's counter takes minutes to go round (docs/method.md). */
uint64_t energy_delta_uj(uint64_t before, uint64_t after, uint64_t range_uj);

/* The span from `from` to a reading taken now, into out (its strings new). -1 with err
 * when the counters cannot be read now, or the packages are not those of `from`. */
int energy_since(const struct energy_reading *from, struct run_energy *out,
                 struct lb_error *err);

/* Before the first run: whether the runs can record energy (else c->energy_unavailable
 * says why: no RAPL, or a duet, whose targets share the package), and, where the counters
 * are read, the idle reference over ENERGY_IDLE_S unless c has one (a resumed campaign).
 * -1 with err when interrupted while it waits. */
int energy_campaign_begin(struct campaign *c, struct lb_error *err);

#endif
