/* The packages' energy (energy.h), read at the window's edges, recorded for a run in turn
 * (a duet's targets share the package: energy_campaign_begin says so in the campaign). */
#include "instrument.h"

#include <stdlib.h>

#include "energy.h"

struct energy_window {
    struct energy_reading from;
    struct run_energy got;
    bool have_from, have;
};

static int energy_open(struct window *w, size_t j, void **state, struct lb_error *err)
{
    (void)j, (void)err;
    *state = w->c->energy_unavailable ? NULL : xcalloc(1, sizeof(struct energy_window));
    return 0;
}

static void energy_edge(struct window *w, size_t j, void *state, bool end)
{
    (void)w, (void)j;
    struct energy_window *x = state;
    struct lb_error e;
    if (!end)
        x->have_from = energy_take(&x->from, &e) == 0;
    else
        x->have = x->have_from && energy_since(&x->from, &x->got, &e) == 0;
}

static void energy_close(struct window *w, size_t j, void *state, bool keep)
{
    struct energy_window *x = state;
    if (keep && x->have && w->k == 1) {
        run_energy_release(&w->t[j].r->energy);
        w->t[j].r->energy = x->got;
        x->got = (struct run_energy){0};
    }
    run_energy_release(&x->got);
    free(x);
}

const struct window_instrument energy_instrument = {
    .begin = energy_campaign_begin,
    .open = energy_open,
    .edge = energy_edge,
    .close = energy_close,
};
