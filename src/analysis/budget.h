/* Budgets: a gate with no base (loopbench compare --budget, a profile's "budgets"). An
 * operator's absolute rule, "at idle wait 2 the shard uses at most 1% of a core", is a
 * one-sided test that the metric's typical value over a campaign's runs lies within a
 * bound. Its results are gate_results, so that compare's rows, Holm's correction over
 * the gated comparisons, the exit codes and the sequential looks of --repeat auto take
 * them as they take the gate's comparisons: "over" is VERDICT_REGRESSED, "within"
 * VERDICT_NO_CHANGE. docs/report.md explains the method and its calibration. */
#ifndef LOOPBENCH_BUDGET_H
#define LOOPBENCH_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

#include "gate.h"
#include "msg.h"

struct campaign;

/* One bound on one setting x metric: the typical value at most limit (upper), or at
 * least limit (a higher-is-better key's "min"). */
struct budget {
    char *setting, *key;
    double limit;
    bool upper;
};

struct budget_set {
    struct budget *v;
    size_t n;
};

/* "within", "over", "inconclusive" for a budget's verdict (static). */
const char *budget_verdict_name(enum verdict v);

/* KEY@SETTING<=VALUE or KEY@SETTING>=VALUE (compare --budget) appended to set; -1 with
 * err naming the argument and what was expected. */
int budget_parse(const char *arg, struct budget_set *set, struct lb_error *err);

/* The budgets of the campaign's profile (its "budgets" in results.json, each "max" and
 * "min" a budget of its own) at the settings it ran (a campaign of some of the profile's
 * settings is held to theirs) appended to set; -1 with err naming the file and entry when
 * one is malformed (results.json may come from anywhere). */
int budget_from_campaign(const struct campaign *c, struct budget_set *set,
                         struct lb_error *err);

/* Each budget's setting is one of c's and its key "cpu" or a health key of c; -1 with
 * err naming the first that is not. */
int budget_check(const struct budget_set *set, const struct campaign *c, struct lb_error *err);

void budget_set_release(struct budget_set *set);

/* One budget's runs, x[0..n) (NaN: no value, skipped), borrowed. */
struct budget_input {
    bool upper;
    double limit;
    const double *x;
    size_t n;
};

/* Each budget of in[0..n) tested into out[0..n): the typical value is the geometric mean
 * of the runs (the mean of their logs, with a t interval on n - 1 degrees of freedom)
 * when every value and the limit are > 0, else the mean of the values. "Over": the
 * one-sided t test that the typical value lies beyond the limit, significant after Holm
 * over the n budgets at o's alpha; "within": the one-sided test that it lies inside, at
 * o's equivalence alpha (every budget must pass it for the gate to pass: an
 * intersection-union test, which needs no correction); "inconclusive" otherwise. In the
 * result, change is the typical value against the limit (a fraction), p_worse that of
 * "over", p_equivalent that of "within", delta and se the excess over the limit on the
 * scale tested (positive: beyond it) and its standard error, edge 0. */
void budget_test(const struct budget_input *in, size_t n, const struct gate_opts *o,
                 struct gate_result *out);

/* The typical value of x[0..n) as budget_test takes it (NaN when no value). */
double budget_typical(const double *x, size_t n);

#endif
