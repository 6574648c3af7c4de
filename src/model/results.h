/* results.json (schema in docs/results.md): the one writer and the one reader of a
 * campaign's document. What is written is read back whole, so a campaign read and
 * written again gives the same bytes. */
#ifndef LOOPBENCH_RESULTS_H
#define LOOPBENCH_RESULTS_H

#include <jansson.h>

#include "campaign.h"
#include "msg.h"

/* 2 added variants (campaign.variants, a run's and a plan entry's variant); a version 1
 * document is read as a campaign without them. */
#define RESULTS_SCHEMA "loopbench/results/2"
#define RESULTS_SCHEMA_V1 "loopbench/results/1"

/* The whole document (new reference, caller decrefs). */
json_t *results_to_json(const struct campaign *c);
/* The document as written to disk (new string, caller frees). */
char *results_text(const struct campaign *c);
/* Read a document into c (caller releases with campaign_release, also on failure).
 * out_dir is the campaign's directory; `where` names the document in messages. Keys a
 * hand-made or older document lacks read as empty; -1 with err naming the key when the
 * document is not a campaign of either schema. */
int results_from_json(json_t *doc, const char *out_dir, const char *where, struct campaign *c,
                      struct lb_error *err);
/* The largest results.json read: some 10 000 runs (a run takes 1.5 to 3 KB). */
#define RESULTS_SIZE_MAX (16ULL << 20)

/* Read DIR/results.json, or the file itself when `path` is not a directory. */
int results_load(const char *path, struct campaign *c, struct lb_error *err);
/* Write <out_dir>/results.json atomically. The campaign first takes the figures as the
 * file holds them (numbers to ten significant digits), so that what the runner shows
 * and what a reader of the file computes are the same. */
int results_write(struct campaign *c, struct lb_error *err);

#endif
