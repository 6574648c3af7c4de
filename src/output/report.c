#include "report.h"

#include <math.h>
#include <string.h>

#include "compare.h"
#include "mermaid.h"
#include "metric.h"
#include "noise.h"
#include "summary.h"
#include "text.h"
#include "tune_view.h"
#include "util.h"
#include "verdict.h"

/* s as Markdown text, or as it is for a terminal (a name there holds no control
 * character: text.h). */
static void put_text(FILE *out, const char *s, bool md)
{
    if (md)
        text_put_markdown(out, s);
    else
        fputs(s, out);
}

/* ---- cells ------------------------------------------------------------------------- */

/* "99.5 (93.8-100)": median and range over runs, with a unit (new string). */
static char *cell_range(const struct stats_summary *s, const char *unit)
{
    char m[32], lo[32], hi[32];
    if (s->n == 0)
        return xstrdup("-");
    if (s->n > 1 && s->min != s->max)
        return xasprintf("%s%s (%s-%s)", fmt_number(s->median, m, sizeof(m)), unit,
                         fmt_number(s->min, lo, sizeof(lo)), fmt_number(s->max, hi, sizeof(hi)));
    return xasprintf("%s%s", fmt_number(s->median, m, sizeof(m)), unit);
}

/* A change of the gate's row as the direction rule says it (verdict_direction), with its
 * interval: "114x less (86.9-128x)", "2.45x more (1.77-3.40x)", "no clear difference
 * (1.02x, 0.840-1.24x)"; with `level`, the interval says "90% CI". "-" without a figure
 * (new string). */
static char *direction_text(const struct gate_result *g, double level)
{
    char f[32], lo[32], hi[32], ci[16] = "";
    double r = 1 + g->change, l = 1 + g->lo, h = 1 + g->hi;
    if (!(r > 0) || !isfinite(r))
        return xstrdup("-");
    if (level > 0)
        snprintf(ci, sizeof(ci), "%.0f%% CI ", level * 100);
    const char *dir = verdict_direction(l, h);
    if (strcmp(dir, "less") == 0)
        return xasprintf("%sx less (%s%s-%sx)", fmt_number(1 / r, f, sizeof(f)), ci,
                         fmt_number(1 / h, lo, sizeof(lo)), fmt_number(1 / l, hi, sizeof(hi)));
    if (strcmp(dir, "more") == 0)
        return xasprintf("%sx more (%s%s-%sx)", fmt_number(r, f, sizeof(f)), ci,
                         fmt_number(l, lo, sizeof(lo)), fmt_number(h, hi, sizeof(hi)));
    if (!(l > 0) || !isfinite(h))
        return xasprintf("%s (%sx)", dir, fmt_number(r, f, sizeof(f)));
    return xasprintf("%s (%sx, %s%s-%sx)", dir, fmt_number(r, f, sizeof(f)), ci,
                     fmt_number(l, lo, sizeof(lo)), fmt_number(h, hi, sizeof(hi)));
}

/* A health key's cell: a ratio key over its denominator ("0 / 250"), else with its
 * unit. */
static char *cell_health(const struct campaign *c, const struct setting_summary *s, size_t k)
{
    char t[32], unit[48];
    if (isfinite(s->total[k]))
        snprintf(unit, sizeof(unit), " / %s", fmt_number(s->total[k], t, sizeof(t)));
    else
        snprintf(unit, sizeof(unit), "%s", campaign_health_unit(c, k));
    return cell_range(&s->health[k].b, unit);
}

/* "3", or "2 of 3" when runs of the setting did not complete. */
static char *cell_runs(const struct setting_summary *s)
{
    if (s->runs_attempted > s->runs_ok)
        return xasprintf("%zu of %zu", s->runs_ok, s->runs_attempted);
    return xasprintf("%zu", s->runs_ok);
}

/* ---- tables ------------------------------------------------------------------------ */

/* Rows of cells (owned), the first the header; every row as wide as the header. */
struct grid {
    struct strv *rows;
    size_t n_rows;
};

static struct strv *grid_row(struct grid *g)
{
    g->rows = xrealloc(g->rows, (g->n_rows + 1) * sizeof(*g->rows));
    memset(&g->rows[g->n_rows], 0, sizeof(*g->rows));
    return &g->rows[g->n_rows++];
}

/* Markdown, the first column left-aligned and the figures right-aligned; for a terminal
 * (not md), each column as wide as its widest cell and nothing escaped. Every cell is
 * text: names in it are escaped here, once for all tables. Releases g. */
static void grid_print(struct grid *g, bool md, FILE *out)
{
    size_t cols = g->n_rows ? g->rows[0].n : 0;
    bool pad = !md;
    int *width = xcalloc(cols + 1, sizeof(int));
    for (size_t r = 0; md && r < g->n_rows; r++)
        for (size_t col = 0; col < cols; col++) {
            char *cell = text_markdown(g->rows[r].v[col]);
            free(g->rows[r].v[col]);
            g->rows[r].v[col] = cell;
        }
    for (size_t r = 0; pad && r < g->n_rows; r++)
        for (size_t col = 0; col < cols; col++)
            if ((int)strlen(g->rows[r].v[col]) > width[col])
                width[col] = (int)strlen(g->rows[r].v[col]);
    for (size_t r = 0; r < g->n_rows; r++) {
        fputc('|', out);
        for (size_t col = 0; col < cols; col++)
            fprintf(out, col ? " %*s |" : " %-*s |", width[col], g->rows[r].v[col]);
        fputc('\n', out);
        for (size_t col = 0; r == 0 && col < cols; col++) {
            int dashes = width[col] > 1 ? width[col] + 1 : 2;
            fprintf(out, "%s%.*s%s", col ? "" : "|", dashes, "------------------------------"
                    "--------------------------------------------------", col ? ":|" : "-|");
        }
        if (r == 0)
            fputc('\n', out);
        strv_release(&g->rows[r]);
    }
    free(width);
    free(g->rows);
    memset(g, 0, sizeof(*g));
}

static void host_name(const struct campaign *c, size_t n, size_t i, char *buf, size_t len)
{
    /* Hosts are named from the results; the same hostname twice gets its index. */
    size_t same = 0;
    for (size_t j = 0; j < n; j++)
        same += strcmp(campaign_host(&c[j]), campaign_host(&c[i])) == 0;
    if (same > 1)
        snprintf(buf, len, "%s #%zu", campaign_host(&c[i]), i + 1);
    else
        snprintf(buf, len, "%s", campaign_host(&c[i]));
}

/* A cell's first column: "0 (baseline)", "2", or with variants "2 head" / "2 base". */
static char *cell_label(const struct campaign *c, struct cell x)
{
    if (c->spec.n_variants)
        return campaign_cell_name(c, x);
    return xasprintf("%s%s", c->spec.values.v[x.setting],
                     x.setting == c->spec.baseline ? " (baseline)" : "");
}

/* What a campaign's ratios are against: the baseline setting, or the base variant. */
static const char *reference_name(const struct campaign *c)
{
    return c->spec.n_variants ? c->spec.variants[0].name : c->spec.values.v[c->spec.baseline];
}

/* Cell i of the first campaign in campaign j: the same setting and variant, or -1. */
static long same_cell(const struct campaign *c, size_t j, size_t i)
{
    struct cell x = campaign_cell(&c[0], i);
    return campaign_find_cell(&c[j], c[0].spec.values.v[x.setting],
                              c[0].spec.n_variants ? c[0].spec.variants[x.variant].name : NULL);
}

/* A campaign's figures and its reading (verdict.h: the gate's rows, as compare DIR reads
 * the campaign), for every part of a report. */
struct view {
    struct setting_summary *st;
    struct reading rd;
    bool read; /* false: the campaign could not be read so (the message in why) */
    char why[LB_ERROR_MAX];
};

static struct view *views(const struct campaign *c, size_t n)
{
    struct view *v = xcalloc(n + 1, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        struct lb_error err;
        v[i].st = summary_compute(&c[i]);
        v[i].read = reading_init(&v[i].rd, &c[i], &err) == 0;
        if (!v[i].read)
            snprintf(v[i].why, sizeof(v[i].why), "%s", err.msg);
    }
    return v;
}

static void views_free(const struct campaign *c, size_t n, struct view *v)
{
    for (size_t i = 0; i < n; i++) {
        summary_free(&c[i], v[i].st);
        reading_release(&v[i].rd);
    }
    free(v);
}

/* The gate's row of a cell's metric key, NULL for the reference or when there is none. */
static const struct compare_row *cell_row(const struct campaign *c, const struct view *v,
                                          struct cell x, const char *key)
{
    return v->read ? reading_row(&v->rd, c->spec.values.v[x.setting],
                                 c->spec.n_variants ? c->spec.variants[x.variant].name : NULL, key)
                   : NULL;
}

/* The per-setting table: the first campaign's cells, in its order, a column group per
 * campaign. */
/* A value of a tune's grid it never chose to run: no line or row of its own (a setting of a
 * campaign of run has its runs planned, and one whose runs all failed says so). */
static bool never_run(const struct campaign *c, struct cell x)
{
    if (!c->tune)
        return false;
    for (size_t i = 0; i < c->n_runs; i++)
        if (run_in_cell(&c->runs[i], x))
            return false;
    return true;
}

static void settings_table(const struct campaign *c, size_t n, const struct view *v, bool md,
                           FILE *out)
{
    char host[256];
    struct grid g = {0};
    struct strv *head = grid_row(&g);
    strv_push(head, c[0].profile.knob_label);
    for (size_t i = 0; i < n; i++) {
        host_name(c, n, i, host, sizeof(host));
        const char *h = n > 1 ? host : "", *sep = n > 1 ? ": " : "";
        strv_push_owned(head, xasprintf("%s%sCPU %% of one core", h, sep));
        strv_push_owned(head, xasprintf("%s%sCPU vs %s", h, sep, reference_name(&c[i])));
        strv_push_owned(head, xasprintf("%s%sCPU verdict", h, sep));
        for (size_t k = 0; k < c[i].profile.n_health; k++)
            strv_push_owned(head, xasprintf("%s%s%s", h, sep, c[i].profile.health[k].label));
        strv_push_owned(head, xasprintf("%s%sruns", h, sep));
    }
    for (size_t ci = 0; ci < campaign_cells(&c[0]); ci++) {
        if (n == 1 && never_run(&c[0], campaign_cell(&c[0], ci)))
            continue;
        struct strv *row = grid_row(&g);
        strv_push_owned(row, cell_label(&c[0], campaign_cell(&c[0], ci)));
        for (size_t i = 0; i < n; i++) {
            long cj = same_cell(c, i, ci);
            if (cj < 0) {
                for (size_t col = 0; col < 4 + c[i].profile.n_health; col++)
                    strv_push(row, "-");
                continue;
            }
            const struct setting_summary *s = &v[i].st[cj];
            const struct compare_row *cpu = cell_row(&c[i], &v[i], s->cell, "cpu");
            strv_push_owned(row, cell_range(&s->cpu->b, ""));
            strv_push_owned(row, !cpu                    ? xstrdup("-")
                                 : verdict_untested(cpu) ? xstrdup("cannot test")
                                                         : direction_text(&cpu->g, 0));
            strv_push(row, cpu ? verdict_word(cpu) : "-");
            for (size_t k = 0; k < c[i].profile.n_health; k++)
                strv_push_owned(row, cell_health(&c[i], s, k));
            strv_push_owned(row, cell_runs(s));
        }
    }
    grid_print(&g, md, out);
}

/* The round trips of each campaign that ran an rtt probe: every completed run's
 * histogram added, so the percentiles are of all round trips, not averages. */
static void rtt_tables(const struct campaign *c, size_t n, const struct view *v, bool md, FILE *out)
{
    static const double pct[] = {50, 90, 99, 99.9};
    static const char *const heads[] = {"requests", "failed", "p50", "p90", "p99", "p99.9", "max"};
    char host[256], fig[32];
    for (size_t i = 0; i < n; i++) {
        if (!c[i].has_rtt)
            continue;
        host_name(c, n, i, host, sizeof(host));
        fprintf(out, "\nRound trips%s", n > 1 ? " on " : "");
        put_text(out, n > 1 ? host : "", md);
        fputs(" (the rtt probe's, all runs of a setting together; ms):\n\n", out);
        struct grid g = {0};
        struct strv *head = grid_row(&g);
        strv_push(head, c[i].profile.knob_label);
        for (size_t k = 0; k < ARRAY_SIZE(heads); k++)
            strv_push(head, heads[k]);
        for (size_t ci = 0; ci < campaign_cells(&c[i]); ci++) {
            const struct setting_summary *s = &v[i].st[ci];
            struct strv *row = grid_row(&g);
            strv_push_owned(row, cell_label(&c[i], s->cell));
            strv_push_owned(row, xasprintf("%llu", (unsigned long long)s->rtt_scheduled));
            strv_push_owned(row, xasprintf("%llu", (unsigned long long)(s->rtt_errors +
                                                                       s->rtt_timeouts)));
            bool any = histogram_count(&s->rtt) > 0;
            for (size_t k = 0; k < ARRAY_SIZE(pct); k++)
                strv_push(row, any ? fmt_number(histogram_percentile(&s->rtt, pct[k]) / 1e6, fig,
                                                sizeof(fig))
                                   : "-");
            strv_push(row, any ? fmt_number(histogram_max(&s->rtt) / 1e6, fig, sizeof(fig)) : "-");
        }
        grid_print(&g, md, out);
    }
}

/* ---- headline ---------------------------------------------------------------------- */

/* One metric of a cell: its name and the gate's word, for CPU the direction its interval
 * allows, for a regression or an improvement the change, and why when the word alone does
 * not say it. In full (a line of its own: "CPU: regressed, 2.45x more (90% CI
 * 1.77-3.40x)", "CPU: inconclusive, no clear difference (1.02x, 90% CI 0.840-1.24x): only
 * a change of +21.4% would be called") or short, in a list ("peak lag inconclusive (only
 * a change of +58.6% would be called)"). */
static void row_phrase(const struct compare_row *row, const struct verdict_frame *f, bool full,
                       bool md, FILE *out)
{
    char why[1024], ch[96];
    put_text(out, row->name ? row->name : row->label, md);
    fprintf(out, "%s%s", full ? ": " : " ", verdict_word(row));
    bool untested = verdict_untested(row);
    if (!untested && strcmp(row->metric, "cpu") == 0) {
        char *d = direction_text(&row->g, f->gate->level);
        fprintf(out, ", %s", d);
        free(d);
    } else if (!untested &&
               (row->g.verdict == VERDICT_REGRESSED || row->g.verdict == VERDICT_IMPROVED)) {
        compare_fmt_interval(&row->g, ch, sizeof(ch));
        fprintf(out, ", %s", ch);
    }
    verdict_why(row, f, why, sizeof(why));
    /* "not gated" is said once, before the rows it applies to */
    const char *w = strncmp(why, "not gated", 9) == 0 ? why + 9 + (why[9] == ';') : why;
    while (*w == ' ')
        w++;
    if (!*w || row->g.verdict == VERDICT_NO_CHANGE)
        return;
    fputs(full ? ": " : " (", out);
    put_text(out, w, md);
    fputs(full ? "" : ")", out);
}

/* Whether row is of cell x of c. */
static bool row_of_cell(const struct campaign *c, const struct compare_row *row, struct cell x)
{
    return !row->budget && strcmp(row->setting, c->spec.values.v[x.setting]) == 0 &&
           (!c->spec.n_variants || strcmp(row->variant, c->spec.variants[x.variant].name) == 0);
}

/* One cell against its reference, in the words compare DIR gives its rows: a line per
 * gated metric, then the others in one; one line when nothing could test any of them for
 * the same reason (one round, say). */
static void headline(const struct campaign *c, const struct view *v,
                     const struct setting_summary *s, bool md, FILE *out)
{
    if (c->spec.n_variants) {
        put_text(out, c->spec.variants[s->cell.variant].name, md);
        fputs(" at ", out);
    }
    put_text(out, c->profile.knob_label, md);
    fputc(' ', out);
    put_text(out, c->spec.values.v[s->cell.setting], md);
    fputs(" against ", out);
    put_text(out, reference_name(c), md);
    if (!v->read) {
        fputs(": cannot test: ", out);
        put_text(out, v->why, md);
        fputs(".\n", out);
        return;
    }
    struct verdict_frame f = verdict_frame_of(&v->rd.cells, &v->rd.opts.gate);
    const struct compare_result *r = &v->rd.cells;
    char first[1024] = "", why[1024];
    bool same = true, any = false;
    for (size_t i = 0; i < r->n_rows; i++) {
        if (!row_of_cell(c, &r->rows[i], s->cell))
            continue;
        verdict_why(&r->rows[i], &f, why, sizeof(why));
        const char *w = strncmp(why, "not gated; ", 11) == 0 ? why + 11 : why;
        same = same && verdict_untested(&r->rows[i]) && (!any || strcmp(first, w) == 0);
        if (!any)
            snprintf(first, sizeof(first), "%s", w);
        any = true;
    }
    if (!any || same) {
        fputs(any ? ": cannot test, any key: " : ": nothing compared", out);
        put_text(out, first, md);
        fputs(".\n", out);
        return;
    }
    fputs(":\n", out);
    for (int gated = 1; gated >= 0; gated--) {
        size_t said = 0;
        for (size_t i = 0; i < r->n_rows; i++) {
            const struct compare_row *row = &r->rows[i];
            if (row->gated != gated || !row_of_cell(c, row, s->cell))
                continue;
            fputs(gated ? "  - " : said ? "; " : "  - not gated: ", out);
            row_phrase(row, &f, gated, md, out);
            said++;
            if (gated)
                fputs(".\n", out);
        }
        if (!gated && said)
            fputs(".\n", out);
    }
}

/* The gate's verdict of campaign c and why, as compare DIR gives it: nothing when compare
 * gates nothing there (a campaign of settings without budgets). */
static void gate_headline(const struct campaign *c, const struct view *v, const char *host, bool md,
                          FILE *out)
{
    if (!v->read || !v->rd.gate)
        return;
    char why[1024];
    struct verdict_frame f = verdict_frame_of(v->rd.gate, &v->rd.opts.gate);
    verdict_headline(v->rd.gate, &f, c->profile.knob_label, why, sizeof(why));
    if (host) {
        fputs(md ? "**" : "", out);
        put_text(out, host, md);
        fputs(md ? "**: " : ": ", out);
    }
    fprintf(out, "%s%s%s: ", md ? "**" : "", verdict_result_word(v->rd.gate), md ? "**" : "");
    put_text(out, why, md);
    fputs(" (the gate, as `loopbench compare` gives it).\n", out);
}

/* The gate's verdict of each campaign, then "- " and a sentence per cell but the
 * references, of each campaign. */
static void headlines(const struct campaign *c, size_t n, const struct view *v, bool md, FILE *out)
{
    char host[256];
    bool gates = false;
    for (size_t i = 0; i < n; i++) {
        host_name(c, n, i, host, sizeof(host));
        gate_headline(&c[i], &v[i], n > 1 ? host : NULL, md, out);
        gates = gates || (v[i].read && v[i].rd.gate);
    }
    if (gates)
        fputc('\n', out);
    for (size_t i = 0; i < n; i++)
        for (size_t ci = 0; ci < campaign_cells(&c[i]); ci++) {
            const struct setting_summary *s = &v[i].st[ci];
            if ((s->cell.setting == s->reference.setting &&
                 s->cell.variant == s->reference.variant) ||
                never_run(&c[i], s->cell))
                continue;
            fputs("- ", out);
            if (n > 1) {
                host_name(c, n, i, host, sizeof(host));
                fputs(md ? "**" : "", out);
                put_text(out, host, md);
                fputs(md ? "**: " : ": ", out);
            }
            headline(&c[i], &v[i], s, md, out);
        }
}

/* ---- charts ------------------------------------------------------------------------ */

/* Each cell's completed runs' CPU series, pooled (new arrays in curves[i]). */
static void cpu_curves(const struct campaign *c, struct mermaid_curve *curves)
{
    for (size_t ci = 0; ci < campaign_cells(c); ci++) {
        struct mermaid_point *pts = NULL;
        size_t n = 0, runs = 0;
        for (size_t i = 0; i < c->n_runs; i++) {
            const struct run_record *r = &c->runs[i];
            if (!run_in_cell(r, campaign_cell(c, ci)) || r->status != RUN_OK)
                continue;
            const struct run_series *sr = &r->series;
            pts = xrealloc(pts, (n + sr->n + 1) * sizeof(*pts));
            for (size_t j = 0; j < sr->n; j++)
                pts[n++] = (struct mermaid_point){sr->t[j], sr->cpu[j]};
            runs += sr->n > 0;
        }
        curves[ci] = (struct mermaid_curve){pts, n, runs};
    }
}

/* The Mermaid charts of one campaign, which GitHub draws inside a pull request: CPU per
 * setting (the medians of the table, a series per variant) and CPU over the window, a
 * line per cell. */
static int charts(const struct campaign *c, const struct setting_summary *st, const char *host,
                  FILE *out, struct lb_error *err)
{
    size_t ns = c->spec.values.n, nv = c->spec.n_variants ? c->spec.n_variants : 1, cells = ns * nv;
    /* the settings drawn: every one, but a value of a tune's grid never run (the baseline
     * always, as the axis marks it) */
    size_t *drawn = xcalloc(ns + 1, sizeof(size_t)), nd = 0, baseline = MERMAID_NO_BASELINE;
    const char **labels = xcalloc(ns + 1, sizeof(char *));
    for (size_t si = 0; si < ns; si++) {
        bool ran = si == c->spec.baseline;
        for (size_t v = 0; v < nv; v++)
            ran = ran || !never_run(c, (struct cell){si, v});
        if (!ran)
            continue;
        baseline = si == c->spec.baseline ? nd : baseline;
        labels[nd] = c->spec.values.v[si];
        drawn[nd++] = si;
    }
    double *median = xcalloc(nd * nv + 1, sizeof(double));
    struct mermaid_series *series = xcalloc(nv, sizeof(*series));
    for (size_t v = 0; v < nv; v++) {
        for (size_t d = 0; d < nd; d++)
            median[v * nd + d] = st[drawn[d] * nv + v].cpu->b.median;
        series[v] = (struct mermaid_series){c->spec.n_variants ? c->spec.variants[v].name : NULL,
                                            median + v * nd};
    }
    struct mermaid_bars bars = {{c->profile.knob_label, labels, nd, baseline},
                                "CPU per setting, median of runs",
                                "CPU % of one core",
                                series,
                                nv};
    struct strv names = {0};
    struct mermaid_curve *all = xcalloc(cells, sizeof(*all)),
                         *curves = xcalloc(nd * nv + 1, sizeof(*curves));
    cpu_curves(c, all);
    size_t nc = 0;
    for (size_t ci = 0; ci < cells; ci++) {
        struct cell x = campaign_cell(c, ci);
        bool kept = false;
        for (size_t d = 0; d < nd; d++)
            kept = kept || drawn[d] == x.setting;
        if (!kept)
            continue;
        strv_push_owned(&names, campaign_cell_name(c, x));
        curves[nc++] = all[ci];
    }
    struct mermaid_lines lines = {{c->profile.knob_label, (const char *const *)names.v, nc,
                                   c->spec.n_variants ? 0 : baseline},
                                  "CPU over the sample window, median of runs",
                                  "CPU % of one core",
                                  curves};
    fprintf(out, "\n### Charts%s", host ? ": " : "");
    text_put_markdown(out, host ? host : "");
    fputs("\n\n", out);
    int rc = mermaid_bars_write(out, &bars, err);
    if (rc == 0) {
        fputc('\n', out);
        rc = mermaid_lines_write(out, &lines, err);
    }
    for (size_t ci = 0; ci < cells; ci++)
        free((void *)all[ci].points);
    free(all);
    free(curves);
    strv_release(&names);
    free(series);
    free(median);
    free(labels);
    free(drawn);
    return rc;
}

/* ---- what weakens the figures ------------------------------------------------------ */

/* " CPU clock: perf-task-clock, resolution 1 us." from the runs' records: the source
 * and resolution differ per system (a Windows tick is 15.6 ms), and a reader weighs a
 * small figure by them. Sources that differ between runs are all named. */
static void cpu_clock_note(const struct campaign *c, FILE *out)
{
    const char *source = NULL;
    uint64_t resolution_ns = 0;
    bool mixed = false;
    for (size_t j = 0; j < c->n_runs; j++) {
        const struct run_record *r = &c->runs[j];
        if (!r->sampled)
            continue;
        const char *s = cpu_source_name(r->cpu_source);
        mixed |= source && strcmp(source, s) != 0;
        source = source ? source : s;
        if (r->sample.resolution_ns > resolution_ns)
            resolution_ns = r->sample.resolution_ns;
    }
    if (!source)
        return;
    fprintf(out, " CPU clock: %s%s", source, mixed ? " and others (runs differ)" : "");
    if (resolution_ns >= 1000000)
        fprintf(out, ", resolution %.3g ms", (double)resolution_ns / 1e6);
    else if (resolution_ns > 0)
        fprintf(out, ", resolution %.3g us", (double)resolution_ns / 1e3);
    fputc('.', out);
}

/* Runs whose log went past the limit: the kept files miss the middle (the health lines
 * were all scraped as they arrived; the other lines are gone). */
/* s as a warning prints it (new string): Markdown text in a report, as it is on a terminal
 * (where "#3" would read "\#3"; a name there holds no control character, text.h). */
static char *warning_text(const char *s, bool md)
{
    return md ? text_markdown(s) : xstrdup(s);
}

static void log_cuts(const struct campaign *c, const char *before, const char *after, bool md,
                     FILE *out)
{
    static const char *const streams[CAPTURE_STREAMS] = {"stdout", "stderr"};
    size_t cut = 0;
    for (size_t j = 0; j < c->n_runs; j++)
        cut += c->runs[j].logs[CAPTURE_STDOUT].dropped + c->runs[j].logs[CAPTURE_STDERR].dropped >
               0;
    if (!cut)
        return;
    fprintf(out, "%s%zu run%s logged past the log limit, which kept the first and last part "
                 "of each log (every health line was scraped):",
            before, cut, cut == 1 ? "" : "s");
    const char *sep = " ";
    for (size_t j = 0; j < c->n_runs; j++) {
        const struct run_record *r = &c->runs[j];
        for (size_t i = 0; i < CAPTURE_STREAMS; i++) {
            const struct capture_log *l = &r->logs[i];
            if (!l->dropped)
                continue;
            char *name = campaign_cell_name(c, (struct cell){r->setting_index, r->variant_index});
            char *knob = warning_text(c->profile.knob_label, md), *cell = text_code(name);
            fprintf(out, "%s%s %s #%ld %s: %.1f of %.1f MiB dropped (limit %.1f MiB)", sep, knob,
                    cell, r->repeat, streams[i], (double)l->dropped / 1048576.0,
                    (double)l->bytes / 1048576.0, (double)r->log_limit / 1048576.0);
            free(knob);
            free(cell);
            free(name);
            sep = "; ";
        }
    }
    fputs(after, out);
}

/* Each warning a campaign's figures carry, as `before` + sentence + `after`: the
 * clock's quantisation, runs that did not complete, runs whose log was cut, the host's
 * noise, a campaign not finished; in Markdown with `md`, else as a terminal shows them. */
static void warnings(const struct campaign *c, const char *before, const char *after, bool md,
                     FILE *out)
{
    if (c->host.virtualization && strcmp(c->host.virtualization, "wine") == 0)
        fprintf(out, "%smeasured under wine, which does not account CPU time as Windows does: "
                     "these CPU figures are not Windows'%s",
                before, after);
    size_t unreliable = 0, failed = 0;
    for (size_t j = 0; j < c->n_runs; j++) {
        unreliable += c->runs[j].sampled && c->runs[j].sample.unreliable;
        failed += c->runs[j].status == RUN_FAILED || c->runs[j].status == RUN_INTERRUPTED;
    }
    if (unreliable)
        fprintf(out, "%s%zu run%s measured too little CPU for the clock's resolution "
                     "(unreliable)%s",
                before, unreliable, unreliable == 1 ? "" : "s", after);
    if (failed) {
        fprintf(out, "%s%zu run%s did not complete:", before, failed, failed == 1 ? "" : "s");
        const char *sep = " ";
        for (size_t j = 0; j < c->n_runs; j++) {
            const struct run_record *r = &c->runs[j];
            if (r->status != RUN_FAILED && r->status != RUN_INTERRUPTED)
                continue;
            char *knob = warning_text(c->profile.knob_label, md);
            char *value = text_code(c->spec.values.v[r->setting_index]);
            char *failure = warning_text(r->failure ? r->failure : "", md);
            fprintf(out, "%s%s %s #%ld (%s%s%s)", sep, knob, value, r->repeat,
                    run_status_name(r->status), r->failure ? ": " : "", failure);
            free(knob);
            free(value);
            free(failure);
            sep = "; ";
        }
        fputs(after, out);
    }
    log_cuts(c, before, after, md, out);
    /* the host's noise: load, steal, other processes, outliers */
    struct noise noise;
    noise_assess(c, &noise);
    for (size_t j = 0; j < noise.warnings.n; j++) { /* they name settings and variants */
        char *w = warning_text(noise.warnings.v[j], md);
        fprintf(out, "%s%s%s", before, w, after);
        free(w);
    }
    noise_release(&noise);
    if (strcmp(campaign_state_name(c), "finished") != 0)
        fprintf(out, "%sthe campaign is %s%s", before, campaign_state_name(c), after);
}

/* Several campaigns' hosts grouped by fingerprint: those in a group ran on hosts the
 * same to the figures (fingerprint.h), so only they compare absolute figures. */
static void fingerprint_groups(const struct campaign *c, size_t n, FILE *out)
{
    if (n < 2)
        return;
    char host[256];
    fputs("\nHosts by fingerprint:", out);
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(campaign_fingerprint(&c[j]), campaign_fingerprint(&c[i])) != 0;
        if (!first)
            continue;
        char *name = text_markdown(campaign_fingerprint_short(&c[i]));
        fprintf(out, "%s `%s` %s:", i ? ";" : "", campaign_fingerprint(&c[i]), name);
        free(name);
        for (size_t j = i, k = 0; j < n; j++) {
            if (strcmp(campaign_fingerprint(&c[j]), campaign_fingerprint(&c[i])) != 0)
                continue;
            host_name(c, n, j, host, sizeof(host));
            fputs(k++ ? ", " : " ", out);
            text_put_markdown(out, host);
        }
    }
    fputs(".\n", out);
}

/* What a campaign could not measure, one sentence each: idle states and energy, said
 * once for the campaign (their reason is the host's, not any run's). */
static void instruments(const struct campaign *c, bool md, FILE *out)
{
    const char *no_idle = campaign_idle_missing(c);
    if (no_idle)
        fprintf(out, " No idle-state figures: %s.", no_idle);
    if (c->energy_unavailable) {
        fputs(" Energy: not available (", out);
        put_text(out, c->energy_unavailable, md);
        fputs(").", out);
    }
}

/* Whether every campaign lacks the same instruments for the same reasons. */
static bool instruments_alike(const struct campaign *c, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const char *a = campaign_idle_missing(&c[0]), *b = campaign_idle_missing(&c[i]);
        const char *ea = c[0].energy_unavailable, *eb = c[i].energy_unavailable;
        if (!a != !b || (a && strcmp(a, b) != 0) || !ea != !eb || (ea && strcmp(ea, eb) != 0))
            return false;
    }
    return true;
}

/* Host, method and whatever the run recorded that weakens the figures. */
static void footnote(const struct campaign *c, size_t n, FILE *out)
{
    char host[256];
    bool own_figures = false, alike = n > 1 && instruments_alike(c, n);
    for (size_t i = 0; i < n; i++) {
        const struct campaign *ci = &c[i];
        host_name(c, n, i, host, sizeof(host));
        char warmup[64];
        campaign_warmup_text(ci, warmup, sizeof(warmup));
        /* what the host said of itself, read back from a results.json like the names */
        const char *said[] = {
            host,          ci->host.cpu_model, ci->host.os,    ci->host.kernel, ci->self.version,
            ci->spec.cpus, ci->loopbench_cpus, ci->self.commit};
        char *fact[ARRAY_SIZE(said)];
        for (size_t f = 0; f < ARRAY_SIZE(said); f++)
            fact[f] = text_markdown(said[f] ? said[f] : f < 5 ? "unknown" : "");
        fprintf(out,
                "%s**%s**: %s, %d logical CPUs, %s %s (host fingerprint `%s`); warm-up "
                "%s, sample %g s, %ld runs per setting, order %s (seed %llu); loopbench "
                "%s%s%s%s.",
                n > 1 ? "- " : "", fact[0], fact[1], ci->host.logical_cpus, fact[2], fact[3],
                campaign_fingerprint(ci), warmup, ci->spec.sample_s, ci->spec.repeat,
                run_order_name(ci->spec.order), (unsigned long long)ci->spec.seed, fact[4],
                ci->self.commit ? " (commit " : "", fact[7], ci->self.commit ? ")" : "");
        if (ci->spec.sequential_max && ci->sequential_stop)
            fprintf(out, " Runs until decided (`--repeat auto=%ld`): %s after %ld rounds.",
                    ci->spec.sequential_max,
                    strcmp(ci->sequential_stop, "decided") == 0
                        ? "every gated comparison decided"
                        : (strcmp(ci->sequential_stop, "futile") == 0
                               ? "stopped, the rest unlikely to be decided by the cap,"
                               : "the cap reached, some comparisons undecided,"),
                    ci->spec.repeat);
        if (ci->spec.cpus)
            fprintf(out, " %s CPUs %s%s, loopbench %s%s.",
                    ci->spec.order == ORDER_DUET ? "Duet: targets at once, each on its own slice of"
                                                 : "Targets pinned to",
                    fact[5], ci->spec.order == ORDER_DUET ? " (turned every round)" : "",
                    ci->loopbench_cpus ? "to " : "unpinned", fact[6]);
        for (size_t f = 0; f < ARRAY_SIZE(fact); f++)
            free(fact[f]);
        if (ci->spec.rotate_s > 0)
            fprintf(out, " The targets swapped CPU sets every %g s inside each window.",
                    ci->spec.rotate_s);
        if (ci->spec.hold_idle)
            fputs(" CPUs held out of idle states: absolute CPU figures are those of a host kept "
                  "awake; compare them with campaigns held the same way.", out);
        if (!alike)
            instruments(ci, true, out);
        cpu_clock_note(ci, out);
        warnings(ci, " Warning: ", ".", true, out);
        fputc('\n', out);
        /* Round trips and endpoint metrics are health keys too, with a figure of their own. */
        own_figures |= ci->has_rtt || ci->endpoint.url;
    }
    if (alike && (campaign_idle_missing(&c[0]) || c[0].energy_unavailable)) {
        fputs("\nOn every host:", out);
        instruments(&c[0], true, out);
        fputc('\n', out);
    }
    fingerprint_groups(c, n, out);
    struct gate_opts g = gate_opts_default();
    char th[32];
    fprintf(out,
            "\nCPU: percent of one core for the whole process tree over each window, "
            "median (min-max) over runs; health keys: each run's mean over its health "
            "lines%s, median (min-max) over runs. The verdicts are the gate's, as "
            "`loopbench compare DIR` gives them (docs/report.md): each cell against its "
            "reference, paired round by round (CPU on the log of each round's ratio, keys "
            "that can be 0 on their difference relative to the reference); *regressed* or "
            "*improved* when significant after Holm's correction over the gated "
            "comparisons (alpha %g) and beyond %s, *no change* when the 90%% interval lies "
            "within it, *inconclusive* when neither, *cannot test* when too few rounds "
            "paired or no run recorded the key. A CPU ratio is that test's (a geometric "
            "mean) with its %.0f%% interval: *more* or *less* only when the interval "
            "excludes 1, else *no clear difference*.\n",
            own_figures ? " (the rtt probe's and an HTTP endpoint's keys: the run's own "
                          "figure, docs/network.md)"
                        : "",
            g.alpha, fmt_change(g.threshold, th, sizeof(th)) + 1, g.level * 100);
}

/* What each campaign is for (run --note), as its runner said it: Markdown of its own
 * (results.json may be a stranger's) reads as the characters themselves. */
static void notes(const struct campaign *c, size_t n, FILE *out)
{
    char host[256];
    for (size_t i = 0; i < n; i++) {
        if (!c[i].spec.note)
            continue;
        host_name(c, n, i, host, sizeof(host));
        fputs(n > 1 ? "Note, " : "Note: ", out);
        if (n > 1) {
            text_put_markdown(out, host);
            fputs(": ", out);
        }
        text_put_markdown(out, c[i].spec.note);
        fputs("\n\n", out);
    }
}

int report_markdown(const struct campaign *c, size_t n, const struct report_opts *o, FILE *out,
                    struct lb_error *err)
{
    struct view *v = views(c, n);
    fputs("## ", out);
    text_put_markdown(out, o->title ? o->title : c[0].profile.name);
    if (!o->title) {
        fputs(": ", out);
        text_put_markdown(out, c[0].profile.knob_label);
    }
    fputs("\n\n", out);
    notes(c, n, out);
    headlines(c, n, v, true, out);
    fputc('\n', out);
    settings_table(c, n, v, true, out);
    rtt_tables(c, n, v, true, out);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (c[i].tune) {
            fputc('\n', out);
            rc = tune_report(&c[i], o->charts, out, err);
        }
    char host[256];
    for (size_t i = 0; o->charts && rc == 0 && i < n; i++) {
        host_name(c, n, i, host, sizeof(host));
        rc = charts(&c[i], v[i].st, n > 1 ? host : NULL, out, err);
    }
    fputc('\n', out);
    footnote(c, n, out);
    views_free(c, n, v);
    return rc;
}

void report_terminal(const struct campaign *c, FILE *out)
{
    struct view *v = views(c, 1);
    char warmup[64];
    campaign_warmup_text(c, warmup, sizeof(warmup));
    fprintf(out, "%s: %s, %ld run%s per setting, warm-up %s, sample %g s, order %s\n\n",
            c->profile.name, c->profile.knob_name, c->spec.repeat, c->spec.repeat == 1 ? "" : "s",
            warmup, c->spec.sample_s, run_order_name(c->spec.order));
    if (campaign_cells(c) > 1) {
        headlines(c, 1, v, false, out);
        fputc('\n', out);
    }
    settings_table(c, 1, v, false, out);
    rtt_tables(c, 1, v, false, out);
    fputs("\nCPU: % of one core for the whole process tree, median (min-max) over runs; "
          "health keys: each run's mean over its health lines, median (min-max) over runs; "
          "the verdicts and intervals as `loopbench compare` and `loopbench report` give "
          "them.\n",
          out);
    if (c->energy_unavailable)
        fprintf(out, "energy: not available (%s)\n", c->energy_unavailable);
    warnings(c, "warning: ", "\n", false, out);
    fprintf(out, "results: %s/results.json\n", c->out_dir);
    views_free(c, 1, v);
}

/* ---- CSV --------------------------------------------------------------------------- */

/* ",<variant>" when the table has a variant column. */
static void csv_variant(const struct campaign *c, bool column, size_t v, FILE *out)
{
    if (!column)
        return;
    fputc(',', out);
    text_put_csv(out, v < c->spec.n_variants ? c->spec.variants[v].name : "");
}

static void csv_num(double v, FILE *out)
{
    fputc(',', out);
    if (isfinite(v))
        fprintf(out, "%.6g", v);
}

void report_csv(const struct campaign *c, size_t n, FILE *out)
{
    /* CPU's columns, then the first campaign's other metrics, in its registry's order;
     * the other campaigns fill the ones they share. */
    const struct campaign_profile *p0 = &c[0].profile;
    bool variants = c[0].spec.n_variants > 0;
    fputs(variants ? "host,kind,setting,variant,baseline,repeat,runs,cpu_percent,cpu_min,cpu_max"
                   : "host,kind,setting,baseline,repeat,runs,cpu_percent,cpu_min,cpu_max",
          out);
    for (size_t k = 1; k < p0->n_metrics; k++) {
        fputc(',', out);
        text_put_csv(out, p0->metrics[k].key);
    }
    fputc('\n', out);
    const struct metric **col = xcalloc(p0->n_metrics, sizeof(*col));
    for (size_t i = 0; i < n; i++) {
        const char *host = campaign_host(&c[i]);
        for (size_t k = 0; k < p0->n_metrics; k++)
            col[k] = campaign_metric(&c[i], p0->metrics[k].key);
        for (size_t x = 0; x < c[i].n_runs; x++) {
            const struct run_record *run = &c[i].runs[x];
            if (run->status != RUN_OK)
                continue;
            text_put_csv(out, host);
            fputs(",run,", out);
            text_put_csv(out, c[i].spec.values.v[run->setting_index]);
            csv_variant(&c[i], variants, run->variant_index, out);
            fprintf(out, ",%s,%ld,1", run->setting_index == c[i].spec.baseline ? "true" : "false",
                    run->repeat);
            csv_num(metric_read(&c[i], run, col[0]), out);
            fputs(",,", out);
            for (size_t k = 1; k < p0->n_metrics; k++)
                csv_num(col[k] ? metric_read(&c[i], run, col[k]) : NAN, out);
            fputc('\n', out);
        }
        struct setting_summary *st = summary_compute(&c[i]);
        for (size_t ci = 0; ci < campaign_cells(&c[i]); ci++) {
            const struct setting_summary *s = &st[ci];
            text_put_csv(out, host);
            fputs(",setting,", out);
            text_put_csv(out, c[i].spec.values.v[s->cell.setting]);
            csv_variant(&c[i], variants, s->cell.variant, out);
            fprintf(out, ",%s,,%zu", s->cell.setting == c[i].spec.baseline ? "true" : "false",
                    s->runs_ok);
            csv_num(s->cpu->b.median, out);
            csv_num(s->cpu->b.min, out);
            csv_num(s->cpu->b.max, out);
            for (size_t k = 1; k < p0->n_metrics; k++)
                csv_num(col[k] ? s->diff[col[k] - c[i].profile.metrics].b.median : NAN, out);
            fputc('\n', out);
        }
        summary_free(&c[i], st);
    }
    free(col);
}

/* ---- JSON -------------------------------------------------------------------------- */

/* A cell's rows as compare's JSON gives their verdicts: metric, gated, verdict, why,
 * change and its interval (fractions); [] for a reference cell. */
static json_t *cell_verdicts_json(const struct campaign *c, const struct view *v, struct cell x)
{
    json_t *a = json_array();
    char why[1024];
    if (!v->read)
        return a;
    struct verdict_frame f = verdict_frame_of(&v->rd.cells, &v->rd.opts.gate);
    for (size_t i = 0; i < v->rd.cells.n_rows; i++) {
        const struct compare_row *row = &v->rd.cells.rows[i];
        if (!row_of_cell(c, row, x))
            continue;
        verdict_why(row, &f, why, sizeof(why));
        json_array_append_new(
            a, json_pack("{s:s, s:b, s:s, s:s, s:o, s:[o, o]}", "metric", row->metric, "gated",
                         row->gated, "verdict", verdict_word(row), "why", why, "change",
                         json_num_or_null(row->g.change), "ci", json_num_or_null(row->g.lo),
                         json_num_or_null(row->g.hi)));
    }
    return a;
}

/* The gate's verdict of the campaign as compare DIR gives it ({verdict, headline}), null
 * when compare gates nothing there. */
static json_t *gate_json(const struct campaign *c, const struct view *v)
{
    if (!v->read || !v->rd.gate)
        return json_null();
    char why[1024];
    struct verdict_frame f = verdict_frame_of(v->rd.gate, &v->rd.opts.gate);
    verdict_headline(v->rd.gate, &f, c->profile.knob_label, why, sizeof(why));
    return json_pack("{s:s, s:s}", "verdict", verdict_result_word(v->rd.gate), "headline", why);
}

json_t *report_json(const struct campaign *c, size_t n)
{
    json_t *hosts = json_array();
    struct view *v = views(c, n);
    for (size_t i = 0; i < n; i++) {
        const struct campaign *ci = &c[i];
        json_t *settings = json_array();
        for (size_t x = 0; x < campaign_cells(ci); x++) {
            json_t *cell = summary_cell_json(ci, &v[i].st[x], SUMMARY_REPORT);
            json_object_set_new(cell, "verdicts", cell_verdicts_json(ci, &v[i], v[i].st[x].cell));
            json_array_append_new(settings, cell);
        }
        json_t *host =
            json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:s, s:o, s:o}", "host", campaign_host(ci),
                      "results", campaign_where(ci), "fingerprint", "id", campaign_fingerprint(ci),
                      "short", campaign_fingerprint_short(ci), "profile", ci->profile.name, "knob",
                      ci->profile.knob_label, "gate", gate_json(ci, &v[i]), "settings", settings);
        if (ci->tune)
            json_object_set_new(host, "tune", tune_report_json(ci));
        json_array_append_new(hosts, host);
    }
    views_free(c, n, v);
    /* the hosts grouped by fingerprint, in the order first seen: indices into hosts */
    json_t *groups = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *g = NULL;
        size_t k;
        json_t *v;
        json_array_foreach(groups, k, v) {
            if (strcmp(json_string_value(json_object_get(v, "id")),
                       campaign_fingerprint(&c[i])) == 0)
                g = v;
        }
        if (!g) {
            g = json_pack("{s:s, s:s, s:[]}", "id", campaign_fingerprint(&c[i]), "short",
                          campaign_fingerprint_short(&c[i]), "hosts");
            json_array_append_new(groups, g);
        }
        json_array_append_new(json_object_get(g, "hosts"), json_integer((json_int_t)i));
    }
    return json_pack("{s:s, s:f, s:o, s:o}", "schema", "loopbench/report/1", "confidence_level",
                     gate_opts_default().level, "hosts", hosts, "fingerprints", groups);
}
