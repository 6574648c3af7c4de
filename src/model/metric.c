#include "metric.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

#include "campaign.h"

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
    p->metrics[0] = (struct metric){"cpu", "CPU %", "CPU", " % of one core", LOWER_IS_BETTER, METRIC_LOG_RATIO, true,
                                    true, false, -1, NULL, read_cpu};
    for (size_t k = 0; k < p->n_health; k++) {
        const struct campaign_health *h = &p->health[k];
        p->metrics[1 + k] = (struct metric){h->key, h->label, h->label, NULL, h->better, METRIC_DIFFERENCE, true,
                                            true, h->must_be_zero, (long)k, NULL, read_health};
    }
    p->metrics[p->n_metrics - 1] = (struct metric){
        "voluntary_per_s", "wake-ups /s", "wake-ups", " per second", LOWER_IS_BETTER,
        METRIC_LOG_RATIO, true, false, false, -1, NULL, read_wakes};
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
    p->metrics[p->n_metrics++] = (struct metric){
        "idle_entries_per_s", "idle entries /s", "idle entries", " per second", LOWER_IS_BETTER,
        METRIC_DIFFERENCE, true, false, false, -1, NULL, read_idle_entries};
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
        p->metrics[p->n_metrics++] = (struct metric){
            key, label, label, " of the window", better, METRIC_DIFFERENCE, true, false, false, -1,
            state, read_idle_share};
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
    p->metrics[p->n_metrics++] = (struct metric){
        "package_watts", "package W", "package power", " W", LOWER_IS_BETTER, METRIC_LOG_RATIO,
        true, false, false, -1, NULL, read_watts};
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
