/* loopbench report: Markdown, CSV or JSON from one or more result directories. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "emit.h"
#include "compare.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "plot.h"
#include "report.h"
#include "results.h"
#include "util.h"

const char cmd_report_usage[] =
    "usage: loopbench report DIR... [options]\n"
    "\n"
    "Write a campaign's results as a report: a headline computed from the data, the\n"
    "per-setting table (CPU and the profile's health keys, median and range over runs,\n"
    "ratios to the baseline with confidence intervals and significance tests), Mermaid\n"
    "charts that GitHub draws inside a pull request, and a method footnote. Several\n"
    "directories (the same campaign on several hosts) give one\n"
    "table with a column group per host. The report is printed and written to\n"
    "DIR/report.EXT (with several directories: ./report.EXT). The Markdown links plots\n"
    "drawn by gnuplot (SVG and PNG, with their .gp script and .dat files) in plots/ beside\n"
    "the report (one subdirectory per host).\n"
    "\n"
    "  -f, --format md|csv|json   Markdown (default), CSV (a row per run and per\n"
    "                             setting) or JSON (the summary with its statistics)\n"
    "      --title T              the Markdown's title (default: profile and knob)\n"
    "  -o, --out FILE             write the report to FILE instead\n"
    "      --plots DIR            put the plots in DIR (linked as given)\n"
    "      --no-plots             no plots\n"
    "      --no-charts            no Mermaid charts in the Markdown\n"
    "  -h, --help                 show this help\n"
    "\n"
    "exit status: 0 written (also when gnuplot is not installed: a note says so), 1 the\n"
    "report or a plot could not be written, 2 bad usage or unreadable results.\n";

/* The report's formats: the name --format takes, the file's extension, its renderer
 * (0, or -1 with err). Markdown, the first, is the default and the one with plots. */
static int render_markdown(const struct campaign *r, size_t n, const struct report_opts *o,
                           FILE *out, struct lb_error *err)
{
    return report_markdown(r, n, o, out, err);
}

static int render_csv(const struct campaign *r, size_t n, const struct report_opts *o, FILE *out,
                      struct lb_error *err)
{
    (void)o, (void)err;
    report_csv(r, n, out);
    return 0;
}

static int render_json(const struct campaign *r, size_t n, const struct report_opts *o,
                       FILE *out, struct lb_error *err)
{
    (void)o, (void)err;
    emit_json(report_json(r, n), out);
    return 0;
}

static const struct format {
    const char *name, *ext;
    int (*render)(const struct campaign *r, size_t n, const struct report_opts *o, FILE *out,
                  struct lb_error *err);
} formats[] = {
    {"md", "md", render_markdown},
    {"csv", "csv", render_csv},
    {"json", "json", render_json},
};

/* Draw each campaign's plots under plots_dir (a subdirectory per host when several)
 * and list the images for the Markdown, linked under `link` (new strings into
 * images). Returns 0, or -1 after saying why. */
static int draw_plots(const struct campaign *r, size_t n, const char *plots_dir,
                      const char *link, struct strv *images)
{
    for (size_t i = 0; i < n; i++) {
        char *sub = xasprintf("host-%zu", i + 1);
        char *dir = n > 1 ? path_join(plots_dir, sub) : xstrdup(plots_dir);
        char *to = n > 1 ? path_join(link, sub) : xstrdup(link);
        struct plot_outcome po;
        struct lb_error err;
        int rc = plot_campaign(&r[i], dir, &po, &err);
        if (rc < 0)
            msg_error("%s", err.msg);
        else if (po.gnuplot_missing)
            msg_warn("gnuplot is not installed: no images, but the data and plots.gp are in "
                     "'%s' (install gnuplot and run `gnuplot plots.gp` there)", dir);
        for (size_t j = 0; rc == 0 && po.rendered && j < 2 * PLOT_IMAGES; j += 2) {
            if (!po.drawn[j / 2])
                continue;
            strv_push_owned(images, n > 1 ? xasprintf("%s: %s", campaign_host(&r[i]), plot_images[j])
                                          : xstrdup(plot_images[j]));
            strv_push_owned(images, path_join(to, plot_images[j + 1]));
        }
        free(sub);
        free(dir);
        free(to);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* The report as text (new string, caller frees), written through a scratch file
 * (Windows has no open_memstream). NULL with err. */
static char *render(const struct format *f, const struct campaign *r, size_t n,
                    const struct report_opts *o, size_t *len, struct lb_error *err)
{
    FILE *mem = plat_scratch_file(err);
    if (!mem)
        return NULL;
    if (f->render(r, n, o, mem, err) < 0) {
        fclose(mem);
        return NULL;
    }
    return read_back(mem, len, err);
}

int cmd_report(int argc, char **argv)
{
    static const enum cli_option accepts[] = {
        OPT_FORMAT, OPT_TITLE, OPT_OUT, OPT_PLOTS, OPT_NO_PLOTS, OPT_NO_CHARTS, OPT_END};
    struct report_opts o = {.charts = true};
    const struct format *f = &formats[0];
    const char *out_path = NULL, *plots_dir = NULL;
    bool plots = true;
    struct strv images = {0};
    int c;
    while ((c = cli_getopt(argc, argv, accepts)) != -1) {
        switch (c) {
        case OPT_FORMAT:
            f = NULL;
            for (size_t i = 0; i < ARRAY_SIZE(formats) && !f; i++)
                if (strcmp(optarg, formats[i].name) == 0)
                    f = &formats[i];
            if (!f)
                return cli_bad_value("report", c, optarg, "md, csv or json");
            break;
        case OPT_TITLE:
            o.title = optarg;
            break;
        case OPT_OUT:
            out_path = optarg;
            break;
        case OPT_PLOTS:
            plots_dir = optarg;
            break;
        case OPT_NO_PLOTS:
            plots = false;
            break;
        case OPT_NO_CHARTS:
            o.charts = false;
            break;
        default:
            return cli_bad_option("report", argc, argv);
        }
    }
    size_t n = (size_t)(argc - optind);
    if (n == 0)
        return msg_usage_error("report", "report: expected at least one result directory");
    struct campaign_set set = {0};
    struct lb_error err;
    int status = LB_EXIT_USAGE;
    if (campaign_set_load(&set, argv + optind, n, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    struct campaign *r = set.v;
    /* One table needs one profile and knob across hosts. */
    for (size_t i = 1; i < n; i++)
        if (compare_compatible(&r[0], &r[i], &err) < 0) {
            msg_error("%s", err.msg);
            goto out;
        }
    char *name = xasprintf("report.%s", f->ext);
    char *dir = n == 1 ? xstrdup(r[0].out_dir) : xstrdup(".");
    char *path = out_path ? xstrdup(out_path) : path_join(dir, name);
    /* Plots go beside the report, so its relative links work wherever it is moved with
     * them. */
    char *report_dir = path_dirname(path), *default_plots = path_join(report_dir, "plots");
    status = LB_EXIT_OK;
    if (plots && f == &formats[0] &&
        draw_plots(r, n, plots_dir ? plots_dir : default_plots, plots_dir ? plots_dir : "plots",
                   &images) < 0)
        status = LB_EXIT_FAILURE;
    o.images = (const char *const *)images.v;
    size_t len;
    char *text = render(f, r, n, &o, &len, &err);
    if (text)
        fwrite(text, 1, len, stdout);
    if (!text || write_file_atomic(path, text, len, 0644, &err) < 0) {
        msg_error("%s", err.msg);
        status = LB_EXIT_FAILURE;
    } else {
        msg_info("report written to '%s'", path);
    }
    free(path);
    free(dir);
    free(name);
    free(text);
    free(report_dir);
    free(default_plots);
out:
    strv_release(&images);
    campaign_set_release(&set);
    return status;
}
