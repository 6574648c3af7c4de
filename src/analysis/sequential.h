/* Runs until decided (loopbench run --repeat auto): a group-sequential gate that looks
 * after every round and keeps its error although it looks many times.
 *
 * Each comparison is a group-sequential test (Jennison & Turnbull 2000): its alpha is
 * spent over the looks by the Hwang-Shih-DeCani function (Lan & DeMets 1983; Hwang, Shih
 * & DeCani 1990), and the boundary of each look is set for the statistic the gate tests,
 * the t of the rounds so far (its spread estimated anew at each look), on simulated t
 * paths under "no change", then applied to the gate's t-test as a nominal p. The
 * comparisons share the gate's alpha by Holm's step-down, recycled across looks as in the
 * graphical approach of Maurer & Bretz (2013): a comparison called regressed passes its
 * share of alpha to the others, which are then held to the boundaries of their larger
 * share at every look so far. "Improved" is the same procedure toward benefit; "no change" is proven by two
 * one-sided tests spending the equivalence alpha the same way. A verdict is fixed at the
 * first look that reaches it; the campaign stops when every gated comparison is fixed
 * or futile (the cap would rarely decide it, were its change what the look estimates), or
 * at the cap. docs/report.md has the calibration. */
#ifndef LOOPBENCH_SEQUENTIAL_H
#define LOOPBENCH_SEQUENTIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"
#include "gate.h"
#include "msg.h"

#define SEQ_DEFAULT_MAX 10
/* Simulated t paths a boundary is set on (src/analysis/sequential.c): its total alpha is within
 * sqrt(alpha (1 - alpha) / SEQ_PATHS) of alpha, one standard error. */
#define SEQ_PATHS 131072
#define SEQ_LIMIT_MAX 1000 /* the largest cap: a boundary costs 2^17 paths x the cap */

/* Nominal one-sided levels of one alpha, per look (cached: Holm asks for a few). */
struct seq_boundary {
    double alpha;
    double *nominal; /* [round], rounds SEQ_MIN_ROUNDS..max */
};

struct seq {
    long max;
    double gamma; /* of the spending function: SEQ_GAMMA, or seq_init_spending's */
    double alpha, equivalence_alpha;
    size_t n;                        /* comparisons */
    long looks;                      /* taken so far: the look after round SEQ_MIN_ROUNDS + i */
    double *p_worse, *p_better;      /* [look * n + i], uncorrected one-sided p */
    signed char *past;               /* [look * n + i]: gate_result.past_threshold */
    struct gate_result *latest;      /* [i]: the verdict fixed, or the latest look's word */
    long *decided_at;                /* [i]: the round that fixed it, 0 undecided */
    bool *futile;                    /* [i]: undecided, and the cap would rarely decide it */
    struct seq_boundary *boundaries; /* cache */
    size_t n_boundaries;
};

/* A sequential gate over n comparisons of at most max rounds (SEQ_MIN_ROUNDS..
 * SEQ_LIMIT_MAX), at o's alpha and equivalence alpha. -1 with err when out of range. */
int seq_init(struct seq *s, size_t n, long max, const struct gate_opts *o, struct lb_error *err);

/* The same with the spending function's gamma given (Hwang-Shih-DeCani: alpha (1 -
 * e^(-gamma t)) / (1 - e^(-gamma)) spent by the share t of the cap's rounds; 0 spends
 * evenly, negative later): the gate's is SEQ_GAMMA (-1); tune's, whose verdicts rest on
 * the settings near their limits reaching the cap, spends later (src/analysis/tune.h). */
int seq_init_spending(struct seq *s, size_t n, long max, double gamma, const struct gate_opts *o,
                      struct lb_error *err);

/* Back to before the first look (the boundaries computed are kept). */
void seq_reset(struct seq *s);

/* The look after `round` (looks are taken in order, one per round, from
 * SEQ_MIN_ROUNDS): now[0..n) is the gate on the campaign's first `round` rounds. Fixes
 * what this look decides; returns how many comparisons with gated[i] (NULL: all) are
 * still undecided and not futile. */
size_t seq_look(struct seq *s, long round, const struct gate_result *now, const bool *gated);

/* The nominal one-sided p that a test of level alpha must reach at the look after round. */
double seq_nominal(struct seq *s, double alpha, long round);

void seq_release(struct seq *s);

#endif
