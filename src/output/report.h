/* loopbench report: one or more campaigns as Markdown for a PR description, CSV and
 * JSON; and the same headline and table in a terminal's form, which `run` prints when a
 * campaign ends. Several campaigns, e.g. the same one on several hosts, give one table
 * with a column group per host. */
#ifndef LOOPBENCH_REPORT_H
#define LOOPBENCH_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "campaign.h"

struct report_opts {
    const char *title; /* NULL: "<profile>: <knob label>" */
    bool charts;       /* Mermaid charts of each campaign (GitHub draws them in a PR) */
};

/* Markdown: title, headline sentences, the per-setting table, the charts, the method
 * footnote. -1 with err when a chart cannot be drawn (the rest is written). */
int report_markdown(const struct campaign *c, size_t n, const struct report_opts *o, FILE *out,
                    struct lb_error *err);
/* The headline sentences and the per-setting tables of one campaign, their columns
 * aligned for a terminal (still a Markdown table), with its warnings. */
void report_terminal(const struct campaign *c, FILE *out);
/* CSV: one row per run (kind "run") and one per setting (kind "setting"). */
void report_csv(const struct campaign *c, size_t n, FILE *out);
/* JSON: per host, per setting, the summary with its statistics against the baseline
 * (new reference). */
json_t *report_json(const struct campaign *c, size_t n);

#endif
