/* The network probes' specs and records: checked and released here, beside their types, in
 * every build (with or without the network features: profiles name them, results read back
 * from disk hold them). */
#include "probes.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const kind_names[] = {[METRICS_KIND_AUTO] = "auto",
                                         [METRICS_COUNTER] = "counter", [METRICS_GAUGE] = "gauge"};

const char *metrics_kind_name(enum metrics_kind k)
{
    return name_of(kind_names, ARRAY_SIZE(kind_names), (size_t)k);
}

int metrics_kind_parse(const char *name, enum metrics_kind *out)
{
    int i = name_index(kind_names, ARRAY_SIZE(kind_names), name);
    if (i <= METRICS_KIND_AUTO) /* "auto" is no kind a profile or a result names */
        return -1;
    *out = (enum metrics_kind)i;
    return 0;
}

int rtt_check(const struct rtt_opts *o, struct lb_error *err)
{
    if (!o->host || !*o->host)
        return lb_fail(err, "rtt: no host given");
    if (o->port < 1 || o->port > 65535)
        return lb_fail(err, "rtt: port must be in 1..65535, not %d", o->port);
    if (!o->send || o->send_len == 0)
        return lb_fail(err, "rtt: the request to send is empty");
    if (!(o->rate_per_s > 0 && o->rate_per_s <= RTT_MAX_RATE))
        return lb_fail(err, "rtt: rate must be in (0, %.0f] requests per second, not %g",
                       RTT_MAX_RATE, o->rate_per_s);
    if (o->connections < 1 || o->connections > RTT_MAX_CONNECTIONS)
        return lb_fail(err, "rtt: connections must be in 1..%d, not %d", RTT_MAX_CONNECTIONS,
                       o->connections);
    if (!(o->timeout_s > 0 && o->timeout_s <= RTT_MAX_TIMEOUT_S))
        return lb_fail(err, "rtt: timeout must be in (0, %.0f] seconds, not %g", RTT_MAX_TIMEOUT_S,
                       o->timeout_s);
    if (!(o->connect_rate_per_s >= 0 && o->connect_rate_per_s <= RTT_MAX_CONNECT_RATE))
        return lb_fail(err,
                       "rtt: the connection-setup rate must be in [0, %.0f] per second, "
                       "not %g",
                       RTT_MAX_CONNECT_RATE, o->connect_rate_per_s);
    if (o->rate_per_s * o->timeout_s > RTT_MAX_IN_FLIGHT)
        return lb_fail(err,
                       "rtt: rate x timeout (%g requests in flight) exceeds %.0f: lower "
                       "one of them",
                       o->rate_per_s * o->timeout_s, RTT_MAX_IN_FLIGHT);
    return 0;
}

void rtt_result_release(struct rtt_result *r)
{
    histogram_release(&r->rtt);
    histogram_release(&r->lag);
    histogram_release(&r->setup);
}

void endpoint_result_release(struct endpoint_result *r)
{
    for (size_t i = 0; r->missing && i < r->n; i++)
        free(r->missing[i]);
    free(r->missing);
    free(r->values);
    free(r->error);
    memset(r, 0, sizeof(*r));
}
