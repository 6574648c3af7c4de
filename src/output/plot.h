/* Plots of a campaign, drawn by gnuplot run as a child process (never linked): CPU per
 * setting with min-max bars, CPU over time for every run, the trade-off of CPU
 * against a health key, round-trip latency percentiles when an rtt probe ran, and a
 * tune's frontier (the objective against its first guard). The .dat files and the .gp script are always written, so a
 * user can re-render or restyle them (`gnuplot plots.gp` in the plots directory). */
#ifndef LOOPBENCH_PLOT_H
#define LOOPBENCH_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "msg.h"
#include "campaign.h"

/* The images, as names relative to the plots directory, NULL-terminated pairs of
 * alt text and file name (static storage). */
#define PLOT_IMAGES 5
extern const char *const plot_images[];

struct plot_outcome {
    bool rendered;         /* gnuplot ran and exited 0 */
    bool gnuplot_missing;  /* not installed: data and script written, no images */
    bool drawn[PLOT_IMAGES]; /* per image of plot_images: drawn (a plot without data is not) */
};

/* Write r's data files and plots.gp into dir (made if needed), then run
 * `gnuplot plots.gp` there, its output in dir/gnuplot.log. -1 with err when a file
 * cannot be written or gnuplot fails (exit status in the message). */
int plot_campaign(const struct campaign *c, const char *dir, struct plot_outcome *out,
                  struct lb_error *err);

#endif
