#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "mermaid.h"
#include "platform/files.h"
#include "stats.h"
#include "text.h"
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

/* "CPU at idle wait (ms) 2" or "CPU at idle wait (ms) 2, head/base" (new string). */
static char *series_name(const struct history *h, const struct history_series *s)
{
    const struct campaign *newest = h->campaigns[h->n_campaigns - 1];
    return xasprintf("%s at %s %s%s%s%s", s->label, newest->profile.knob_label, s->setting,
                     s->variant ? ", " : "", s->variant ? s->variant : "",
                     s->variant ? "/base" : "");
}

/* A series' mean as shown: a log's back on its scale (a geometric mean). */
static double shown(const struct history_series *s, double v)
{
    return s->log_scale ? exp(v) : v;
}

/* The step's interval as fractions of the level before it. */
static double relative_of(const struct history_series *s, const struct cp_point *cp, double v)
{
    return s->log_scale ? expm1(v) : cp->before != 0 ? v / fabs(cp->before) : NAN;
}

static const char *campaign_name(const struct campaign *c)
{
    return path_basename(c->out_dir);
}

/* The commit of a series' build in campaign c: the variant's, else the campaign's. */
static const struct campaign_commit *commit_of(const struct campaign *c,
                                               const struct history_series *s)
{
    for (size_t i = 0; s->variant && i < c->spec.n_variants; i++)
        if (strcmp(c->spec.variants[i].name, s->variant) == 0)
            return &c->spec.variants[i].commit;
    return &c->commit;
}

/* "`1a2b3c4`" or "`1a2b3c4` (dirty)", "none recorded" without one. */
static void put_commit(FILE *out, const struct campaign_commit *k)
{
    if (!k->sha)
        fputs("none recorded", out);
    else
        fprintf(out, "`%.7s`%s", k->sha, k->dirty ? " (dirty)" : "");
}

/* The commits between the last campaign before the change and the first after it: what
 * a user bisects. */
static void put_commit_range(FILE *out, const struct history *h, const struct history_series *s,
                             const struct history_change *ch)
{
    const struct campaign_commit *a =
        commit_of(h->campaigns[s->points[ch->cp.start - 1].campaign], s);
    const struct campaign_commit *b = commit_of(h->campaigns[ch->campaign], s);
    if (a->sha && b->sha && strcmp(a->sha, b->sha) == 0 && !a->dirty && !b->dirty) {
        put_commit(out, b);
        fputs(", the same on both sides", out);
        return;
    }
    put_commit(out, a);
    fputs(" .. ", out);
    put_commit(out, b);
}

static void put_change_row(FILE *out, const struct history *h, const struct history_series *s,
                           const struct history_change *ch)
{
    const struct campaign *c = h->campaigns[ch->campaign];
    char when[32], b[32], a[32], st[32], lo[32], hi[32], p[32];
    format_utc(c->started_wall_ns, false, when, sizeof(when));
    char *name = series_name(h, s), *series = text_markdown(name),
         *dir = text_code(campaign_name(c));
    fprintf(out, "| %s | %s (%zu of %zu) | %s | ", series, dir, ch->campaign + 1, h->n_campaigns,
            when);
    put_commit_range(out, h, s, ch);
    fprintf(out, " | %s | %s | %s (%s to %s) | %s | %s%s%s |\n",
            fmt_number(shown(s, ch->cp.before), b, sizeof(b)),
            fmt_number(shown(s, ch->cp.after), a, sizeof(a)),
            fmt_change(ch->cp.relative, st, sizeof(st)),
            fmt_change(relative_of(s, &ch->cp, ch->cp.lo), lo, sizeof(lo)),
            fmt_change(relative_of(s, &ch->cp, ch->cp.hi), hi, sizeof(hi)),
            fmt_p(ch->cp.p, p, sizeof(p)), ch->environment ? "environment: " : "",
            ch->environment ? ch->environment
            : ch->worse     ? "**regressed**"
                            : "improved",
            !ch->environment && s->fails && ch == &s->changes[s->n_changes - 1] ? ", fails" : "");
    free(name);
    free(series);
    free(dir);
}

/* A series over its campaigns, and each segment's mean beside it. */
static int put_chart(FILE *out, const struct history *h, const struct history_series *s,
                     struct lb_error *err)
{
    char **labels = xmalloc(s->n * sizeof(*labels));
    double *values = xmalloc(s->n * sizeof(*values)), *means = xmalloc(s->n * sizeof(*means));
    for (size_t j = 0; j < s->n; j++) {
        labels[j] = xasprintf("%zu", s->points[j].campaign + 1);
        values[j] = shown(s, s->points[j].estimate);
        means[j] = shown(s, s->points[j].segment_mean);
    }
    const struct campaign *newest = h->campaigns[h->n_campaigns - 1];
    const struct metric *m = campaign_metric(newest, s->metric);
    char *name = series_name(h, s);
    char *unit = s->variant ? xasprintf("%s/base", s->variant)
                            : xasprintf("%s%s", s->label, m ? metric_unit(newest, m) : "");
    const struct mermaid_series lines[] = {{"each campaign", values},
                                           {"its segment's mean", means}};
    const struct mermaid_bars chart = {.axis = {.knob_label = "campaign",
                                                .settings = (const char *const *)labels,
                                                .n = s->n,
                                                .baseline = MERMAID_NO_BASELINE},
                                       .title = name,
                                       .unit = unit,
                                       .series = lines,
                                       .n_series = 2};
    int rc = mermaid_bars_write(out, &chart, err);
    for (size_t j = 0; j < s->n; j++)
        free(labels[j]);
    free(labels);
    free(values);
    free(means);
    free(name);
    free(unit);
    return rc;
}

int history_markdown(const struct history *h, const struct history_opts *o, FILE *out,
                     struct lb_error *err)
{
    char first[32], last[32], mag[32];
    format_utc(h->campaigns[0]->started_wall_ns, false, first, sizeof(first));
    format_utc(h->campaigns[h->n_campaigns - 1]->started_wall_ns, false, last, sizeof(last));
    size_t changes = 0;
    for (size_t i = 0; i < h->n_series; i++)
        changes += h->series[i].n_changes;
    char recent[192] = "";
    if (o->recent)
        snprintf(recent, sizeof(recent),
                 ", half of it for the segmentation and half for a test toward worse of the "
                 "splits leaving at most %zu campaigns after them in the last segment",
                 o->recent);
    if (h->n_campaigns == 1)
        fprintf(out, "## History: 1 campaign, %s\n\n", first);
    else
        fprintf(out, "## History: %zu campaigns, %s to %s\n\n", h->n_campaigns, first, last);
    size_t longest = 0;
    for (size_t i = 0; i < h->n_series; i++)
        longest = h->series[i].n > longest ? h->series[i].n : longest;
    if (h->tested == 0) {
        /* nothing could be tested: say so, and what is missing, before any method */
        fprintf(out,
                "Cannot tell: a change point needs %zu campaigns in a series (2 x "
                "--min-segment %zu), and the longest series here has %zu. Keep "
                "campaigns coming (the same profile and settings) and ask again.\n\n",
                2 * o->min_segment, o->min_segment, longest);
    } else
        fprintf(out,
                "Change points of %zu series by binary segmentation, each split tested by "
                "permutation at p <= %.3g (%.3g over the history, Bonferroni)%s; steps under "
                "%s are none, and a segment holds at least %zu campaigns. A change of the "
                "host's fingerprint starts a new epoch: an environment change, which never "
                "fails.%s\n\n",
                h->tested, o->max_p / (double)h->tested, o->max_p, recent,
                fmt_change(o->min_magnitude, mag, sizeof(mag)), o->min_segment,
                h->tested < h->n_series ? " Series shorter than twice that cannot be tested: "
                                          "they are listed apart."
                                        : "");
    if (changes) {
        fputs("| series | new segment from | started | commits | before | after | step (95% CI) "
              "| p | change |\n|---|---|---|---|--:|--:|---|--:|---|\n",
              out);
        for (size_t i = 0; i < h->n_series; i++)
            for (size_t k = 0; k < h->series[i].n_changes; k++)
                put_change_row(out, h, &h->series[i], &h->series[i].changes[k]);
        fputs("\n", out);
    } else if (h->tested) {
        fputs("No change point in any series that could be tested.\n\n", out);
    }
    /* the series with a change point, then those without, then those too short to test:
     * the quiet ones out of the way, one click from view */
    static const char *const groups[] = {NULL, "Series without a change point",
                                         "Series too short to test"};
    for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
        bool opened = false;
        for (size_t i = 0; i < h->n_series; i++) {
            const struct history_series *s = &h->series[i];
            size_t group = s->n_changes ? 0 : history_series_tested(s, o) ? 1 : 2;
            if (group != g || s->n == 0)
                continue;
            if (groups[g] && !opened)
                fprintf(out, "<details><summary>%s</summary>\n\n", groups[g]);
            opened = true;
            if (put_chart(out, h, s, err) < 0)
                return -1;
            fputs("\n", out);
        }
        if (groups[g] && opened)
            fputs("</details>\n\n", out);
    }
    if (h->fails) {
        fputs("**Fails**: the newest segment of", out);
        const char *sep = " ";
        for (size_t i = 0; i < h->n_series; i++)
            if (h->series[i].fails) {
                char *name = series_name(h, &h->series[i]);
                fputs(sep, out);
                text_put_markdown(out, name);
                free(name);
                sep = ", ";
            }
        fputs(" opens at a change for the worse: regressed.\n", out);
    } else if (h->tested) {
        fputs("No series' newest segment opens at a change for the worse of the target's "
              "own.\n",
              out);
    }
    return fflush(out) != 0 || ferror(out) ? lb_fail(err, "cannot write the history") : 0;
}

/* {"sha", "dirty"}, or null when no commit was recorded. */
static json_t *commit_json(const struct campaign_commit *k)
{
    return k->sha ? json_pack("{s:s, s:b}", "sha", k->sha, "dirty", k->dirty) : json_null();
}

json_t *history_json(const struct history *h, const struct history_opts *o)
{
    char when[32];
    json_t *campaigns = json_array(), *series = json_array();
    for (size_t i = 0; i < h->n_campaigns; i++) {
        const struct campaign *c = h->campaigns[i];
        format_utc(c->started_wall_ns, false, when, sizeof(when));
        json_array_append_new(
            campaigns, json_pack("{s:s, s:s, s:o}", "dir", c->out_dir, "started_at", when,
                                 "environment_change",
                                 h->environment[i] ? json_string(h->environment[i]) : json_null()));
    }
    for (size_t i = 0; i < h->n_series; i++) {
        const struct history_series *s = &h->series[i];
        json_t *points = json_array(), *changes = json_array();
        for (size_t j = 0; j < s->n; j++)
            json_array_append_new(points,
                                  json_pack("{s:I, s:o, s:o, s:o}", "campaign",
                                            (json_int_t)s->points[j].campaign, "estimate",
                                            json_num_or_null(s->points[j].estimate), "se",
                                            json_num_or_null(s->points[j].se), "segment_mean",
                                            json_num_or_null(s->points[j].segment_mean)));
        for (size_t k = 0; k < s->n_changes; k++) {
            const struct history_change *ch = &s->changes[k];
            json_t *o_ch = json_pack(
                "{s:I, s:s, s:o, s:o, s:o, s:o, s:[o, o], s:o, s:o, s:b}", "campaign",
                (json_int_t)ch->campaign, "kind", ch->environment ? "environment" : "target",
                "field", ch->environment ? json_string(ch->environment) : json_null(), "before",
                json_num_or_null(ch->cp.before), "after", json_num_or_null(ch->cp.after), "step",
                json_num_or_null(ch->cp.step), "ci", json_num_or_null(ch->cp.lo),
                json_num_or_null(ch->cp.hi), "relative", json_num_or_null(ch->cp.relative), "p",
                json_num_or_null(ch->cp.p), "worse", ch->worse);
            json_object_set_new(o_ch, "verdict",
                                json_string(ch->environment ? "environment"
                                            : ch->worse     ? "regressed"
                                                            : "improved"));
            /* the commits a user bisects: of the last campaign before, the first after */
            json_object_set_new(
                o_ch, "last_before",
                commit_json(commit_of(h->campaigns[s->points[ch->cp.start - 1].campaign], s)));
            json_object_set_new(o_ch, "first_after",
                                commit_json(commit_of(h->campaigns[ch->campaign], s)));
            json_array_append_new(changes, o_ch);
        }
        json_t *o_s = json_pack(
            "{s:s, s:s, s:o, s:s, s:s, s:o, s:o, s:b}", "setting", s->setting, "metric", s->metric,
            "variant", s->variant ? json_string(s->variant) : json_null(), "scale",
            s->log_scale ? "log" : "level", "better",
            profile_direction_name(s->lower_is_better ? LOWER_IS_BETTER : HIGHER_IS_BETTER),
            "points", points, "change_points", changes, "fails", s->fails);
        bool tested = history_series_tested(s, o);
        char *why = tested || s->n == h->n_campaigns
                        ? NULL
                        : xasprintf("%zu of the %zu campaigns estimate it: a change point "
                                    "needs %zu",
                                    s->n, h->n_campaigns, 2 * o->min_segment);
        if (!tested && !why)
            why = xasprintf("%zu campaign%s: a change point needs %zu", s->n, s->n == 1 ? "" : "s",
                            2 * o->min_segment);
        json_object_set_new(o_s, "tested", json_boolean(tested));
        json_object_set_new(o_s, "cannot_test", why ? json_string(why) : json_null());
        free(why);
        json_array_append_new(series, o_s);
    }
    return json_pack("{s:{s:f, s:f, s:I, s:I, s:I}, s:o, s:o, s:I, s:b}", "options", "max_p",
                     o->max_p, "min_magnitude", o->min_magnitude, "min_segment",
                     (json_int_t)o->min_segment, "recent", (json_int_t)o->recent, "permutations",
                     (json_int_t)CP_PERMUTATIONS, "campaigns", campaigns, "series", series,
                     "tested", (json_int_t)h->tested, "fails", h->fails);
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
