/* history presented: the change points as a Markdown table with a chart of each series,
 * and the JSON (src/analysis/history.c finds them). */
#include "views.h"

#include <math.h>
#include <string.h>

#include "mermaid.h"
#include "metric.h"
#include "numfmt.h"
#include "platform/platform.h"
#include "text.h"
#include "util.h"

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

/* {"sha", "dirty"} (commit_json without its source), or null when no commit was recorded. */
static json_t *commit_sha_json(const struct campaign_commit *k)
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
                commit_sha_json(commit_of(h->campaigns[s->points[ch->cp.start - 1].campaign], s)));
            json_object_set_new(o_ch, "first_after",
                                commit_sha_json(commit_of(h->campaigns[ch->campaign], s)));
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
