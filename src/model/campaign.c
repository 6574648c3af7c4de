#include "campaign.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "text.h"
#include "platform/files.h"
#include "platform/platform.h"

static const char *const status_names[] = {"pending", "ok", "failed", "interrupted"};

ENUM_WORDS(enum run_status, status_names, run_status_name, run_status_parse)

/* name with anything but [A-Za-z0-9._-] as '_', and no leading '.' (new string). */
static char *safe_file_name(const char *name)
{
    char *safe = xstrdup(name);
    for (char *s = safe; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-'))
            *s = '_';
    }
    if (safe[0] == '.')
        safe[0] = '_';
    return safe;
}

char *run_dir_name(const char *variant, const char *value, long repeat)
{
    char *safe = safe_file_name(value);
    char *dir;
    if (variant) {
        char *group = safe_file_name(variant);
        dir = xasprintf("runs/%s/%s-%ld", group, safe, repeat);
        free(group);
    } else {
        dir = xasprintf("runs/%s-%ld", safe, repeat);
    }
    free(safe);
    return dir;
}

void campaign_profile_release(struct campaign_profile *p)
{
    for (size_t k = 0; k < p->n_health; k++) {
        free(p->health[k].key);
        free(p->health[k].label);
    }
    free(p->health);
    free(p->metrics);
    strv_release(&p->metric_text);
    FREE_ALL(p->text, p->name, p->path, p->hash, p->knob_name, p->knob_label, p->marker);
    memset(p, 0, sizeof(*p));
}

const char *campaign_state_name(const struct campaign *c)
{
    return c->interrupted_by ? "interrupted" : c->finished_wall_ns ? "finished" : "running";
}

const char *campaign_host(const struct campaign *c)
{
    return c->host.hostname ? c->host.hostname : "host";
}

const char *campaign_where(const struct campaign *c)
{
    return c->path ? c->path : c->out_dir;
}

const char *campaign_fingerprint(const struct campaign *c)
{
    return c->fingerprint.id;
}

const char *campaign_fingerprint_short(const struct campaign *c)
{
    return c->fingerprint.short_name;
}

const char *campaign_fingerprint_differs(const struct campaign *a, const struct campaign *b)
{
    int f = fingerprint_first_difference(&a->host, &b->host);
    return f < 0 ? NULL : fingerprint_fields[f];
}

size_t campaign_cells(const struct campaign *c)
{
    return c->spec.values.n * (c->spec.n_variants ? c->spec.n_variants : 1);
}

struct cell campaign_cell(const struct campaign *c, size_t i)
{
    size_t nv = c->spec.n_variants ? c->spec.n_variants : 1;
    return (struct cell){i / nv, i % nv};
}

struct cell campaign_reference(const struct campaign *c, struct cell x)
{
    return c->spec.n_variants ? (struct cell){x.setting, 0} : (struct cell){c->spec.baseline, 0};
}

char *campaign_cell_name(const struct campaign *c, struct cell x)
{
    if (!c->spec.n_variants)
        return xstrdup(c->spec.values.v[x.setting]);
    return xasprintf("%s %s", c->spec.values.v[x.setting], c->spec.variants[x.variant].name);
}

bool run_in_cell(const struct run_record *r, struct cell x)
{
    return r->setting_index == x.setting && r->variant_index == x.variant;
}

long campaign_find_cell(const struct campaign *c, const char *value, const char *variant)
{
    long si = campaign_setting(c, value);
    if (si < 0 || (variant == NULL) != (c->spec.n_variants == 0))
        return -1;
    size_t nv = c->spec.n_variants ? c->spec.n_variants : 1;
    for (size_t v = 0; v < nv; v++)
        if (!variant || strcmp(c->spec.variants[v].name, variant) == 0)
            return (long)((size_t)si * nv + v);
    return -1;
}

long campaign_setting(const struct campaign *c, const char *value)
{
    for (size_t i = 0; i < c->spec.values.n; i++)
        if (strcmp(c->spec.values.v[i], value) == 0)
            return (long)i;
    return -1;
}

long campaign_health_index(const struct campaign *c, const char *key)
{
    for (size_t k = 0; k < c->profile.n_health; k++)
        if (strcmp(c->profile.health[k].key, key) == 0)
            return (long)k;
    return -1;
}

/* Health key k's aggregate in run r, NULL when no window of the run had it. */
static const struct scrape_agg *health_agg(const struct campaign *c, const struct run_record *r,
                                           size_t k)
{
    const struct scrape_agg *a = scrape_run_find(&r->scrape, c->profile.health[k].key);
    return a && a->n > 0 ? a : NULL;
}

double run_health_mean(const struct campaign *c, const struct run_record *r, size_t k)
{
    const struct scrape_agg *a = health_agg(c, r, k);
    return a ? a->mean : NAN;
}

double run_health_max(const struct campaign *c, const struct run_record *r, size_t k)
{
    const struct scrape_agg *a = health_agg(c, r, k);
    return a ? a->max : NAN;
}

double run_health_total(const struct campaign *c, const struct run_record *r, size_t k)
{
    const struct scrape_agg *a = health_agg(c, r, k);
    return a && a->type == SCRAPE_RATIO ? a->total_sum / (double)a->n : NAN;
}

const char *campaign_health_type(const struct campaign *c, size_t k)
{
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct scrape_agg *a = scrape_run_find(&c->runs[i].scrape, c->profile.health[k].key);
        if (a && c->runs[i].status == RUN_OK)
            return scrape_type_name(a->type);
    }
    return NULL;
}

const char *campaign_health_unit(const struct campaign *c, size_t k)
{
    const char *type = campaign_health_type(c, k);
    if (!type)
        return "";
    if (strcmp(type, "duration_ms") == 0)
        return " ms";
    return strcmp(type, "percent") == 0 ? "%" : "";
}

/* The points of a series.csv's text: its header line skipped, the first two columns of
 * each row (t_s, cpu_percent), of every row or, past SERIES_POINTS_MAX rows, of every
 * k-th. A row without two finite numbers (sscanf reads "inf" and "nan", and 1e999 as an
 * infinity) is one loopbench never wrote: skipped, as a plot cannot place it. */
static void series_parse(char *text, struct run_series *s)
{
    size_t rows = 0;
    for (const char *p = strchr(text, '\n'); p; p = strchr(p + 1, '\n'))
        rows++;
    size_t every = rows / SERIES_POINTS_MAX + 1, row = 0;
    s->t = xcalloc(rows / every + 1, sizeof(double));
    s->cpu = xcalloc(rows / every + 1, sizeof(double));
    char *next = strchr(text, '\n');
    while (next && next[1]) {
        char *line = next + 1;
        /* each line ended where it ends: sscanf measures the string it is given, and a
         * file of millions of lines would be measured again at every one */
        next = strchr(line, '\n');
        if (next)
            *next = '\0';
        double ts, v;
        if (row++ % every != 0 || sscanf(line, "%lf,%lf", &ts, &v) != 2 || !isfinite(ts) ||
            !isfinite(v))
            continue;
        s->t[s->n] = ts;
        s->cpu[s->n++] = v;
    }
}

int campaign_series_load(struct campaign *c, struct lb_error *err)
{
    for (size_t i = 0; i < c->n_runs; i++) {
        struct run_record *r = &c->runs[i];
        if (!r->sampled || r->series.n)
            continue;
        char *dir = path_join(c->out_dir, r->dir), *path = path_join(dir, "series.csv"), *text;
        int rc = read_back_file(path, "series.csv", SERIES_SIZE_MAX, &text, NULL, err);
        bool missing = rc < 0 && errno == ENOENT;
        free(path);
        free(dir);
        if (rc < 0 && !missing)
            return text_error_shown(err);
        if (rc == 0) {
            series_parse(text, &r->series);
            free(text);
        }
    }
    return 0;
}

void campaign_warmup_text(const struct campaign *c, char *buf, size_t size)
{
    if (!c->spec.warmup_auto) {
        snprintf(buf, size, "%g s", c->spec.warmup_s);
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < c->n_runs; i++)
        if (c->runs[i].sampled && isfinite(c->runs[i].warmup_s)) {
            lo = fmin(lo, c->runs[i].warmup_s);
            hi = fmax(hi, c->runs[i].warmup_s);
        }
    if (lo > hi)
        snprintf(buf, size, "auto (at most %g s)", c->spec.warmup_s);
    else
        snprintf(buf, size, "auto, %.1f-%.1f s (at most %g s)", lo, hi, c->spec.warmup_s);
}

void run_host_cpus_release(struct run_host_cpus *h)
{
    for (size_t i = 0; i < h->n_idle; i++)
        free(h->idle[i].name);
    free(h->idle);
    free(h->cpus);
    memset(h, 0, sizeof(*h));
}

void run_energy_release(struct run_energy *e)
{
    for (size_t i = 0; i < e->n_domains; i++) {
        free(e->domains[i].zone);
        free(e->domains[i].name);
    }
    free(e->domains);
    memset(e, 0, sizeof(*e));
}

void run_record_release(struct run_record *r)
{
    free(r->dir);
    strv_release(&r->rotation.cpus);
    free(r->rotation.seconds);
    run_host_cpus_release(&r->host_cpus);
    run_energy_release(&r->energy);
    scrape_run_release(&r->scrape);
    FREE_ALL(r->failure, r->log_tail, r->cpus, r->containment, r->isolation, r->unsteady);
    if (r->has_rtt)
        rtt_result_release(&r->rtt);
    if (r->has_endpoint)
        endpoint_result_release(&r->endpoint);
    free(r->series.t);
    free(r->series.cpu);
    memset(r, 0, sizeof(*r));
}

void campaign_release(struct campaign *c)
{
    free(c->out_dir);
    free(c->path);
    free(c->command_line);
    campaign_spec_release(&c->spec);
    free(c->look_undecided);
    free(c->loopbench_cpus);
    free(c->cpuidle_driver);
    free(c->energy_unavailable);
    run_energy_release(&c->energy_idle);
    free(c->self.version);
    free(c->self.commit);
    free(c->self.platform);
    campaign_profile_release(&c->profile);
    free(c->endpoint.url);
    free(c->endpoint.format);
    strv_release(&c->endpoint.keys);
    strv_release(&c->endpoint.sources);
    plat_host_facts_release(&c->host);
    commit_release(&c->commit);
    strv_release(&c->resumed_at);
    json_decref(c->tune);
    strv_release(&c->env_passed);
    for (size_t i = 0; i < c->n_runs; i++)
        run_record_release(&c->runs[i]);
    free(c->runs);
    memset(c, 0, sizeof(*c));
}
