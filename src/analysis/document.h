/* results.json whole: the campaign's records (model/results.c encodes them) with what the
 * analysis says of them, each run's noise flags, the summary and the warnings (noise.h,
 * summary.h), computed here, above the model. */
#ifndef LOOPBENCH_DOCUMENT_H
#define LOOPBENCH_DOCUMENT_H

#include <jansson.h>

#include "campaign.h"
#include "msg.h"

/* The whole document (new reference, caller decrefs). */
json_t *results_to_json(const struct campaign *c);
/* The document as written to disk (new string, caller frees). */
char *results_text(const struct campaign *c);
/* Write <out_dir>/results.json atomically. The campaign first takes the figures as the
 * file holds them (numbers to ten significant digits: results_settle), so that what the
 * runner shows and what a reader of the file computes are the same. */
int results_write(struct campaign *c, struct lb_error *err);

#endif
