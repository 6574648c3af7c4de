/* loopbench publish: a report as a pull request comment kept up to date, or to a webhook. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "config.h"
#include "platform/files.h"
#include "publish.h"
#include "text.h"
#include "util.h"

const char cmd_publish_usage[] =
    "usage: loopbench publish REPORT.md (--github OWNER/REPO#N | --webhook URL) [options]\n"
    "\n"
    "Publish a report (Markdown, e.g. from `loopbench report` or `loopbench compare`): as\n"
    "one comment on a GitHub pull request, created the first time and updated after (a\n"
    "hidden marker at its end finds it again, in a comment by the token's own user), or as\n"
    "JSON posted to a webhook. Rate limits are waited out as the server asks (Retry-After,\n"
    "x-ratelimit-reset), up to 60 s; 5xx answers and network failures are tried 4 times in\n"
    "all, 1, 2 and 4 s apart. A report longer than a GitHub comment (65536 characters) is\n"
    "shortened, its tables left out first, its headline, verdicts and charts kept (the\n"
    "comment says so).\n"
    "\n"
    "      --github OWNER/REPO#N  comment on that pull request with the token in\n"
    "                             $GITHUB_TOKEN (never printed)\n"
    "      --api-url URL          the GitHub API root (default " GITHUB_API_DEFAULT ";\n"
    "                             GitHub Enterprise Server: https://HOST/api/v3);\n"
    "                             http:// only to a loopback address\n"
    "      --marker NAME          one comment per NAME on a pull request (default: one)\n"
    "      --webhook URL          POST the report as JSON to URL (see docs/network.md)\n"
    "      --dry-run              print the requests instead of sending anything\n"
    "  -h, --help                 show this help\n"
    "\n"
    "environment: GITHUB_TOKEN (for --github); LOOPBENCH_HTTP_BACKOFF_MS, the first wait\n"
    "before a retry after a 5xx or a network failure (default 1000).\n"
    "\n"
    "exit status: 0 published (prints 'created comment URL', 'updated comment URL' or\n"
    "'posted to webhook URL'), 1 refused by the server or not reachable, 2 bad usage,\n"
    "an unreadable report or no GITHUB_TOKEN.\n";

#define BACKOFF_ENV "LOOPBENCH_HTTP_BACKOFF_MS"

static void warn_retry(void *ctx, const char *why)
{
    (void)ctx;
    msg_warn("%s", why);
}

static void print_dry_run(const struct github_pr *pr, const char *webhook,
                          const struct publish_job *job)
{
    char *marker = publish_marker(job->marker_name);
    if (webhook) {
        char *origin = http_url_display(webhook, true), *payload = webhook_payload(job);
        printf("POST %s/... (path not shown): %zu bytes of JSON, schema %s, marker %s\n",
               origin, strlen(payload), PUBLISH_SCHEMA, marker);
        free(origin);
        free(payload);
    } else {
        char *first = github_comments_url(job, pr, 1), *list = github_comments_url(job, pr, 0);
        char *body = github_comment_body(job);
        const char *token = getenv("GITHUB_TOKEN");
        printf("GET %s and the next pages: the comment holding %s\n"
               "GET /user at the first one: its writer must be the token's user\n"
               "PATCH it (.../issues/comments/ID) when found, else POST %s\n"
               "%zu bytes of comment; Authorization: Bearer $GITHUB_TOKEN (%s)\n",
               first, marker, list, strlen(body), token && *token ? "set" : "not set");
        free(first);
        free(list);
        free(body);
    }
    printf("dry run: nothing was sent\n");
    free(marker);
}

/* A report too long for a GitHub comment is shortened (publish_fit_comment), and the
 * user told what was left out; *report is replaced. */
static int fit_comment(const char *path, struct publish_job *job, char **report,
                       struct lb_error *err)
{
    struct publish_cut cut;
    size_t len;
    char *fitted = publish_fit_comment(path, job, &len, &cut, err);
    if (!fitted)
        return -1;
    size_t left_out = 0;
    for (int k = 0; k < CUT_KINDS; k++)
        left_out += cut.left_out[k];
    if (left_out)
        msg_warn("'%s' makes a comment of %zu characters, more than the %d GitHub takes: %zu "
                 "of its tables and code blocks are left out of it (the comment says so)", path,
                 cut.chars, GITHUB_COMMENT_MAX, left_out);
    free(*report);
    *report = fitted;
    job->report = fitted;
    job->report_len = len;
    return 0;
}

int cmd_publish(int argc, char **argv)
{
    static const enum cli_option accepts[] = {
        OPT_GITHUB, OPT_API_URL, OPT_MARKER, OPT_WEBHOOK, OPT_DRY_RUN, OPT_END};
    struct publish_job job = {.retry = HTTP_RETRY_DEFAULT};
    struct github_pr pr = {.number = 0};
    const char *github = NULL, *webhook = NULL;
    bool dry_run = false;
    struct lb_error err;
    int c;
    while ((c = cli_getopt(argc, argv, accepts)) != -1) {
        switch (c) {
        case OPT_GITHUB:
            if (github_pr_parse(optarg, &pr, &err) < 0)
                return msg_usage_error("publish", "publish: --github %s", err.msg);
            github = optarg;
            break;
        case OPT_API_URL:
            if (http_url_check_secret("publish: --api-url", optarg, &err) < 0)
                return msg_usage_error("publish", "%s", err.msg);
            job.api_url = optarg;
            break;
        case OPT_MARKER:
            if (publish_marker_name_check(optarg, &err) < 0)
                return msg_usage_error("publish", "publish: --%s", err.msg);
            job.marker_name = optarg;
            break;
        case OPT_WEBHOOK:
            if (http_url_check("publish: --webhook", optarg, &err) < 0)
                return msg_usage_error("publish", "%s", err.msg);
            webhook = optarg;
            break;
        case OPT_DRY_RUN:
            dry_run = true;
            break;
        default:
            return cli_bad_option("publish", argc, argv);
        }
    }
    if (argc - optind != 1)
        return msg_usage_error("publish", "publish: expected one report file, got %d",
                               argc - optind);
    if (!github == !webhook)
        return msg_usage_error("publish", "publish: expected exactly one of --github "
                                          "OWNER/REPO#N and --webhook URL");
    if (job.api_url && !github)
        return msg_usage_error("publish", "publish: --api-url goes with --github");
    const char *backoff = getenv(BACKOFF_ENV);
    long backoff_ms;
    if (backoff && *backoff) {
        if (parse_long(backoff, 0, 60000, &backoff_ms) < 0)
            return msg_usage_error("publish", "publish: %s '%s': expected milliseconds, 0 to "
                                              "60000", BACKOFF_ENV, backoff);
        job.retry.backoff_ms = (unsigned)backoff_ms;
    }
    job.retry.on_retry = warn_retry;
    if (github && !dry_run) {
        job.token = getenv("GITHUB_TOKEN");
        if (github_token_check(job.token, &err) < 0)
            return msg_usage_error("publish", "publish: %s", err.msg);
    }
    const char *path = argv[optind];
    char *report;
    if (read_file_bounded(path, "report", PUBLISH_REPORT_MAX, &report, &job.report_len, &err) < 0) {
        msg_error("%s", err.msg);
        return LB_EXIT_USAGE;
    }
    job.report = report;
    int status = LB_EXIT_USAGE;
    if (publish_report_check(path, &job, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    /* The report may hold what its campaign's target wrote, or what anyone with the
     * file wrote in it since: its mentions and HTML are posted as text. */
    char *inert = text_markdown_inert(report, &job.report_len);
    free(report);
    job.report = report = inert;
    if (github && fit_comment(path, &job, &report, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    status = LB_EXIT_OK;
    if (dry_run) {
        print_dry_run(&pr, webhook, &job);
        goto out;
    }
    struct publish_result res;
    int rc = github ? publish_github(&pr, &job, &res, &err)
                    : publish_webhook(webhook, &job, &res, &err);
    if (rc < 0) {
        msg_error("%s", err.msg);
        status = LB_EXIT_FAILURE;
        goto out;
    }
    if (res.foreign)
        msg_warn("%zu comment%s on %s/%s#%ld carr%s the marker but %s not written by the "
                 "token's user: left alone", res.foreign, res.foreign == 1 ? "" : "s",
                 pr.owner, pr.repo, pr.number, res.foreign == 1 ? "ies" : "y",
                 res.foreign == 1 ? "was" : "were");
    if (github)
        printf("%s comment %s\n", res.updated ? "updated" : "created", res.url);
    else
        printf("posted to webhook %s (HTTP %ld)\n", res.url, res.status);
    publish_result_release(&res);
out:
    free(report);
    return status;
}
