/* Whether a CPU series is steady: the test behind `run --warmup auto` (the window opens
 * once the target has settled) and the check of every sample window afterwards (a
 * window that was not steady is flagged). On plain arrays; docs/method.md has the method
 * and its calibration (tests/unit/check-steady.c).
 *
 * Two tests, each needing a change both of practical size (STEADY_PRACTICAL of the level,
 * at least STEADY_FLOOR points of a core and STEADY_NOISE times a point's own noise) and
 * STEADY_T standard errors beyond the noise (widened for its autocorrelation): a least-squares trend over the whole series, and the one split into
 * two segments with the largest shift of mean (the first step of binary segmentation,
 * Scott & Knott 1974; a CUSUM's change point). Many runtimes never settle (Barrett et al.,
 * "Virtual machine warmup blows hot and cold", OOPSLA 2017): the check says so rather than
 * trusting a fixed warm-up. */
#ifndef LOOPBENCH_STEADY_H
#define LOOPBENCH_STEADY_H

#include <stdbool.h>
#include <stddef.h>

#define STEADY_PRACTICAL 0.25 /* a change under a quarter of the level is not one */
#define STEADY_FLOOR 1.0      /* nor one under 1 point of a core: a quiet server is steady */
#define STEADY_T 5.0          /* nor one within 5 standard errors of the noise */
#define STEADY_NOISE 2.5      /* nor one under 2.5 times the noise of a single point */
#define STEADY_MIN_POINTS 6   /* fewer points are not tested: steady */

struct steady_verdict {
    bool steady;
    double change;   /* the change found, in points of a core (0 when steady) */
    char reason[96]; /* "climbs from 5.1% to 58% over 4.0 s", "drops from 50% to 1.0% at 6.1 s" */
};

/* The check of x[0..n), CPU in % of one core at times t[0..n) (seconds, increasing). */
void steady_check(const double *t, const double *x, size_t n, struct steady_verdict *out);

#endif
