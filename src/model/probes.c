/* The network probes' records: released here, beside their types, in every build (with
 * or without the network features: results read back from disk hold them too). */
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
