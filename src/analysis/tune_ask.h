/* What loopbench tune was asked, over a campaign: the knob's grid (its values the
 * campaign's settings), the reference, the objective, the guards and the budget; kept in
 * results.json's campaign.tune, so that --resume continues the same search and report
 * judges the same guards. The runs of the campaign become tune.h's observations here;
 * the statistics are tune.c's. */
#ifndef LOOPBENCH_TUNE_ASK_H
#define LOOPBENCH_TUNE_ASK_H

#include <jansson.h>
#include <stdbool.h>

#include "campaign.h"
#include "msg.h"
#include "tune.h"
#include "util.h"

#define TUNE_GUARDS_MAX 8
/* A guard's text, a key's name, at most (results.json's values are bounded). */
#define TUNE_TEXT_MAX 128

struct tune_ask {
    struct tune_grid grid;
    bool range; /* LO:HI:STEP (else a list, the grid's labels) */
    double lo, hi, step;
    char *reference; /* as given; NULL: the profile's baseline */
    char *minimize;  /* the objective's key, "cpu" */
    double tie;      /* tune_spec's, in the objective's unit; < 0 until bound: its default */
    size_t guards;
    char *guard_text[TUNE_GUARDS_MAX];
    char *guard_key[TUNE_GUARDS_MAX];
    struct tune_guard guard[TUNE_GUARDS_MAX];
    long max_runs;     /* 0: no limit */
    double max_time_s; /* 0: no limit */
    long max_rounds;   /* a setting's rounds at most (TUNE_DEFAULT_ROUNDS) */
    /* tune_ask_bind: the reference's index on the grid (and the campaign's settings) */
    size_t ref;
};

void tune_ask_init(struct tune_ask *a);
/* "LO:HI[:STEP]" into a's grid; -1 with err saying what was expected. */
int tune_ask_range(struct tune_ask *a, const char *text, struct lb_error *err);
/* The values of a list (at least 2, distinct) into a's grid. */
int tune_ask_list(struct tune_ask *a, const struct strv *values, struct lb_error *err);
/* One more guard, "KEY<=LIMIT" (tune_guard_parse); -1 with err. */
int tune_ask_guard(struct tune_ask *a, const char *text, struct lb_error *err);
/* The grid's values as the campaign's settings ("0", "2.5", a list's names). */
void tune_ask_values(const struct tune_ask *a, struct strv *out);
/* a checked against campaign c, whose settings are a's values: the objective and every
 * guard's key a metric of c's profile (a guard's direction taken from it), the
 * reference on the grid (default: baseline, the profile's). -1 with err naming the key or
 * value at fault. */
int tune_ask_bind(struct tune_ask *a, const struct campaign *c, const char *baseline,
                  struct lb_error *err);
/* As results.json keeps it (new reference). */
json_t *tune_ask_json(const struct tune_ask *a);
/* c->tune read back into a and bound to c; -1 with err when it is not one tune_ask_json
 * wrote for these settings (a results.json may come from anywhere). */
int tune_ask_from_campaign(struct tune_ask *a, const struct campaign *c, struct lb_error *err);
/* tune_spec over a's grid and guards (borrowing them). */
struct tune_spec tune_ask_spec(const struct tune_ask *a);
/* c's completed runs (a failed one counts as no value) analysed into r by t. */
int tune_ask_analyse(const struct tune_ask *a, struct tune *t, const struct campaign *c,
                     struct tune_result *r, struct lb_error *err);
/* The answer of r (tune_analyse, tune_advise) as -f json and results.json's
 * campaign.tune give it: "recommended" (null: none), "best" (the lowest objective within
 * every guard) and "frontier", a row per setting run, each guard's verdict with its
 * interval and stated power, its objective against the best's ("to_best"), "pareto"
 * marking the settings no other beats on both the objective and the first guard (new
 * reference). */
json_t *tune_ask_answer(const struct tune_ask *a, const struct campaign *c,
                        const struct tune_result *r);
void tune_ask_release(struct tune_ask *a);

#endif
