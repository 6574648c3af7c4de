#include "campaign.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "text.h"
#include "platform/files.h"

static const char *const order_names[] = {"interleave", "random", "grouped", "duet"};
static const char *const status_names[] = {"pending", "ok", "failed", "interrupted"};

ENUM_WORDS(enum run_order, order_names, run_order_name, run_order_parse)

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

/* v's string (new), else dflt's. */
static char *str_or(json_t *v, const char *dflt)
{
    return xstrdup(json_is_string(v) ? json_string_value(v) : dflt);
}

int campaign_profile_from_json(json_t *section, const char *where, struct campaign_profile *p,
                               struct lb_error *err)
{
    memset(p, 0, sizeof(*p));
    if (!json_is_object(section))
        return lb_fail(err, "%s: profile: expected an object", where);
    json_t *known = profile_section_known(section);
    p->text = xcheck(json_dumps(known, JSON_COMPACT));
    json_decref(known);
    json_t *knob = json_object_get(section, "knob");
    p->name = str_or(json_object_get(section, "name"), "?");
    p->path = str_or(json_object_get(section, "path"), "");
    p->hash = str_or(json_object_get(section, "hash"), "");
    p->knob_name = str_or(json_object_get(knob, "name"), "?");
    p->knob_label = str_or(json_object_get(knob, "label"), p->knob_name);
    p->marker = str_or(json_object_get(section, "marker"), "");
    json_t *health = json_object_get(section, "health");
    if (health && !json_is_array(health))
        return lb_fail(err, "%s: profile.health: expected an array", where);
    if (json_array_size(health) > PROFILE_HEALTH_MAX)
        return lb_fail(err, "%s: profile.health: %zu keys, more than the %d of a profile", where,
                       json_array_size(health), PROFILE_HEALTH_MAX);
    p->health = xcalloc(json_array_size(health) + 1, sizeof(*p->health));
    for (size_t k = 0; k < json_array_size(health); k++) {
        const char *key, *label = NULL, *better = profile_direction_name(LOWER_IS_BETTER);
        int zero = 0;
        enum direction dir;
        if (json_unpack(json_array_get(health, k), "{s:s, s?s, s?s, s?b}", "key", &key, "label",
                        &label, "better", &better, "must_be_zero", &zero) < 0 ||
            profile_direction_parse(better, &dir) < 0)
            return lb_fail(err, "%s: profile.health[%zu]: expected a key, a label, better "
                                "\"lower\" or \"higher\" and must_be_zero",
                           where, k);
        p->health[p->n_health++] =
            (struct campaign_health){xstrdup(key), xstrdup(label ? label : key), dir, zero};
    }
    metric_registry_build(p);
    return 0;
}

json_t *campaign_profile_json(const struct campaign_profile *p)
{
    return xcheck(json_loads(p->text ? p->text : "{}", 0, NULL));
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
    free(p->text);
    free(p->name);
    free(p->path);
    free(p->hash);
    free(p->knob_name);
    free(p->knob_label);
    free(p->marker);
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

size_t campaign_cells(const struct campaign *c)
{
    return c->values.n * (c->n_variants ? c->n_variants : 1);
}

struct cell campaign_cell(const struct campaign *c, size_t i)
{
    size_t nv = c->n_variants ? c->n_variants : 1;
    return (struct cell){i / nv, i % nv};
}

struct cell campaign_reference(const struct campaign *c, struct cell x)
{
    return c->n_variants ? (struct cell){x.setting, 0} : (struct cell){c->baseline, 0};
}

char *campaign_cell_name(const struct campaign *c, struct cell x)
{
    if (!c->n_variants)
        return xstrdup(c->values.v[x.setting]);
    return xasprintf("%s %s", c->values.v[x.setting], c->variants[x.variant].name);
}

bool run_in_cell(const struct run_record *r, struct cell x)
{
    return r->setting_index == x.setting && r->variant_index == x.variant;
}

long campaign_find_cell(const struct campaign *c, const char *value, const char *variant)
{
    long si = campaign_setting(c, value);
    if (si < 0 || (variant == NULL) != (c->n_variants == 0))
        return -1;
    size_t nv = c->n_variants ? c->n_variants : 1;
    for (size_t v = 0; v < nv; v++)
        if (!variant || strcmp(c->variants[v].name, variant) == 0)
            return (long)((size_t)si * nv + v);
    return -1;
}

int campaign_size_check(size_t settings, size_t variants, size_t runs, const char *where,
                        struct lb_error *err)
{
    const struct {
        size_t n, max;
        const char *what;
    } caps[] = {
        {settings, CAMPAIGN_SETTINGS_MAX, "settings"},
        {variants, CAMPAIGN_VARIANTS_MAX, "variants"},
        {settings * (variants ? variants : 1), CAMPAIGN_CELLS_MAX, "cells (settings x variants)"},
        {runs, CAMPAIGN_RUNS_MAX, "runs"}};
    for (size_t i = 0; i < ARRAY_SIZE(caps); i++)
        if (caps[i].n > caps[i].max)
            return lb_fail(err, "%s: %zu %s, more than the %zu of a campaign loopbench reads",
                           where, caps[i].n, caps[i].what, caps[i].max);
    return 0;
}

long campaign_setting(const struct campaign *c, const char *value)
{
    for (size_t i = 0; i < c->values.n; i++)
        if (strcmp(c->values.v[i], value) == 0)
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

const struct metric *campaign_metric(const struct campaign *c, const char *key)
{
    return metric_find(c->profile.metrics, c->profile.n_metrics, key);
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

/* campaign_cell_pairs, with the CPUs each run of a pair was pinned to into cpus_a[] and
 * cpus_b[] when they are not NULL. */
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
 * for each: a campaign of 100,000 runs made elsewhere is paired in a blink). */
static size_t cell_pairs(const struct campaign *c, struct cell xa, struct cell xb,
                         const struct metric *m, double *a, double *b, const char **cpus_a,
                         const char **cpus_b)
{
    size_t n = 0, nb = 0;
    if (c->order == ORDER_GROUPED)
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
    if (!c->warmup_auto) {
        snprintf(buf, size, "%g s", c->warmup_s);
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < c->n_runs; i++)
        if (c->runs[i].sampled && isfinite(c->runs[i].warmup_s)) {
            lo = fmin(lo, c->runs[i].warmup_s);
            hi = fmax(hi, c->runs[i].warmup_s);
        }
    if (lo > hi)
        snprintf(buf, size, "auto (at most %g s)", c->warmup_s);
    else
        snprintf(buf, size, "auto, %.1f-%.1f s (at most %g s)", lo, hi, c->warmup_s);
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
    free(r->failure);
    free(r->log_tail);
    free(r->cpus);
    free(r->containment);
    free(r->isolation);
    free(r->unsteady);
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
    free(c->look_undecided);
    free(c->primary);
    free(c->cpus);
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
    strv_release(&c->values);
    for (size_t i = 0; i < c->n_variants; i++) {
        free(c->variants[i].name);
        free(c->variants[i].dir);
        commit_release(&c->variants[i].commit);
    }
    commit_release(&c->commit);
    free(c->variants);
    strv_release(&c->resumed_at);
    strv_release(&c->pass_env);
    strv_release(&c->env_passed);
    for (size_t i = 0; i < c->n_runs; i++)
        run_record_release(&c->runs[i]);
    free(c->runs);
    memset(c, 0, sizeof(*c));
}
