/* compare's verdicts presented (src/output/compare_view.c): what src/analysis/compare.c
 * computed, as Markdown and JSON. */
#ifndef LOOPBENCH_COMPARE_VIEW_H
#define LOOPBENCH_COMPARE_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "compare.h"

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

#endif
