/* history's result presented (src/output/history_view.c): what src/analysis/history.c
 * found, as Markdown and JSON. */
#ifndef LOOPBENCH_HISTORY_VIEW_H
#define LOOPBENCH_HISTORY_VIEW_H

#include <jansson.h>
#include <stdio.h>

#include "history.h"

/* The change points as a Markdown table with a chart of each series and its segments'
 * means; -1 with err on a write error. And as JSON (new reference). */
int history_markdown(const struct history *h, const struct history_opts *o, FILE *out,
                     struct lb_error *err);
json_t *history_json(const struct history *h, const struct history_opts *o);

#endif
