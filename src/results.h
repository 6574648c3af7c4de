/* results.json (schema in docs/results.md) and the summary table of a campaign. */
#ifndef LOOPBENCH_RESULTS_H
#define LOOPBENCH_RESULTS_H

#include <jansson.h>
#include <stdio.h>

#include "msg.h"
#include "run.h"

#define RESULTS_SCHEMA "loopbench/results/1"

/* The whole document (new reference, caller decrefs). */
json_t *results_to_json(const struct campaign *c);
/* Just the per-setting summary array (new reference). */
json_t *results_summary_json(const struct campaign *c);
/* Write <out_dir>/results.json atomically. */
int results_write(const struct campaign *c, struct lb_error *err);
/* The summary as an aligned text table. */
void results_print_table(const struct campaign *c, FILE *out);

#endif
