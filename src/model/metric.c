#include "metric.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "text.h"

const struct metric *metric_find(const struct metric *metrics, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(metrics[i].key, key) == 0)
            return &metrics[i];
    return NULL;
}

const char *metric_unit(const struct campaign *c, const struct metric *m)
{
    return m->unit ? m->unit : campaign_health_unit(c, (size_t)m->health);
}

double metric_read(const struct campaign *c, const struct run_record *r, const struct metric *m)
{
    return m->read(c, r, m);
}

const struct metric *campaign_metric(const struct campaign *c, const char *key)
{
    return metric_find(c->profile.metrics, c->profile.n_metrics, key);
}

int campaign_check_keys(const struct campaign *c, const char *list, const char *option,
                        struct lb_error *err)
{
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        char *key = xstrndup(p, end ? (size_t)(end - p) : strlen(p));
        bool known = campaign_metric(c, key) != NULL;
        if (!known) {
            /* the list may be a campaign's own, made elsewhere */
            char *shown = text_shown(key);
            lb_fail(err, "%s '%s': not a health key of profile '%s'", option, shown,
                    c->profile.name);
            free(shown);
        }
        free(key);
        if (!known)
            return -1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

size_t campaign_cell_values(const struct campaign *c, struct cell x, const struct metric *m,
                            double *out)
{
    size_t n = 0;
    for (size_t i = 0; i < c->n_runs; i++)
        if (run_in_cell(&c->runs[i], x) && c->runs[i].status == RUN_OK)
            out[n++] = metric_read(c, &c->runs[i], m);
    return n;
}

size_t campaign_values(const struct campaign *c, size_t si, const struct metric *m, double *out)
{
    return campaign_cell_values(c, (struct cell){si, 0}, m, out);
}

/* The CPUs a run's figure belongs to, for the gate's CPU-set factor: a run that rotated
 * spent its window on every set of the rotation in equal shares, so the set it started on
 * says nothing and all rotated runs are alike. */
static const char *run_cpu_assignment(const struct run_record *x)
{
    return x->rotation.swaps > 0 ? "rotated" : x->cpus;
}

/* A completed run of a cell, by its round. */
struct round_run {
    long repeat;
    size_t index;
};

static int round_order(const void *pa, const void *pb)
{
    const struct round_run *a = pa, *b = pb;
    if (a->repeat != b->repeat)
        return a->repeat < b->repeat ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Each completed run of xa, in the campaign's order, with the first completed run of xb
 * of its round, found by a search of xb's runs sorted by round (not a scan of every run
 * for each: a campaign of 100,000 runs made elsewhere is paired in a blink); the CPUs
 * each run of a pair was pinned to into cpus_a[] and cpus_b[] when they are not NULL. */
static size_t cell_pairs(const struct campaign *c, struct cell xa, struct cell xb,
                         const struct metric *m, double *a, double *b, const char **cpus_a,
                         const char **cpus_b)
{
    size_t n = 0, nb = 0;
    if (c->spec.order == ORDER_GROUPED)
        return 0;
    struct round_run *rb = xmalloc((c->n_runs + 1) * sizeof(*rb));
    for (size_t j = 0; j < c->n_runs; j++)
        if (run_in_cell(&c->runs[j], xb) && c->runs[j].status == RUN_OK)
            rb[nb++] = (struct round_run){c->runs[j].repeat, j};
    qsort(rb, nb, sizeof(*rb), round_order);
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *x = &c->runs[i];
        if (!run_in_cell(x, xa) || x->status != RUN_OK)
            continue;
        size_t lo = 0, hi = nb; /* the first of xb's runs of x's round or later */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (rb[mid].repeat < x->repeat)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == nb || rb[lo].repeat != x->repeat)
            continue;
        const struct run_record *y = &c->runs[rb[lo].index];
        if (cpus_a && cpus_b) {
            cpus_a[n] = run_cpu_assignment(x);
            cpus_b[n] = run_cpu_assignment(y);
        }
        a[n] = metric_read(c, x, m);
        b[n++] = metric_read(c, y, m);
    }
    free(rb);
    return n;
}

size_t campaign_cell_pairs(const struct campaign *c, struct cell xa, struct cell xb,
                           const struct metric *m, double *a, double *b)
{
    return cell_pairs(c, xa, xb, m, a, b, NULL, NULL);
}

size_t campaign_cell_pairs_cpus(const struct campaign *c, struct cell xa, struct cell xb,
                                const struct metric *m, double *a, double *b,
                                const char **cpus_a, const char **cpus_b)
{
    return cell_pairs(c, xa, xb, m, a, b, cpus_a, cpus_b);
}

size_t campaign_pairs(const struct campaign *c, size_t sa, size_t sb, const struct metric *m,
                      double *a, double *b)
{
    return campaign_cell_pairs(c, (struct cell){sa, 0}, (struct cell){sb, 0}, m, a, b);
}

/* CPU: % of one core over the window, for the target's whole process tree. */
static double read_cpu(const struct campaign *c, const struct run_record *r, const struct metric *m)
{
    (void)c, (void)m;
    return r->sampled ? r->sample.cpu_percent : NAN;
}

/* A health key: its mean over the run's windows. */
static double read_health(const struct campaign *c, const struct run_record *r,
                          const struct metric *m)
{
    return run_health_mean(c, r, (size_t)m->health);
}

/* The wake rate: the tree's voluntary context switches per second of the window, each
 * a sleep that ended in a wake-up. */
static double read_wakes(const struct campaign *c, const struct run_record *r,
                         const struct metric *m)
{
    (void)c, (void)m;
    double wall = (double)r->sample.wall_ns / 1e9;
    return r->sampled && wall > 0 ? (double)r->sample.voluntary_ctxsw / wall : NAN;
}

void metric_registry_build(struct campaign_profile *p)
{
    p->n_metrics = 1 + p->n_health + 1;
    p->metrics = xcalloc(p->n_metrics, sizeof(*p->metrics));
    p->metrics[0] = (struct metric){.key = "cpu",
                                    .label = "CPU %",
                                    .name = "CPU",
                                    .unit = " % of one core",
                                    .better = LOWER_IS_BETTER,
                                    .scale = METRIC_LOG_RATIO,
                                    .gateable = true,
                                    .primary_by_default = true,
                                    .health = -1,
                                    .read = read_cpu};
    for (size_t k = 0; k < p->n_health; k++) {
        const struct campaign_health *h = &p->health[k];
        p->metrics[1 + k] = (struct metric){.key = h->key,
                                            .label = h->label,
                                            .name = h->label,
                                            .better = h->better,
                                            .scale = METRIC_DIFFERENCE,
                                            .gateable = true,
                                            .primary_by_default = true,
                                            .must_be_zero = h->must_be_zero,
                                            .health = (long)k,
                                            .read = read_health};
    }
    p->metrics[p->n_metrics - 1] = (struct metric){.key = "voluntary_per_s",
                                                   .label = "wake-ups /s",
                                                   .name = "wake-ups",
                                                   .unit = " per second",
                                                   .better = LOWER_IS_BETTER,
                                                   .scale = METRIC_LOG_RATIO,
                                                   .gateable = true,
                                                   .health = -1,
                                                   .read = read_wakes};
}

/* Whether run r's idle-state counters are of CPUs its target owned: pinned, its host
 * CPUs its own (not a rotating duet's, which cover every target's), not held awake. */
static bool idle_owned(const struct run_record *r)
{
    const struct run_host_cpus *h = &r->host_cpus;
    return r->sampled && r->sample.wall_ns > 0 && r->cpus && !r->idle_held &&
           r->rotation.swaps == 0 && h->cpus && strcmp(h->cpus, r->cpus) == 0 && h->n_idle > 0;
}

/* Idle entries per second of the window, over the target's CPUs: each one a wake-up. */
static double read_idle_entries(const struct campaign *c, const struct run_record *r,
                                const struct metric *m)
{
    (void)c, (void)m;
    if (!idle_owned(r))
        return NAN;
    double entries = 0;
    for (size_t i = 0; i < r->host_cpus.n_idle; i++)
        entries += (double)r->host_cpus.idle[i].usage;
    return entries / ((double)r->sample.wall_ns / 1e9);
}

/* The share of the window the target's CPUs spent in idle state m->state, in percent
 * of their time (the CPUs' times added). */
static double read_idle_share(const struct campaign *c, const struct run_record *r,
                              const struct metric *m)
{
    (void)c;
    if (!idle_owned(r))
        return NAN;
    double us = 0;
    size_t cpus = 0;
    for (size_t i = 0; i < r->host_cpus.n_idle; i++) {
        const struct run_idle_state *st = &r->host_cpus.idle[i];
        bool first_of_cpu = true;
        for (size_t j = 0; j < i && first_of_cpu; j++)
            first_of_cpu = r->host_cpus.idle[j].cpu != st->cpu;
        cpus += first_of_cpu;
        if (strcmp(st->name, m->state) == 0)
            us += (double)st->time_us;
    }
    return us / ((double)r->sample.wall_ns / 1e3 * (double)cpus) * 100;
}

static bool listed_in(const struct strv *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return true;
    return false;
}

void campaign_metrics_add_idle(struct campaign *c)
{
    struct campaign_profile *p = &c->profile;
    struct strv states = {0};
    for (size_t i = 0; i < c->n_runs; i++)
        for (size_t k = 0; idle_owned(&c->runs[i]) && k < c->runs[i].host_cpus.n_idle; k++)
            if (!listed_in(&states, c->runs[i].host_cpus.idle[k].name))
                strv_push(&states, c->runs[i].host_cpus.idle[k].name);
    if (!states.n) {
        strv_release(&states);
        return;
    }
    p->metrics = xrealloc(p->metrics, (p->n_metrics + 1 + states.n) * sizeof(*p->metrics));
    p->metrics[p->n_metrics++] = (struct metric){.key = "idle_entries_per_s",
                                                 .label = "idle entries /s",
                                                 .name = "idle entries",
                                                 .unit = " per second",
                                                 .better = LOWER_IS_BETTER,
                                                 .scale = METRIC_DIFFERENCE,
                                                 .gateable = true,
                                                 .health = -1,
                                                 .read = read_idle_entries};
    for (size_t k = 0; k < states.n; k++) {
        const char *name = states.v[k];
        /* a key one can type in --primary or --metric: the kernel's state names have
         * spaces ("haltpoll idle") */
        char *typed = xasprintf("idle_%s_percent", name);
        for (char *ch = typed; *ch; ch++)
            if (!isalnum((unsigned char)*ch))
                *ch = '_';
        strv_push_owned(&p->metric_text, typed);
        const char *key = p->metric_text.v[p->metric_text.n - 1];
        strv_push_owned(&p->metric_text, xasprintf("in %s %%", name));
        const char *label = p->metric_text.v[p->metric_text.n - 1];
        strv_push(&p->metric_text, name);
        const char *state = p->metric_text.v[p->metric_text.n - 1];
        /* polling keeps the CPU awake; any other state lets it rest */
        enum direction better = strcmp(name, "POLL") == 0 ? LOWER_IS_BETTER : HIGHER_IS_BETTER;
        p->metrics[p->n_metrics++] = (struct metric){.key = key,
                                                     .label = label,
                                                     .name = label,
                                                     .unit = " of the window",
                                                     .better = better,
                                                     .scale = METRIC_DIFFERENCE,
                                                     .gateable = true,
                                                     .health = -1,
                                                     .state = state,
                                                     .read = read_idle_share};
    }
    strv_release(&states);
}

/* The package's mean watts over the window (runs in turn on a host with RAPL). */
static double read_watts(const struct campaign *c, const struct run_record *r,
                         const struct metric *m)
{
    (void)c, (void)m;
    return r->energy.n_domains ? r->energy.watts : NAN;
}

void campaign_metrics_add_energy(struct campaign *c)
{
    bool any = false;
    for (size_t i = 0; i < c->n_runs && !any; i++)
        any = c->runs[i].status == RUN_OK && c->runs[i].energy.n_domains > 0;
    if (!any)
        return;
    struct campaign_profile *p = &c->profile;
    p->metrics = xrealloc(p->metrics, (p->n_metrics + 1) * sizeof(*p->metrics));
    p->metrics[p->n_metrics++] = (struct metric){.key = "package_watts",
                                                 .label = "package W",
                                                 .name = "package power",
                                                 .unit = " W",
                                                 .better = LOWER_IS_BETTER,
                                                 .scale = METRIC_LOG_RATIO,
                                                 .gateable = true,
                                                 .health = -1,
                                                 .read = read_watts};
}

const char *campaign_idle_missing(const struct campaign *c)
{
    if (metric_find(c->profile.metrics, c->profile.n_metrics, "idle_entries_per_s"))
        return NULL;
    if (!c->cpuidle_driver)
        return "the host has no cpuidle driver";
    if (c->spec.hold_idle)
        return "its CPUs were held out of idle states (--hold-idle)";
    if (!c->spec.cpus)
        return "the targets were not pinned (--cpus, --order duet), so their CPUs' counters "
               "would count other work";
    if (c->spec.rotate_s > 0)
        return "the duet's targets swapped CPUs inside the window, so no CPU was one target's";
    return "no run recorded them";
}
