#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "metric.h"
#include "stats.h"
#include "util.h"

bool history_series_tested(const struct history_series *s, const struct history_opts *o)
{
    return s->n >= 2 * o->min_segment;
}

static int by_start_time(const void *a, const void *b)
{
    const struct campaign *x = *(const struct campaign *const *)a;
    const struct campaign *y = *(const struct campaign *const *)b;
    return (x->started_wall_ns > y->started_wall_ns) - (x->started_wall_ns < y->started_wall_ns);
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Of campaign c, setting si, variant vi (0 without variants; else against the base) and
 * metric m: the estimate and its standard error. false when the campaign has too few
 * runs of it. */
static bool estimate(const struct campaign *c, size_t si, size_t vi, const struct metric *m,
                     bool log_scale, double *est, double *se)
{
    size_t room = c->n_runs ? c->n_runs : 1, n = 0;
    double *a = xmalloc(room * sizeof(*a)), *b = xmalloc(room * sizeof(*b));
    struct cell base = {si, 0}, head = {si, vi};
    bool ok = false;
    if (vi > 0) {
        struct stats_test t;
        struct stats_paired p;
        size_t pairs = campaign_cell_pairs(c, base, head, m, a, b);
        stats_paired_log(a, b, pairs, 0.95, &p);
        if (p.test.enough) {
            t = p.test;
        } else {
            size_t na = campaign_cell_values(c, base, m, a),
                   nb = campaign_cell_values(c, head, m, b);
            stats_welch_log(a, na, b, nb, &t);
        }
        ok = t.enough;
        *est = t.diff;
        *se = t.se;
    } else {
        size_t k = campaign_cell_values(c, base, m, a);
        for (size_t i = 0; i < k; i++)
            if (!log_scale || a[i] > 0)
                b[n++] = log_scale ? log(a[i]) : a[i];
        struct stats_summary s;
        stats_summarize(b, n, &s);
        ok = s.n > 0;
        *est = s.mean;
        *se = s.n > 1 ? s.sd / sqrt((double)s.n) : NAN;
    }
    free(a);
    free(b);
    return ok;
}

static struct history_series *find_series(struct history *h, const char *setting,
                                          const char *metric, const char *variant)
{
    for (size_t i = 0; i < h->n_series; i++) {
        struct history_series *s = &h->series[i];
        if (strcmp(s->setting, setting) == 0 && strcmp(s->metric, metric) == 0 &&
            same_text(s->variant, variant))
            return s;
    }
    return NULL;
}

static void add_point(struct history *h, size_t ci, size_t si, size_t vi, const struct metric *m)
{
    const struct campaign *c = h->campaigns[ci];
    const char *setting = c->spec.values.v[si], *metric = m->key;
    const char *variant = vi ? c->spec.variants[vi].name : NULL;
    struct history_series *s = find_series(h, setting, metric, variant);
    if (!s) {
        h->series = xrealloc(h->series, (h->n_series + 1) * sizeof(*h->series));
        s = &h->series[h->n_series++];
        *s = (struct history_series){
            .setting = setting,
            .metric = metric,
            .variant = variant,
            .label = m->name,
            .log_scale = m->scale == METRIC_LOG_RATIO || vi > 0,
            .lower_is_better = m->better == LOWER_IS_BETTER,
        };
    }
    struct history_point pt = {.campaign = ci};
    if (!estimate(c, si, vi, m, s->log_scale, &pt.estimate, &pt.se))
        return;
    s->points = xrealloc(s->points, (s->n + 1) * sizeof(*s->points));
    s->points[s->n++] = pt;
}

static void add_change(struct history_series *s, struct cp_point cp, size_t offset,
                       const char *environment)
{
    cp.start += offset;
    s->changes = xrealloc(s->changes, (s->n_changes + 1) * sizeof(*s->changes));
    s->changes[s->n_changes++] = (struct history_change){
        .cp = cp, .campaign = s->points[cp.start].campaign, .environment = environment};
}

/* The environment's change between the series' points j - 1 and j: the first campaign
 * from the one after point j - 1 to point j whose fingerprint differs from its
 * predecessor's. */
static const char *epoch_break(const struct history *h, const struct history_series *s, size_t j)
{
    for (size_t c = s->points[j - 1].campaign + 1; c <= s->points[j].campaign; c++)
        if (h->environment[c])
            return h->environment[c];
    return NULL;
}

/* Each epoch's change points, the epochs' boundaries as environment changes, the steps
 * between the segments they make and whether the newest is a change for the worse. */
static void series_changes(const struct history *h, struct history_series *s,
                           const struct history_opts *o, double max_p)
{
    double *x = xmalloc((s->n ? s->n : 1) * sizeof(*x));
    for (size_t j = 0; j < s->n; j++)
        x[j] = s->points[j].estimate;
    char *name = xasprintf("%s/%s/%s", s->variant ? s->variant : "", s->setting, s->metric);
    struct cp_opts co = {.max_p = max_p,
                         .min_magnitude = o->min_magnitude,
                         .min_segment = o->min_segment,
                         .recent = o->recent,
                         .worse = s->lower_is_better ? 1 : -1,
                         .log_scale = s->log_scale,
                         .permutations = CP_PERMUTATIONS,
                         .seed = hash_fnv1a64(name, strlen(name), FNV1A64_OFFSET)};
    free(name);
    for (size_t a = 0, b; a < s->n; a = b) {
        for (b = a + 1; b < s->n && !epoch_break(h, s, b); b++)
            ;
        if (a > 0)
            add_change(s, (struct cp_point){.start = 0, .p = NAN}, a, epoch_break(h, s, a));
        struct cp_result r;
        cp_detect(x + a, b - a, &co, &r);
        for (size_t i = 0; i < r.n; i++)
            add_change(s, r.points[i], a, NULL);
        cp_result_release(&r);
    }
    for (size_t i = 0; i < s->n_changes; i++) {
        struct history_change *ch = &s->changes[i];
        double p = ch->cp.p;
        cp_step(x, i ? s->changes[i - 1].cp.start : 0, ch->cp.start,
                i + 1 < s->n_changes ? s->changes[i + 1].cp.start : s->n, s->log_scale, &ch->cp);
        ch->cp.p = p;
        ch->worse = s->lower_is_better ? ch->cp.relative > 0 : ch->cp.relative < 0;
    }
    for (size_t i = 0, j = 0; i <= s->n_changes; i++) {
        size_t end = i < s->n_changes ? s->changes[i].cp.start : s->n;
        double sum = 0;
        for (size_t k = j; k < end; k++)
            sum += x[k];
        for (size_t k = j; k < end; k++)
            s->points[k].segment_mean = sum / (double)(end - j);
        j = end;
    }
    const struct history_change *last = s->n_changes ? &s->changes[s->n_changes - 1] : NULL;
    /* its step measured again between its neighbours, an epoch's cut among them */
    s->fails = last && !last->environment && last->worse &&
               fabs(last->cp.relative) >= o->min_magnitude;
    free(x);
}

int history_build(const struct campaign **campaigns, size_t n, const struct history_opts *o,
                  struct history *out, struct lb_error *err)
{
    *out = (struct history){0};
    if (n == 0)
        return lb_fail(err, "no campaign to read a history from");
    qsort(campaigns, n, sizeof(*campaigns), by_start_time);
    const struct campaign *newest = campaigns[n - 1];
    for (size_t i = 0; i + 1 < n; i++)
        if (compare_compatible(campaigns[i], newest, err) < 0)
            return -1;
    if (campaign_check_keys(newest, o->metric, "--metric", err) < 0)
        return -1;
    out->campaigns = campaigns;
    out->n_campaigns = n;
    out->environment = xcalloc(n, sizeof(*out->environment));
    for (size_t i = 1; i < n; i++)
        out->environment[i] = campaign_fingerprint_differs(campaigns[i - 1], campaigns[i]);
    for (size_t ci = 0; ci < n; ci++) {
        const struct campaign *c = campaigns[ci];
        for (size_t vi = c->spec.n_variants > 1 ? 1 : 0;
             vi < (c->spec.n_variants > 1 ? c->spec.n_variants : 1); vi++)
            for (size_t si = 0; si < c->spec.values.n; si++)
                for (size_t m = 0; m < c->profile.n_metrics; m++)
                    if (!o->metric || strcmp(o->metric, c->profile.metrics[m].key) == 0)
                        add_point(out, ci, si, vi, &c->profile.metrics[m]);
    }
    /* Bonferroni over the series that can be split at all */
    size_t tested = 0;
    for (size_t i = 0; i < out->n_series; i++)
        tested += history_series_tested(&out->series[i], o);
    out->tested = tested;
    for (size_t i = 0; i < out->n_series; i++) {
        series_changes(out, &out->series[i], o, o->max_p / (double)(tested ? tested : 1));
        out->fails = out->fails || out->series[i].fails;
    }
    return 0;
}

void history_release(struct history *h)
{
    for (size_t i = 0; i < h->n_series; i++) {
        free(h->series[i].points);
        free(h->series[i].changes);
    }
    free(h->series);
    free((void *)h->environment);
    *h = (struct history){0};
}
