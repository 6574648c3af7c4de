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

#endif
