/* The views of what src/analysis/ decides, one file each beside this header: compare's
 * verdicts (compare_view.c), compare --pool's (pool_view.c) and history's change points
 * (history_view.c), each as Markdown with its Mermaid charts and as JSON. The commands
 * print them through cli/emit.h. */
#ifndef LOOPBENCH_VIEWS_H
#define LOOPBENCH_VIEWS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "compare.h"
#include "history.h"
#include "pool.h"

/* ---- compare (compare_view.c) ------------------------------------------------------- */

/* When BASE campaign a and NEW b ran on hosts of different fingerprints (fingerprint.h):
 * a sentence naming the first field that differs and both values (new string), its
 * names quoted for Markdown when markdown, else for a one-line message; NULL when not. */
char *compare_host_change(const struct campaign *a, const struct campaign *b, bool markdown);

/* The verdict table as GitHub-flavoured Markdown with a chart of CPU per setting, base
 * beside new (-1 with err when the chart cannot be drawn), and as JSON (new reference). */
int compare_markdown(const struct compare_result *r, const struct compare_opts *o,
                     const struct campaign *const *base, const struct campaign *new_,
                     FILE *out, struct lb_error *err);
/* knob: the label of the campaigns' knob, for the headline. */
json_t *compare_json(const struct compare_result *r, const struct compare_opts *o,
                     const char *knob);

/* ---- compare --pool (pool_view.c) --------------------------------------------------- */

/* The pooled table, each CPU comparison by host with its chart, as Markdown (-1 with err
 * when a chart cannot be drawn), and as JSON (new reference). */
int pool_markdown(const struct pool_result *r, const struct compare_opts *o, FILE *out,
                  struct lb_error *err);
json_t *pool_json(const struct pool_result *r, const struct compare_opts *o);

/* ---- history (history_view.c) ------------------------------------------------------- */

/* The change points as a Markdown table with a chart of each series and its segments'
 * means; -1 with err on a write error. And as JSON (new reference). */
int history_markdown(const struct history *h, const struct history_opts *o, FILE *out,
                     struct lb_error *err);
json_t *history_json(const struct history *h, const struct history_opts *o);

#endif
