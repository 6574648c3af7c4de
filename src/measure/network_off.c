/* The network features of a build without them (meson -Dnetwork=disabled, and the
 * Windows build, which has neither libcurl nor POSIX sockets): round trips (rtt.c),
 * HTTP readiness, metrics endpoints (endpoint.c) and publishing (http.c).
 *
 * A profile that asks for one is refused when it is loaded (profile.c asks
 * network_available() first), so a campaign never starts without what it asked for;
 * `loopbench publish` and any other caller get the refusals below. Nothing here pretends
 * to measure. */
#include <stdlib.h>

#include "endpoint.h"
#include "http.h"
#include "rtt.h"

bool network_available(void)
{
    return false;
}

int http_url_check(const char *what, const char *url, struct lb_error *err)
{
    return lb_fail(err, "%s '%s': HTTP is %s", what, url, NETWORK_UNAVAILABLE);
}

int http_url_check_secret(const char *what, const char *url, struct lb_error *err)
{
    return http_url_check(what, url, err);
}

char *http_url_display(const char *url, bool origin_only)
{
    (void)origin_only;
    return xstrdup(url);
}

int http_request(const struct http_request *req, struct http_response *resp,
                 struct lb_error *err)
{
    *resp = (struct http_response){0};
    return lb_fail(err, "%s %s: HTTP is %s", req->method ? req->method : "GET", req->url,
                   NETWORK_UNAVAILABLE);
}

int http_request_retry(const struct http_request *req, const struct http_retry *policy,
                       struct http_response *resp, struct lb_error *err)
{
    (void)policy;
    return http_request(req, resp, err);
}

/* Nothing to free: http_request above leaves resp empty. */
void http_response_release(struct http_response *resp)
{
    (void)resp;
}

const char *http_header(const struct http_response *resp, const char *name)
{
    (void)resp;
    (void)name;
    return NULL;
}

bool http_rate_limited(const struct http_response *resp)
{
    (void)resp;
    return false;
}

int rtt_start(const struct rtt_opts *opts, struct rtt_probe **out, struct lb_error *err)
{
    (void)opts;
    *out = NULL;
    return lb_fail(err, "round trips are %s", NETWORK_UNAVAILABLE);
}

void rtt_stop(struct rtt_probe *p, struct rtt_result *out)
{
    (void)p;
    *out = (struct rtt_result){0};
}

/* Never reached: a profile with an endpoint is refused when it is loaded. */
struct endpoint_window *endpoint_window_open(const struct metrics_endpoint *ep,
                                             uint64_t interval_ns)
{
    (void)ep;
    (void)interval_ns;
    return NULL;
}

void endpoint_window_close(struct endpoint_window *w, struct endpoint_result *out)
{
    (void)w;
    *out = (struct endpoint_result){0};
}

