#include "publish.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "text.h"
#include "util.h"

#define MARKER_PREFIX "loopbench-report"

static bool all_of(const char *s, size_t len, const char *extra)
{
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr(extra, s[i]))
            return false;
    return true;
}

int github_pr_parse(const char *spec, struct github_pr *pr, struct lb_error *err)
{
    const char *slash = strchr(spec, '/'), *hash = strrchr(spec, '#');
    if (!slash || !hash || hash < slash)
        return lb_fail(err, "'%s': expected OWNER/REPO#N, e.g. octocat/hello-world#42", spec);
    size_t owner_len = (size_t)(slash - spec), repo_len = (size_t)(hash - slash - 1);
    if (owner_len == 0 || owner_len >= sizeof(pr->owner) || !all_of(spec, owner_len, "-_"))
        return lb_fail(err, "'%s': the owner '%.*s' should be 1 to %zu letters, digits, '-' or "
                       "'_'", spec, (int)owner_len, spec, sizeof(pr->owner) - 1);
    if (repo_len == 0 || repo_len >= sizeof(pr->repo) || !all_of(slash + 1, repo_len, "-_.") ||
        strncmp(slash + 1, ".", repo_len) == 0 || strncmp(slash + 1, "..", repo_len) == 0)
        return lb_fail(err, "'%s': the repository '%.*s' should be 1 to %zu letters, digits, "
                       "'-', '_' or '.'", spec, (int)repo_len, slash + 1, sizeof(pr->repo) - 1);
    if (parse_long(hash + 1, 1, INT32_MAX, &pr->number) < 0)
        return lb_fail(err, "'%s': the pull request number '%s' should be a whole number, 1 or "
                       "more", spec, hash + 1);
    memcpy(pr->owner, spec, owner_len);
    pr->owner[owner_len] = '\0';
    memcpy(pr->repo, slash + 1, repo_len);
    pr->repo[repo_len] = '\0';
    return 0;
}

int github_token_check(const char *token, struct lb_error *err)
{
    if (!token || !*token)
        return lb_fail(err, "GITHUB_TOKEN is not set: expected a token that may write pull "
                       "request comments in the environment");
    for (const char *p = token; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return lb_fail(err, "GITHUB_TOKEN holds a blank or control character (a pasted "
                           "newline?): expected the token alone");
    return 0;
}

int publish_marker_name_check(const char *name, struct lb_error *err)
{
    size_t len = strlen(name);
    if (len == 0 || len > PUBLISH_MARKER_NAME_MAX || !all_of(name, len, "._-"))
        return lb_fail(err, "marker '%s': expected 1 to %d letters, digits, '.', '_' or '-'",
                       name, PUBLISH_MARKER_NAME_MAX);
    return 0;
}

char *publish_marker(const char *name)
{
    return name ? xasprintf("<!-- " MARKER_PREFIX ":%s -->", name)
                : xstrdup("<!-- " MARKER_PREFIX " -->");
}

/* Walk s as UTF-8: true when valid, with its count of characters; false with the
 * offset of the first bad byte. Overlong forms, surrogates and values past U+10FFFF
 * are invalid, as for JSON. */
static bool utf8_scan(const char *s, size_t len, size_t *chars, size_t *bad_at)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, n = 0;
    while (i < len) {
        unsigned c = u[i];
        size_t extra;
        unsigned min, cp;
        if (c < 0x80) {
            extra = 0, min = 0, cp = c;
        } else if ((c & 0xe0) == 0xc0) {
            extra = 1, min = 0x80, cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            extra = 2, min = 0x800, cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            extra = 3, min = 0x10000, cp = c & 0x07;
        } else {
            *bad_at = i;
            return false;
        }
        if (len - i <= extra) {
            *bad_at = i;
            return false;
        }
        for (size_t k = 1; k <= extra; k++) {
            if ((u[i + k] & 0xc0) != 0x80) {
                *bad_at = i;
                return false;
            }
            cp = (cp << 6) | (u[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            *bad_at = i;
            return false;
        }
        i += extra + 1;
        n++;
    }
    *chars = n;
    return true;
}

char *github_comment_body(const struct publish_job *job)
{
    char *marker = publish_marker(job->marker_name);
    /* The marker on a line of its own; a blank line keeps it out of a final paragraph
     * or table. */
    const char *sep = job->report_len && job->report[job->report_len - 1] == '\n' ? "\n" : "\n\n";
    char *body = xasprintf("%.*s%s%s\n", (int)job->report_len, job->report, sep, marker);
    free(marker);
    return body;
}

int publish_report_check(const char *path, const struct publish_job *job, struct lb_error *err)
{
    size_t chars, bad_at;
    if (job->report_len == 0)
        return lb_fail(err, "'%s' is empty: expected a Markdown report", path);
    if (memchr(job->report, '\0', job->report_len))
        return lb_fail(err, "'%s' holds a NUL byte: expected a Markdown report", path);
    if (!utf8_scan(job->report, job->report_len, &chars, &bad_at))
        return lb_fail(err, "'%s' is not valid UTF-8 (byte %zu): expected a Markdown report",
                       path, bad_at);
    return 0;
}

/* Characters of the comment a report of len bytes makes (valid UTF-8). */
static size_t comment_chars(const struct publish_job *job, const char *report, size_t len)
{
    struct publish_job with = *job;
    with.report = report;
    with.report_len = len;
    char *body = github_comment_body(&with);
    size_t chars = 0, bad_at;
    utf8_scan(body, strlen(body), &chars, &bad_at);
    free(body);
    return chars;
}

/* A report cut into blocks of whole lines: what may be left out, and what is kept. */
enum md_kind { MD_KEEP = -1 };
struct md_block {
    size_t start, end;  /* byte offsets of its lines, end past the last newline */
    int kind;           /* an enum publish_cut_kind, or MD_KEEP */
    size_t lines;
    bool left_out;
};

/* Whether text holds any of words (lower case), in any case. */
static bool holds_any(const char *text, size_t len, const char *const *words)
{
    for (; *words; words++) {
        size_t n = strlen(*words);
        for (size_t i = 0; i + n <= len; i++) {
            size_t k = 0;
            while (k < n && tolower((unsigned char)text[i + k]) == (*words)[k])
                k++;
            if (k == n)
                return true;
        }
    }
    return false;
}

/* What a table is, from its header row and the heading above it. */
static int table_kind(const char *header, size_t header_len, const char *heading,
                      size_t heading_len)
{
    static const char *const verdict[] = {"verdict", NULL};
    static const char *const run[] = {"| run |", "| repeat |", NULL};
    static const char *const run_section[] = {"per run", "per-run", "runs", NULL};
    static const char *const rtt[] = {"| requests |", "| p99.9 |", NULL};
    static const char *const rtt_section[] = {"round trip", "round-trip", "latency", NULL};
    if (holds_any(header, header_len, verdict))
        return MD_KEEP;
    if (holds_any(header, header_len, run) || holds_any(heading, heading_len, run_section))
        return CUT_RUN_TABLE;
    if (holds_any(header, header_len, rtt) || holds_any(heading, heading_len, rtt_section))
        return CUT_RTT_TABLE;
    return CUT_SETTING_TABLE;
}

static size_t line_end(const char *text, size_t len, size_t at)
{
    const char *nl = memchr(text + at, '\n', len - at);
    return nl ? (size_t)(nl - text) + 1 : len;
}

/* Cut text into blocks: a table is its run of lines starting with '|', a fence runs to
 * its closing fence, every other line is kept on its own. *n blocks (new array). */
static struct md_block *md_blocks(const char *text, size_t len, size_t *n)
{
    size_t cap = 16, count = 0;
    struct md_block *blocks = xmalloc(cap * sizeof(*blocks));
    const char *heading = "";
    size_t heading_len = 0;
    for (size_t at = 0; at < len;) {
        struct md_block b = {.start = at, .end = line_end(text, len, at), .kind = MD_KEEP,
                             .lines = 1};
        const char *line = text + at;
        if (line[0] == '#') {
            heading = line;
            heading_len = b.end - at;
        } else if (line[0] == '|') {
            while (b.end < len && text[b.end] == '|') {
                b.end = line_end(text, len, b.end);
                b.lines++;
            }
            b.kind = table_kind(line, line_end(text, len, at) - at, heading, heading_len);
        } else if (strncmp(line, "```", 3) == 0) {
            bool chart = strncmp(line, "```mermaid", 10) == 0;
            while (b.end < len && strncmp(text + b.end, "```", 3) != 0) {
                b.end = line_end(text, len, b.end);
                b.lines++;
            }
            if (b.end < len) {
                b.end = line_end(text, len, b.end);
                b.lines++;
            }
            b.kind = chart ? MD_KEEP : CUT_CODE;
        }
        if (count == cap)
            blocks = xrealloc(blocks, (cap *= 2) * sizeof(*blocks));
        blocks[count++] = b;
        at = b.end;
    }
    *n = count;
    return blocks;
}

/* Each kind, one and several. */
static const char *const cut_names[CUT_KINDS][2] = {
    [CUT_RUN_TABLE] = {"table of runs", "tables of runs"},
    [CUT_SETTING_TABLE] = {"table of settings", "tables of settings"},
    [CUT_RTT_TABLE] = {"round-trip table", "round-trip tables"},
    [CUT_CODE] = {"code block", "code blocks"},
};

/* The note saying what was left out, as a quoted paragraph (new string). */
static char *cut_note(const char *path, const struct publish_cut *cut)
{
    char *what = xstrdup("");
    for (int k = 0; k < CUT_KINDS; k++) {
        if (!cut->left_out[k])
            continue;
        char *more = xasprintf("%s%s%zu %s", what, *what ? ", " : "", cut->left_out[k],
                               cut_names[k][cut->left_out[k] > 1]);
        free(what);
        what = more;
    }
    char *file = text_code(path);
    char *note = xasprintf("\n> **Shortened to fit a GitHub comment** (at most %d characters; "
                           "the whole report makes %zu): left out %s. The whole report is "
                           "%s.\n\n", GITHUB_COMMENT_MAX, cut->chars, what, file);
    free(file);
    free(what);
    return note;
}

/* The line that stands for a block left out (new string). */
static char *left_out_line(const struct md_block *b)
{
    return xasprintf("*(%s of %zu lines left out here: see the note above)*\n",
                     b->kind == CUT_CODE ? "a code block" : "a table", b->lines);
}

/* The report without the blocks left out, each replaced by a line saying so, and the
 * note after its first heading line (at the top without one). New string. */
static char *md_assemble(const char *text, const struct md_block *blocks, size_t n,
                         const char *note, size_t *len)
{
    struct strv parts = {0};
    bool noted = false;
    if (n == 0 || text[blocks[0].start] != '#') {
        strv_push(&parts, note + 1);
        noted = true;
    }
    for (size_t i = 0; i < n; i++) {
        const struct md_block *b = &blocks[i];
        if (b->left_out)
            strv_push_owned(&parts, left_out_line(b));
        else
            strv_push_owned(&parts, xstrndup(text + b->start, b->end - b->start));
        if (!noted) {
            strv_push(&parts, note);
            noted = true;
        }
    }
    size_t total = 0;
    for (size_t i = 0; i < parts.n; i++)
        total += strlen(parts.v[i]);
    char *out = xmalloc(total + 1), *p = out;
    for (size_t i = 0; i < parts.n; i++) {
        size_t n = strlen(parts.v[i]);
        memcpy(p, parts.v[i], n);
        p += n;
    }
    *p = '\0';
    strv_release(&parts);
    *len = total;
    return out;
}

/* Characters of len bytes of valid UTF-8. */
static size_t chars_of(const char *s, size_t len)
{
    size_t chars = 0, bad_at;
    utf8_scan(s, len, &chars, &bad_at);
    return chars;
}

/* Blocks are left out by kind, in publish_cut_kind's order, the largest of a kind first
 * (the earliest of equal ones). */
static int cut_order(const void *pa, const void *pb)
{
    const struct md_block *a = *(const struct md_block *const *)pa;
    const struct md_block *b = *(const struct md_block *const *)pb;
    size_t la = a->end - a->start, lb = b->end - b->start;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (la != lb)
        return la > lb ? -1 : 1;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* Characters of the comment made with what is left out now: the blocks' characters and
 * the lines standing for those left out (running totals, kept by the caller), and the
 * note, which names how many of each kind. */
static size_t cut_chars(const char *path, const struct publish_cut *cut, size_t blocks_chars,
                        bool note_on_top, size_t extra)
{
    char *note = cut_note(path, cut);
    size_t chars = blocks_chars + chars_of(note, strlen(note)) - note_on_top + extra;
    free(note);
    return chars;
}

char *publish_fit_comment(const char *path, const struct publish_job *job, size_t *len,
                          struct publish_cut *cut, struct lb_error *err)
{
    memset(cut, 0, sizeof(*cut));
    cut->chars = comment_chars(job, job->report, job->report_len);
    if (cut->chars <= GITHUB_COMMENT_MAX) {
        *len = job->report_len;
        return xstrndup(job->report, job->report_len);
    }
    size_t n;
    struct md_block *blocks = md_blocks(job->report, job->report_len, &n);
    /* What a comment adds to the report (the marker and the blank line before it), and
     * each block's characters, and what it would be left out. */
    size_t extra = cut->chars - chars_of(job->report, job->report_len);
    size_t *kept = xcalloc(n + 1, sizeof(*kept)), *gone = xcalloc(n + 1, sizeof(*gone));
    struct md_block **order = xcalloc(n + 1, sizeof(*order));
    size_t total = 0, n_cut = 0;
    for (size_t i = 0; i < n; i++) {
        kept[i] = chars_of(job->report + blocks[i].start, blocks[i].end - blocks[i].start);
        total += kept[i];
        if (blocks[i].kind == MD_KEEP)
            continue;
        char *line = left_out_line(&blocks[i]);
        gone[i] = strlen(line);
        free(line);
        order[n_cut++] = &blocks[i];
    }
    qsort(order, n_cut, sizeof(*order), cut_order);
    bool top = n == 0 || job->report[blocks[0].start] != '#';
    /* Refused at once when even leaving out every block that may be does not do. */
    struct publish_cut all = *cut;
    size_t least = total;
    for (size_t k = 0; k < n_cut; k++) {
        size_t i = (size_t)(order[k] - blocks);
        least = least - kept[i] + gone[i];
        all.left_out[order[k]->kind]++;
    }
    char *fitted = NULL;
    if (cut_chars(path, &all, least, top, extra) <= GITHUB_COMMENT_MAX) {
        /* One pass in that order, on running totals: the comment is put together once,
         * when they say it fits (and again after another block should that be off). */
        for (size_t k = 0; k < n_cut && !fitted; k++) {
            size_t i = (size_t)(order[k] - blocks);
            blocks[i].left_out = true;
            cut->left_out[blocks[i].kind]++;
            total = total - kept[i] + gone[i];
            if (cut_chars(path, cut, total, top, extra) > GITHUB_COMMENT_MAX)
                continue;
            char *note = cut_note(path, cut);
            fitted = md_assemble(job->report, blocks, n, note, len);
            free(note);
            if (comment_chars(job, fitted, *len) > GITHUB_COMMENT_MAX) {
                free(fitted);
                fitted = NULL;
            }
        }
    }
    free(order);
    free(kept);
    free(gone);
    free(blocks);
    if (!fitted)
        lb_fail(err, "'%s' makes a comment of %zu characters, more than the %d a GitHub "
                "comment holds, even without its tables and code blocks: expected a shorter "
                "report", path, cut->chars, GITHUB_COMMENT_MAX);
    return fitted;
}

/* The API root without a trailing slash, for joining paths. */
static int api_root_len(const struct publish_job *job, const char **root)
{
    *root = job->api_url ? job->api_url : GITHUB_API_DEFAULT;
    size_t len = strlen(*root);
    while (len > 0 && (*root)[len - 1] == '/')
        len--;
    return (int)len;
}

char *github_comments_url(const struct publish_job *job, const struct github_pr *pr, int page)
{
    const char *root;
    int len = api_root_len(job, &root);
    if (page == 0)
        return xasprintf("%.*s/repos/%s/%s/issues/%ld/comments", len, root, pr->owner, pr->repo,
                         pr->number);
    return xasprintf("%.*s/repos/%s/%s/issues/%ld/comments?per_page=%d&page=%d", len, root,
                     pr->owner, pr->repo, pr->number, GITHUB_PER_PAGE, page);
}

char *github_comment_url(const struct publish_job *job, const struct github_pr *pr,
                         long comment_id)
{
    const char *root;
    int len = api_root_len(job, &root);
    return xasprintf("%.*s/repos/%s/%s/issues/comments/%ld", len, root, pr->owner, pr->repo,
                     comment_id);
}

/* The report's first heading (new string), or NULL. */
static char *report_title(const char *report, size_t len)
{
    const char *p = report, *end = report + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = eol ? eol : end;
        if (*p == '#') {
            while (p < line_end && *p == '#')
                p++;
            while (p < line_end && (*p == ' ' || *p == '\t'))
                p++;
            while (line_end > p && (line_end[-1] == '\r' || line_end[-1] == ' '))
                line_end--;
            return xstrndup(p, (size_t)(line_end - p));
        }
        p = eol ? eol + 1 : end;
    }
    return NULL;
}

/* json_dumps of a new reference (stolen), compact. */
static char *dump_json(json_t *doc)
{
    char *text = xcheck(json_dumps(doc, JSON_COMPACT));
    json_decref(doc);
    return text;
}

char *webhook_payload(const struct publish_job *job)
{
    char *title = report_title(job->report, job->report_len);
    char *marker = publish_marker(job->marker_name);
    json_t *doc = json_pack("{s:s, s:s, s:s?, s:s, s:s%}", "schema", PUBLISH_SCHEMA,
                            "loopbench", LOOPBENCH_VERSION, "title", title, "marker", marker,
                            "report", job->report, job->report_len);
    free(title);
    free(marker);
    return dump_json(doc);
}

static char *comment_request_body(const struct publish_job *job)
{
    char *body = github_comment_body(job);
    char *json = dump_json(json_pack("{s:s}", "body", body));
    free(body);
    return json;
}

void publish_result_release(struct publish_result *res)
{
    free(res->url);
    memset(res, 0, sizeof(*res));
}

/* Every occurrence of token in text becomes "***": a server may echo what it was
 * sent. */
static void redact(char *text, const char *token)
{
    if (!token || !*token)
        return;
    size_t token_len = strlen(token);
    /* Never longer than the token, so the text never outgrows its buffer. */
    size_t stars = token_len < 3 ? token_len : 3;
    for (char *hit = text; (hit = strstr(hit, token)); hit += stars) {
        memmove(hit + stars, hit + token_len, strlen(hit + token_len) + 1);
        memset(hit, '*', stars);
    }
}

/* ": <the server's message>" for an error response (its JSON "message", else the first
 * line of a short text body), or "". Redacted before it is cut, so no part of the
 * token is left; its control characters shown escaped (text_shown). */
static void server_message(const struct http_response *resp, const char *token, char *out,
                           size_t size)
{
    out[0] = '\0';
    json_t *doc = json_loadb(resp->body, resp->body_len, 0, NULL);
    const char *message = json_string_value(json_object_get(doc, "message"));
    if (!doc && resp->body_len > 0 && resp->body[0] != '<')
        message = resp->body;
    if (message && *message) {
        char *text = xstrndup(message, strcspn(message, "\r\n"));
        redact(text, token);
        /* what a terminal would act on (C1 controls, bytes that are not UTF-8) shown */
        char *shown = text_shown(text);
        snprintf(out, size, ": %.160s", shown);
        free(shown);
        free(text);
    }
    json_decref(doc);
}

/* One line for a final response that is not a success: what it was and what to
 * check. */
static int github_status_error(const struct http_response *resp, const char *method,
                               const char *url, const struct github_pr *pr,
                               const struct publish_job *job, struct lb_error *err)
{
    char said[200];
    server_message(resp, job->token, said, sizeof(said));
    char *shown = http_url_display(url, false);
    long s = resp->status;
    if (s == 401)
        lb_fail(err, "GitHub refused GITHUB_TOKEN (HTTP 401%s) on %s %s: check that it holds "
                "a valid, unexpired token", said, method, shown);
    else if (http_rate_limited(resp) || s >= 500)
        lb_fail(err, "%s %s: HTTP %ld%s, still after %d attempts: try again later", method,
                shown, s, said, job->retry.max_attempts);
    else if (s == 403)
        lb_fail(err, "GitHub denied access to %s/%s#%ld (HTTP 403%s) on %s %s: check that "
                "GITHUB_TOKEN may write pull request comments there (a workflow needs "
                "'permissions: pull-requests: write')", pr->owner, pr->repo, pr->number, said,
                method, shown);
    else if (s == 404)
        lb_fail(err, "GitHub found no pull request %s/%s#%ld (HTTP 404%s) on %s %s: check the "
                "owner, repository and number, and that GITHUB_TOKEN can see the repository "
                "(a private one answers 404 to a token without access)", pr->owner, pr->repo,
                pr->number, said, method, shown);
    else
        lb_fail(err, "%s %s: HTTP %ld%s", method, shown, s, said);
    free(shown);
    if (err)
        redact(err->msg, job->token);
    return -1;
}

static void github_headers(struct strv *headers, const char *token, bool with_body)
{
    strv_push(headers, "Accept: application/vnd.github+json");
    strv_push_owned(headers, xasprintf("Authorization: Bearer %s", token));
    strv_push(headers, "X-GitHub-Api-Version: " GITHUB_API_VERSION);
    if (with_body)
        strv_push(headers, "Content-Type: application/json");
}

/* Send one GitHub request with retries: 0 with whatever the server answered, else -1
 * saying why none came. */
static int github_send(const char *method, const char *url, const char *body,
                       const struct publish_job *job, struct http_response *resp,
                       struct lb_error *err)
{
    struct strv headers = {0};
    github_headers(&headers, job->token, body != NULL);
    struct http_request req = {
        .method = method,
        .url = url,
        .headers = (const char *const *)headers.v,
        .body = body,
        .body_len = body ? strlen(body) : 0,
        .secret = true,
    };
    int rc = http_request_retry(&req, &job->retry, resp, err);
    strv_release(&headers);
    if (rc < 0 && err)
        redact(err->msg, job->token);
    return rc;
}

/* github_send, and 0 only with a 2xx response, else -1 saying why. */
static int github_call(const char *method, const char *url, const char *body,
                       const struct github_pr *pr, const struct publish_job *job,
                       struct http_response *resp, struct lb_error *err)
{
    if (github_send(method, url, body, job, resp, err) < 0)
        return -1;
    if (resp->status < 200 || resp->status > 299) {
        github_status_error(resp, method, url, pr, job, err);
        http_response_release(resp);
        return -1;
    }
    return 0;
}

/* Whether marker starts a line of body: a quoted reply ("> <!-- ...") is not ours. */
static bool holds_marker(const char *body, const char *marker)
{
    size_t len = strlen(marker);
    for (const char *p = body; (p = strstr(p, marker)); p += len)
        if (p == body || p[-1] == '\n')
            return true;
    return false;
}

/* The search for the comment to update: one that carries the marker and was written
 * by the token's own user, whom GitHub is asked once, at the first marked comment. */
struct comment_search {
    const struct github_pr *pr;
    const struct publish_job *job;
    char *marker;
    char *own;      /* the token's login, once asked */
    long found;     /* the comment's id, 0 until found */
    size_t foreign; /* marked comments by anyone else, left alone */
};

/* The token's login into s->own: GET /user. An App's installation token, as GitHub
 * Actions' GITHUB_TOKEN, has no user there (HTTP 403, not a rate limit); the comments
 * it writes are GITHUB_ACTIONS_BOT's (docs/network.md). */
static int ask_own_login(struct comment_search *s, struct lb_error *err)
{
    const char *root;
    int len = api_root_len(s->job, &root);
    char *url = xasprintf("%.*s/user", len, root);
    struct http_response resp;
    int rc = github_send("GET", url, NULL, s->job, &resp, err);
    if (rc == 0) {
        json_t *doc = json_loadb(resp.body, resp.body_len, 0, NULL);
        const char *login = json_string_value(json_object_get(doc, "login"));
        if (resp.status == 403 && !http_rate_limited(&resp)) {
            s->own = xstrdup(GITHUB_ACTIONS_BOT);
        } else if (resp.status < 200 || resp.status > 299) {
            rc = github_status_error(&resp, "GET", url, s->pr, s->job, err);
        } else if (!login || !*login) {
            char *shown = http_url_display(url, false);
            rc = lb_fail(err, "GET %s: expected the token's user, with a \"login\"", shown);
            free(shown);
        } else {
            s->own = xstrdup(login);
        }
        json_decref(doc);
        http_response_release(&resp);
    }
    free(url);
    return rc;
}

/* Look for the comment in one page of the list: 0 with s->found (0: not there) and
 * *count, or -1 when the page is not a list of comments or the user cannot be asked. */
static int scan_comments(struct comment_search *s, const struct http_response *resp,
                         const char *url, size_t *count, struct lb_error *err)
{
    json_error_t jerr;
    json_t *list = json_loadb(resp->body, resp->body_len, 0, &jerr);
    if (!json_is_array(list)) {
        char *shown = http_url_display(url, false);
        lb_fail(err, "GET %s: expected a JSON array of comments%s%s", shown,
                list ? "" : ": ", list ? "" : jerr.text);
        free(shown);
        json_decref(list);
        return -1;
    }
    *count = json_array_size(list);
    int rc = 0;
    size_t i;
    json_t *comment;
    json_array_foreach(list, i, comment) {
        const char *body = json_string_value(json_object_get(comment, "body"));
        json_t *id = json_object_get(comment, "id");
        if (!body || !json_is_integer(id) || !holds_marker(body, s->marker))
            continue;
        if (!s->own && (rc = ask_own_login(s, err)) < 0)
            break;
        /* GitHub's logins are case-insensitive. */
        const char *author =
            json_string_value(json_object_get(json_object_get(comment, "user"), "login"));
        if (author && strcasecmp(author, s->own) == 0) {
            s->found = (long)json_integer_value(id);
            break;
        }
        s->foreign++;
    }
    json_decref(list);
    return rc;
}

/* Another page follows: the Link header says so (rel="next"), or without one, this
 * page was full. The next URL is built, not taken from the header, so the token only
 * ever goes to the API root the user named. */
static bool has_next_page(const struct http_response *resp, size_t count)
{
    const char *link = http_header(resp, "link");
    if (link)
        return strstr(link, "rel=\"next\"") != NULL;
    return count >= GITHUB_PER_PAGE;
}

/* The id of the comment to update into s->found, 0 when there is none. */
static int find_comment(struct comment_search *s, struct lb_error *err)
{
    int rc = 0;
    for (int page = 1;; page++) {
        if (page > GITHUB_PAGES_MAX) {
            rc = lb_fail(err, "%s/%s#%ld has more than %d comments: loopbench reads no further",
                         s->pr->owner, s->pr->repo, s->pr->number,
                         GITHUB_PER_PAGE * GITHUB_PAGES_MAX);
            break;
        }
        char *url = github_comments_url(s->job, s->pr, page);
        struct http_response resp;
        size_t count = 0;
        bool more = false;
        rc = github_call("GET", url, NULL, s->pr, s->job, &resp, err);
        if (rc == 0) {
            rc = scan_comments(s, &resp, url, &count, err);
            more = rc == 0 && !s->found && has_next_page(&resp, count);
            http_response_release(&resp);
        }
        free(url);
        if (!more)
            break;
    }
    return rc;
}

int publish_github(const struct github_pr *pr, const struct publish_job *job,
                   struct publish_result *res, struct lb_error *err)
{
    memset(res, 0, sizeof(*res));
    struct comment_search search = {.pr = pr, .job = job, .marker = publish_marker(job->marker_name)};
    int rc = find_comment(&search, err);
    res->foreign = search.foreign;
    free(search.marker);
    free(search.own);
    if (rc < 0)
        return -1;
    res->updated = search.found != 0;
    char *url = res->updated ? github_comment_url(job, pr, search.found)
                             : github_comments_url(job, pr, 0);
    char *body = comment_request_body(job);
    struct http_response resp;
    rc = github_call(res->updated ? "PATCH" : "POST", url, body, pr, job, &resp, err);
    free(body);
    if (rc == 0) {
        res->status = resp.status;
        json_t *doc = json_loadb(resp.body, resp.body_len, 0, NULL);
        const char *html_url = json_string_value(json_object_get(doc, "html_url"));
        /* Without html_url (an unusual API) the comment's API URL still names it. */
        res->url = html_url ? xstrdup(html_url) : http_url_display(url, false);
        json_decref(doc);
        http_response_release(&resp);
    }
    free(url);
    return rc;
}

int publish_webhook(const char *url, const struct publish_job *job, struct publish_result *res,
                    struct lb_error *err)
{
    memset(res, 0, sizeof(*res));
    static const char *const headers[] = {"Content-Type: application/json",
                                          "Accept: application/json", NULL};
    char *payload = webhook_payload(job);
    struct http_request req = {
        .method = "POST",
        .url = url,
        .headers = headers,
        .body = payload,
        .body_len = strlen(payload),
        .hide_path = true,
    };
    struct http_response resp;
    int rc = http_request_retry(&req, &job->retry, &resp, err);
    free(payload);
    if (rc < 0)
        return -1;
    char *origin = http_url_display(url, true);
    if (resp.status >= 200 && resp.status <= 299) {
        res->status = resp.status;
        res->url = origin;
    } else {
        char said[200];
        server_message(&resp, NULL, said, sizeof(said));
        if (http_rate_limited(&resp) || resp.status >= 500)
            rc = lb_fail(err, "webhook %s answered HTTP %ld%s, still after %d attempts: try "
                         "again later", origin, resp.status, said, job->retry.max_attempts);
        else
            rc = lb_fail(err, "webhook %s answered HTTP %ld%s: check the URL and what the "
                         "endpoint expects", origin, resp.status, said);
        free(origin);
    }
    http_response_release(&resp);
    return rc;
}
