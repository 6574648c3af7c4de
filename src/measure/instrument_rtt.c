/* Round trips (rtt.h): the probe runs through the window in its own thread; its figures
 * become health values of the run (RTT_KEY_*), summarised, tabled, tested and gated like
 * the ones scraped from the log. */
#include "instrument.h"

#include "rtt.h"

static int rtt_open(struct window *w, size_t j, void **state, struct lb_error *err)
{
    const struct profile *prof = w->t[j].prof;
    struct rtt_probe *probe = NULL;
    struct lb_error e;
    *state = NULL;
    if (!prof->has_rtt)
        return 0;
    if (rtt_start(&prof->rtt, &probe, &e) < 0)
        return lb_fail(err, "the round-trip probe could not start: %s", e.msg);
    *state = probe;
    return 0;
}

static void rtt_close(struct window *w, size_t j, void *state, bool keep)
{
    struct run_record *r = w->t[j].r;
    struct rtt_result gone;
    if (!keep) {
        rtt_stop(state, &gone);
        rtt_result_release(&gone);
        return;
    }
    rtt_stop(state, &r->rtt);
    r->has_rtt = true;
    const struct rtt_result *q = &r->rtt;
    struct scrape_value v = {.type = SCRAPE_DURATION_MS};
    if (histogram_count(&q->rtt) > 0) {
        snprintf(v.key, sizeof(v.key), "%s", RTT_KEY_P50);
        v.value = (double)histogram_percentile(&q->rtt, 50) / 1e6;
        scrape_run_add(&r->scrape, &v);
        snprintf(v.key, sizeof(v.key), "%s", RTT_KEY_P99);
        v.value = (double)histogram_percentile(&q->rtt, 99) / 1e6;
        scrape_run_add(&r->scrape, &v);
    }
    v.type = SCRAPE_NUMBER;
    snprintf(v.key, sizeof(v.key), "%s", RTT_KEY_FAILED);
    v.value = (double)(q->requests.errors + q->requests.timeouts);
    scrape_run_add(&r->scrape, &v);
}

const struct window_instrument rtt_instrument = {
    .open = rtt_open,
    .close = rtt_close,
};
