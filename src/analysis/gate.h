/* The regression gate's statistics on plain arrays (no campaign types), so that the
 * gate within one campaign (base and head paired by round), the gate across campaigns
 * (loopbench compare BASE... NEW) and the calibration benchmark (tests/bench/calibrate.c)
 * share one implementation. docs/report.md explains the method and its calibration.
 *
 * A gate is a set of comparisons, each a setting x metric. The error is controlled over
 * the whole set: alpha is the chance that comparing a build with itself fails the gate
 * (Holm's step-down over the one-sided tests toward harm). A comparison's spread is its
 * own, moderated by the other settings of its metric (more degrees of freedom at the few
 * runs a campaign affords, without letting a quiet setting hide a noisy one's spread);
 * must_be_zero guardrails are exact and outside the correction. */
#ifndef LOOPBENCH_GATE_H
#define LOOPBENCH_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "msg.h"

enum verdict { VERDICT_NO_CHANGE, VERDICT_IMPROVED, VERDICT_REGRESSED, VERDICT_INCONCLUSIVE };
/* "no change", "improved", "regressed", "inconclusive" (static). */
const char *verdict_name(enum verdict v);

/* The drift between campaigns allowed for when each side is a single campaign: a
 * campaign's level (the log of its CPU, or a health key relative to the base) moves
 * by this standard deviation from one campaign to the next on the same host. 0.18 is the
 * largest drift measured on the 2-vCPU VM of issue 14 (12-18% of the median). */
#define GATE_DRIFT_ALLOWANCE 0.18

/* The most the other settings of a metric can tell about one setting's spread, in
 * degrees of freedom (the cap on a moderated variance's prior df, which is fitted to how
 * far the settings' spreads differ): as much as 2 rounds of its own. Chosen by the
 * calibration (tests/bench/calibrate.c) on corners of the heterogeneity measured on the
 * VM; docs/report.md has the figures. */
#define GATE_PRIOR_DF 2.0

/* The share of a paired gate's rounds trimmed from each end (Yuen's trimmed t): floor(0.2
 * n) of the n rounds of each CPU assignment, so from 5 rounds one disturbed round (a
 * neighbour's burst, a host that woke) no longer sets the spread; an assignment whose kept
 * rounds all tie is left whole. `compare --trim`, not the default (gate_opts.trim is 0):
 * in bench-crossover its A/A false alarms are 3.3-3.9% at 10 rounds and 2.3-4.5% run until
 * decided on every host, and it doubles the power with a disturbed round (1.3x called
 * 51% against 27% at 10 rounds) but loses a fifth of it on a quiet host (65% against 81%)
 * (docs/report.md). */
#define GATE_TRIM 0.2

/* When the rounds ran on different assignments of CPU sets (head on these, base on
 * those), the CPU set is a factor of the paired gate, which needs every assignment to have
 * run at least this many rounds: with one round, an assignment's mean is that round and
 * its effect cannot be told from the change. Until then the comparison is not decided (a
 * duet that does not rotate decides from 4 rounds): falling back to the plain paired t
 * there let a CPU effect and a disturbed round mimic a change (6% A/A false alarms at 3
 * rounds in bench-crossover). */
#define GATE_CROSSOVER_MIN_ROUNDS 2

struct gate_opts {
    double alpha;      /* the chance an A/A gate fails, over every tested comparison: 0.05 */
    double threshold;  /* practical threshold, a fraction: 0.10 (on logs: a ratio of 1.10) */
    double level;      /* of the printed intervals: 0.90, the one-sided tests at alpha both
                        * ways, so a verdict's interval always excludes 0 on its side */
    double drift;      /* GATE_DRIFT_ALLOWANCE, for the single-campaign-a-side path */
    double prior_df;   /* GATE_PRIOR_DF; 0: each setting's own spread; INFINITY: pooled */
    double equivalence_alpha; /* of each of the two one-sided tests that prove "no change"
                               * (Schuirmann 1987): 0.05, the 90% interval */
    double trim;       /* 0 (the default): the paired t on every round; GATE_TRIM: Yuen's */
};
/* The defaults above. */
struct gate_opts gate_opts_default(void);

/* What is compared: one setting x metric (strings borrowed, used to pool and to name). */
struct gate_comparison {
    const char *setting, *metric;
    bool lower_is_better;
    bool must_be_zero;  /* a guardrail: regressed iff guardrail_hit, never tested */
    bool guardrail_hit; /* must_be_zero: a window of head (NEW) was not 0 */
};

/* Within one campaign: base[i] and head[i] ran in round i (NaN: that run failed, the
 * round is skipped). cpu_set[i], when the runs were pinned: which assignment of CPU sets
 * (head's, base's) round i ran, the same number for the same assignment, negative when
 * that round's was not recorded; NULL: not pinned. Arrays borrowed. */
struct gate_paired_input {
    struct gate_comparison what;
    const double *base, *head;
    size_t rounds;
    const int *cpu_set;
};

/* Across campaigns: base[c][0..base_runs[c]) are the runs of base campaign c (a history
 * of base_campaigns >= 1), head[0..head_runs) those of the new campaign. Borrowed. */
struct gate_across_input {
    struct gate_comparison what;
    const double *const *base;
    const size_t *base_runs;
    size_t base_campaigns;
    const double *head;
    size_t head_runs;
};

struct gate_result {
    enum verdict verdict;
    bool tested;        /* false: a guardrail, or too few runs (then verdict inconclusive) */
    bool pending;       /* not tested yet, but more rounds will test it: an assignment of
                         * CPU sets has run too few (the sequential looks wait for it) */
    bool log_scale;     /* compared on logs (every value > 0), else on differences */
    double prior_df;    /* degrees of freedom the other settings lent to the spread */
    const char *test;   /* what decided, for people ("paired t on log ratios"...), static */
    size_t n;           /* rounds (paired) or base campaigns (across) used */
    double change;      /* head against base as a fraction: ratio - 1 on logs, else the
                         * difference of means over |mean of base|; NaN when untested */
    double lo, hi;      /* its interval at opts.level, from the same t as p */
    double df;
    double p;           /* two-sided, uncorrected: agrees with [lo, hi] */
    double p_worse;     /* one-sided toward harm, uncorrected */
    double p_adjusted;  /* p_worse after Holm over the gate: regressed needs < alpha */
    double p_better;    /* one-sided toward benefit, uncorrected */
    double p_equivalent; /* of "no change": the larger p of the two one-sided tests that
                          * the change lies within +-threshold (below equivalence_alpha
                          * proves it) */
    int past_threshold; /* the point estimate beyond the threshold: 1 toward harm, -1
                         * toward benefit, 0 within */
    double delta, se, edge; /* on the scale tested (log ratio, or difference): the change
                             * toward harm (positive: worse), its standard error and the
                             * threshold (NaN untested) */
    double scale;       /* what turns delta into a fraction: 1 on logs, |mean of base| */
    double detectable;  /* smallest change this spread would call regressed, a fraction
                         * toward harm (negative when higher is better); NaN untested */
    long rounds_needed; /* paired: rounds that would call a change of the threshold's size
                         * regressed at this spread; 0 when unknown or more than 100 */
    /* Paired, with cpu_set: the assignments of CPU sets its rounds ran (0: not pinned),
     * whether they were a factor of the test, and if so half the range of their means
     * on the scale tested (the CPU set's effect; NaN otherwise); when not, why (static,
     * NULL when there was nothing to model). */
    size_t cpu_sets;
    bool cpu_modelled;
    double cpu_effect;
    const char *cpu_note;
    size_t trimmed;     /* paired: rounds trimmed, both ends of every assignment together */
};

/* The gate within one campaign, in[0..n) to out[0..n): paired t on per-round log ratios
 * (differences relative to base's mean for metrics that can be 0), each assignment of CPU
 * sets a factor where the design is balanced enough (a crossover analysis: the change is
 * the mean of the assignments' means), and with opts.trim trimmed (Yuen) from 5 rounds an
 * assignment.
 * -1 with err on options out of range. */
int gate_paired(const struct gate_paired_input *in, size_t n, const struct gate_opts *o,
                struct gate_result *out, struct lb_error *err);

/* The gate across campaigns, campaigns as the unit: each campaign summarised by the
 * mean of its runs' logs; with a history (>= 2 base campaigns) NEW against a prediction
 * from the history's spread between campaigns; with one campaign a side against the
 * drift allowance (opts.drift) plus the runs' spread. -1 with err on bad options. */
int gate_across(const struct gate_across_input *in, size_t n, const struct gate_opts *o,
                struct gate_result *out, struct lb_error *err);

/* Holm's step-down over results decided apart that share the gate's alpha (the gate's
 * comparisons and budgets, src/analysis/budget.c): p_adjusted recomputed from p_worse over every
 * tested one of *r[0..n), and a regression that no longer reaches alpha after it made
 * inconclusive. More tests only raise adjusted p, so nothing is promoted. */
void gate_holm_joint(struct gate_result *const *r, size_t n, double alpha);

/* Several hosts pooled (src/analysis/pool.c): each comparison's change on its scale (head - base:
 * a log ratio, or a difference relative to base, so a fraction) estimated by a model
 * of its own, its standard error and degrees of freedom given; hosts is how many it
 * pools. The verdicts as the other gates': Holm over in[0..n), thresholds, equivalence. */
struct gate_pooled_input {
    struct gate_comparison what;
    bool log_scale;
    double change, se, df;
    size_t hosts;
    const char *test;   /* static, for people */
};
int gate_pooled(const struct gate_pooled_input *in, size_t n, const struct gate_opts *o,
                struct gate_result *out, struct lb_error *err);

/* The stated power of a tested result (any path: paired, across, pooled): the smallest
 * change its test would call regressed with probability `power` (0.8) at its measured
 * spread and degrees of freedom, as a fraction toward harm like gate_result.detectable
 * (negative when higher is better), where crit_p is the one-sided level a regression must
 * reach (Holm's first step: alpha over the gated comparisons) and the estimate must pass
 * the threshold too (result.edge). For compare's `detectable` ("could have missed changes
 * under X"): result.detectable is the change that would just be called, half the time.
 * stats_t_power's model: normal rounds or runs, the spread estimated on df; a known part
 * of the error (the drift allowance) folded in by the result's Satterthwaite df. NaN when
 * untested or without spread. */
double gate_detectable(const struct gate_result *r, bool lower_is_better, double crit_p,
                       double power);

/* The worst of n verdicts: regressed > inconclusive > improved > no change. */
enum verdict gate_worst(const struct gate_result *r, size_t n);

#endif
