/* libcurl is loaded at the first HTTP call, not linked: a loopbench that never speaks
 * HTTP (most campaigns, every report) does not map it and its TLS chain, some 30 libraries
 * and 5 MiB of resident memory. The headers still give every function's type. */
#include "http.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config.h"

/* The libcurl functions loopbench calls, each named once: libcurl.NAME is curl_NAME. */
#define CURL_FUNCTIONS(X)                                                                  \
    X(global_init) X(url) X(url_set) X(url_get) X(url_cleanup) X(free) X(easy_init)       \
    X(easy_setopt) X(easy_perform) X(easy_getinfo) X(easy_strerror) X(easy_cleanup)       \
    X(slist_append) X(slist_free_all) X(getdate)

static struct {
#define CURL_MEMBER(name) __typeof__(&curl_##name) name;
    CURL_FUNCTIONS(CURL_MEMBER)
#undef CURL_MEMBER
} libcurl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* Why libcurl could not be loaded; empty once it is. */
static char load_failure[LB_ERROR_MAX];

/* libcurl's function symbol, or NULL after saying in load_failure that it is missing. */
static void *resolve(void *handle, const char *symbol)
{
    void *f = dlsym(handle, symbol);
    if (!f && !load_failure[0])
        snprintf(load_failure, sizeof(load_failure),
                 "%s has no %s: loopbench needs libcurl 7.62 or later", LIBCURL_SONAME, symbol);
    return f;
}

/* dlopen libcurl, resolve its functions into libcurl and initialise it; on failure,
 * say why in load_failure. The library stays loaded for the life of the process. */
static void load_curl(void)
{
    void *handle = dlopen(LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(load_failure, sizeof(load_failure),
                 "HTTP needs libcurl, which cannot be loaded: %s", dlerror());
        return;
    }
#define CURL_RESOLVE(name) libcurl.name = (__typeof__(libcurl.name))resolve(handle, "curl_" #name);
    CURL_FUNCTIONS(CURL_RESOLVE)
#undef CURL_RESOLVE
    if (!load_failure[0] && libcurl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        snprintf(load_failure, sizeof(load_failure), "cannot initialise %s", LIBCURL_SONAME);
}

bool network_available(void)
{
    return true;
}

/* Whether libcurl is loaded and initialised, which is tried once per process (thread-safe:
 * the metrics endpoint's thread may be the first to ask). */
static bool curl_loaded(void)
{
    pthread_once(&load_once, load_curl);
    return !load_failure[0];
}

/* A parsed URL handle for url, or NULL when curl cannot parse it or is not loaded (then
 * http_url_check, which every URL passes before use, has said why). */
static CURLU *parse_url(const char *url)
{
    if (!curl_loaded())
        return NULL;
    CURLU *u = xcheck(libcurl.url());
    if (libcurl.url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
        libcurl.url_cleanup(u);
        return NULL;
    }
    return u;
}

/* A part of u as a new string (the empty string when u has none). */
static char *url_part(CURLU *u, CURLUPart part)
{
    char *value = NULL;
    if (libcurl.url_get(u, part, &value, 0) != CURLUE_OK || !value)
        return xstrdup("");
    char *copy = xstrdup(value);
    libcurl.free(value);
    return copy;
}

int http_url_check(const char *what, const char *url, struct lb_error *err)
{
    if (!curl_loaded())
        return lb_fail(err, "%s", load_failure);
    CURLU *u = parse_url(url);
    if (!u)
        return lb_fail(err, "%s '%s': expected an http:// or https:// URL", what, url);
    char *scheme = url_part(u, CURLUPART_SCHEME), *host = url_part(u, CURLUPART_HOST);
    int ok = (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0) && *host;
    free(scheme);
    free(host);
    libcurl.url_cleanup(u);
    if (!ok)
        return lb_fail(err, "%s '%s': expected an http:// or https:// URL", what, url);
    return 0;
}

/* Whether host (as curl gives it: an IPv6 address in brackets) is this machine's
 * loopback: localhost, 127.0.0.0/8 or ::1. */
static bool loopback_host(const char *host)
{
    if (strcasecmp(host, "localhost") == 0)
        return true;
    unsigned char a[16];
    size_t len = strlen(host);
    if (len > 2 && host[0] == '[' && host[len - 1] == ']') {
        char *inner = xstrndup(host + 1, len - 2);
        bool v6 = inet_pton(AF_INET6, inner, a) == 1;
        free(inner);
        static const unsigned char one[16] = {[15] = 1};
        return v6 && memcmp(a, one, sizeof(one)) == 0;
    }
    return inet_pton(AF_INET, host, a) == 1 && a[0] == 127;
}

int http_url_check_secret(const char *what, const char *url, struct lb_error *err)
{
    if (http_url_check(what, url, err) < 0)
        return -1;
    CURLU *u = parse_url(url);
    char *scheme = url_part(u, CURLUPART_SCHEME), *host = url_part(u, CURLUPART_HOST);
    bool ok = strcmp(scheme, "https") == 0 || loopback_host(host);
    free(scheme);
    free(host);
    libcurl.url_cleanup(u);
    if (!ok)
        return lb_fail(err, "%s '%s': http:// would send the token in clear text: expected "
                       "https://, or http:// to a loopback address (localhost, 127.0.0.1, ::1)",
                       what, url);
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
        libcurl.url_set(u, CURLUPART_USER, NULL, 0);
        libcurl.url_set(u, CURLUPART_PASSWORD, NULL, 0);
        shown = url_part(u, CURLUPART_URL);
    }
    libcurl.url_cleanup(u);
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
        libcurl.easy_setopt(curl, CURLOPT_NOBODY, 1L);
        return;
    }
    if (req->body) {
        libcurl.easy_setopt(curl, CURLOPT_POSTFIELDS, req->body);
        libcurl.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    if (strcmp(method, "GET") == 0 && !req->body)
        libcurl.easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    else if (strcmp(method, "POST") != 0 || !req->body)
        libcurl.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
}

static struct curl_slist *append_header(struct curl_slist *list, const char *line)
{
    return xcheck(libcurl.slist_append(list, line));
}

/* One exchange; *code tells the retry logic what kind of failure it was. */
static int perform(const struct http_request *req, struct http_response *resp, CURLcode *code,
                   struct lb_error *err)
{
    memset(resp, 0, sizeof(*resp));
    *code = CURLE_OK;
    if (http_url_check("URL", req->url, err) < 0)
        return -1;
    CURL *curl = xcheck(libcurl.easy_init());
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
    libcurl.easy_setopt(curl, CURLOPT_URL, req->url);
    libcurl.easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    libcurl.easy_setopt(curl, CURLOPT_USERAGENT, "loopbench/" LOOPBENCH_VERSION);
    libcurl.easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    libcurl.easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    libcurl.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    libcurl.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L); /* no SIGALRM in a threaded process */
    libcurl.easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_reason);
    libcurl.easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    libcurl.easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    libcurl.easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    libcurl.easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    set_method_and_body(curl, req);
    /* A proxy from http_proxy or all_proxy is not the loopback that http_url_check_secret
     * allowed: it would read the credential in clear. Through an https:// one, curl
     * sends only CONNECT, the request inside TLS. */
    if (req->secret && strncasecmp(req->url, "http://", 7) == 0)
        libcurl.easy_setopt(curl, CURLOPT_PROXY, "");
    else if (req->secret)
        libcurl.easy_setopt(curl, CURLOPT_HTTPPROXYTUNNEL, 1L);
    *code = libcurl.easy_perform(curl);
    int rc = 0;
    if (*code == CURLE_OK) {
        libcurl.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp->status);
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
                    curl_reason[0] ? curl_reason : libcurl.easy_strerror(*code));
        free(shown);
        http_response_release(resp);
        rc = -1;
    }
    libcurl.slist_free_all(headers);
    libcurl.easy_cleanup(curl);
    return rc;
}

int http_request(const struct http_request *req, struct http_response *resp,
                 struct lb_error *err)
{
    CURLcode code;
    return perform(req, resp, &code, err);
}

void http_response_release(struct http_response *resp)
{
    free(resp->body);
    strv_release(&resp->headers);
    memset(resp, 0, sizeof(*resp));
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
        time_t date = libcurl.getdate(retry_after, NULL);
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
