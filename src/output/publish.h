/* Publishing a report: one comment on a GitHub pull request, kept up to date, or a
 * JSON POST to a webhook. See docs/network.md.
 *
 * The comment carries a hidden marker (an HTML comment on a line of its own) by which
 * the next publish finds it among the pull request's comments and edits it instead of
 * adding another. Nothing here prints; retries are told through the policy's
 * on_retry. The token only ever goes into the Authorization header. */
#ifndef LOOPBENCH_PUBLISH_H
#define LOOPBENCH_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>

#include "http.h"
#include "msg.h"

#define GITHUB_API_DEFAULT "https://api.github.com"
#define GITHUB_API_VERSION "2022-11-28"
/* Characters (not bytes) a GitHub comment body may hold. */
#define GITHUB_COMMENT_MAX 65536
/* Comments listed per request, and pages read at most (10000 comments). */
#define GITHUB_PER_PAGE 100
#define GITHUB_PAGES_MAX 100
#define PUBLISH_MARKER_NAME_MAX 64
/* The largest report publish reads. */
#define PUBLISH_REPORT_MAX (16ULL << 20)
#define PUBLISH_SCHEMA "loopbench/publish/1"
/* Who writes the comments of GitHub Actions' GITHUB_TOKEN, an App installation token
 * for which GET /user answers 403. */
#define GITHUB_ACTIONS_BOT "github-actions[bot]"

/* OWNER/REPO#N. */
struct github_pr {
    char owner[101];
    char repo[101];
    long number;
};

/* Parse "OWNER/REPO#N"; -1 saying which part is wrong. */
int github_pr_parse(const char *spec, struct github_pr *pr, struct lb_error *err);
/* A token fit for a header: non-empty, no blank or control character. The message
 * names GITHUB_TOKEN, never its value. */
int github_token_check(const char *token, struct lb_error *err);
/* A marker name: 1 to PUBLISH_MARKER_NAME_MAX of letters, digits, '.', '_', '-'. */
int publish_marker_name_check(const char *name, struct lb_error *err);
/* "<!-- loopbench-report -->", or "<!-- loopbench-report:NAME -->" (new string). */
char *publish_marker(const char *name);

/* What to publish and how. */
struct publish_job {
    const char *report;          /* Markdown, valid UTF-8 */
    size_t report_len;
    const char *marker_name;     /* NULL: the default marker */
    const char *api_url;         /* GitHub's API root; NULL: GITHUB_API_DEFAULT */
    const char *token;           /* GitHub */
    struct http_retry retry;
};

/* The report is fit to send: not empty, valid UTF-8 without NUL. `path` names it. */
int publish_report_check(const char *path, const struct publish_job *job, struct lb_error *err);

/* What a report shortened for a GitHub comment left out, by kind of block. */
enum publish_cut_kind {
    CUT_RUN_TABLE,      /* a table of runs (a "run" or "repeat" column, a "per run" section) */
    CUT_SETTING_TABLE,  /* any other table but verdicts and round trips */
    CUT_RTT_TABLE,      /* round trips (a "requests" or "p99.9" column, a "round trip"
                         * or "latency" section) */
    CUT_CODE,           /* a fenced block that is not a Mermaid chart */
    CUT_KINDS
};
struct publish_cut {
    size_t chars;              /* of the comment the whole report makes */
    size_t left_out[CUT_KINDS];
};

/* The report (new string, *len its length) as it goes into a GitHub comment: whole when
 * the comment it makes fits GITHUB_COMMENT_MAX; else without blocks, in this order,
 * until it fits: tables of runs, of settings, of round trips, then code blocks, the
 * largest of a kind first, each replaced by a line saying so, and a note under the
 * first heading saying what was left out, of how many characters, and that `path`
 * holds it all. Headings, text (the headline), verdict tables (a "verdict" column) and
 * Mermaid charts are kept. NULL when even without all of those it does not fit. */
char *publish_fit_comment(const char *path, const struct publish_job *job, size_t *len,
                          struct publish_cut *cut, struct lb_error *err);

/* The requests, as new strings: the comment body (report, then the marker on its own
 * line), the pull request's comments (page 0: the list itself, where a comment is
 * POSTed; else that page of GITHUB_PER_PAGE), one comment, and the webhook's JSON. */
char *github_comment_body(const struct publish_job *job);
char *github_comments_url(const struct publish_job *job, const struct github_pr *pr, int page);
char *github_comment_url(const struct publish_job *job, const struct github_pr *pr,
                         long comment_id);
char *webhook_payload(const struct publish_job *job);

struct publish_result {
    bool updated;                /* GitHub: an existing comment was edited */
    size_t foreign;              /* GitHub: comments with the marker by another user, left
                                    alone */
    long status;                 /* the final HTTP status */
    char *url;                   /* GitHub: the comment's html_url; webhook: its origin */
};
void publish_result_release(struct publish_result *res);

/* Create the pull request's comment, or update the one that carries the marker and
 * was written by the token's own user (GET /user, asked at the first marked comment;
 * GITHUB_ACTIONS_BOT for a token /user refuses with 403): a marked comment anyone else
 * wrote is left alone and counted in res->foreign. -1 with one line on any failure: a
 * network error, an HTTP error (401, 403, 404 say what to check), rate limits that did
 * not clear, an unexpected answer. */
int publish_github(const struct github_pr *pr, const struct publish_job *job,
                   struct publish_result *res, struct lb_error *err);
/* POST webhook_payload to url; any 2xx is success. */
int publish_webhook(const char *url, const struct publish_job *job, struct publish_result *res,
                    struct lb_error *err);

#endif
