/* Charts as Mermaid `xychart-beta` blocks in Markdown (docs/report.md).
 *
 * GitHub draws a ```mermaid block in a pull request description or comment, where an
 * image file beside the report cannot be shown and no API uploads one. These functions
 * draw from plain numbers (no loopbench result type), so any renderer can call them:
 * each writes one or two fenced blocks to a FILE *, each block followed by a Markdown
 * line saying what its colours or scale mean, blocks separated by a blank line. The
 * caller writes the headings around them.
 *
 * Labels may hold any text: what Mermaid would read as syntax (quotes, '#', '<', '&',
 * a backtick, "%%") is written as Mermaid's entity codes ("#quot;"), which it draws as
 * the character; what Markdown would read in a legend is backslash-escaped. Nothing
 * here prints: -1 fills err when the data cannot make a chart or the stream fails. */
#ifndef LOOPBENCH_MERMAID_H
#define LOOPBENCH_MERMAID_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "msg.h"

/* A bar chart whose largest value is more than this factor above its smallest is also
 * drawn on a log10 scale (mermaid_bars_write). */
#define MERMAID_LOG_SPAN 10.0
/* The most whole steps of a log axis spelt out below its chart. */
#define MERMAID_LOG_STEPS_MAX 12
/* A line holds at most this many points: a window's series is cut into this many slots. */
#define MERMAID_LINE_POINTS_MAX 60
/* Distinct colours of the palette, each named by a coloured square in the legends;
 * more lines than this reuse them in order. */
#define MERMAID_COLOURS 8

/* The settings a chart is drawn over, in campaign order. Borrowed strings. */
struct mermaid_axis {
    const char *knob_label;       /* the knob, titles the axis: "idle wait (ms)" */
    const char *const *settings;  /* n labels: "0", "2", "8" */
    size_t n;
    size_t baseline;              /* index of the baseline, marked "(baseline)";
                                   * MERMAID_NO_BASELINE: none (the axis is not a knob's:
                                   * a history's campaigns, a pool's hosts) */
};
#define MERMAID_NO_BASELINE SIZE_MAX

/* One value per setting, e.g. the median CPU of each setting's runs. Several series
 * (one per variant) share the axis and have a colour each. */
struct mermaid_series {
    const char *name;             /* in the legend when there are several; may be NULL */
    const double *values;         /* axis.n values; NaN: none (drawn as nothing, "-") */
};

struct mermaid_bars {
    struct mermaid_axis axis;
    const char *title;            /* "CPU per setting, median of runs" */
    const char *unit;             /* the value axis: "CPU % of one core" */
    const struct mermaid_series *series;
    size_t n_series;              /* at least 1 */
};

/* One bar per setting on a linear axis from 0, each setting's label carrying its value
 * ("2: 0.870"), so no bar is only as readable as its height. Several series are a line
 * each instead, in the palette's colours, named in a legend below: xychart draws bars of
 * several series on top of one another. When the values span more than
 * MERMAID_LOG_SPAN, a second chart draws log10 of each value: xychart has no log axis,
 * and on a linear one a setting at 1% of the baseline is a bar one pixel tall; equal
 * steps of log10 are equal factors, and the line below says which value each whole
 * step is. -1 when there is no setting or series, the baseline is out of range, or on
 * a write error. */
int mermaid_bars_write(FILE *out, const struct mermaid_bars *chart, struct lb_error *err);

/* A value at a time: t_s seconds after the window's start. */
struct mermaid_point {
    double t_s;
    double value;
};

/* One setting's points: those of all its runs, pooled, in any order. */
struct mermaid_curve {
    const struct mermaid_point *points;
    size_t n;
    size_t runs;                  /* how many runs they come from; 0 counts as 1 */
};

struct mermaid_lines {
    struct mermaid_axis axis;
    const char *title;            /* "CPU over the sample window" */
    const char *unit;             /* "CPU % of one core" */
    const struct mermaid_curve *curves; /* axis.n curves, one per setting */
};

/* One line per setting over the windows' time: the window (the earliest to the latest
 * point of any setting) is cut into as many slots as a run has points, at most
 * MERMAID_LINE_POINTS_MAX, and a setting's line is, in each slot, the median of the
 * points of its runs there (a slot none falls in takes the straight line between its
 * neighbours). xychart draws no legend, so the lines take the palette's colours in
 * order and the legend line below the block names each setting beside the coloured
 * square of its colour. Values that span more than MERMAID_LOG_SPAN are drawn as log10,
 * as for bars. Writes nothing (and returns 0) when the points do not span any time; a
 * setting without points has no line and the legend says so. -1 as
 * mermaid_bars_write. */
int mermaid_lines_write(FILE *out, const struct mermaid_lines *chart, struct lb_error *err);

/* A point of a scatter: its label, its place in the chart's units, how it is drawn. */
enum mermaid_dot_style {
    MERMAID_DOT_PLAIN,
    MERMAID_DOT_FRONT,
    MERMAID_DOT_MARKED,
    MERMAID_DOT_FADED
};
struct mermaid_dot {
    const char *label; /* "4"; written with letters, digits, ' ', '.', '+', '-' and '_' only */
    double x, y;       /* not finite: the dot is left out */
    enum mermaid_dot_style style;
};
struct mermaid_scatter {
    const char *title, *x_name, *y_name; /* "CPU against lag", "lag (ms)", "CPU %" */
    const struct mermaid_dot *dots;
    size_t n;
};

/* The dots as a `quadrantChart` (xychart has no numeric x axis): each axis from its
 * dots' least to their greatest value, which its ends name; MARKED drawn large in red,
 * FRONT in blue, FADED in grey, PLAIN in the default, as the line below says. Writes
 * nothing (0) when fewer than two dots are finite. -1 on a write error. */
int mermaid_scatter_write(FILE *out, const struct mermaid_scatter *chart, struct lb_error *err);

#endif
