/* Seeded random draws for the simulations of the unit tests and the benchmarks: a known
 * truth, the same on every run. */
#ifndef LOOPBENCH_TESTS_DRAWS_H
#define LOOPBENCH_TESTS_DRAWS_H

#include <math.h>
#include <stdint.h>

#include "stats.h"

/* Uniform on (0, 1): the top 53 bits of stats_random, never 0 or 1. */
static inline double draw_uniform(uint64_t *rng)
{
    return ((double)(stats_random(rng) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static inline double draw_normal(uint64_t *rng)
{
    return sqrt(-2.0 * log(draw_uniform(rng))) * cos(2.0 * M_PI * draw_uniform(rng));
}

#endif
