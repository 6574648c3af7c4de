/* loopbench report: one or more campaigns (results.json read back) as Markdown for a PR
 * description, CSV and JSON. Several campaigns, e.g. the same one on several hosts,
 * give one table with a column group per host. */
#ifndef LOOPBENCH_REPORT_H
#define LOOPBENCH_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "results_load.h"

#define REPORT_LEVEL 0.95 /* confidence level of the intervals */
#define REPORT_ALPHA 0.05 /* a difference is called one below this p */

struct report_opts {
    const char *title; /* NULL: "<profile>: <knob label>" */
    /* Image links to put under the table, relative to the report (NULL-terminated
     * pairs of alt text and path), or NULL for none. */
    const char *const *images;
};

/* Markdown: title, headline sentences, the per-setting table, the method footnote. */
void report_markdown(const struct loaded_results *r, size_t n, const struct report_opts *o,
                     FILE *out);
/* CSV: one row per run (kind "run") and one per setting (kind "setting"). */
void report_csv(const struct loaded_results *r, size_t n, FILE *out);
/* JSON: per host, per setting, the summary with its statistics against the baseline
 * (new reference). */
json_t *report_json(const struct loaded_results *r, size_t n);

#endif
