/* One reading of a comparison, for every command that states one (report, compare,
 * compare --pool, run's summary): the words of its verdict, the direction its interval
 * allows, why it got its verdict, and the headline of a gate. The figures are the gate's
 * (compare.c, gate.c); this only says them, the same way everywhere. docs/report.md,
 * "Verdicts", lists the words. */
#ifndef LOOPBENCH_VERDICT_H
#define LOOPBENCH_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "compare.h"

/* The word for a row's verdict (static): the gate's four ("regressed", "improved", "no
 * change", "inconclusive"), a budget's ("within", "over", "inconclusive"), or "cannot
 * test" where nothing could test it (too few runs or rounds, a key no run recorded, CPU
 * sets not yet balanced): always said with its reason (verdict_why). */
const char *verdict_word(const struct compare_row *row);
/* Whether nothing could test the row: its word is "cannot test". */
bool verdict_untested(const struct compare_row *row);

/* What a row's verdict is read against (compare_result's frame, or a pool's). */
struct verdict_frame {
    size_t base_campaigns; /* 0: within one campaign, paired by round */
    long sequential_max;   /* > 0: verdicts of the sequential gate */
    const struct gate_opts *gate;
    const char *untested; /* why nothing could test it, when the caller knows better
                           * (a pool: "no campaign could test it"); NULL: the row's */
};
/* The frame of compare's result r under gate options o. */
struct verdict_frame verdict_frame_of(const struct compare_result *r, const struct gate_opts *o);

/* Why row got its verdict, in words a reviewer can act on, into buf ("" when there is
 * nothing to add): what compare's note column, report's sentences and the headline say.
 * Not gated rows say so first. */
void verdict_why(const struct compare_row *row, const struct verdict_frame *f, char *buf,
                 size_t len);
/* A gated, tested comparison's stated power (compare_row.detectable) appended to buf,
 * after "; " when buf holds something: "could have missed changes under +X% (80%
 * power)". Nothing for another row. compare's and compare --pool's why say it. */
void verdict_power(const struct compare_row *row, char *buf, size_t len);

/* The direction a change's interval allows, as ratios [lo, hi] (1: no change; NaN: none
 * known): "more" or "less" only when it excludes 1, else "no clear difference" (static). */
const char *verdict_direction(double lo, double hi);

/* The row a gate's verdict stands on: the first gated row whose verdict is the worst
 * (r->worst), NULL when no row is gated. */
const struct compare_row *verdict_deciding_row(const struct compare_result *r);
/* Why the gate's verdict (verdict_result_word) is what it is, one line into buf, naming
 * the row it stands on: "CPU at idle wait (ms) 2 head +145% (90% CI +77.0% to +240%)" (a
 * regression), "all 2 gated changes lie within +-10.0% (90% intervals)", "CPU at idle wait
 * (ms) 2 head: only a change of +21.4% would be called" (inconclusive). knob names the
 * settings. */
void verdict_headline(const struct compare_result *r, const struct verdict_frame *f,
                      const char *knob, char *buf, size_t len);
/* The gate's verdict (static): the worst gated row's, in the budgets' words when budgets
 * alone are gated. */
const char *verdict_result_word(const struct compare_result *r);

/* A campaign read as compare DIR reads it with its defaults, so that report and run's
 * summary say what compare says: the campaign's primary keys gated, its profile's budgets
 * held, the sequential gate's verdicts for a campaign run until decided. */
struct reading {
    struct compare_opts opts;
    struct budget_set budgets;
    /* Each cell against its reference: each variant against the base (with the budgets:
     * compare DIR's rows), or without variants each setting against the baseline (as
     * run --repeat auto looks at them; compare DIR does not gate settings). */
    struct compare_result cells;
    /* A campaign of settings with budgets: compare DIR's result, its budgets alone. */
    struct compare_result budget_gate;
    /* What compare DIR gives: &cells, &budget_gate, or NULL when it gates nothing (a
     * campaign of settings without budgets). */
    const struct compare_result *gate;
};
/* -1 with err when the campaign cannot be read so (a --variant or key unknown). A budget
 * of the profile at a setting the campaign did not run is left out (compare DIR refuses
 * it, saying so). */
int reading_init(struct reading *rd, const struct campaign *c, struct lb_error *err);
void reading_release(struct reading *rd);
/* The row of rd->cells comparing metric `key` at setting (and variant, NULL without), NULL
 * when there is none (a reference cell, a metric compare does not gate). */
const struct compare_row *reading_row(const struct reading *rd, const char *setting,
                                      const char *variant, const char *key);

#endif
