/* loopbench report: Markdown, CSV or JSON from one or more result directories. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    "Write a campaign's results as a report: a headline computed from the data (the\n"
    "gate's verdict, as compare DIR gives it, for a campaign of variants), the per-setting\n"
    "table (CPU and the profile's health keys, median and range over runs, each change\n"
    "with its interval and verdict), Mermaid charts that GitHub draws inside a pull\n"
    "request, and a method footnote. Several directories (the same campaign on several\n"
    "hosts) give one table with a column group per host. The report goes to standard\n"
    "output; nothing is written unless asked (-o, --plots).\n"
    "\n"
    "  -f, --format FORMAT        md (Markdown for a pull request, links no local file),\n"
    "                             text (for a terminal), csv (a row per run and per\n"
    "                             setting) or json (the summary with its statistics);\n"
    "                             default: text on a terminal, else md, or what -o's\n"
    "                             extension names (.md, .txt, .csv, .json)\n"
    "      --json                 the same as --format json\n"
    "      --title T              the Markdown's title (default: profile and knob)\n"
    "  -o, --output PATH          write the report to PATH instead (- is standard\n"
    "                             output; an existing directory, or PATH ending in /,\n"
    "                             gets report.EXT in it); its directory must exist\n"
    "      --plots DIR            also draw plots with gnuplot into DIR (SVG and PNG,\n"
    "                             with their .gp script and .dat files; one\n"
    "                             subdirectory per host), made in a directory that exists\n"
    "      --no-plots             no plots (the default; undoes --plots)\n"
    "      --no-charts            no Mermaid charts in the Markdown\n"
    "  -h, --help                 show this help\n"
    "\n"
    "exit status: 0 written (also when gnuplot is not installed: a note says so), 1 the\n"
    "report or a plot could not be written, 2 bad usage or unreadable results.\n";

/* The report's formats: the file's extension and its renderer (0, or -1 with err).
 * Markdown is the one a pull request shows; text is it made plain for a terminal. */
static int render_markdown(const struct campaign *r, size_t n, const struct report_opts *o,
                           FILE *out, struct lb_error *err)
{
    return report_markdown(r, n, o, out, err);
}

/* report_markdown, as emit_text calls a writer. */
struct report_input {
    const struct campaign *c;
    size_t n;
};

static int report_writer(const void *result, const void *opts, FILE *out, struct lb_error *err)
{
    const struct report_input *in = result;
    return report_markdown(in->c, in->n, opts, out, err);
}

static int render_text(const struct campaign *r, size_t n, const struct report_opts *o, FILE *out,
                       struct lb_error *err)
{
    struct report_opts plain = *o;
    plain.charts = false;
    return emit_text(report_writer, &(struct report_input){r, n}, &plain, out, err);
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
    enum cli_format format;
    const char *ext;
    int (*render)(const struct campaign *r, size_t n, const struct report_opts *o, FILE *out,
                  struct lb_error *err);
} formats[] = {
    {CLI_MD, "md", render_markdown},
    {CLI_TEXT, "txt", render_text},
    {CLI_CSV, "csv", render_csv},
    {CLI_JSON, "json", render_json},
};

static const struct format *format_of(enum cli_format f)
{
    for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
        if (formats[i].format == f)
            return &formats[i];
    return &formats[0];
}

/* The format a path's extension names, CLI_DEFAULT for none of them. */
static enum cli_format format_of_path(const char *path)
{
    const char *dot = strrchr(path_basename(path), '.');
    for (size_t i = 0; dot && i < ARRAY_SIZE(formats); i++)
        if (strcmp(dot + 1, formats[i].ext) == 0)
            return formats[i].format;
    return CLI_DEFAULT;
}

/* Whether path names a directory to put report.EXT in: one that exists, or a path
 * ending in a separator. */
static bool names_directory(const char *path)
{
    struct stat st;
    size_t len = strlen(path);
    return (len && plat_path_is_separator(path[len - 1])) ||
           (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* Draw each campaign's plots under plots_dir (a subdirectory per host when several).
 * Returns 0, or -1 after saying why. */
static int draw_plots(const struct campaign *r, size_t n, const char *plots_dir)
{
    for (size_t i = 0; i < n; i++) {
        char *sub = xasprintf("host-%zu", i + 1);
        char *dir = n > 1 ? path_join(plots_dir, sub) : xstrdup(plots_dir);
        struct plot_outcome po;
        struct lb_error err;
        int rc = plot_campaign(&r[i], dir, &po, &err);
        if (rc < 0)
            msg_error("%s", err.msg);
        else if (po.gnuplot_missing)
            msg_warn("gnuplot is not installed: no images, but the data and plots.gp are in "
                     "'%s' (install gnuplot and run `gnuplot plots.gp` there)", dir);
        else
            msg_info("plots written to '%s'", dir);
        free(sub);
        free(dir);
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
    static const enum cli_option accepts[] = {OPT_FORMAT, OPT_JSON,     OPT_TITLE,     OPT_OUTPUT,
                                              OPT_PLOTS,  OPT_NO_PLOTS, OPT_NO_CHARTS, OPT_END};
    struct report_opts o = {.charts = true};
    enum cli_format asked = CLI_DEFAULT;
    const char *out_path = NULL, *plots_dir = NULL;
    int c, status = LB_EXIT_OK;
    while (status == LB_EXIT_OK && (c = cli_getopt(argc, argv, accepts)) != -1) {
        switch (c) {
        case OPT_FORMAT:
        case OPT_JSON:
            status = cli_format("report", c, optarg,
                                CLI_FORMATS(CLI_MD) | CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_CSV) |
                                    CLI_FORMATS(CLI_JSON),
                                &asked);
            break;
        case OPT_TITLE:
            o.title = optarg;
            break;
        case OPT_OUTPUT:
            status = cli_output_parent("report", c, optarg, true);
            out_path = optarg;
            break;
        case OPT_PLOTS:
            status = cli_output_parent("report", c, optarg, false);
            plots_dir = optarg;
            break;
        case OPT_NO_PLOTS:
            plots_dir = NULL;
            break;
        case OPT_NO_CHARTS:
            o.charts = false;
            break;
        default:
            status = cli_bad_option("report", argc, argv);
        }
    }
    if (status != LB_EXIT_OK)
        return status;
    size_t n = (size_t)(argc - optind);
    if (n == 0)
        return msg_usage_error("report", "report: expected at least one result directory");
    if (out_path && strcmp(out_path, "-") == 0)
        out_path = NULL;
    bool to_dir = out_path && names_directory(out_path);
    enum cli_format f = asked != CLI_DEFAULT  ? asked
                        : out_path && !to_dir ? format_of_path(out_path)
                        : out_path            ? CLI_MD
                                              : cli_format_default(CLI_DEFAULT, CLI_MD);
    const struct format *fmt = format_of(f == CLI_DEFAULT ? CLI_MD : f);
    struct campaign_set set = {0};
    struct lb_error err;
    status = LB_EXIT_USAGE;
    if (campaign_set_load(&set, argv + optind, n, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    struct campaign *r = set.v;
    /* The Markdown's charts and the plots draw each run's CPU series. */
    for (size_t i = 0; i < n && fmt == format_of(CLI_MD) && (o.charts || plots_dir); i++)
        if (campaign_series_load(&r[i], &err) < 0) {
            msg_error("%s", err.msg);
            goto out;
        }
    /* One table needs one profile and knob across hosts. */
    for (size_t i = 1; i < n; i++)
        if (compare_compatible(&r[0], &r[i], &err) < 0) {
            msg_error("%s", err.msg);
            goto out;
        }
    status = LB_EXIT_OK;
    if (plots_dir && draw_plots(r, n, plots_dir) < 0)
        status = LB_EXIT_FAILURE;
    size_t len;
    char *text = render(fmt, r, n, &o, &len, &err);
    char *name = xasprintf("report.%s", fmt->ext);
    char *path = !out_path ? NULL : to_dir ? path_join(out_path, name) : xstrdup(out_path);
    if (!text) {
        msg_error("%s", err.msg);
        status = LB_EXIT_FAILURE;
    } else if (!path) {
        fwrite(text, 1, len, stdout);
    } else if (write_file_atomic(path, text, len, 0644, &err) < 0) {
        msg_error("%s", err.msg);
        status = LB_EXIT_FAILURE;
    } else {
        msg_info("report written to '%s'", path);
    }
    free(path);
    free(name);
    free(text);
out:
    campaign_set_release(&set);
    return status;
}
