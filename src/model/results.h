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

/* What results.json holds of the campaign's analysis, computed above the model
 * (src/analysis/document.c), all borrowed: per run its noise flags (written for a sampled
 * run) and why it was saturated (NULL: it was not); the summary object and the warnings. */
struct results_run_analysis {
    json_t *noise;
    const char *saturated;
};
struct results_analysis {
    const struct results_run_analysis *runs; /* c->n_runs of them */
    json_t *summary;
    const struct strv *warnings;
};
/* Fill p from a "profile" object (its known keys: profile_section_known), and its metric
 * registry (metric.h). Missing keys read as their defaults (the knob's label is its name, a
 * health key's label its key), so that older and hand-made documents can be read; -1 with
 * err naming `where` when a present key has the wrong type. */
int campaign_profile_from_json(json_t *section, const char *where, struct campaign_profile *p,
                               struct lb_error *err);
/* p's "profile" object again (new reference). */
json_t *campaign_profile_json(const struct campaign_profile *p);

/* The whole document (new reference, caller decrefs). */
json_t *results_document(const struct campaign *c, const struct results_analysis *a);
/* doc as written to disk (new string, caller frees). */
char *results_document_text(const json_t *doc);
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

/* The campaigns a command reads, in the order it was given them. */
struct campaign_set {
    struct campaign *v;
    size_t n;
};
/* Read each of paths[0..n) (results_load) onto the end of set; -1 with err at the first
 * that cannot be read, what was read left in set for campaign_set_release. */
int campaign_set_load(struct campaign_set *set, char *const *paths, size_t n,
                      struct lb_error *err);
/* A new array of pointers to set's campaigns, for the analyses that take them so (the
 * caller frees it). */
const struct campaign **campaign_set_refs(const struct campaign_set *set);
void campaign_set_release(struct campaign_set *set);
/* c takes the figures a document holds, decoded from its text as written (text is
 * results_document_text's), so that what the runner shows and what a reader of the file
 * computes are the same. -1 with err (c unchanged) when the text does not read back. */
int results_settle(struct campaign *c, const char *text, struct lb_error *err);

#endif
