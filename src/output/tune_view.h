/* loopbench tune's answer (src/analysis/tune_ask.h) as people and programs read it: the
 * recommendation and the frontier table in Markdown (on a terminal through terminal.c),
 * the same as JSON, and the frontier chart of report (gnuplot and Mermaid). */
#ifndef LOOPBENCH_TUNE_VIEW_H
#define LOOPBENCH_TUNE_VIEW_H

#include <jansson.h>
#include <stdio.h>

#include "tune_ask.h"

struct tune_view {
    const struct campaign *c;
    const struct tune_ask *a;
    const struct tune_result *r; /* analysed and advised */
};

/* v (a struct tune_view *) as Markdown: the recommendation and its saving, a row per
 * setting run (the chosen one marked), each guard's figure with its interval and verdict,
 * why the search stopped and what would settle the undecided. opts unused (emit.h's
 * markdown_writer). -1 with err on a write error. */
int tune_markdown(const void *v, const void *opts, FILE *out, struct lb_error *err);
/* What was asked and the answer (new reference). */
json_t *tune_json(const struct tune_view *v);

/* The frontier chart: the objective against the first guard's figure, a dot per setting
 * run, the recommended one marked, the Pareto frontier and the settings outside told
 * apart (Mermaid, mermaid_scatter_write), and the line saying so. -1 with err. */
int tune_chart(const struct tune_view *v, FILE *out, struct lb_error *err);

/* A tune's campaign judged again from its results: campaign.tune checked (it may come
 * from anywhere) and the runs analysed and advised. */
struct tune_judged {
    struct tune_ask a;
    struct tune t;
    struct tune_result r;
};
/* -1 with err saying what in campaign.tune does not check; release j either way. */
int tune_judge(struct tune_judged *j, const struct campaign *c, struct lb_error *err);
void tune_judged_release(struct tune_judged *j);

/* report -f json's "tune" of a tune's campaign (c->tune set): judged again as
 * tune_report does, tune_json's object, or {"error": why} when campaign.tune does not
 * check (new reference). */
json_t *tune_report_json(const struct campaign *c);

/* report DIR's section of a tune's campaign (c->tune set): its campaign.tune checked and
 * the runs analysed again, the recommendation, the frontier table and (charts) the
 * chart; a campaign.tune that does not check is said in a line instead. -1 with err on
 * a write error. */
int tune_report(const struct campaign *c, bool charts, FILE *out, struct lb_error *err);

#endif
