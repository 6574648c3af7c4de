#include "report.h"

#include <math.h>
#include <string.h>

#include "compare.h"
#include "util.h"

/* Everything about one setting of one campaign against its baseline. */
struct setting_stats {
    struct metric_diff cpu;     /* a: baseline, b: this setting */
    struct metric_diff *health; /* per health key */
    double *total;              /* ratio keys: median denominator per window */
    size_t runs;
};

/* Compare setting si with the baseline for metric (-1 CPU, else a health key), paired
 * by round when the campaign interleaved them. */
static void diff_setting(const struct loaded_results *r, size_t si, int metric,
                         struct metric_diff *out)
{
    size_t cap = r->n_runs + 1;
    double *a = xcalloc(cap, sizeof(double)), *b = xcalloc(cap, sizeof(double));
    double *pa = xcalloc(cap, sizeof(double)), *pb = xcalloc(cap, sizeof(double));
    size_t na = results_loaded_values(r, r->baseline, metric, a);
    size_t nb = results_loaded_values(r, si, metric, b);
    size_t np = si == r->baseline ? 0 : results_loaded_pairs(r, r->baseline, si, metric, pa, pb);
    compare_metric(a, na, b, nb, pa, pb, np, REPORT_LEVEL, out);
    free(a);
    free(b);
    free(pa);
    free(pb);
}

static void setting_stats_init(const struct loaded_results *r, size_t si, struct setting_stats *s)
{
    diff_setting(r, si, -1, &s->cpu);
    s->runs = s->cpu.b.n;
    s->health = xcalloc(r->n_health + 1, sizeof(*s->health));
    s->total = xcalloc(r->n_health + 1, sizeof(double));
    double *t = xcalloc(r->n_runs + 1, sizeof(double));
    for (size_t k = 0; k < r->n_health; k++) {
        diff_setting(r, si, (int)k, &s->health[k]);
        size_t m = 0;
        for (size_t i = 0; i < r->n_runs; i++)
            if (r->runs[i].setting == si)
                t[m++] = r->runs[i].health_total[k];
        s->total[k] = stats_median(t, m);
    }
    free(t);
}

static void setting_stats_release(struct setting_stats *s)
{
    free(s->health);
    free(s->total);
}

/* All settings of one campaign (new array of n_settings, caller releases each). */
static struct setting_stats *campaign_stats(const struct loaded_results *r)
{
    struct setting_stats *s = xcalloc(r->n_settings, sizeof(*s));
    for (size_t si = 0; si < r->n_settings; si++)
        setting_stats_init(r, si, &s[si]);
    return s;
}

static void campaign_stats_free(const struct loaded_results *r, struct setting_stats *s)
{
    for (size_t si = 0; si < r->n_settings; si++)
        setting_stats_release(&s[si]);
    free(s);
}

/* ---- Markdown ------------------------------------------------------------------------ */

static const char *unit_of(const struct loaded_health *h)
{
    if (!h->type)
        return "";
    if (strcmp(h->type, "duration_ms") == 0)
        return " ms";
    return strcmp(h->type, "percent") == 0 ? "%" : "";
}

/* "99.5 (93.8-100)": median and range over runs, with a unit. */
static void cell_range(const struct stats_summary *s, const char *unit, FILE *out)
{
    char m[32], lo[32], hi[32];
    if (s->n == 0) {
        fputs(" - |", out);
        return;
    }
    fprintf(out, " %s%s", compare_fmt(s->median, m, sizeof(m)), unit);
    if (s->n > 1 && s->min != s->max)
        fprintf(out, " (%s-%s)", compare_fmt(s->min, lo, sizeof(lo)),
                compare_fmt(s->max, hi, sizeof(hi)));
    fputs(" |", out);
}

static void fmt_p(double p, char *buf, size_t len)
{
    char n[32];
    if (p < 0.001)
        snprintf(buf, len, "p < 0.001");
    else
        snprintf(buf, len, "p = %s", compare_fmt(p, n, sizeof(n)));
}

/* "10.6x less (9.8-11.4x)" from a ratio new/base and its interval. */
static void cell_factor(const struct metric_diff *d, FILE *out)
{
    char f[32], lo[32], hi[32];
    const struct stats_ratio *r = &d->ratio;
    if (!isfinite(r->ratio) || r->ratio <= 0) {
        fputs(" - |", out);
        return;
    }
    bool less = r->ratio < 1;
    double x = less ? 1.0 / r->ratio : r->ratio;
    double a = less ? 1.0 / r->hi : r->lo, b = less ? 1.0 / r->lo : r->hi;
    fprintf(out, " %sx %s", compare_fmt(x, f, sizeof(f)), less ? "less" : "more");
    if (isfinite(a) && isfinite(b))
        fprintf(out, " (%s-%sx)", compare_fmt(a, lo, sizeof(lo)), compare_fmt(b, hi, sizeof(hi)));
    fputs(" |", out);
}

/* The sentence for one setting: the words follow from the numbers (direction from the
 * ratio, "unchanged" only when the test does not call a difference). */
static void headline(const struct loaded_results *r, const struct setting_stats *s, size_t si,
                     FILE *out)
{
    char f[32], lo[32], hi[32], p[32], a[32], b[32];
    const struct metric_diff *c = &s->cpu;
    fprintf(out, "%s %s ", r->knob_label, r->settings[si]);
    if (!isfinite(c->ratio.ratio) || c->ratio.ratio <= 0)
        fprintf(out, "has no CPU figure to compare with %s", r->settings[r->baseline]);
    else if (isnan(c->p) || c->p >= REPORT_ALPHA) {
        fprintf(out, "uses %sx the CPU of %s, not a significant difference (",
                compare_fmt(c->ratio.ratio, f, sizeof(f)), r->settings[r->baseline]);
        if (isnan(c->p))
            fputs("too few runs to test)", out);
        else {
            fmt_p(c->p, p, sizeof(p));
            fprintf(out, "%s)", p);
        }
    } else {
        bool less = c->ratio.ratio < 1;
        double x = less ? 1.0 / c->ratio.ratio : c->ratio.ratio;
        double l = less ? 1.0 / c->ratio.hi : c->ratio.lo, h = less ? 1.0 / c->ratio.lo : c->ratio.hi;
        fmt_p(c->p, p, sizeof(p));
        fprintf(out, "uses %sx %s CPU than %s (%.0f%% CI %s-%sx, %s)",
                compare_fmt(x, f, sizeof(f)), less ? "less" : "more", r->settings[r->baseline],
                REPORT_LEVEL * 100, compare_fmt(l, lo, sizeof(lo)), compare_fmt(h, hi, sizeof(hi)),
                p);
    }
    for (size_t k = 0; k < r->n_health; k++) {
        const struct metric_diff *d = &s->health[k];
        const char *label = r->health[k].label, *unit = unit_of(&r->health[k]);
        fputs("; ", out);
        if (isnan(d->p)) {
            fprintf(out, "%s not tested (too few runs)", label);
            continue;
        }
        fmt_p(d->p, p, sizeof(p));
        if (d->p >= REPORT_ALPHA || d->a.median == d->b.median)
            fprintf(out, "%s unchanged (%s)", label, p);
        else
            fprintf(out, "%s %s from %s%s to %s%s (%s)", label,
                    d->b.median > d->a.median ? "up" : "down",
                    compare_fmt(d->a.median, a, sizeof(a)), unit,
                    compare_fmt(d->b.median, b, sizeof(b)), unit, p);
    }
    fputs(".\n", out);
}

static void host_name(const struct loaded_results *r, size_t n, size_t i, char *buf, size_t len)
{
    /* Hosts are named from the results; the same hostname twice gets its index. */
    size_t same = 0;
    for (size_t j = 0; j < n; j++)
        same += strcmp(r[j].host, r[i].host) == 0;
    if (same > 1)
        snprintf(buf, len, "%s #%zu", r[i].host, i + 1);
    else
        snprintf(buf, len, "%s", r[i].host);
}

static void table(const struct loaded_results *r, size_t n, struct setting_stats **st, FILE *out)
{
    const struct loaded_results *first = &r[0];
    char host[256];
    fprintf(out, "| %s |", first->knob_label);
    for (size_t i = 0; i < n; i++) {
        const char *sep = n > 1 ? ": " : "";
        host_name(r, n, i, host, sizeof(host));
        const char *h = n > 1 ? host : "";
        fprintf(out, " %s%sCPU %% of one core | %s%sCPU vs %s |", h, sep, h, sep,
                r[i].settings[r[i].baseline]);
        for (size_t k = 0; k < r[i].n_health; k++)
            fprintf(out, " %s%s%s |", h, sep, r[i].health[k].label);
        fprintf(out, " %s%sruns |", h, sep);
    }
    fputs("\n|---|", out);
    for (size_t i = 0; i < n; i++) {
        fputs("--:|--:|", out);
        for (size_t k = 0; k < r[i].n_health; k++)
            fputs("--:|", out);
        fputs("--:|", out);
    }
    fputc('\n', out);
    /* Rows: the first campaign's settings, in its order. */
    for (size_t si = 0; si < first->n_settings; si++) {
        fprintf(out, "| %s%s |", first->settings[si], si == first->baseline ? " (baseline)" : "");
        for (size_t i = 0; i < n; i++) {
            long sj = results_loaded_setting(&r[i], first->settings[si]);
            size_t cols = 3 + r[i].n_health;
            if (sj < 0) {
                for (size_t c = 0; c < cols; c++)
                    fputs(" - |", out);
                continue;
            }
            const struct setting_stats *s = &st[i][sj];
            cell_range(&s->cpu.b, "", out);
            if ((size_t)sj == r[i].baseline)
                fputs(" - |", out);
            else
                cell_factor(&s->cpu, out);
            for (size_t k = 0; k < r[i].n_health; k++) {
                char t[32];
                /* a ratio key is shown over its denominator, as "skipped slots / 250" */
                char unit[48];
                if (isfinite(s->total[k]))
                    snprintf(unit, sizeof(unit), " / %s", compare_fmt(s->total[k], t, sizeof(t)));
                else
                    snprintf(unit, sizeof(unit), "%s", unit_of(&r[i].health[k]));
                cell_range(&s->health[k].b, unit, out);
            }
            fprintf(out, " %zu |", s->runs);
        }
        fputc('\n', out);
    }
}

/* The round trips of each campaign that ran an rtt probe: every completed run's
 * histogram added, so the percentiles are of all round trips, not averages. */
static void rtt_tables(const struct loaded_results *r, size_t n, FILE *out)
{
    static const double pct[] = {50, 90, 99, 99.9};
    char host[256], v[32];
    for (size_t i = 0; i < n; i++) {
        if (!r[i].rtt)
            continue;
        host_name(r, n, i, host, sizeof(host));
        fprintf(out, "\nRound trips%s%s (the rtt probe's, all runs of a setting together; ms):\n\n",
                n > 1 ? " on " : "", n > 1 ? host : "");
        fprintf(out, "| %s | requests | failed | p50 | p90 | p99 | p99.9 | max |\n"
                     "|---|--:|--:|--:|--:|--:|--:|--:|\n",
                r[i].knob_label);
        for (size_t si = 0; si < r[i].n_settings; si++) {
            const struct loaded_rtt *l = &r[i].rtt[si];
            fprintf(out, "| %s%s | %llu | %llu |", r[i].settings[si],
                    si == r[i].baseline ? " (baseline)" : "", (unsigned long long)l->scheduled,
                    (unsigned long long)l->failed);
            bool any = histogram_count(&l->latency) > 0;
            for (size_t k = 0; k < ARRAY_SIZE(pct); k++)
                fprintf(out, " %s |",
                        any ? compare_fmt(histogram_percentile(&l->latency, pct[k]) / 1e6, v,
                                          sizeof(v))
                            : "-");
            fprintf(out, " %s |\n",
                    any ? compare_fmt(histogram_max(&l->latency) / 1e6, v, sizeof(v)) : "-");
        }
    }
}

static const char *doc_str(const struct loaded_results *r, const char *obj, const char *key)
{
    json_t *v = json_object_get(json_object_get(r->doc, obj), key);
    return json_is_string(v) ? json_string_value(v) : "unknown";
}

static double doc_num(const struct loaded_results *r, const char *obj, const char *key)
{
    json_t *v = json_object_get(json_object_get(r->doc, obj), key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* " CPU clock: perf-task-clock, resolution 1 us." from the runs' records: the source
 * and resolution differ per system (a Windows tick is 15.6 ms), and a reader weighs a
 * small figure by them. Sources that differ between runs are all named. */
static void cpu_clock_note(const struct loaded_results *r, FILE *out)
{
    json_t *runs = json_object_get(r->doc, "runs"), *run;
    const char *source = NULL;
    double resolution_ns = 0;
    bool mixed = false;
    size_t j;
    json_array_foreach(runs, j, run) {
        const char *s = json_string_value(json_object_get(run, "cpu_source"));
        json_t *res = json_object_get(run, "cpu_resolution_ns");
        if (!s)
            continue;
        mixed |= source && strcmp(source, s) != 0;
        source = source ? source : s;
        if (json_is_number(res) && json_number_value(res) > resolution_ns)
            resolution_ns = json_number_value(res);
    }
    if (!source)
        return;
    fprintf(out, " CPU clock: %s%s", source, mixed ? " and others (runs differ)" : "");
    if (resolution_ns >= 1e6)
        fprintf(out, ", resolution %.3g ms", resolution_ns / 1e6);
    else if (resolution_ns > 0)
        fprintf(out, ", resolution %.3g us", resolution_ns / 1e3);
    fputc('.', out);
}

/* Host, method and whatever the run recorded that weakens the figures. */
static void footnote(const struct loaded_results *r, size_t n, FILE *out)
{
    char host[256];
    for (size_t i = 0; i < n; i++) {
        host_name(r, n, i, host, sizeof(host));
        fprintf(out, "%s**%s**: %s, %.0f logical CPUs, %s %s; warm-up %g s, sample %g s, "
                     "%g runs per setting, order %s (seed %.0f); loopbench %s.",
                n > 1 ? "- " : "", host, doc_str(&r[i], "host", "cpu_model"),
                doc_num(&r[i], "host", "logical_cpus"), doc_str(&r[i], "host", "os"),
                doc_str(&r[i], "host", "kernel"), doc_num(&r[i], "campaign", "warmup_seconds"),
                doc_num(&r[i], "campaign", "sample_seconds"), doc_num(&r[i], "campaign", "repeat"),
                r[i].order, doc_num(&r[i], "campaign", "seed"),
                doc_str(&r[i], "loopbench", "version"));
        cpu_clock_note(&r[i], out);
        if (strcmp(doc_str(&r[i], "host", "virtualization"), "wine") == 0)
            fprintf(out, " Warning: measured under wine, which does not account CPU time as "
                         "Windows does: these CPU figures are not Windows'.");
        size_t unreliable = 0;
        json_t *runs = json_object_get(r[i].doc, "runs"), *run;
        size_t j;
        json_array_foreach(runs, j, run)
            unreliable += json_is_true(json_object_get(run, "unreliable"));
        if (unreliable)
            fprintf(out, " Warning: %zu run%s measured too little CPU for the clock's "
                         "resolution (unreliable).", unreliable, unreliable == 1 ? "" : "s");
        if (r[i].runs_failed) {
            fprintf(out, " Warning: %zu run%s did not complete:", r[i].runs_failed,
                    r[i].runs_failed == 1 ? "" : "s");
            const char *sep = " ";
            json_array_foreach(runs, j, run) {
                const char *status = json_string_value(json_object_get(run, "status"));
                if (!status || strcmp(status, "ok") == 0)
                    continue;
                const char *failure = json_string_value(json_object_get(run, "failure"));
                fprintf(out, "%s%s `%s` #%lld (%s%s%s)", sep, r[i].knob_label,
                        json_string_value(json_object_get(run, "setting")),
                        (long long)json_integer_value(json_object_get(run, "repeat")), status,
                        failure ? ": " : "", failure ? failure : "");
                sep = "; ";
            }
            fputc('.', out);
        }
        /* the noise warnings loopbench run recorded (load, steal, other processes...) */
        json_t *warnings = json_object_get(r[i].doc, "warnings"), *w;
        json_array_foreach(warnings, j, w)
            if (json_is_string(w))
                fprintf(out, " Warning: %s.", json_string_value(w));
        if (strcmp(doc_str(&r[i], "campaign", "state"), "finished") != 0)
            fprintf(out, " Warning: the campaign is %s.", doc_str(&r[i], "campaign", "state"));
        fputc('\n', out);
    }
    /* Round trips and endpoint metrics are health keys too, with a figure of their own. */
    bool own_figures = false;
    for (size_t i = 0; i < n; i++) {
        json_t *runs = json_object_get(r[i].doc, "runs"), *run;
        size_t j;
        json_array_foreach(runs, j, run)
            own_figures |= json_object_get(run, "rtt") || json_object_get(run, "endpoint_metrics");
    }
    fprintf(out, "\nCPU: percent of one core for the whole process tree over each window, "
                 "median (min-max) over runs; health keys: each run's mean over its health "
                 "lines%s, median (min-max) over runs. Ratios are of medians with a %.0f%% "
                 "bootstrap interval (%d resamples, fixed seed). p: a paired t test on the "
                 "per-round log ratios for interleaved campaigns (it removes the host's drift "
                 "between rounds), else Welch's t on logs (values on their own scale when one "
                 "is 0); a difference is called at p < %g. With fewer than 2 runs a side no "
                 "test is made.\n",
            own_figures ? " (the rtt probe's and an HTTP endpoint's keys: the run's own "
                          "figure, docs/network.md)"
                        : "",
            REPORT_LEVEL * 100, STATS_BOOTSTRAP_ITERATIONS, REPORT_ALPHA);
}

void report_markdown(const struct loaded_results *r, size_t n, const struct report_opts *o,
                     FILE *out)
{
    struct setting_stats **st = xcalloc(n, sizeof(*st));
    for (size_t i = 0; i < n; i++)
        st[i] = campaign_stats(&r[i]);
    if (o->title)
        fprintf(out, "## %s\n\n", o->title);
    else
        fprintf(out, "## %s: %s\n\n", r[0].profile_name, r[0].knob_label);
    char host[256];
    for (size_t i = 0; i < n; i++)
        for (size_t si = 0; si < r[i].n_settings; si++) {
            if (si == r[i].baseline)
                continue;
            host_name(r, n, i, host, sizeof(host));
            fputs("- ", out);
            if (n > 1)
                fprintf(out, "**%s**: ", host);
            headline(&r[i], &st[i][si], si, out);
        }
    fputc('\n', out);
    table(r, n, st, out);
    rtt_tables(r, n, out);
    fputc('\n', out);
    footnote(r, n, out);
    if (o->images) {
        fputc('\n', out);
        for (size_t i = 0; o->images[i] && o->images[i + 1]; i += 2)
            fprintf(out, "![%s](%s)\n", o->images[i], o->images[i + 1]);
    }
    for (size_t i = 0; i < n; i++)
        campaign_stats_free(&r[i], st[i]);
    free(st);
}

/* ---- CSV ------------------------------------------------------------------------------- */

/* A CSV field: quoted when it holds a comma, quote or newline. */
static void csv_str(const char *s, FILE *out)
{
    if (strpbrk(s, ",\"\n") == NULL) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_num(double v, FILE *out)
{
    fputc(',', out);
    if (isfinite(v))
        fprintf(out, "%.6g", v);
}

void report_csv(const struct loaded_results *r, size_t n, FILE *out)
{
    /* The first campaign's health keys name the columns; the others fill the ones
     * they share. */
    fputs("host,kind,setting,baseline,repeat,runs,cpu_percent,cpu_min,cpu_max", out);
    for (size_t k = 0; k < r[0].n_health; k++) {
        fputc(',', out);
        csv_str(r[0].health[k].key, out);
    }
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        long *col = xcalloc(r[0].n_health + 1, sizeof(long));
        for (size_t k = 0; k < r[0].n_health; k++) {
            col[k] = -1;
            for (size_t j = 0; j < r[i].n_health; j++)
                if (strcmp(r[i].health[j].key, r[0].health[k].key) == 0)
                    col[k] = (long)j;
        }
        for (size_t x = 0; x < r[i].n_runs; x++) {
            const struct loaded_run *run = &r[i].runs[x];
            csv_str(r[i].host, out);
            fputs(",run,", out);
            csv_str(r[i].settings[run->setting], out);
            fprintf(out, ",%s,%ld,1", run->setting == r[i].baseline ? "true" : "false",
                    run->repeat);
            csv_num(run->cpu_percent, out);
            fputs(",,", out);
            for (size_t k = 0; k < r[0].n_health; k++)
                csv_num(col[k] < 0 ? NAN : run->health[col[k]], out);
            fputc('\n', out);
        }
        struct setting_stats *st = campaign_stats(&r[i]);
        for (size_t si = 0; si < r[i].n_settings; si++) {
            csv_str(r[i].host, out);
            fputs(",setting,", out);
            csv_str(r[i].settings[si], out);
            fprintf(out, ",%s,,%zu", si == r[i].baseline ? "true" : "false", st[si].runs);
            csv_num(st[si].cpu.b.median, out);
            csv_num(st[si].cpu.b.min, out);
            csv_num(st[si].cpu.b.max, out);
            for (size_t k = 0; k < r[0].n_health; k++)
                csv_num(col[k] < 0 ? NAN : st[si].health[col[k]].b.median, out);
            fputc('\n', out);
        }
        campaign_stats_free(&r[i], st);
        free(col);
    }
}

/* ---- JSON ------------------------------------------------------------------------------ */

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(const struct stats_summary *s)
{
    return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o}", "n", (json_int_t)s->n,
                     "median", num(s->median), "min", num(s->min), "max", num(s->max),
                     "mean", num(s->mean), "sd", num(s->sd));
}

/* The statistics of a setting against the baseline. */
static json_t *diff_json(const struct metric_diff *d)
{
    json_t *o = json_pack("{s:o, s:[o, o], s:o, s:o, s:o, s:o}", "ratio", num(d->ratio.ratio),
                          "ratio_ci", num(d->ratio.lo), num(d->ratio.hi),
                          "p", num(d->p), "test", d->test ? json_string(d->test) : json_null(),
                          "welch_p", num(d->welch.p), "mann_whitney_p", num(d->mwu.p));
    if (d->paired.pairs)
        json_object_set_new(o, "paired",
                            json_pack("{s:I, s:o, s:[o, o], s:o}", "pairs",
                                      (json_int_t)d->paired.pairs, "ratio", num(d->paired.ratio),
                                      "ci", num(d->paired.lo), num(d->paired.hi),
                                      "p", num(d->paired.test.p)));
    return o;
}

json_t *report_json(const struct loaded_results *r, size_t n)
{
    json_t *hosts = json_array();
    for (size_t i = 0; i < n; i++) {
        struct setting_stats *st = campaign_stats(&r[i]);
        json_t *settings = json_array();
        for (size_t si = 0; si < r[i].n_settings; si++) {
            json_t *health = json_object();
            for (size_t k = 0; k < r[i].n_health; k++) {
                json_t *h = summary_json(&st[si].health[k].b);
                if (isfinite(st[si].total[k]))
                    json_object_set_new(h, "total", json_real(st[si].total[k]));
                if (si != r[i].baseline)
                    json_object_set_new(h, "vs_baseline", diff_json(&st[si].health[k]));
                json_object_set_new(health, r[i].health[k].key, h);
            }
            json_array_append_new(
                settings, json_pack("{s:s, s:b, s:I, s:o, s:o, s:o}", "setting",
                                    r[i].settings[si], "baseline", si == r[i].baseline,
                                    "runs", (json_int_t)st[si].runs,
                                    "cpu_percent", summary_json(&st[si].cpu.b),
                                    "cpu_vs_baseline",
                                    si == r[i].baseline ? json_null() : diff_json(&st[si].cpu),
                                    "health", health));
        }
        json_array_append_new(hosts, json_pack("{s:s, s:s, s:s, s:s, s:o}", "host", r[i].host,
                                               "results", r[i].path, "profile",
                                               r[i].profile_name, "knob", r[i].knob_label,
                                               "settings", settings));
        campaign_stats_free(&r[i], st);
    }
    return json_pack("{s:s, s:f, s:o}", "schema", "loopbench/report/1", "confidence_level",
                     REPORT_LEVEL, "hosts", hosts);
}
