#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "metric.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "stats.h"
#include "summary.h"
#include "text.h"
#include "tune_view.h"
#include "util.h"

const char *const plot_images[] = {
    "CPU per setting", "cpu.svg",
    "CPU over time, every run", "cpu-time.svg",
    "Trade-off: CPU against a health key", "tradeoff.svg",
    "Round-trip latency percentiles", "latency.svg",
    "Which value to run: the objective against the first guard", "frontier.svg",
    NULL, NULL,
};

/* A cell as one word in double quotes, which it may not hold (new string): "2", or
 * "2/head" with variants. The same label in the data files and as a word of the
 * script's `settings`, which gnuplot's word() takes whole (spaces and all) without its
 * quotes; no control character ends a line. */
static char *cell_word(const struct campaign *c, struct cell x)
{
    char *w = c->spec.n_variants ? xasprintf("\"%s/%s\"", c->spec.values.v[x.setting],
                                             c->spec.variants[x.variant].name)
                                 : xasprintf("\"%s\"", c->spec.values.v[x.setting]);
    for (char *p = w + 1; p[1]; p++)
        *p = *p == '"' || *p == '\\' ? '\'' : (unsigned char)*p < ' ' || *p == 0x7f ? ' ' : *p;
    return w;
}

/* cpu.dat: index, cell, median, min, max. Returns the max/min ratio of the values, 0
 * when one is 0 (or none was written): a log scale cannot show them. */
static double write_cpu(const struct campaign *c, FILE *f)
{
    double *v = xcalloc(c->n_runs + 1, sizeof(double));
    double lo = INFINITY, hi = 0;
    fputs("# index setting median min max (CPU % of one core over runs)\n", f);
    for (size_t ci = 0; ci < campaign_cells(c); ci++) {
        struct stats_summary s;
        stats_summarize(v, campaign_cell_values(c, campaign_cell(c, ci), campaign_metric(c, "cpu"), v), &s);
        if (s.n == 0)
            continue;
        char *word = cell_word(c, campaign_cell(c, ci));
        fprintf(f, "%zu ", ci);
        fputs(word, f);
        free(word);
        fprintf(f, " %.6g %.6g %.6g\n", s.median, s.min, s.max);
        lo = fmin(lo, s.min);
        hi = fmax(hi, s.max);
    }
    free(v);
    return lo > 0 && lo < INFINITY ? hi / lo : 0;
}

/* cpu-time.dat: one block per setting (gnuplot's `index`), a blank line between runs:
 * t_s cpu_percent, copied from each run's series (campaign_series_load). Returns the
 * points written (none when the series files were not beside the results.json read). */
static size_t write_cpu_time(const struct campaign *c, FILE *f)
{
    size_t points = 0;
    fputs("# t_s cpu_percent; a block per setting, a blank line between runs\n", f);
    for (size_t ci = 0; ci < campaign_cells(c); ci++) {
        char *word = cell_word(c, campaign_cell(c, ci));
        fprintf(f, "# setting %s\n", word);
        free(word);
        for (size_t i = 0; i < c->n_runs; i++) {
            const struct run_record *r = &c->runs[i];
            if (!run_in_cell(r, campaign_cell(c, ci)) || !r->sampled)
                continue;
            const struct run_series *sr = &r->series;
            for (size_t j = 0; j < sr->n; j++)
                fprintf(f, "%.6g %.6g\n", sr->t[j], sr->cpu[j]);
            if (sr->n)
                fputc('\n', f);
            points += sr->n;
        }
        fputs("\n\n", f);
    }
    return points;
}

/* The health key plotted against CPU: the first duration (peak lag), else the first
 * that has a value; -1 when no run has one (no health line in any window). */
static long tradeoff_key(const struct campaign *c)
{
    long first = -1;
    for (size_t k = 0; k < c->profile.n_health; k++)
        for (size_t i = 0; i < c->n_runs; i++) {
            if (c->runs[i].status != RUN_OK || !isfinite(run_health_mean(c, &c->runs[i], k)))
                continue;
            const char *type = campaign_health_type(c, k);
            if (type && strcmp(type, "duration_ms") == 0)
                return (long)k;
            if (first < 0)
                first = (long)k;
        }
    return first;
}

/* tradeoff.dat: a block per setting, one point per run: cpu_percent health. */
static void write_tradeoff(const struct campaign *c, long k, FILE *f)
{
    fputs("# cpu_percent health; a block per setting, a point per run\n", f);
    for (size_t ci = 0; ci < campaign_cells(c); ci++) {
        char *word = cell_word(c, campaign_cell(c, ci));
        fprintf(f, "# setting %s\n", word);
        free(word);
        for (size_t i = 0; k >= 0 && i < c->n_runs; i++) {
            const struct run_record *r = &c->runs[i];
            double h = run_health_mean(c, r, (size_t)k);
            if (run_in_cell(r, campaign_cell(c, ci)) && r->status == RUN_OK && isfinite(h))
                fprintf(f, "%.6g %.6g\n", metric_read(c, r, campaign_metric(c, "cpu")), h);
        }
        fputs("\n\n", f);
    }
}

/* Each setting's round-trip percentile curve (one block per setting): x is 1/(1-p),
 * so 90, 99 and 99.9 are evenly spaced on a log axis; y in ms. Returns the blocks with
 * data. */
static size_t write_latency(const struct campaign *c, FILE *f)
{
    static const double pct[] = {0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
    size_t drawn = 0;
    if (!c->has_rtt)
        return 0;
    struct setting_summary *st = summary_compute(c);
    for (size_t ci = 0; ci < campaign_cells(c); ci++) {
        const struct histogram *h = &st[ci].rtt;
        char *word = cell_word(c, st[ci].cell);
        fprintf(f, "# setting %s: percentile, 1/(1-p), latency ms\n", word);
        free(word);
        if (histogram_count(h) > 0) {
            drawn++;
            for (size_t k = 0; k < ARRAY_SIZE(pct); k++)
                fprintf(f, "%g %g %.6f\n", pct[k], 1.0 / (1.0 - pct[k] / 100.0),
                        histogram_percentile(h, pct[k]) / 1e6);
        }
        fputs("\n\n", f);
    }
    summary_free(c, st);
    return drawn;
}

/* frontier.dat of a tune (campaign.tune): index 0 a row per setting run, its label, the
 * first guard's figure with its bounds, the objective with its change's 90% interval
 * against the reference (in the objective's unit); index 1 the Pareto frontier by the
 * guard's figure; index 2 the recommended setting; index 3 the guard's limit, a vertical
 * line across the objectives drawn. The names of the axes into axes[2]
 * (new strings). Returns the settings written: 0 when not a tune, or one whose
 * campaign.tune does not check (the report says why). */
static size_t write_frontier(const struct campaign *c, FILE *f, char **axes)
{
    struct tune_judged j;
    struct lb_error e;
    size_t n = 0;
    fputs("# label guard guard_lo guard_hi objective objective_lo objective_hi\n", f);
    if (!c->tune || tune_judge(&j, c, &e) < 0) {
        if (c->tune)
            tune_judged_release(&j);
        return 0;
    }
    const struct tune_result *r = &j.r;
    json_t *answer = tune_ask_answer(&j.a, c, r);
    json_t *rows = json_object_get(answer, "frontier");
    double ref = r->setting[j.a.ref].objective;
    struct front {
        double x, y;
    } *front = xcalloc(r->settings + 1, sizeof(*front));
    size_t fronts = 0, k = 0;
    double low = INFINITY, high = -INFINITY;
    for (size_t s = 0; s < r->settings; s++) {
        const struct tune_setting *st = &r->setting[s];
        const struct tune_check *g = &r->check[s * r->guards];
        if (!st->rounds)
            continue;
        json_t *row = json_array_get(rows, k++); /* json_is_true evaluates it twice */
        bool pareto = json_is_true(json_object_get(row, "pareto"));
        if (!isfinite(g->value) || !isfinite(st->objective))
            continue;
        char *word = cell_word(c, (struct cell){s, 0});
        bool paired = s != j.a.ref && isfinite(st->change_lo) && isfinite(ref);
        fprintf(f, "%s %.6g %.6g %.6g %.6g %.6g %.6g\n", word, g->value,
                isfinite(g->lo) ? g->lo : g->value, isfinite(g->hi) ? g->hi : g->value,
                st->objective, paired ? ref * (1 + st->change_lo) : st->objective,
                paired ? ref * (1 + st->change_hi) : st->objective);
        free(word);
        low = fmin(low, paired ? ref * (1 + st->change_lo) : st->objective);
        high = fmax(high, paired ? ref * (1 + st->change_hi) : st->objective);
        if (pareto)
            front[fronts++] = (struct front){g->value, st->objective};
        n++;
    }
    json_decref(answer);
    /* the frontier from the guard's least figure up */
    for (size_t a = 1; a < fronts; a++)
        for (size_t b = a; b > 0 && front[b].x < front[b - 1].x; b--) {
            struct front t = front[b];
            front[b] = front[b - 1];
            front[b - 1] = t;
        }
    fputs("\n\n# the Pareto frontier: guard objective\n", f);
    for (size_t a = 0; a < fronts; a++)
        fprintf(f, "%.6g %.6g\n", front[a].x, front[a].y);
    fputs("\n\n# the recommended setting: guard objective\n", f);
    if (r->recommended >= 0)
        fprintf(f, "%.6g %.6g\n", r->check[(size_t)r->recommended * r->guards].value,
                r->setting[r->recommended].objective);
    else
        fputs("NaN NaN\n", f);
    fputs("\n\n# the guard's limit: guard objective\n", f);
    double limit = NAN; /* in the figure's terms, as every setting's check has it */
    for (size_t s = 0; s < r->settings && !isfinite(limit); s++)
        limit = r->check[s * r->guards].limit;
    if (n && isfinite(limit))
        fprintf(f, "%.6g %.6g\n%.6g %.6g\n", limit, low, limit, high);
    else
        fputs("NaN NaN\n", f);
    free(front);
    const struct metric *om = campaign_metric(c, j.a.minimize);
    axes[0] = xstrdup(j.a.guard_text[0]);
    axes[1] = xstrdup(om ? om->label : j.a.minimize);
    tune_judged_release(&j);
    return n;
}

static void write_script(const struct campaign *c, double spread, long k,
                         const bool drawn[PLOT_IMAGES], char *const *axes, FILE *f)
{
    fputs("# Written by loopbench report. Re-render in this directory: gnuplot plots.gp\n"
          "# SVG and PNG (pngcairo when this gnuplot has it, else png).\n", f);
    /* Every name from the campaign is data inside a quoted string, whatever it holds:
     * a results.json plotted may come from anywhere, and gnuplot runs system(). */
    char *words = xstrdup("");
    for (size_t ci = 0; ci < campaign_cells(c); ci++) {
        char *word = cell_word(c, campaign_cell(c, ci));
        char *longer = xasprintf("%s%s%s", words, ci ? " " : "", word);
        free(words);
        free(word);
        words = longer;
    }
    fputs("settings = ", f);
    text_put_gnuplot(f, words);
    free(words);
    fputs("\nknob = ", f);
    text_put_gnuplot(f, c->profile.knob_label);
    fputs("\nhealth = ", f);
    text_put_gnuplot(f, k >= 0 ? c->profile.health[k].label : "");
    fputs("\nfrontier_guard = ", f);
    text_put_gnuplot(f, axes[0] ? axes[0] : "");
    fputs("\nfrontier_objective = ", f);
    text_put_gnuplot(f, axes[1] ? axes[1] : "");
    fprintf(f, "\ndraw_time = %d\ndraw_tradeoff = %d\ndraw_latency = %d\ndraw_frontier = %d",
            drawn[1], drawn[2], drawn[3], drawn[4]);
    fprintf(f, "\nhealth_unit = '%s'\nnsettings = %zu\nlogscale = %d\n",
            k >= 0 && strcmp(campaign_health_unit(c, (size_t)k), " ms") == 0 ? " (ms)"
                                                                                       : "",
            campaign_cells(c), spread > 10); /* log scale when the range spans more than 10x */
    fputs("do for [fmt in 'svg png'] {\n"
          "  if (fmt eq 'svg') {\n"
          "    set terminal svg size 800,480 dynamic font 'sans,12' background '#ffffff'\n"
          "  } else {\n"
          "    if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "      set terminal pngcairo size 800,480 font 'sans,11'\n"
          "    } else {\n"
          "      set terminal png size 800,480\n"
          "    }\n"
          "  }\n"
          "  reset\n"
          "  set output 'cpu.'.fmt\n"
          "  set title 'CPU per setting: median, min-max over runs'\n"
          "  set xlabel knob\n"
          "  set ylabel 'CPU (% of one core)'\n"
          "  set grid ytics\n"
          "  set xrange [-0.5:nsettings-0.5]\n"
          "  if (logscale) { set logscale y } else { set yrange [0:*] }\n"
          "  set boxwidth 0.5\n"
          "  set style fill solid 0.4\n"
          "  plot 'cpu.dat' using 1:3:xticlabels(2) with boxes notitle lc rgb '#4472c4', \\\n"
          "       '' using 1:3:4:5 with yerrorbars notitle lc rgb '#1f3864' pt 7\n"
          "  if (draw_time) {\n"
          "  reset\n"
          "  set output 'cpu-time.'.fmt\n"
          "  set title 'CPU over time, one line per run'\n"
          "  set xlabel 'time in the window (s)'\n"
          "  set ylabel 'CPU (% of one core)'\n"
          "  set grid\n"
          "  set key outside right title knob\n"
          "  if (logscale) { set logscale y }\n"
          "  plot for [i=0:nsettings-1] 'cpu-time.dat' index i using 1:2 with linespoints \\\n"
          "       lc i+1 pt 7 ps 0.5 title word(settings, i+1)\n"
          "  }\n"
          "  if (draw_tradeoff) {\n"
          "    reset\n"
          "    set output 'tradeoff.'.fmt\n"
          "    set title 'Trade-off: CPU against '.health.', one point per run'\n"
          "    set xlabel 'CPU (% of one core)'\n"
          "    set ylabel health.health_unit\n"
          "    set grid\n"
          "    set key outside right title knob\n"
          "    if (logscale) { set logscale x }\n"
          "    set yrange [0:*]\n"
          "    set offsets graph 0.05, graph 0.05, graph 0.1, 0\n"
          "    plot for [i=0:nsettings-1] 'tradeoff.dat' index i using 1:2 with points \\\n"
          "         lc i+1 pt 7 ps 1.2 title word(settings, i+1)\n"
          "  }\n"
          "  if (draw_latency) {\n"
          "    reset\n"
          "    set output 'latency.'.fmt\n"
          "    set title 'Round-trip latency: percentiles of all round trips per setting'\n"
          "    set xlabel 'percentile'\n"
          "    set ylabel 'round trip (ms)'\n"
          "    set logscale x\n"
          "    set logscale y\n"
          "    set xtics ('0' 1, '50' 2, '90' 10, '99' 100, '99.9' 1000, '99.99' 10000)\n"
          "    set grid\n"
          "    set key outside right title knob\n"
          "    plot for [i=0:nsettings-1] 'latency.dat' index i using 2:3 with linespoints \\\n"
          "         lc i+1 pt 7 ps 0.6 title word(settings, i+1)\n"
          "  }\n"
          "  if (draw_frontier) {\n"
          "    reset\n"
          "    set output 'frontier.'.fmt\n"
          "    set title 'Which value to run: '.frontier_objective.' against '.frontier_guard\n"
          "    set xlabel frontier_guard.' (bars: its one-sided 95% bounds)'\n"
          "    set ylabel frontier_objective.' (bars: the change against the reference, 90%)'\n"
          "    set grid\n"
          "    set key outside bottom center horizontal\n"
          "    set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n"
          "    stats 'frontier.dat' index 0 using 5 name 'F' nooutput\n"
          "    if (F_min > 0 && F_max > 10 * F_min) { set logscale y; set offsets 0, 0, 0, 0 }\n"
          "    plot 'frontier.dat' index 0 using 2:5:3:4:6:7 with xyerrorbars lc rgb '#1f3864' \\\n"
          "         pt 7 title 'setting', \\\n"
          "         '' index 0 using 2:5:1 with labels offset 1,1 notitle, \\\n"
          "         '' index 1 using 1:2 with lines lw 2 lc rgb '#1E88E5' \\\n"
          "         title 'Pareto frontier', \\\n"
          "         '' index 2 using 1:2 with points pt 3 ps 3 lw 2 lc rgb '#E53935' \\\n"
          "         title 'recommended', \\\n"
          "         '' index 3 using 1:2 with lines dt 2 lw 2 lc rgb '#757575' \\\n"
          "         title 'guard limit'\n"
          "  }\n"
          "  set output\n"
          "}\n",
          f);
}

/* Open dir/name for writing; -1 with err. */
static FILE *open_in(const char *dir, const char *name, struct lb_error *err)
{
    char *path = path_join(dir, name);
    FILE *f = plat_fopen_output(path);
    if (!f)
        lb_fail_errno(err, errno, "cannot write '%s'", path);
    free(path);
    return f;
}

/* Run `gnuplot plots.gp` in dir with its output in gnuplot.log: an argv array, no
 * shell. Returns gnuplot's exit status, 127 when there is no gnuplot to run. The images
 * of an earlier report go first: gnuplot opens its outputs following links, and a
 * campaign made elsewhere may hold one at cpu.svg leading to a file of the user's. */
static int run_gnuplot(const char *dir, struct lb_error *err)
{
    static const char *const images[] = {"cpu", "cpu-time", "tradeoff", "latency", "frontier"};
    static const char *const formats[] = {"svg", "png"};
    for (size_t i = 0; i < ARRAY_SIZE(images); i++)
        for (size_t k = 0; k < ARRAY_SIZE(formats); k++) {
            char *name = xasprintf("%s/%s.%s", dir, images[i], formats[k]);
            if (unlink(name) < 0 && errno != ENOENT) {
                lb_fail_errno(err, errno, "cannot replace '%s'", name);
                free(name);
                return -1;
            }
            free(name);
        }
    char *const argv[] = {"gnuplot", "plots.gp", NULL};
    char *log = path_join(dir, "gnuplot.log");
    int status;
    struct lb_error e;
    int rc = plat_run_program(argv, dir, log, &status, &e);
    free(log);
    if (rc < 0)
        return errno == ENOENT ? 127 : lb_fail(err, "%s", e.msg);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int plot_campaign(const struct campaign *c, const char *dir, struct plot_outcome *out,
                  struct lb_error *err)
{
    out->rendered = out->gnuplot_missing = false;
    bool drawn[PLOT_IMAGES] = {false};
    if (mkdir_p(dir, 0755, err) < 0)
        return -1;
    struct stat st;
    if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
        return lb_fail(err, "'%s' is a symbolic link: plots are written only into a directory "
                            "of the campaign's own", dir);
    long k = tradeoff_key(c);
    double spread = 0;
    size_t completed = 0;
    for (size_t i = 0; i < c->n_runs; i++)
        completed += c->runs[i].status == RUN_OK;
    static const char *const names[] = {"cpu.dat",     "cpu-time.dat", "tradeoff.dat",
                                        "latency.dat", "frontier.dat", "plots.gp"};
    char *axes[2] = {NULL, NULL};
    for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
        FILE *f = open_in(dir, names[i], err);
        if (!f) {
            free(axes[0]);
            free(axes[1]);
            return -1;
        }
        switch (i) {
        case 0: spread = write_cpu(c, f); drawn[0] = completed > 0; break;
        case 1: drawn[1] = write_cpu_time(c, f) > 0; break;
        case 2: write_tradeoff(c, k, f); drawn[2] = k >= 0; break;
        case 3: drawn[3] = write_latency(c, f) > 0; break;
        case 4: drawn[4] = write_frontier(c, f, axes) > 0; break;
        default: write_script(c, spread, k, drawn, axes, f); break;
        }
        if (fclose(f) != 0) {
            free(axes[0]);
            free(axes[1]);
            return lb_fail_errno(err, errno, "cannot write '%s/%s'", dir, names[i]);
        }
    }
    free(axes[0]);
    free(axes[1]);
    if (completed == 0)
        return 0; /* nothing to draw: the data files say so */
    int rc = run_gnuplot(dir, err);
    if (rc < 0)
        return -1;
    if (rc == 127) {
        out->gnuplot_missing = true;
        return 0;
    }
    if (rc != 0)
        return lb_fail(err, "gnuplot exited with status %d: see '%s/gnuplot.log'", rc, dir);
    out->rendered = true;
    memcpy(out->drawn, drawn, sizeof(drawn));
    return 0;
}
