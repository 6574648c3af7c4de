/* Two sets of runs of one metric compared, and the CI regression verdict built on that
 * (loopbench compare). report.c uses the same comparison for its headline. */
#ifndef LOOPBENCH_COMPARE_H
#define LOOPBENCH_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "msg.h"
#include "budget.h"
#include "campaign.h"
#include "gate.h"
#include "numfmt.h"
#include "sequential.h"
#include "stats.h"

/* Everything known about b against a for one metric (report.c's table and headline). */
struct metric_diff {
    struct stats_summary a, b;
    struct stats_ratio ratio;   /* median(b) / median(a), bootstrap CI */
    struct stats_ratio ci;      /* the ratio and interval of the test that decides (paired
                                 * t, else Welch t on logs): they agree with p; NaN on values */
    struct stats_test welch;    /* on logs; not enough when a value is 0 */
    struct stats_test mwu;      /* from STATS_MWU_MIN runs a side */
    struct stats_paired paired; /* pairs == 0 unless the runs share rounds */
    bool log_scale;             /* compared on logarithms (all values > 0) */
    double p;                   /* the deciding p: paired, else Welch, else Mann-Whitney; NaN: too few runs */
    const char *test;           /* which one ("paired t on log ratios", ...), NULL with p NaN */
};

/* Compare a[0..na) with b[0..nb) at interval level `level`; pa/pb[0..npairs) are the
 * same runs paired by round (npairs 0 if none), cpu_set[0..npairs) their assignments of
 * CPU sets (compare_cpu_assignments; NULL when not pinned): where they varied, the
 * interval and p are the gate's with the CPU set a factor. */
void compare_metric(const double *a, size_t na, const double *b, size_t nb, const double *pa,
                    const double *pb, size_t npairs, const int *cpu_set, double level,
                    struct metric_diff *out);
/* The rounds' assignments of CPU sets (gate_paired_input.cpu_set) from the CPUs each
 * run of a pair was pinned to (campaign_cell_pairs_cpus): the same number for the same
 * pair of sets, -1 for a round with a run not pinned; NULL when none was (a new array,
 * caller frees). */
int *compare_cpu_assignments(const char *const *cpus_a, const char *const *cpus_b, size_t n);

/* compare exits 3 for an inconclusive gate under --fail-on inconclusive. */
#define COMPARE_EXIT_INCONCLUSIVE 3

struct compare_opts {
    const char *metric;       /* only this key ("cpu" or a health key); NULL: all */
    const char *primary;      /* comma-separated keys the gate holds to; NULL: every
                               * metric. Others are reported, corrected among themselves,
                               * and never fail. must_be_zero keys always gate. */
    const char *variant;      /* campaigns of variants: only this one (against the base
                               * within a campaign; against itself across campaigns);
                               * NULL: every one */
    struct gate_opts gate;    /* alpha over the gate, threshold, interval level, drift */
    /* Bounds held to with no base (src/analysis/budget.c): each a gated row of NEW (within one
     * campaign, of each variant against the base), in Holm's correction with the gated
     * comparisons. NULL: none. budgets_only: the budgets' rows alone (a campaign of
     * settings has no base to compare with). */
    const struct budget_set *budgets;
    bool budgets_only;
};

/* One setting x metric (x variant, within one campaign). */
struct compare_row {
    const char *setting, *metric, *label; /* borrowed */
    const char *name;                     /* the metric in a sentence ("CPU"), borrowed */
    const char *variant;      /* within one campaign: the variant against the base; else NULL */
    bool lower_is_better;
    bool gated;               /* a primary metric or a guardrail: it can fail the job */
    long decided_at;          /* runs until decided: the round whose look fixed the
                               * verdict; 0 undecided, or a fixed count of rounds */
    struct stats_summary a, b; /* every run of the BASE campaigns; NEW's runs */
    struct gate_result g;
    const struct budget *budget; /* a budget's row (borrowed): g is budget_test's, a is
                                  * empty; NULL: a comparison */
    double typical;           /* a budget's row: the typical value budget_test held to it */
    char *saturated;          /* the setting's runs saturated the CPUs (noise.h), so the
                               * comparison measured contention: how many and why; NULL */
    /* A gated comparison's stated power: the smallest change its test would have called
     * regressed with COMPARE_POWER at its spread and rounds, Holm's first step the level
     * (gate_detectable), a fraction toward harm ("could have missed changes under X");
     * NaN when not gated, not tested, a budget or without spread. */
    double detectable;
};
#define COMPARE_POWER 0.80
/* row's detectable: gate_detectable at Holm's first step over `tested` gated tests at
 * alpha; NaN when the row is not a gated, tested comparison. */
double compare_detectable(const struct compare_row *row, size_t tested, double alpha);

struct compare_result {
    struct compare_row *rows;
    size_t n_rows;
    size_t base_campaigns;    /* 0: within one campaign, its variants paired by round */
    enum verdict worst;       /* over the gated rows */
    long sequential_max;      /* > 0: the verdicts are the sequential gate's, looked at
                               * after every round of a campaign run with --repeat auto */
};

/* Whether two campaigns can be compared: the same profile (by name), the same knob
 * and at least one setting in common; -1 with err saying which differs. */
int compare_compatible(const struct campaign *a, const struct campaign *b,
                       struct lb_error *err);

/* Gate new_ against base[0..n_base) (one campaign, or a history of several) across
 * campaigns (gate_across), each setting of new_ that a base campaign has, for CPU and
 * each health key; in campaigns of variants, each variant of new_ (or o->variant) against
 * the same variant of the bases. -1 with err when a base is incompatible, of another
 * shape (variants against settings, other variants) or a key unknown. */
int compare_results(const struct campaign *const *base, size_t n_base,
                    const struct campaign *new_, const struct compare_opts *o,
                    struct compare_result *out, struct lb_error *err);
/* Gate each variant of one campaign against its base (the first), setting by setting,
 * paired by round (gate_paired), for CPU and each health key. -1 with err when the
 * campaign has no variants or a key is unknown. */
int compare_variants(const struct campaign *c, const struct compare_opts *o,
                     struct compare_result *out, struct lb_error *err);
/* The same within any campaign, paired by round: each cell against its reference (the
 * base variant's, or without variants the baseline setting): what `run --repeat auto`
 * looks at after each round (runs not yet run count as missing). */
int compare_within(const struct campaign *c, const struct compare_opts *o,
                   struct compare_result *out, struct lb_error *err);
void compare_result_release(struct compare_result *r);

/* The sequential gate over compare_within's rows (src/analysis/sequential.c), one procedure per
 * family as compare_within corrects them: the gated rows, and the others. Per row, after
 * each look: the round that fixed its verdict (0: none yet), whether it is futile (the
 * cap would rarely decide it) and its verdict so far. */
struct compare_looks {
    struct seq family[2];       /* [0] the others, [1] the gated rows */
    size_t *rows[2], n[2];      /* each family's rows */
    size_t n_rows;
    long *decided_at;
    bool *futile;
    enum verdict *verdict;
};
/* For the rows of `first` (any look's result: the rows are the same at every look), at
 * most max rounds and o's alpha. -1 with err when max is out of range. */
int compare_looks_init(struct compare_looks *l, const struct compare_result *first, long max,
                       const struct gate_opts *o, struct lb_error *err);
/* The look after `round` (from SEQ_MIN_ROUNDS, in order) at `now`, compare_within over
 * the first `round` rounds. Returns how many gated rows are undecided and not futile. */
size_t compare_looks_take(struct compare_looks *l, long round, const struct compare_result *now);
void compare_looks_release(struct compare_looks *l);

/* A campaign run until decided (campaign.sequential_max > 0) compared as compare_within,
 * its looks taken again over the rounds it ran, so its verdicts are the sequential
 * gate's, as the run reached them; the changes, intervals and p are those of every
 * round it ran. */
int compare_sequential(const struct campaign *c, const struct compare_opts *o,
                       struct compare_result *out, struct lb_error *err);

/* A change and its interval as the verdict tables write them (compare's, the pool's, the
 * report's): "+12.3% (-1.2% to +27.0%)"; "-" for NaN. */
void compare_fmt_interval(const struct gate_result *g, char *buf, size_t len);

#endif
