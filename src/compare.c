#include "compare.h"

#include <math.h>
#include <string.h>

#include "mermaid.h"
#include "util.h"

/* Beyond this many runs a side, "runs needed" stops being advice. */
#define COMPARE_MAX_RUNS 100

/* True when every value that is a number is > 0: a log scale applies. */
static bool all_positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]) && !(x[i] > 0))
            return false;
    return true;
}

void compare_metric(const double *a, size_t na, const double *b, size_t nb, const double *pa,
                    const double *pb, size_t npairs, double level, struct metric_diff *out)
{
    memset(out, 0, sizeof(*out));
    stats_summarize(a, na, &out->a);
    stats_summarize(b, nb, &out->b);
    stats_ratio_ci(a, na, b, nb, level, STATS_BOOTSTRAP_ITERATIONS, STATS_BOOTSTRAP_SEED,
                   &out->ratio);
    /* CPU is a ratio scale: compared on logs. Health keys can be 0 (no skipped slot),
     * where a log is undefined: those are compared on the values. */
    out->log_scale = all_positive(a, na) && all_positive(b, nb);
    if (out->log_scale)
        stats_welch_log(a, na, b, nb, &out->welch);
    else
        stats_welch(a, na, b, nb, &out->welch);
    stats_mann_whitney(a, na, b, nb, &out->mwu);
    stats_paired_log(pa, pb, out->log_scale ? npairs : 0, level, &out->paired);
    /* Pairing removes the host's drift between rounds, so it decides when it can. */
    out->p = NAN;
    if (out->paired.test.enough) {
        out->p = out->paired.test.p;
        out->test = "paired t on log ratios";
    } else if (out->welch.enough) {
        out->p = out->welch.p;
        out->test = out->log_scale ? "Welch t on logs" : "Welch t";
    } else if (out->mwu.enough) {
        out->p = out->mwu.p;
        out->test = "Mann-Whitney U";
    }
}

/* The t test that decided (its se and df give the detectable change), NULL when only
 * Mann-Whitney or nothing could be run. */
static const struct stats_test *deciding_t(const struct metric_diff *d)
{
    if (d->paired.test.enough)
        return &d->paired.test;
    return d->welch.enough ? &d->welch : NULL;
}

/* A difference as a fraction of the base: on logs exp(d) - 1, on values d / |median a|. */
static double change_of(const struct metric_diff *d, double delta)
{
    if (d->log_scale)
        return exp(delta) - 1.0;
    return fabs(d->a.median) > 0 ? delta / fabs(d->a.median) : (delta == 0 ? 0 : INFINITY);
}

const char *verdict_name(enum verdict v)
{
    switch (v) {
    case VERDICT_IMPROVED: return "improved";
    case VERDICT_REGRESSED: return "regressed";
    case VERDICT_INCONCLUSIVE: return "inconclusive";
    default: return "no change";
    }
}

/* Smallest change detectable at alpha (the two-sided critical t times the standard
 * error), and the runs a side that would bring it down to the threshold at this
 * spread. */
static void detectability(struct compare_row *row, const struct compare_opts *o)
{
    const struct stats_test *t = deciding_t(&row->d);
    row->detectable = NAN;
    row->runs_needed = 0;
    if (!t)
        return;
    double crit = stats_t_quantile(1.0 - o->alpha / 2.0, t->df);
    row->detectable = change_of(&row->d, crit * t->se);
    /* se shrinks as 1/sqrt(n): scale the observed spread to n runs a side. */
    double n0 = (double)(row->d.a.n < row->d.b.n ? row->d.a.n : row->d.b.n);
    for (long n = 2; n <= COMPARE_MAX_RUNS; n++) {
        double se = t->se * sqrt(n0 / (double)n);
        double c = stats_t_quantile(1.0 - o->alpha / 2.0, 2.0 * (double)n - 2.0);
        if (change_of(&row->d, c * se) <= o->max_increase) {
            row->runs_needed = n;
            return;
        }
    }
}

static void decide(struct compare_row *row, const struct compare_opts *o)
{
    const struct metric_diff *d = &row->d;
    detectability(row, o);
    if (row->guardrail_hit) {
        row->verdict = VERDICT_REGRESSED;
        return;
    }
    if (isnan(d->p)) {
        row->verdict = VERDICT_INCONCLUSIVE;
        return;
    }
    /* The change the medians show, as a fraction, positive when worse. */
    double r = d->log_scale ? d->ratio.ratio
                            : 1.0 + change_of(d, d->b.median - d->a.median);
    double worse = row->lower_is_better ? r - 1.0 : 1.0 / r - 1.0;
    double better = row->lower_is_better ? 1.0 / r - 1.0 : r - 1.0;
    if (d->p < o->alpha && worse > o->max_increase)
        row->verdict = VERDICT_REGRESSED;
    else if (d->p < o->alpha && better > o->max_increase)
        row->verdict = VERDICT_IMPROVED;
    else if (d->p < o->alpha || row->detectable <= o->max_increase)
        row->verdict = VERDICT_NO_CHANGE; /* real but small, or would have been seen */
    else
        row->verdict = VERDICT_INCONCLUSIVE;
}

int compare_compatible(const struct campaign *a, const struct campaign *b,
                       struct lb_error *err)
{
    const char *pa = campaign_where(a), *pb = campaign_where(b);
    if (strcmp(a->profile.name, b->profile.name) != 0)
        return lb_fail(err, "'%s' is of profile '%s' and '%s' of '%s': expected the same "
                            "profile", pa, a->profile.name, pb, b->profile.name);
    if (strcmp(a->profile.knob_label, b->profile.knob_label) != 0)
        return lb_fail(err, "'%s' varies '%s' and '%s' varies '%s': expected the same knob",
                       pa, a->profile.knob_label, pb, b->profile.knob_label);
    for (size_t i = 0; i < b->values.n; i++)
        if (campaign_setting(a, b->values.v[i]) >= 0)
            return 0;
    return lb_fail(err, "'%s' and '%s' have no setting in common", pa, pb);
}

static bool metric_wanted(const struct compare_opts *o, const char *key)
{
    return !o->metric || strcmp(o->metric, key) == 0;
}

static int severity(enum verdict v)
{
    static const int rank[] = {[VERDICT_NO_CHANGE] = 0, [VERDICT_IMPROVED] = 1,
                               [VERDICT_INCONCLUSIVE] = 2, [VERDICT_REGRESSED] = 3};
    return rank[v];
}

int compare_results(const struct campaign *base, const struct campaign *new_,
                    const struct compare_opts *o, struct compare_result *out,
                    struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    if (compare_compatible(base, new_, err) < 0)
        return -1;
    if (o->metric && strcmp(o->metric, "cpu") != 0) {
        if (campaign_health_index(new_, o->metric) < 0)
            return lb_fail(err, "--metric '%s': not a health key of profile '%s'", o->metric,
                           new_->profile.name);
    }
    size_t nh = new_->profile.n_health;
    out->rows = xcalloc(new_->values.n * (nh + 1), sizeof(*out->rows));
    double *a = xcalloc(base->n_runs + 1, sizeof(double));
    double *b = xcalloc(new_->n_runs + 1, sizeof(double));
    for (size_t si = 0; si < new_->values.n; si++) {
        long bi = campaign_setting(base, new_->values.v[si]);
        if (bi < 0)
            continue;
        for (int k = -1; k < (int)nh; k++) {
            const struct campaign_health *h = k < 0 ? NULL : &new_->profile.health[k];
            const char *key = h ? h->key : "cpu";
            /* the same metric in BASE: -1 is CPU; a health key BASE lacks is skipped */
            long bk = h ? campaign_health_index(base, key) : -1;
            if (!metric_wanted(o, key) || (h && bk < 0))
                continue;
            struct compare_row *row = &out->rows[out->n_rows++];
            row->setting = new_->values.v[si];
            row->metric = key;
            row->label = h ? h->label : "CPU %";
            row->lower_is_better = !h || h->better == LOWER_IS_BETTER;
            size_t na = campaign_values(base, (size_t)bi, (int)bk, a);
            size_t nb = campaign_values(new_, si, k, b);
            compare_metric(a, na, b, nb, NULL, NULL, 0, 0.95, &row->d);
            /* A guardrail key must stay at 0 in every window of NEW. */
            for (size_t i = 0; h && h->must_be_zero && i < new_->n_runs; i++) {
                const struct run_record *r = &new_->runs[i];
                double max = run_health_max(new_, r, (size_t)k);
                if (r->setting_index == si && r->status == RUN_OK && max != 0 && !isnan(max))
                    row->guardrail_hit = true;
            }
            decide(row, o);
            if (severity(row->verdict) > severity(out->worst))
                out->worst = row->verdict;
        }
    }
    free(a);
    free(b);
    return 0;
}

void compare_result_release(struct compare_result *r)
{
    free(r->rows);
    memset(r, 0, sizeof(*r));
}

const char *compare_fmt(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, isnan(v) ? "-" : v > 0 ? "inf" : "-inf");
    else if (v == 0 || fabs(v) >= 100)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.*f", (int)fmax(0, 2 - floor(log10(fabs(v)))), v);
    return buf;
}

/* "+12.3%" for a change fraction. */
static const char *fmt_change(double f, char *buf, size_t len)
{
    char n[32];
    if (!isfinite(f))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s%s%%", f >= 0 ? "+" : "", compare_fmt(f * 100.0, n, sizeof(n)));
    return buf;
}

static const char *fmt_p(const struct metric_diff *d, char *buf, size_t len)
{
    char n[32];
    if (isnan(d->p))
        snprintf(buf, len, "too few runs");
    else if (d->p < 0.001)
        snprintf(buf, len, "< 0.001");
    else
        snprintf(buf, len, "%s", compare_fmt(d->p, n, sizeof(n)));
    return buf;
}

/* Why a row got its verdict, in words a reviewer can act on. */
static void explain(const struct compare_row *row, const struct compare_opts *o, FILE *out)
{
    char a[32], b[32];
    if (row->guardrail_hit)
        fputs("must stay 0: non-zero in a window", out);
    else if (row->verdict == VERDICT_INCONCLUSIVE && isnan(row->d.p))
        fprintf(out, "too few runs to test (%zu vs %zu)", row->d.a.n, row->d.b.n);
    else if (row->verdict == VERDICT_INCONCLUSIVE && !isfinite(row->detectable))
        fprintf(out, "too noisy around a base of %s to detect %s",
                compare_fmt(row->d.a.median, a, sizeof(a)),
                fmt_change(o->max_increase, b, sizeof(b)));
    else if (row->verdict == VERDICT_INCONCLUSIVE) {
        fprintf(out, "only a change of %s would be detected", fmt_change(row->detectable, a,
                                                                          sizeof(a)));
        fmt_change(o->max_increase, b, sizeof(b));
        if (row->runs_needed)
            fprintf(out, "; %ld runs a side would detect %s", row->runs_needed, b);
        else
            fprintf(out, "; over %d runs a side would be needed for %s", COMPARE_MAX_RUNS, b);
    } else if (row->verdict == VERDICT_NO_CHANGE && row->d.p < o->alpha)
        fprintf(out, "significant but within %s", fmt_change(o->max_increase, a, sizeof(a)));
}

/* CPU per setting, base beside new, as a chart GitHub draws in the step summary. */
static int cpu_chart(const struct compare_result *r, const struct campaign *new_, FILE *out,
                     struct lb_error *err)
{
    const char **settings = xcalloc(r->n_rows + 1, sizeof(*settings));
    double *medians = xcalloc(2 * r->n_rows + 1, sizeof(double));
    size_t n = 0, baseline = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        if (strcmp(row->metric, "cpu") != 0)
            continue;
        if (strcmp(row->setting, new_->values.v[new_->baseline]) == 0)
            baseline = n;
        settings[n] = row->setting;
        medians[n] = row->d.a.median;
        medians[r->n_rows + n++] = row->d.b.median;
    }
    int rc = 0;
    if (n) {
        double *news = xcalloc(n, sizeof(double));
        memcpy(news, medians + r->n_rows, n * sizeof(double));
        const struct mermaid_series series[] = {{"base", medians}, {"new", news}};
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

int compare_markdown(const struct compare_result *r, const struct compare_opts *o,
                     const struct campaign *base, const struct campaign *new_, FILE *out,
                     struct lb_error *err)
{
    char m1[32], m2[32], ch[32], p[32], th[32];
    fprintf(out, "### loopbench compare: %s\n\n", verdict_name(r->worst));
    fprintf(out, "Base `%s` (%s), new `%s` (%s); profile `%s`. A regression is a change "
                 "worse than %s at p < %g.\n\n",
            campaign_where(base), campaign_host(base), campaign_where(new_),
            campaign_host(new_), new_->profile.name,
            fmt_change(o->max_increase, th, sizeof(th)), o->alpha);
    fprintf(out, "| %s | metric | base | new | change | p | test | verdict | note |\n",
            new_->profile.knob_label);
    fputs("|---|---|--:|--:|--:|--:|---|---|---|\n", out);
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        const struct metric_diff *d = &row->d;
        double change = d->log_scale ? d->ratio.ratio - 1.0
                                     : change_of(d, d->b.median - d->a.median);
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | **%s** | ", row->setting, row->label,
                compare_fmt(d->a.median, m1, sizeof(m1)), compare_fmt(d->b.median, m2, sizeof(m2)),
                fmt_change(change, ch, sizeof(ch)), fmt_p(d, p, sizeof(p)),
                d->test ? d->test : "-", verdict_name(row->verdict));
        explain(row, o, out);
        fputs(" |\n", out);
    }
    fputs("\nMedians over runs (a health key: each run's mean over its windows). Inconclusive:"
          " a change of the threshold's size could not have been detected at this spread"
          " and run count.\n", out);
    return cpu_chart(r, new_, out, err);
}

json_t *compare_json(const struct compare_result *r, const struct compare_opts *o)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        const struct metric_diff *d = &row->d;
        json_array_append_new(
            rows, json_pack("{s:s, s:s, s:s, s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, "
                            "s:b, s:s, s:o, s:I}",
                            "setting", row->setting, "metric", row->metric,
                            "better",
                            profile_direction_name(row->lower_is_better ? LOWER_IS_BETTER
                                                                        : HIGHER_IS_BETTER),
                            "base_median", json_num_or_null(d->a.median),
                            "new_median", json_num_or_null(d->b.median),
                            "base_runs", (json_int_t)d->a.n, "new_runs", (json_int_t)d->b.n,
                            "ratio", json_num_or_null(d->ratio.ratio),
                            "ratio_ci", json_pack("[o, o]", json_num_or_null(d->ratio.lo),
                                                  json_num_or_null(d->ratio.hi)),
                            "p", json_num_or_null(d->p),
                            "test", d->test ? json_string(d->test) : json_null(),
                            "mann_whitney_p", json_num_or_null(d->mwu.p),
                            "guardrail_hit", row->guardrail_hit,
                            "verdict", verdict_name(row->verdict),
                            "smallest_detectable_change", json_num_or_null(row->detectable),
                            "runs_needed", (json_int_t)row->runs_needed));
    }
    return json_pack("{s:s, s:f, s:f, s:o}", "verdict", verdict_name(r->worst), "max_increase",
                     o->max_increase, "alpha", o->alpha, "rows", rows);
}
