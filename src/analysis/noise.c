/* Noise warnings (noise.h). */
#include "noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "stats.h"

static bool sampled(const struct run_record *r)
{
    return r->status == RUN_OK && r->sampled;
}

/* Flag and warn about the runs of cell x (a setting, of a variant when there are some:
 * builds differ by design) whose CPU is more than NOISE_OUTLIER_MADS from the median. cpu
 * has room for every run. */
static void outliers(const struct campaign *c, struct cell x, double *cpu, struct noise *n)
{
    size_t m = 0;
    for (size_t i = 0; i < c->n_runs; i++)
        if (run_in_cell(&c->runs[i], x) && sampled(&c->runs[i]))
            cpu[m++] = c->runs[i].sample.cpu_percent;
    struct stats_summary s;
    stats_summarize(cpu, m, &s);
    /* Fewer runs, or all alike, and every deviation is the MAD or nothing. */
    if (m < NOISE_OUTLIER_MIN_RUNS || !(s.mad > 0))
        return;
    char *name = campaign_cell_name(c, x);
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        double off = fabs(r->sample.cpu_percent - s.median);
        if (!run_in_cell(r, x) || !sampled(r) || off <= NOISE_OUTLIER_MADS * s.mad ||
            off <= NOISE_OUTLIER_MIN_SHARE * s.median)
            continue;
        n->runs[i].outlier = true;
        strv_push_owned(&n->warnings,
                        xasprintf("run %s #%ld: CPU %.3g%% is more than %g median absolute "
                                  "deviations from its %s's median %.3g%% (an outlier)",
                                  name, r->repeat, r->sample.cpu_percent, NOISE_OUTLIER_MADS,
                                  c->spec.n_variants ? "cell" : "setting", s.median));
    }
    free(name);
}

/* How many CPUs r's target could use: those it was pinned to, else those watched over
 * its window, else the host's; 0 when not known. */
static size_t run_cpus(const struct campaign *c, const struct run_record *r)
{
    const char *list = r->cpus ? r->cpus : r->host_cpus.cpus;
    struct cpuset s;
    struct lb_error err;
    if (list && cpuset_parse(list, &s, &err) == 0 && cpuset_count(&s))
        return cpuset_count(&s);
    return c->host.logical_cpus > 0 ? (size_t)c->host.logical_cpus : 0;
}

char *noise_saturated(const struct campaign *c, const struct run_record *r)
{
    if (!sampled(r))
        return NULL;
    const struct run_host_cpus *h = &r->host_cpus;
    if (h->cpus && h->busy_percent >= NOISE_BUSY_PERCENT &&
        h->busy_percent - h->others_percent >= NOISE_OURS_PERCENT) {
        /* pinned and not rotating, the CPUs watched were the target's own */
        bool own = r->cpus && strcmp(r->cpus, h->cpus) == 0;
        return xasprintf("%s: %.0f%% busy over the window",
                         own ? "its CPUs had no idle time" : "the host had no idle CPU",
                         fmin(h->busy_percent, 100));
    }
    size_t n = run_cpus(c, r);
    double used = n ? r->sample.cpu_percent / (double)n : 0;
    if (used >= NOISE_CAPACITY_PERCENT)
        return xasprintf("the target used %.0f%% of its %zu CPU%s: it wanted more than they gave",
                         fmin(used, 100), n, n == 1 ? "" : "s");
    return NULL;
}

char *noise_setting_saturated(const struct campaign *c, const char *value)
{
    long si = campaign_setting(c, value);
    size_t n = 0, of = 0;
    char *first = NULL;
    for (size_t i = 0; si >= 0 && i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        if (r->setting_index != (size_t)si || !sampled(r))
            continue;
        of++;
        char *why = noise_saturated(c, r);
        n += why != NULL;
        if (!first)
            first = why;
        else
            free(why);
    }
    if (!first)
        return NULL;
    char *s = xasprintf("%zu of %zu runs at %s saturated (the first: %s)", n, of, value, first);
    free(first);
    return s;
}

/* "run 2 head #3: WHAT" (what is taken and freed). */
static void warn_run(const struct campaign *c, const struct run_record *r, char *what,
                     struct noise *n)
{
    char *cell = campaign_cell_name(c, (struct cell){r->setting_index, r->variant_index});
    strv_push_owned(&n->warnings, xasprintf("run %s #%ld: %s", cell, r->repeat, what));
    free(cell);
    free(what);
}

void noise_assess(const struct campaign *c, struct noise *n)
{
    memset(n, 0, sizeof(*n));
    n->runs = xcalloc(c->n_runs ? c->n_runs : 1, sizeof(*n->runs));
    n->n_runs = c->n_runs;
    const struct plat_host_facts *h = &c->host;
    if (h->logical_cpus > 0 && h->loadavg[0] > h->logical_cpus)
        strv_push_owned(&n->warnings,
                        xasprintf("load average %.2f before the campaign was above the %d "
                                  "CPUs: other work was competing for them",
                                  h->loadavg[0], h->logical_cpus));
    size_t n_sampled = 0, n_steal = 0, n_others = 0;
    double steal_max = 0, others_max = 0;
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        if (!sampled(r))
            continue;
        n_sampled++;
        if (r->sample.steal_percent > NOISE_STEAL_PERCENT) {
            n->runs[i].steal = true;
            n_steal++;
            steal_max = fmax(steal_max, r->sample.steal_percent);
        }
        if (r->sample.others_cpu_percent > NOISE_OTHERS_PERCENT) {
            n->runs[i].others = true;
            n_others++;
            others_max = fmax(others_max, r->sample.others_cpu_percent);
        }
        n->runs[i].saturated = noise_saturated(c, r);
        if (r->warmup_capped)
            warn_run(c, r,
                     xasprintf("the auto warm-up reached its most (%g s) before the "
                               "target settled",
                               c->spec.warmup_s),
                     n);
        if (r->steady_tested && !r->steady)
            warn_run(c, r, xasprintf("the window was not steady (CPU %s): the target had not "
                                     "settled, or never does",
                                     r->unsteady ? r->unsteady : "moved"), n);
    }
    if (n_steal)
        strv_push_owned(&n->warnings,
                        xasprintf("steal was above %g%% in %zu of %zu runs (up to %.1f%%): the "
                                  "hypervisor took CPU time from the host",
                                  NOISE_STEAL_PERCENT, n_steal, n_sampled, steal_max));
    if (n_others)
        strv_push_owned(&n->warnings,
                        xasprintf("other processes used more than %g%% of a core in %zu of %zu "
                                  "runs (up to %.0f%%): the host was not quiet",
                                  NOISE_OTHERS_PERCENT, n_others, n_sampled, others_max));
    for (size_t si = 0; si < c->spec.values.n; si++) {
        char *why = noise_setting_saturated(c, c->spec.values.v[si]);
        if (why)
            strv_push_owned(&n->warnings,
                            xasprintf("%s: their figures measured contention for the CPUs, "
                                      "not the target alone",
                                      why));
        free(why);
    }
    double *cpu = xcalloc(c->n_runs ? c->n_runs : 1, sizeof(double));
    for (size_t ci = 0; ci < campaign_cells(c); ci++)
        outliers(c, campaign_cell(c, ci), cpu, n);
    free(cpu);
    /* Not noise, but what the reader of the figures must know as well. */
    size_t exposed = 0;
    for (size_t i = 0; i < c->n_runs; i++)
        exposed += c->runs[i].isolation && strcmp(c->runs[i].isolation, "none") == 0;
    if (exposed)
        strv_push_owned(&n->warnings,
                        xasprintf("the targets of %zu run%s ran without a PID namespace of their "
                                  "own (isolation none): they could read the environment of "
                                  "every process of this user, loopbench's ancestors' included "
                                  "(a CI job's shell and runner: docs/ci.md)",
                                  exposed, exposed == 1 ? "" : "s"));
}

void noise_release(struct noise *n)
{
    strv_release(&n->warnings);
    for (size_t i = 0; i < n->n_runs; i++)
        free(n->runs[i].saturated);
    free(n->runs);
    memset(n, 0, sizeof(*n));
}
