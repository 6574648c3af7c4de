/* Releasing what the network features leave in responses and run records: built with
 * or without them (src/measure/network_off.c), since results read back from disk hold them too. */
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"
#include "http.h"
#include "rtt.h"

void http_response_release(struct http_response *resp)
{
    free(resp->body);
    strv_release(&resp->headers);
    memset(resp, 0, sizeof(*resp));
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
