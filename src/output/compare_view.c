/* compare's verdicts presented: the Markdown table with its chart and notes, and the JSON
 * (src/analysis/compare.c computes them). */
#include "views.h"

#include <math.h>
#include <string.h>

#include "budget.h"
#include "fingerprint.h"
#include "mermaid.h"
#include "numfmt.h"
#include "text.h"
#include "util.h"
#include "verdict.h"

/* CPU per setting, base beside new, as a chart GitHub draws in the step summary. */
static int cpu_chart(const struct compare_result *r, const struct campaign *new_, FILE *out,
                     struct lb_error *err)
{
    const char **settings = xcalloc(r->n_rows + 1, sizeof(*settings));
    double *medians = xcalloc(2 * r->n_rows + 1, sizeof(double));
    size_t n = 0, baseline = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        /* a budget has no base to draw beside; comparisons come first */
        if (row->budget || strcmp(row->metric, "cpu") != 0 ||
            (row->variant && strcmp(row->variant, r->rows[0].variant) != 0))
            continue;
        if (strcmp(row->setting, new_->spec.values.v[new_->spec.baseline]) == 0)
            baseline = n;
        settings[n] = row->setting;
        medians[n] = row->a.median;
        medians[r->n_rows + n++] = row->b.median;
    }
    int rc = 0;
    if (n) {
        double *news = xcalloc(n, sizeof(double));
        memcpy(news, medians + r->n_rows, n * sizeof(double));
        const char *head = r->base_campaigns ? "new" : r->rows[0].variant;
        const char *base = r->base_campaigns ? "base" : new_->spec.variants[0].name;
        const struct mermaid_series series[] = {{base, medians}, {head, news}};
        struct mermaid_bars chart = {{new_->profile.knob_label, settings, n, baseline},
                                     "CPU per setting, median of runs", "CPU % of one core",
                                     series, 2};
        fputc('\n', out);
        rc = mermaid_bars_write(out, &chart, err);
        free(news);
    }
    free(settings);
    free(medians);
    return rc;
}

/* Which metrics the gate holds to, for the sentence above the table. */
static void gated_keys(const struct compare_result *r, FILE *out)
{
    const char *sep = "";
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        bool first = true;
        for (size_t j = 0; j < i; j++) /* the first gated row of its metric */
            first = first && !(r->rows[j].gated && strcmp(r->rows[j].metric, row->metric) == 0);
        if (first && row->gated) {
            char *metric = text_code(row->metric);
            fprintf(out, "%s%s", sep, metric);
            free(metric);
            sep = ", ";
        }
    }
    if (!*sep)
        fputs("none", out);
}

char *compare_host_change(const struct campaign *a, const struct campaign *b, bool markdown)
{
    int f = fingerprint_first_difference(&a->host, &b->host);
    if (f < 0)
        return NULL;
    char va[2 * PLAT_RUNNER_NAME_MAX + 256], vb[sizeof(va)];
    fingerprint_value(&a->host, (size_t)f, va, sizeof(va));
    fingerprint_value(&b->host, (size_t)f, vb, sizeof(vb));
    char *(*quote)(const char *) = markdown ? text_code : text_shown;
    char *wa = quote(campaign_where(a)), *wb = quote(campaign_where(b));
    char *qa = quote(*va ? va : "unknown"), *qb = quote(*vb ? vb : "unknown");
    const char *q = markdown ? "" : "'";
    char *s = xasprintf("BASE %s%s%s and NEW %s%s%s ran on different hosts (fingerprints %s and "
                        "%s): %s %s%s%s against %s%s%s, so the change may be the host's",
                        q, wa, q, q, wb, q, campaign_fingerprint(a), campaign_fingerprint(b),
                        fingerprint_fields[f], q, qa, q, q, qb, q);
    free(wa);
    free(wb);
    free(qa);
    free(qb);
    return s;
}

int compare_markdown(const struct compare_result *r, const struct compare_opts *o,
                     const struct campaign *const *base, const struct campaign *new_, FILE *out,
                     struct lb_error *err)
{
    char m1[64], m2[32], ch[96], p[32], pa[32], th[32];
    size_t tested = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        tested += r->rows[i].gated && r->rows[i].g.tested;
    struct verdict_frame frame = verdict_frame_of(r, &o->gate);
    char headline[1024], why[1024];
    verdict_headline(r, &frame, new_->profile.knob_label, headline, sizeof(headline));
    fprintf(out, "### loopbench compare: %s\n\n", verdict_result_word(r));
    text_put_markdown(out, headline);
    fputs(".\n\n", out);
    char *where = text_code(campaign_where(new_)), *host = text_markdown(campaign_host(new_));
    char *profile = text_code(new_->profile.name);
    size_t budgets = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        budgets += r->rows[i].budget != NULL;
    if (r->base_campaigns == 0 && new_->spec.n_variants < 2)
        fprintf(out, "Campaign %s (%s), profile %s: held to its budgets, with no base. Gated: ",
                where, host, profile);
    else if (r->base_campaigns == 0) {
        char *variant = text_code(new_->spec.variants[0].name);
        fprintf(out, "Campaign %s (%s), profile %s: each variant against %s at the same "
                     "setting, paired round by round (the rounds ran every build under the "
                     "same host state). Gated: ",
                where, host, profile, variant);
        free(variant);
    } else {
        fputs("Base ", out);
        for (size_t c = 0; c < r->base_campaigns; c++) {
            char *w = text_code(campaign_where(base[c]));
            char *h = text_markdown(campaign_host(base[c]));
            fprintf(out, "%s%s (%s)", c ? ", " : "", w, h);
            free(w);
            free(h);
        }
        fprintf(out, ", new %s (%s); profile %s. Gated: ", where, host, profile);
    }
    free(where);
    free(host);
    free(profile);
    gated_keys(r, out);
    if (r->base_campaigns == 0 && new_->spec.n_variants < 2)
        fprintf(out, ". A budget is over when significantly beyond it after Holm's correction "
                     "over the %zu tested: a campaign whose typical values lie exactly at its "
                     "budgets fails with a chance of at most %g.\n\n", tested, o->gate.alpha);
    else
        fprintf(out, ". A regression is worse than %s and significant after Holm's correction "
                     "over the %zu gated comparisons: comparing a build with itself fails with "
                     "a chance of at most %g.\n\n",
                fmt_change(o->gate.threshold, th, sizeof(th)), tested, o->gate.alpha);
    if (budgets)
        fprintf(out, "%zu budget%s: a metric's typical value over NEW's runs (the geometric "
                     "mean for CPU, the mean for a health key) held to a bound with no base; "
                     "*over* when beyond it by a one-sided t test in the same correction, "
                     "*within* when its one-sided %.0f%% bound is not, *inconclusive* "
                     "otherwise.\n\n",
                budgets, budgets == 1 ? "" : "s", 100.0 * (1.0 - o->gate.equivalence_alpha));
    if (r->base_campaigns == 1)
        fprintf(out, "One campaign a side: drift between campaigns cannot be told from a "
                     "change, so a drift of %.0f%% (sd) in each is allowed for. Gate base and "
                     "head as variants of one campaign, or against a history of BASE "
                     "campaigns, to see smaller changes.\n\n", o->gate.drift * 100);
    else if (r->base_campaigns > 1)
        fprintf(out, "Campaigns are the unit: NEW against a prediction from %zu BASE "
                     "campaigns' spread between campaigns.\n\n", r->base_campaigns);
    for (size_t c = 0; c < r->base_campaigns; c++) {
        char *change = compare_host_change(base[c], new_, true);
        if (change)
            fprintf(out, "**Warning**: %s.\n\n", change);
        free(change);
        if (change)
            break;
    }
    if (r->sequential_max)
        fprintf(out,
                "The campaign ran until decided (`--repeat auto=%ld`, %ld rounds): the "
                "verdicts are its sequential gate's, its looks taken again round by round; "
                "the changes, intervals and p are over every round it ran.\n\n",
                r->sequential_max, new_->spec.repeat);
    char *knob = text_markdown(new_->profile.knob_label);
    fprintf(out, "| %s | metric | base | new | change (%.0f%% CI) | p | p worse, Holm | test "
                 "| verdict | note |\n", knob, o->gate.level * 100);
    free(knob);
    fputs("|---|---|--:|--:|--:|--:|--:|---|---|---|\n", out);
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        compare_fmt_interval(&row->g, ch, sizeof(ch));
        char *cell = xasprintf("%s%s%s", row->setting, row->variant ? " " : "",
                               row->variant ? row->variant : "");
        char *name = text_markdown(cell), *label = text_markdown(row->label);
        if (row->budget) /* the budget stands where the base would */
            snprintf(m1, sizeof(m1), "budget %s %s", row->budget->upper ? "<=" : ">=",
                     fmt_number(row->budget->limit, th, sizeof(th)));
        else
            fmt_number(row->a.median, m1, sizeof(m1));
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | **%s** | ", name, label, m1,
                fmt_number(row->budget ? row->typical : row->b.median, m2, sizeof(m2)), ch,
                fmt_p(row->g.p, p, sizeof(p)), fmt_p(row->g.p_adjusted, pa, sizeof(pa)),
                row->g.test ? row->g.test : "-", verdict_word(row));
        free(cell);
        free(name);
        free(label);
        verdict_why(row, &frame, why, sizeof(why));
        verdict_power(row, why, sizeof(why));
        text_put_markdown(out, why);
        fputs(" |\n", out);
    }
    fputs("\nMedians over runs (a health key: each run's mean over its windows). The change is "
          "NEW's mean of logs against BASE's (a ratio), or the difference relative to BASE "
          "for keys that can be 0; its interval and p are the same two-sided test's. "
          "*Regressed*: significant toward harm after the correction and worse than the "
          "threshold; *improved*: the same toward benefit; *no change*: the 90% interval "
          "lies within the threshold (two one-sided tests); *inconclusive*: neither; *cannot "
          "test*: too few runs or rounds, or a key no run recorded (the note says which).\n",
          out);
    if (budgets)
        fputs("A budget's row gives its bound as base, NEW's typical value as new, and that "
              "against the bound as the change.\n", out);
    return cpu_chart(r, new_, out, err);
}

json_t *compare_json(const struct compare_result *r, const struct compare_opts *o, const char *knob)
{
    json_t *rows = json_array(), *gated = json_array();
    struct verdict_frame frame = verdict_frame_of(r, &o->gate);
    char why[1024];
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        const struct gate_result *g = &row->g;
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen = seen || (r->rows[j].gated && strcmp(r->rows[j].metric, row->metric) == 0);
        if (!seen && row->gated)
            json_array_append_new(gated, json_string(row->metric));
        json_t *o_row = json_pack("{s:s}", "setting", row->setting);
        if (row->variant)
            json_object_set_new(o_row, "variant", json_string(row->variant));
        json_array_append_new(rows, o_row);
        json_object_update_new(
            o_row,
            json_pack(
                "{s:s, s:s, s:b, s:o, s:o, s:I, s:I, s:s, s:o, s:[o, o], s:o, "
                "s:o, s:o, s:o, s:o, s:f, s:s, s:o, s:I}",
                "metric", row->metric, "better",
                profile_direction_name(row->lower_is_better ? LOWER_IS_BETTER : HIGHER_IS_BETTER),
                "gated", row->gated, "base_median", json_num_or_null(row->a.median), "new_median",
                json_num_or_null(row->b.median), "base_runs", (json_int_t)row->a.n, "new_runs",
                (json_int_t)row->b.n, "scale", g->log_scale ? "log" : "difference", "change",
                json_num_or_null(g->change), "ci", json_num_or_null(g->lo), json_num_or_null(g->hi),
                "p", json_num_or_null(g->p), "p_worse", json_num_or_null(g->p_worse), "p_adjusted",
                json_num_or_null(g->p_adjusted), "df", json_num_or_null(g->df), "test",
                g->test ? json_string(g->test) : json_null(), "prior_df", g->prior_df, "verdict",
                verdict_word(row), "smallest_detectable_change", json_num_or_null(g->detectable),
                "runs_needed", (json_int_t)g->rounds_needed));
    }
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        json_t *o_row = json_array_get(rows, i);
        json_object_set_new(o_row, "kind", json_string(row->budget ? "budget" : "comparison"));
        verdict_why(row, &frame, why, sizeof(why));
        json_object_set_new(o_row, "why", json_string(why));
        json_object_set_new(o_row, "detectable", json_num_or_null(row->detectable));
        if (!row->budget)
            continue;
        json_object_update_new(o_row, json_pack("{s:s, s:f, s:o}", "bound",
                                                row->budget->upper ? "max" : "min", "budget",
                                                row->budget->limit, "typical",
                                                json_num_or_null(row->typical)));
    }
    for (size_t i = 0; r->base_campaigns == 0 && i < r->n_rows; i++) {
        const struct gate_result *g = &r->rows[i].g;
        json_object_update_new(
            json_array_get(rows, i),
            json_pack("{s:I, s:b, s:o, s:o, s:I}", "cpu_sets", (json_int_t)g->cpu_sets,
                      "cpu_modelled", g->cpu_modelled, "cpu_effect",
                      json_num_or_null(g->cpu_modelled ? g->cpu_effect : NAN), "cpu_note",
                      g->cpu_note ? json_string(g->cpu_note) : json_null(), "trimmed_rounds",
                      (json_int_t)g->trimmed));
    }
    for (size_t i = 0; i < r->n_rows; i++)
        json_object_set_new(json_array_get(rows, i), "saturated",
                            r->rows[i].saturated ? json_string(r->rows[i].saturated)
                                                 : json_null());
    if (r->sequential_max)
        for (size_t i = 0; i < r->n_rows; i++)
            json_object_set_new(json_array_get(rows, i), "decided_at_round",
                                r->rows[i].decided_at ? json_integer(r->rows[i].decided_at)
                                                      : json_null());
    char headline[1024];
    verdict_headline(r, &frame, knob, headline, sizeof(headline));
    return json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:I, s:o, s:o, s:o}", "verdict",
                     verdict_result_word(r), "headline", headline, "alpha", o->gate.alpha,
                     "max_increase", o->gate.threshold, "level", o->gate.level, "drift_allowance",
                     o->gate.drift, "base_campaigns", (json_int_t)r->base_campaigns,
                     "sequential_max",
                     r->sequential_max ? json_integer(r->sequential_max) : json_null(), "gated",
                     gated, "rows", rows);
}
