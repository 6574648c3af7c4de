#include "http.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

static void init_curl(void)
{
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fputs("loopbench: cannot initialise libcurl\n", stderr);
        abort();
    }
}

bool network_available(void)
{
    return true;
}

/* curl_global_init, once per process (thread-safe). */
static void http_init(void)
{
    pthread_once(&init_once, init_curl);
}

/* A parsed URL handle for url, or NULL when curl cannot parse it. */
static CURLU *parse_url(const char *url)
{
    http_init();
    CURLU *u = xcheck(curl_url());
    if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
        curl_url_cleanup(u);
        return NULL;
    }
    return u;
}

/* A part of u as a new string (the empty string when u has none). */
static char *url_part(CURLU *u, CURLUPart part)
{
    char *value = NULL;
    if (curl_url_get(u, part, &value, 0) != CURLUE_OK || !value)
        return xstrdup("");
    char *copy = xstrdup(value);
    curl_free(value);
    return copy;
}

int http_url_check(const char *what, const char *url, struct lb_error *err)
{
    CURLU *u = parse_url(url);
    if (!u)
        return lb_fail(err, "%s '%s': expected an http:// or https:// URL", what, url);
    char *scheme = url_part(u, CURLUPART_SCHEME), *host = url_part(u, CURLUPART_HOST);
    int ok = (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0) && *host;
    free(scheme);
    free(host);
    curl_url_cleanup(u);
    if (!ok)
        return lb_fail(err, "%s '%s': expected an http:// or https:// URL", what, url);
    return 0;
}

char *http_url_display(const char *url, bool origin_only)
{
    CURLU *u = parse_url(url);
    if (!u)
        return xstrdup("(an unparsable URL)");
    char *shown;
    if (origin_only) {
        char *scheme = url_part(u, CURLUPART_SCHEME), *host = url_part(u, CURLUPART_HOST);
        char *port = url_part(u, CURLUPART_PORT);
        shown = xasprintf("%s://%s%s%s", scheme, host, *port ? ":" : "", port);
        free(scheme);
        free(host);
        free(port);
    } else {
        curl_url_set(u, CURLUPART_USER, NULL, 0);
        curl_url_set(u, CURLUPART_PASSWORD, NULL, 0);
        shown = url_part(u, CURLUPART_URL);
    }
    curl_url_cleanup(u);
    return shown;
}

/* What the transfer callbacks fill, with the limits that stop them. */
struct transfer {
    struct http_response *resp;
    size_t body_cap;
    size_t body_max;
    size_t header_bytes;
    bool body_too_long;
    bool headers_too_long;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *userdata)
{
    struct transfer *t = userdata;
    struct http_response *r = t->resp;
    size_t n = size * nmemb;
    if (n > t->body_max - r->body_len) {
        t->body_too_long = true;
        return 0; /* curl stops the transfer with CURLE_WRITE_ERROR */
    }
    if (r->body_len + n + 1 > t->body_cap) {
        while (r->body_len + n + 1 > t->body_cap)
            t->body_cap = t->body_cap ? t->body_cap * 2 : 4096;
        r->body = xrealloc(r->body, t->body_cap);
    }
    memcpy(r->body + r->body_len, data, n);
    r->body_len += n;
    r->body[r->body_len] = '\0';
    return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *userdata)
{
    struct transfer *t = userdata;
    size_t n = size * nmemb;
    t->header_bytes += n;
    if (t->header_bytes > HTTP_HEADERS_MAX) {
        t->headers_too_long = true;
        return 0;
    }
    /* A status line starts a new response (after a 1xx): keep only the last one's. */
    if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        strv_release(&t->resp->headers);
        return n;
    }
    size_t len = n;
    while (len > 0 && (data[len - 1] == '\r' || data[len - 1] == '\n'))
        len--;
    if (len > 0 && memchr(data, ':', len))
        strv_push_owned(&t->resp->headers, xstrndup(data, len));
    return n;
}

const char *http_header(const struct http_response *resp, const char *name)
{
    size_t name_len = strlen(name);
    const char *found = NULL;
    for (size_t i = 0; i < resp->headers.n; i++) {
        const char *line = resp->headers.v[i];
        if (strncasecmp(line, name, name_len) != 0 || line[name_len] != ':')
            continue;
        found = line + name_len + 1;
        while (*found == ' ' || *found == '\t')
            found++;
    }
    return found;
}

static const char *method_of(const struct http_request *req)
{
    return req->method ? req->method : "GET";
}

static void set_method_and_body(CURL *curl, const struct http_request *req)
{
    const char *method = method_of(req);
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
        return;
    }
    if (req->body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    if (strcmp(method, "GET") == 0 && !req->body)
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    else if (strcmp(method, "POST") != 0 || !req->body)
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
}

static struct curl_slist *append_header(struct curl_slist *list, const char *line)
{
    return xcheck(curl_slist_append(list, line));
}

/* One exchange; *code tells the retry logic what kind of failure it was. */
static int perform(const struct http_request *req, struct http_response *resp, CURLcode *code,
                   struct lb_error *err)
{
    memset(resp, 0, sizeof(*resp));
    *code = CURLE_OK;
    if (http_url_check("URL", req->url, err) < 0)
        return -1;
    CURL *curl = xcheck(curl_easy_init());
    struct curl_slist *headers = NULL;
    for (const char *const *h = req->headers; h && *h; h++)
        headers = append_header(headers, *h);
    /* A body goes at once, without waiting for "100 Continue". */
    if (req->body)
        headers = append_header(headers, "Expect:");
    struct transfer t = {
        .resp = resp,
        .body_max = req->body_max ? req->body_max : HTTP_BODY_MAX_DEFAULT,
    };
    char curl_reason[CURL_ERROR_SIZE] = "";
    long timeout_ms = req->timeout_ms > 0 ? req->timeout_ms : HTTP_TIMEOUT_DEFAULT_MS;
    curl_easy_setopt(curl, CURLOPT_URL, req->url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "loopbench/" LOOPBENCH_VERSION);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L); /* no SIGALRM in a threaded process */
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_reason);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    set_method_and_body(curl, req);
    *code = curl_easy_perform(curl);
    int rc = 0;
    if (*code == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp->status);
        if (!resp->body)
            resp->body = xcalloc(1, 1);
    } else {
        char *shown = http_url_display(req->url, req->hide_path);
        if (t.body_too_long)
            lb_fail(err, "%s %s: the response is larger than %zu bytes", method_of(req), shown,
                    t.body_max);
        else if (t.headers_too_long)
            lb_fail(err, "%s %s: the response headers are larger than %d bytes",
                    method_of(req), shown, HTTP_HEADERS_MAX);
        else
            lb_fail(err, "%s %s: %s", method_of(req), shown,
                    curl_reason[0] ? curl_reason : curl_easy_strerror(*code));
        free(shown);
        http_response_release(resp);
        rc = -1;
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return rc;
}

int http_request(const struct http_request *req, struct http_response *resp,
                 struct lb_error *err)
{
    CURLcode code;
    return perform(req, resp, &code, err);
}

bool http_rate_limited(const struct http_response *resp)
{
    if (resp->status == 429)
        return true;
    if (resp->status != 403)
        return false;
    const char *remaining = http_header(resp, "x-ratelimit-remaining");
    /* GitHub's secondary limits answer 403 with Retry-After, or only say so in the body. */
    return http_header(resp, "retry-after") || (remaining && strcmp(remaining, "0") == 0) ||
           (resp->body && strcasestr(resp->body, "rate limit"));
}

/* Seconds from a header holding a whole number, or -1. */
static long long header_number(const struct http_response *resp, const char *name)
{
    const char *value = http_header(resp, name);
    long n;
    if (!value || parse_long(value, 0, 1L << 40, &n) < 0)
        return -1;
    return n;
}

/* The wait a rate-limited or unavailable server asks for, in ms, or -1 for none. */
static long long asked_wait_ms(const struct http_response *resp, int64_t now)
{
    long long seconds = header_number(resp, "retry-after");
    const char *retry_after = http_header(resp, "retry-after");
    if (seconds < 0 && retry_after) {
        time_t date = curl_getdate(retry_after, NULL);
        if (date >= 0)
            seconds = date > now ? (long long)(date - now) : 0;
    }
    if (seconds >= 0)
        return seconds * 1000;
    const char *remaining = http_header(resp, "x-ratelimit-remaining");
    long long reset = header_number(resp, "x-ratelimit-reset");
    if (remaining && strcmp(remaining, "0") == 0 && reset >= 0)
        return reset > now ? (reset - now) * 1000 : 0;
    return -1;
}

/* The decision for one response: RETRY_NO (final: success or an error to report),
 * RETRY_WAIT (retry after *wait_ms) or RETRY_TOO_LONG (rate-limited for *wait_ms, over
 * max_wait_ms). attempt counts from 1; now is the wall clock in seconds. */
enum http_retry_verdict { HTTP_RETRY_NO, HTTP_RETRY_WAIT, HTTP_RETRY_TOO_LONG };
static enum http_retry_verdict http_retry_decide(const struct http_response *resp,
                                                 const struct http_retry *policy, int attempt,
                                                 int64_t now, uint64_t *wait_ms)
{
    *wait_ms = 0;
    if (attempt >= policy->max_attempts)
        return HTTP_RETRY_NO;
    bool limited = http_rate_limited(resp);
    long long asked = asked_wait_ms(resp, now);
    if (limited || (resp->status == 503 && asked >= 0)) {
        /* No hint: GitHub asks for at least a minute; max_wait_ms is that minute. */
        *wait_ms = asked >= 0 ? (uint64_t)asked : policy->max_wait_ms;
        return *wait_ms > policy->max_wait_ms ? HTTP_RETRY_TOO_LONG : HTTP_RETRY_WAIT;
    }
    if (resp->status >= 500 && resp->status <= 599) {
        *wait_ms = (uint64_t)policy->backoff_ms << (attempt - 1);
        return HTTP_RETRY_WAIT;
    }
    return HTTP_RETRY_NO;
}

/* Failures worth another try; a POST only when nothing can have reached the server. */
static bool transient(CURLcode code, const char *method)
{
    if (code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST)
        return true;
    if (strcmp(method, "POST") == 0)
        return false;
    return code == CURLE_OPERATION_TIMEDOUT || code == CURLE_GOT_NOTHING ||
           code == CURLE_SEND_ERROR || code == CURLE_RECV_ERROR;
}

static void sleep_ms(uint64_t ms)
{
    struct timespec left = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) < 0 && errno == EINTR)
        ;
}

static void tell_retry(const struct http_retry *policy, const char *cause, uint64_t wait_ms,
                       int next_attempt)
{
    if (!policy->on_retry)
        return;
    char *why = xasprintf("%s; retrying in %g s (attempt %d of %d)", cause,
                          (double)wait_ms / 1000.0, next_attempt, policy->max_attempts);
    policy->on_retry(policy->ctx, why);
    free(why);
}

int http_request_retry(const struct http_request *req, const struct http_retry *policy,
                       struct http_response *resp, struct lb_error *err)
{
    char *shown = http_url_display(req->url, req->hide_path);
    int rc = -1;
    for (int attempt = 1;; attempt++) {
        CURLcode code;
        uint64_t wait_ms;
        struct lb_error failure;
        if (perform(req, resp, &code, &failure) < 0) {
            if (code == CURLE_OK || !transient(code, method_of(req)) ||
                attempt >= policy->max_attempts) {
                if (attempt > 1)
                    lb_fail(err, "%s (gave up after %d attempts)", failure.msg, attempt);
                else
                    lb_fail(err, "%s", failure.msg);
                break;
            }
            wait_ms = (uint64_t)policy->backoff_ms << (attempt - 1);
            tell_retry(policy, failure.msg, wait_ms, attempt + 1);
            sleep_ms(wait_ms);
            continue;
        }
        int64_t now = (int64_t)(wall_ns() / NS_PER_SEC);
        enum http_retry_verdict v = http_retry_decide(resp, policy, attempt, now, &wait_ms);
        if (v == HTTP_RETRY_NO) {
            rc = 0;
            break;
        }
        if (v == HTTP_RETRY_TOO_LONG) {
            char until[32];
            format_utc((uint64_t)(now + (int64_t)(wait_ms / 1000)) * NS_PER_SEC, false, until,
                       sizeof(until));
            lb_fail(err, "%s %s: rate-limited (HTTP %ld) for %llu s more, longer than the %u s "
                    "loopbench waits at most: try again after %s", method_of(req), shown,
                    resp->status, (unsigned long long)(wait_ms / 1000),
                    policy->max_wait_ms / 1000, until);
            http_response_release(resp);
            break;
        }
        char *cause = xasprintf("%s %s: HTTP %ld%s", method_of(req), shown, resp->status,
                                http_rate_limited(resp) ? " (rate-limited)" : "");
        tell_retry(policy, cause, wait_ms, attempt + 1);
        free(cause);
        http_response_release(resp);
        sleep_ms(wait_ms);
    }
    free(shown);
    return rc;
}
