/* --rotate: a duet's targets swap CPU sets inside the window (the sampler moves them, on
 * its own tick); the swaps and the time on each set recorded into the run. */
#include "instrument.h"

#include <math.h>

static int rotation_open(struct window *w, size_t j, void **state, struct lb_error *err)
{
    (void)err;
    const struct campaign_spec *s = &w->c->spec;
    struct sampler_opts *so = w->t[j].so;
    *state = NULL;
    if (!(s->rotate_s > 0 && w->t[j].cpus))
        return 0;
    /* the interval rounded so that each CPU set gets an equal share of the window */
    double width = (double)campaign_spec_duet_width(s);
    double turns = fmax(1, round(s->sample_s / (width * s->rotate_s)));
    so->rotate_ns = (uint64_t)(s->sample_s * 1e9 / (width * turns));
    so->slices = w->slices;
    so->n_slices = campaign_spec_duet_width(s);
    so->slice = (size_t)(w->t[j].cpus - w->slices);
    *state = so;
    return 0;
}

static void rotation_close(struct window *w, size_t j, void *state, bool keep)
{
    const struct sampler_opts *so = state;
    struct run_record *r = w->t[j].r;
    char list[256];
    if (!keep)
        return;
    strv_release(&r->rotation.cpus);
    free(r->rotation.seconds);
    r->rotation.swaps = (long)r->sample.rotations;
    r->rotation.seconds = xcalloc(so->n_slices, sizeof(double));
    for (size_t k = 0; k < so->n_slices; k++) {
        cpuset_format(&so->slices[k], list, sizeof(list));
        strv_push(&r->rotation.cpus, list);
        r->rotation.seconds[k] = (double)r->sample.slice_ns[k] / 1e9;
    }
}

const struct window_instrument rotation_instrument = {
    .open = rotation_open,
    .close = rotation_close,
};
