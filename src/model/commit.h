/* The commit of what a campaign ran (docs/results.md, campaign.commit): read from the
 * work tree of the target's directory by git, run so that nothing of the repository's
 * configuration runs, or given by run --commit and the environment CI sets. */
#ifndef LOOPBENCH_COMMIT_H
#define LOOPBENCH_COMMIT_H

#include <jansson.h>
#include <stdbool.h>

#include "msg.h"

/* The commit of a build the campaign ran: sha NULL when not known. source is static:
 * "git" (its directory's work tree), "option" (run --commit) or "env"
 * ($LOOPBENCH_COMMIT, else $GITHUB_SHA). */
struct campaign_commit {
    char *sha;                  /* 40 lowercase hex digits */
    bool dirty;                 /* its tracked files differed from the commit */
    const char *source;
};

/* How long git may take for each of its two questions, and how much of its answer is read. */
#define COMMIT_GIT_TIMEOUT_MS 5000
#define COMMIT_GIT_OUTPUT_MAX 4096

/* "SHA" or "SHA,dirty" (40 hex digits) into out, from `source` ("option", "env"); -1
 * with err saying what was expected. */
int commit_parse(const char *arg, const char *source, struct campaign_commit *out,
                 struct lb_error *err);
/* The commit of the work tree dir is in, and whether its tracked files differ from it,
 * into out (source "git"); -1 when dir is in none, or git cannot tell (not installed,
 * a repository of another user, out of time): the commit is then not known. */
int commit_from_git(const char *dir, struct campaign_commit *out);
/* The campaign's head from the environment: $LOOPBENCH_COMMIT, else $GITHUB_SHA
 * ("SHA[,dirty]"); 0 and sha NULL when neither is set, -1 with err
 * naming the variable when one is not a commit. */
int commit_from_env(struct campaign_commit *out, struct lb_error *err);
void commit_release(struct campaign_commit *c);

/* {"sha", "dirty", "source"}, or null when not known. */
json_t *commit_json(const struct campaign_commit *c);
/* The same read back; null or absent: not known. -1 with err naming where and key when
 * it is not a commit. */
int commit_from_json(json_t *o, const char *where, const char *key, struct campaign_commit *out,
                     struct lb_error *err);

#endif
