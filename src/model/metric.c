#include "metric.h"

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
                                    true, false, -1, read_cpu};
    for (size_t k = 0; k < p->n_health; k++) {
        const struct campaign_health *h = &p->health[k];
        p->metrics[1 + k] = (struct metric){h->key, h->label, h->label, NULL, h->better, METRIC_DIFFERENCE, true,
                                            true, h->must_be_zero, (long)k, read_health};
    }
    p->metrics[p->n_metrics - 1] = (struct metric){
        "voluntary_per_s", "wake-ups /s", "wake-ups", " per second", LOWER_IS_BETTER,
        METRIC_LOG_RATIO, true, false, false, -1, read_wakes};
}
