/* HTTP requests: a thin libcurl wrapper for publishing reports, readiness checks and
 * metrics scraping.
 *
 * One call is one request on a fresh connection; redirects are not followed (a 3xx is
 * returned as it is, so credentials in headers never travel to another host). Only
 * http:// and https:// URLs are accepted. Error messages name the method and the URL
 * without its user:password part, never a header's value, and never turn on curl's
 * verbose output, so a token given in a header stays out of logs. */
#ifndef LOOPBENCH_HTTP_H
#define LOOPBENCH_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "util.h"

#define HTTP_TIMEOUT_DEFAULT_MS 30000
#define HTTP_BODY_MAX_DEFAULT (16u << 20)
/* Response headers kept (all of them, up to this many bytes; more fails the request). */
#define HTTP_HEADERS_MAX 65536

struct http_request {
    const char *method;          /* "GET", "POST", "PATCH"...; NULL is GET */
    const char *url;
    const char *const *headers;  /* NULL-terminated "Name: value" lines (a strv's v), or NULL */
    const char *body;            /* sent as is with its length; NULL: no body */
    size_t body_len;
    long timeout_ms;             /* the whole exchange; 0: HTTP_TIMEOUT_DEFAULT_MS */
    size_t body_max;             /* a longer response fails; 0: HTTP_BODY_MAX_DEFAULT */
    bool hide_path;              /* messages name only scheme://host[:port]: the path may
                                    hold a secret (webhooks) */
    bool secret;                 /* a header holds a credential: over http:// (to the
                                    loopback alone: http_url_check_secret) no proxy is
                                    used, over https:// a proxy may only tunnel */
};

struct http_response {
    long status;
    char *body;                  /* NUL-terminated, body_len bytes before the NUL */
    size_t body_len;
    struct strv headers;         /* the final response's "Name: value" lines */
};

/* False in a build without the network features (src/measure/network_off.c: Windows, or
 * -Dnetwork=disabled), which refuses them with this reason. */
bool network_available(void);
#define NETWORK_UNAVAILABLE "not available in this build of loopbench (built without network support)"

/* 0 when url is an http:// or https:// URL curl can parse, else -1 saying why
 * (`what` names it, e.g. "--api-url"). */
int http_url_check(const char *what, const char *url, struct lb_error *err);
/* http_url_check, and url may carry a credential: https://, or http:// only to this
 * machine's loopback (localhost, 127.0.0.0/8, ::1), where no network sees it. */
int http_url_check_secret(const char *what, const char *url, struct lb_error *err);
/* url without its user:password part (new string), for messages. With origin_only,
 * only scheme://host[:port]: for URLs whose path may hold a secret (webhooks). */
char *http_url_display(const char *url, bool origin_only);

/* Send req; on 0, resp holds the status, headers and body of whatever the server
 * answered (any status). -1 when no response was received (connection, timeout, TLS,
 * a response over the limits), with err naming the URL and curl's reason; resp is
 * empty then. resp is overwritten: release it with http_response_release. */
int http_request(const struct http_request *req, struct http_response *resp,
                 struct lb_error *err);
void http_response_release(struct http_response *resp);

/* A response header's value (the last of that name, names matched case-insensitively),
 * or NULL. Points into resp. */
const char *http_header(const struct http_response *resp, const char *name);

/* Retrying. Rate limits (429, or 403 with Retry-After or x-ratelimit-remaining: 0, and
 * 503 with Retry-After) wait what the server asks: Retry-After (seconds or an HTTP
 * date), else until x-ratelimit-reset (epoch seconds), else max_wait_ms; a wait longer
 * than max_wait_ms is not waited: the call gives up at once. Other 5xx and transient
 * network failures wait backoff_ms, doubled at each retry. A POST is not retried
 * after a network failure that may have reached the server (a timeout, a lost
 * connection), only when it cannot have been sent (refused, name not resolved). */
struct http_retry {
    int max_attempts;            /* requests in all, 1 or more */
    unsigned backoff_ms;
    unsigned max_wait_ms;
    /* Told before each wait with one line saying why (may be NULL). */
    void (*on_retry)(void *ctx, const char *why);
    void *ctx;
};
#define HTTP_RETRY_DEFAULT \
    {.max_attempts = 4, .backoff_ms = 1000, .max_wait_ms = 60000, .on_retry = NULL, .ctx = NULL}

/* True for a response that is a rate limit (429, or a 403 saying so). */
bool http_rate_limited(const struct http_response *resp);

/* http_request with the policy's retries. 0 with the last response (which may still
 * be an error status: the caller judges it), -1 as http_request or when the policy
 * gives up (attempts spent on network failures, or a rate limit over max_wait_ms),
 * saying so. */
int http_request_retry(const struct http_request *req, const struct http_retry *policy,
                       struct http_response *resp, struct lb_error *err);

#endif
