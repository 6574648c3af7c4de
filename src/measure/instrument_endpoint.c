/* The metrics endpoint (endpoint.h): scraped at the window's edges and every interval
 * between, on its own thread; each value a health value of the run, a counter's rate per
 * second over the window, a gauge's mean. */
#include "instrument.h"

#include <math.h>

#include "endpoint.h"

static int endpoint_open(struct window *w, size_t j, void **state, struct lb_error *err)
{
    (void)err;
    const struct profile *prof = w->t[j].prof;
    *state = NULL;
    if (!prof->endpoint.n_select)
        return 0;
    double every = prof->endpoint_interval_s >= 0 ? prof->endpoint_interval_s
                                                  : w->c->spec.interval_ms / 1000.0;
    *state = endpoint_window_open(&prof->endpoint, (uint64_t)(every * 1e9));
    return 0;
}

static void endpoint_close(struct window *w, size_t j, void *state, bool keep)
{
    struct run_record *r = w->t[j].r;
    struct endpoint_result gone;
    if (!keep) {
        endpoint_window_close(state, &gone);
        endpoint_result_release(&gone);
        return;
    }
    endpoint_window_close(state, &r->endpoint);
    r->has_endpoint = true;
    const struct metrics_endpoint *ep = &w->t[j].prof->endpoint;
    const struct endpoint_result *e = &r->endpoint;
    for (size_t i = 0; i < e->n; i++) {
        const struct metrics_window_value *v = &e->values[i];
        double x = v->kind == METRICS_COUNTER ? v->rate_per_s : v->mean;
        if (!v->found || !isfinite(x))
            continue;
        struct scrape_value sv = {.type = SCRAPE_NUMBER, .value = x};
        snprintf(sv.key, sizeof(sv.key), "%s", ep->select[i].key);
        scrape_run_add(&r->scrape, &sv);
    }
}

const struct window_instrument endpoint_instrument = {
    .open = endpoint_open,
    .close = endpoint_close,
};
