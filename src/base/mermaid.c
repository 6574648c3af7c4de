#include "mermaid.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "util.h"

/* The colours lines and series take in order, each with the coloured square that names
 * it in a legend (xychart draws no legend of its own). The squares are emoji, drawn in
 * colour wherever GitHub is read; the hex values are close to how they are drawn. */
static const struct colour {
    const char *hex;
    const char *square;
} palette[MERMAID_COLOURS] = {
    {"#1E88E5", "\xF0\x9F\x9F\xA6"}, /* U+1F7E6 blue square */
    {"#FB8C00", "\xF0\x9F\x9F\xA7"}, /* U+1F7E7 orange square */
    {"#43A047", "\xF0\x9F\x9F\xA9"}, /* U+1F7E9 green square */
    {"#E53935", "\xF0\x9F\x9F\xA5"}, /* U+1F7E5 red square */
    {"#8E24AA", "\xF0\x9F\x9F\xAA"}, /* U+1F7EA purple square */
    {"#6D4C41", "\xF0\x9F\x9F\xAB"}, /* U+1F7EB brown square */
    {"#212121", "\xE2\xAC\x9B"},     /* U+2B1B black square */
    {"#FDD835", "\xF0\x9F\x9F\xA8"}, /* U+1F7E8 yellow square */
};

/* A label inside Mermaid's double quotes. A quote would end the string; '#', '&', '<'
 * and '>' would be read as entity codes or HTML; a backtick after the quote opens a
 * Markdown string; "%%" starts a comment or a directive anywhere in the text. Each is
 * written as Mermaid's entity code, which it draws as the character. */
static void put_mermaid_text(FILE *out, const char *s)
{
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            fputs("#quot;", out);
        else if (c == '#')
            fputs("#35;", out);
        else if (c == '&')
            fputs("#amp;", out);
        else if (c == '<')
            fputs("#lt;", out);
        else if (c == '>')
            fputs("#gt;", out);
        else if (c == '`')
            fputs("#96;", out);
        else if (c == '%' && (p[1] == '%' || (p > s && p[-1] == '%')))
            fputs("#37;", out);
        else
            fputc(c < ' ' || c == 0x7f ? ' ' : c, out);
    }
}

/* v with three significant digits and never an exponent, which Mermaid's number syntax
 * lacks: "99.5", "0.870", "1234", "0.00123". */
static void put_figure(FILE *out, double v)
{
    if (v == 0 || !isfinite(v)) {
        fputs("0", out);
        return;
    }
    int decimals = 2 - (int)floor(log10(fabs(v)));
    fprintf(out, "%.*f", decimals < 0 ? 0 : decimals > 9 ? 9 : decimals, v);
}

/* A round axis bound (0, 50, 100, -1, 0.02, 1.2): its digits and no more, never an
 * exponent. The round steps (scale_of) have two significant digits at most. */
static void put_bound(FILE *out, double v)
{
    int decimals = v == 0 ? 0 : (int)ceil(-log10(fabs(v)) - 1e-9) + 2;
    char s[400];
    snprintf(s, sizeof(s), "%.*f", decimals < 0 ? 0 : decimals > 330 ? 330 : decimals, v);
    char *dot = strchr(s, '.');
    if (dot) {
        char *end = s + strlen(s) - 1;
        while (end > dot && *end == '0')
            *end-- = '\0';
        if (end == dot)
            *end = '\0';
    }
    fputs(s, out);
}

/* "2", or "0 (baseline)". */
static void put_setting(FILE *out, const struct mermaid_axis *axis, size_t i,
                        void (*put_text)(FILE *, const char *))
{
    put_text(out, axis->settings[i]);
    if (i == axis->baseline)
        put_text(out, " (baseline)");
}

/* The smallest positive and the largest of n values (NaN and infinities ignored: an axis
 * to infinity has no steps); lo is INFINITY and hi 0 when none is positive. */
static void positive_range(const double *v, size_t n, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            continue;
        if (v[i] > 0 && v[i] < *lo)
            *lo = v[i];
        if (v[i] > *hi)
            *hi = v[i];
    }
}

/* Largest over smallest positive value; 1 when there are none. */
static double value_span(const double *v, size_t n)
{
    double lo, hi;
    positive_range(v, n, &lo, &hi);
    return isfinite(lo) ? hi / lo : 1;
}

/* The value axis: linear from 0 to a round number at or above the largest value (a
 * range from the data would start at the smallest value and draw it as nothing), or
 * log10 between the whole powers of ten around the values. */
struct scale {
    bool log;
    double lo, hi;
};

static struct scale scale_of(const double *v, size_t n, bool log)
{
    double lo, hi;
    positive_range(v, n, &lo, &hi);
    if (!(hi > 0))
        return (struct scale){.log = false, .lo = 0, .hi = 1};
    if (log) {
        struct scale s = {.log = true, .lo = floor(log10(lo)), .hi = ceil(log10(hi))};
        if (s.hi <= s.lo)
            s.hi = s.lo + 1;
        return s;
    }
    double step = pow(10, floor(log10(hi)));
    static const double round_steps[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
    for (size_t i = 0; i < ARRAY_SIZE(round_steps); i++)
        if (isfinite(round_steps[i] * step) && round_steps[i] * step >= hi * (1 - 1e-9))
            return (struct scale){.log = false, .lo = 0, .hi = round_steps[i] * step};
    return (struct scale){.log = false, .lo = 0, .hi = hi};
}

/* A value as drawn: on a log scale, log10, with nothing (NaN, 0) at the axis' foot and
 * an infinity at its top. */
static void put_scaled(FILE *out, const struct scale *s, double v)
{
    if (isinf(v) && v > 0)
        v = s->log ? pow(10, s->hi) : s->hi;
    if (!(v > 0))
        v = s->log ? s->lo : 0;
    else if (s->log)
        v = fmax(log10(v), s->lo);
    put_figure(out, v);
}

/* y-axis "UNIT" 0 --> 100, or "log10 of UNIT" -1 --> 2. */
static void put_value_axis(FILE *out, const struct scale *s, const char *unit)
{
    fputs(s->log ? "    y-axis \"log10 of " : "    y-axis \"", out);
    put_mermaid_text(out, unit);
    fputs("\" ", out);
    put_bound(out, s->lo);
    fputs(" --> ", out);
    put_bound(out, s->hi);
    fputs("\n", out);
}

/* Below a log chart, what each whole step of its axis is: the axis' title has no room
 * for it. "(2 = 100, 1 = 10, 0 = 1, -1 = 0.1)"; past MERMAID_LOG_STEPS_MAX steps (values
 * from results.json can span 600 powers of ten), the top and the foot only. */
static void put_log_steps(FILE *out, const struct scale *s)
{
    if (s->hi - s->lo >= MERMAID_LOG_STEPS_MAX) {
        fprintf(out, "(%.0f = %g, ..., %.0f = %g)", s->hi, pow(10, s->hi), s->lo, pow(10, s->lo));
        return;
    }
    const char *sep = "(";
    for (double e = s->hi; e >= s->lo; e--) {
        fprintf(out, "%s%.0f = %g", sep, e, pow(10, e));
        sep = ", ";
    }
    fputs(")", out);
}

/* The fence, the palette (first colour first), the chart type and its title. Bar charts
 * are horizontal, with the settings down the side: their labels carry values, and ten
 * of them side by side under vertical bars overlap. Their height follows the count of
 * bars, so three are not fat and ten not thin. */
static void open_block(FILE *out, size_t bars, const char *title, const char *title_suffix)
{
    fputs("```mermaid\n%%{init: {", out);
    if (bars)
        fprintf(out, "\"xyChart\": {\"height\": %zu}, ", 150 + 35 * (bars < 12 ? bars : 12));
    fputs("\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"", out);
    for (size_t i = 0; i < MERMAID_COLOURS; i++)
        fprintf(out, "%s%s", i ? ", " : "", palette[i].hex);
    fprintf(out, "\"}}}}%%%%\nxychart-beta%s\n    title \"", bars ? " horizontal" : "");
    put_mermaid_text(out, title);
    put_mermaid_text(out, title_suffix);
    fputs("\"\n", out);
}

static int check_axis(const struct mermaid_axis *axis, struct lb_error *err)
{
    if (axis->n == 0)
        return lb_fail(err, "a chart needs at least one setting");
    if (axis->baseline >= axis->n && axis->baseline != MERMAID_NO_BASELINE)
        return lb_fail(err, "the baseline (%zu) is not one of the chart's %zu settings",
                       axis->baseline, axis->n);
    return 0;
}

static int check_written(FILE *out, struct lb_error *err)
{
    return fflush(out) != 0 || ferror(out) ? lb_fail(err, "cannot write the chart") : 0;
}

/* "🟦 0 (baseline) · 🟧 2": the colour of each name, in order. */
static void put_colour_legend(FILE *out, size_t i, const char *sep)
{
    fprintf(out, "%s%s ", sep, palette[i % MERMAID_COLOURS].square);
}

/* One bar chart of every series on scale s. */
static void put_bar_chart(FILE *out, const struct mermaid_bars *c, const struct scale *s,
                          const char *title_suffix)
{
    open_block(out, c->n_series == 1 ? c->axis.n : 0, c->title, title_suffix);
    fputs("    x-axis \"", out);
    put_mermaid_text(out, c->axis.knob_label);
    fputs("\" [", out);
    for (size_t i = 0; i < c->axis.n; i++) {
        fputs(i ? ", \"" : "\"", out);
        put_setting(out, &c->axis, i, put_mermaid_text);
        /* With one series the value is in the label: readable at any bar height. */
        if (c->n_series == 1) {
            fputs(": ", out);
            if (isnan(c->series[0].values[i]))
                fputs("-", out);
            else
                put_figure(out, c->series[0].values[i]);
        }
        fputs("\"", out);
    }
    fputs("]\n", out);
    put_value_axis(out, s, c->unit);
    for (size_t k = 0; k < c->n_series; k++) {
        /* xychart draws bars of several series on top of one another, the taller hiding
         * the shorter: several series are lines, which hide nothing. */
        fputs(c->n_series > 1 ? "    line " : "    bar ", out);
        if (c->series[k].name) {
            fputs("\"", out);
            put_mermaid_text(out, c->series[k].name);
            fputs("\" ", out);
        }
        for (size_t i = 0; i < c->axis.n; i++) {
            fputs(i ? ", " : "[", out);
            put_scaled(out, s, c->series[k].values[i]);
        }
        fputs("]\n", out);
    }
    fputs("```\n", out);
}

/* Below a chart: the series' colours when there are several, and the log scale. */
static void put_bars_legend(FILE *out, const struct mermaid_bars *c, const struct scale *s)
{
    if (c->n_series > 1) {
        for (size_t k = 0; k < c->n_series; k++) {
            put_colour_legend(out, k, k ? " \xC2\xB7 " : "");
            text_put_markdown(out, c->series[k].name ? c->series[k].name : "");
        }
        fputs("\n", out);
    }
    if (s->log) {
        fputs("Log scale: each bar is log10 of its value ", out);
        put_log_steps(out, s);
        fputs(", so equal steps are equal factors and the small values stay visible; the "
              "labels give the values.\n", out);
    }
}

int mermaid_bars_write(FILE *out, const struct mermaid_bars *chart, struct lb_error *err)
{
    if (check_axis(&chart->axis, err) < 0)
        return -1;
    if (chart->n_series == 0)
        return lb_fail(err, "a bar chart needs at least one series");
    size_t n = chart->axis.n * chart->n_series;
    double *all = xmalloc(n * sizeof(*all));
    for (size_t k = 0; k < chart->n_series; k++)
        memcpy(all + k * chart->axis.n, chart->series[k].values,
               chart->axis.n * sizeof(*all));
    struct scale linear = scale_of(all, n, false), log = scale_of(all, n, true);
    bool spans = value_span(all, n) > MERMAID_LOG_SPAN;
    free(all);
    put_bar_chart(out, chart, &linear, "");
    put_bars_legend(out, chart, &linear);
    if (spans) {
        fputs("\n", out);
        put_bar_chart(out, chart, &log, ", log10 scale");
        put_bars_legend(out, chart, &log);
    }
    return check_written(out, err);
}

/* The slots of the time axis: count of them, from t0, step apart (a slot is centred on
 * its time, so the first and last points of the window have a slot each). */
struct slots {
    size_t count;
    double t0, step;
};

static bool slots_of(const struct mermaid_lines *c, struct slots *sl)
{
    double lo = INFINITY, hi = -INFINITY;
    size_t most = 0;
    for (size_t i = 0; i < c->axis.n; i++) {
        const struct mermaid_curve *curve = &c->curves[i];
        for (size_t j = 0; j < curve->n; j++) {
            lo = fmin(lo, curve->points[j].t_s);
            hi = fmax(hi, curve->points[j].t_s);
        }
        /* As many slots as a run has points, so that each slot holds one of every run. */
        size_t per_run = (curve->n + (curve->runs ? curve->runs : 1) - 1) /
                         (curve->runs ? curve->runs : 1);
        if (per_run > most)
            most = per_run;
    }
    if (!(hi > lo) || !isfinite(hi - lo))
        return false;
    sl->count = most < 2 ? 2 : most > MERMAID_LINE_POINTS_MAX ? MERMAID_LINE_POINTS_MAX : most;
    sl->t0 = lo;
    sl->step = (hi - lo) / (double)(sl->count - 1);
    return true;
}

struct slotted {
    size_t slot;
    double value;
};

static int by_slot_then_value(const void *a, const void *b)
{
    const struct slotted *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

/* A slot none of the points fell in: the straight line between the filled slots on
 * either side, or the nearest one at either end. */
static void fill_gaps(double *line, size_t count)
{
    size_t prev = count;
    for (size_t k = 0; k < count; k++) {
        if (isnan(line[k]))
            continue;
        for (size_t g = prev == count ? 0 : prev + 1; g < k; g++)
            line[g] = prev == count ? line[k]
                                    : line[prev] + (line[k] - line[prev]) *
                                                       (double)(g - prev) / (double)(k - prev);
        prev = k;
    }
    for (size_t g = prev + 1; prev < count && g < count; g++)
        line[g] = line[prev];
}

/* One setting's line: in each slot the median of the points there; all NaN when the
 * setting has no point. */
static void line_of(const struct mermaid_curve *curve, const struct slots *sl, double *line)
{
    for (size_t k = 0; k < sl->count; k++)
        line[k] = NAN;
    size_t n = 0;
    struct slotted *pts = xmalloc((curve->n ? curve->n : 1) * sizeof(*pts));
    for (size_t j = 0; j < curve->n; j++) {
        const struct mermaid_point *p = &curve->points[j];
        if (!isfinite(p->t_s) || !isfinite(p->value))
            continue;
        double at = floor((p->t_s - sl->t0) / sl->step + 0.5);
        pts[n++] = (struct slotted){.slot = at < 0 ? 0 : at >= (double)sl->count ? sl->count - 1
                                                                                   : (size_t)at,
                                    .value = p->value};
    }
    qsort(pts, n, sizeof(*pts), by_slot_then_value);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a; b < n && pts[b].slot == pts[a].slot; b++)
            ;
        size_t m = a + (b - a) / 2;
        line[pts[a].slot] = (b - a) % 2 ? pts[m].value : (pts[m - 1].value + pts[m].value) / 2;
    }
    free(pts);
    if (n)
        fill_gaps(line, sl->count);
}

static void put_lines_legend(FILE *out, const struct mermaid_lines *c, const double *lines,
                             const struct slots *sl, const struct scale *s)
{
    size_t drawn = 0;
    for (size_t i = 0; i < c->axis.n; i++) {
        if (isnan(lines[i * sl->count])) {
            fputs(i ? " \xC2\xB7 " : "", out);
        } else {
            put_colour_legend(out, drawn++, i ? " \xC2\xB7 " : "");
        }
        put_setting(out, &c->axis, i, text_put_markdown);
        if (isnan(lines[i * sl->count]))
            fputs(" (no points)", out);
    }
    fprintf(out, "  \nEach line is a setting: in each of %zu slots of the window, the median "
            "of its runs' points there.%s", sl->count,
            drawn > MERMAID_COLOURS ? " Colours repeat after the eighth line." : "");
    if (s->log) {
        fputs(" Log scale: log10 of each value ", out);
        put_log_steps(out, s);
        fputs(", so equal steps are equal factors.", out);
    }
    fputs("\n", out);
}

int mermaid_lines_write(FILE *out, const struct mermaid_lines *chart, struct lb_error *err)
{
    if (check_axis(&chart->axis, err) < 0)
        return -1;
    struct slots sl;
    if (!slots_of(chart, &sl))
        return 0;
    size_t n = chart->axis.n * sl.count;
    double *lines = xmalloc(n * sizeof(*lines));
    for (size_t i = 0; i < chart->axis.n; i++)
        line_of(&chart->curves[i], &sl, lines + i * sl.count);
    struct scale s = scale_of(lines, n, value_span(lines, n) > MERMAID_LOG_SPAN);

    open_block(out, 0, chart->title, s.log ? ", log10 scale" : "");
    fputs("    x-axis \"seconds into the window\" ", out);
    put_figure(out, sl.t0);
    fputs(" --> ", out);
    put_figure(out, sl.t0 + sl.step * (double)(sl.count - 1));
    fputs("\n", out);
    put_value_axis(out, &s, chart->unit);
    for (size_t i = 0; i < chart->axis.n; i++) {
        const double *line = lines + i * sl.count;
        if (isnan(line[0]))
            continue;
        fputs("    line \"", out);
        put_setting(out, &chart->axis, i, put_mermaid_text);
        fputs("\" ", out);
        for (size_t k = 0; k < sl.count; k++) {
            fputs(k ? ", " : "[", out);
            put_scaled(out, &s, line[k]);
        }
        fputs("]\n", out);
    }
    fputs("```\n", out);
    put_lines_legend(out, chart, lines, &sl, &s);
    free(lines);
    return check_written(out, err);
}

/* A quadrantChart point's label: its grammar takes no quoted string, so only what it
 * reads as text is kept. */
static void put_dot_label(FILE *out, const char *s)
{
    size_t n = 0;
    for (const char *p = s; *p && n < 40; p++, n++) {
        char c = *p;
        bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == ' ' || c == '.' || c == '+' || c == '-' || c == '_';
        fputc(kept ? c : '_', out);
    }
    if (n == 0)
        fputc('_', out);
}

/* Where v falls between lo and hi, from 0.05 to 0.95 (the middle when they are one). */
static double dot_place(double v, double lo, double hi)
{
    return hi > lo ? 0.05 + 0.9 * (v - lo) / (hi - lo) : 0.5;
}

int mermaid_scatter_write(FILE *out, const struct mermaid_scatter *c, struct lb_error *err)
{
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    size_t finite = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct mermaid_dot *d = &c->dots[i];
        if (!isfinite(d->x) || !isfinite(d->y))
            continue;
        finite++;
        xlo = fmin(xlo, d->x);
        xhi = fmax(xhi, d->x);
        ylo = fmin(ylo, d->y);
        yhi = fmax(yhi, d->y);
    }
    if (finite < 2)
        return 0;
    static const char *const style[] = {[MERMAID_DOT_PLAIN] = "",
                                        [MERMAID_DOT_FRONT] = " radius: 6, color: #1E88E5",
                                        [MERMAID_DOT_MARKED] = " radius: 10, color: #E53935",
                                        [MERMAID_DOT_FADED] = " radius: 4, color: #9E9E9E"};
    fputs("```mermaid\nquadrantChart\n    title ", out);
    put_dot_label(out, c->title);
    fputs("\n    x-axis \"", out);
    put_mermaid_text(out, c->x_name);
    fputc(' ', out);
    put_figure(out, xlo);
    fputs("\" --> \"", out);
    put_figure(out, xhi);
    fputs("\"\n    y-axis \"", out);
    put_mermaid_text(out, c->y_name);
    fputc(' ', out);
    put_figure(out, ylo);
    fputs("\" --> \"", out);
    put_figure(out, yhi);
    fputs("\"\n", out);
    for (size_t i = 0; i < c->n; i++) {
        const struct mermaid_dot *d = &c->dots[i];
        if (!isfinite(d->x) || !isfinite(d->y))
            continue;
        fputs("    point ", out);
        put_dot_label(out, d->label);
        fprintf(out, ": [%.3f, %.3f]%s\n", dot_place(d->x, xlo, xhi), dot_place(d->y, ylo, yhi),
                style[d->style]);
    }
    fputs("```\n\n", out);
    return check_written(out, err);
}
