/* compare --pool's result presented (src/output/pool_view.c): what src/analysis/pool.c
 * pooled, as Markdown and JSON. */
#ifndef LOOPBENCH_POOL_VIEW_H
#define LOOPBENCH_POOL_VIEW_H

#include <jansson.h>
#include <stdio.h>

#include "pool.h"

/* The pooled table, each CPU comparison by host with its chart, as Markdown (-1 with err
 * when a chart cannot be drawn), and as JSON (new reference). */
int pool_markdown(const struct pool_result *r, const struct compare_opts *o, FILE *out,
                  struct lb_error *err);
json_t *pool_json(const struct pool_result *r, const struct compare_opts *o);

#endif
