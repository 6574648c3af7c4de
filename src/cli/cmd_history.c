/* loopbench history: when did it change, over the campaigns a nightly job keeps. */
#include <dirent.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "emit.h"
#include "history.h"
#include "options.h"
#include "platform/platform.h"
#include "results.h"
#include "util.h"
#include "views.h"

const char cmd_history_usage[] =
    "usage: loopbench history DIR... [options]\n"
    "\n"
    "Find when a target's figures changed over a kept history of campaigns: each DIR a\n"
    "campaign (a result directory or its results.json) or a directory holding campaigns\n"
    "(DIR/*/results.json), all of the same profile, ordered by their start time. For each\n"
    "setting x metric (x variant against the base, in campaigns of variants) the series of\n"
    "the campaigns' estimates is cut into segments by binary segmentation, each split\n"
    "tested by permutation. A change of the host's fingerprint (CPU model, CPUs, kernel,\n"
    "virtualization, runner image) starts a new epoch: an environment change, which never\n"
    "fails.\n"
    "\n"
    "      --metric KEY           only KEY: cpu or a health key\n"
    "      --max-p P              chance a history without change shows one, over all its\n"
    "                             series (default 0.05)\n"
    "      --min-magnitude PCT    smallest step that is a change, in percent (default 5)\n"
    "      --min-segment N        fewest campaigns in a segment (default 3), so a single\n"
    "                             spike is no change\n"
    "      --recent N             the splits leaving at most N campaigns after them are\n"
    "                             tested again on their own, at half of max-p, so a change\n"
    "                             in the newest campaigns is found sooner (default 10; 0:\n"
    "                             off)\n"
    EMIT_USAGE
    "\n"
    "exit status: 0 no series' newest segment opens at a change for the worse of the\n"
    "target's own, 1 one does (what a nightly job fails on), 2 bad usage or unreadable or\n"
    "incompatible input.\n";

/* A history of more campaigns than this is refused rather than read whole. */
#define HISTORY_MAX_CAMPAIGNS 10000

static int load_one(char *path, struct campaign_set *l, struct lb_error *err)
{
    if (l->n == HISTORY_MAX_CAMPAIGNS)
        return lb_fail(err, "'%s': more than %d campaigns: expected at most that many", path,
                       HISTORY_MAX_CAMPAIGNS);
    return campaign_set_load(l, &path, 1, err);
}

/* DIR as a campaign (its results.json, or the file itself), else every campaign directly
 * under it. */
static int load_arg(char *arg, struct campaign_set *l, struct lb_error *err)
{
    struct stat st;
    char *json = path_join(arg, "results.json");
    bool is_dir = stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
    bool campaign = !is_dir || access(json, F_OK) == 0;
    free(json);
    if (campaign)
        return load_one(arg, l, err);
    DIR *d = opendir(arg);
    if (!d)
        return lb_fail(err, "cannot open directory '%s'", arg);
    size_t found = 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char *sub = path_join(arg, e->d_name), *sub_json = path_join(sub, "results.json");
        if (access(sub_json, F_OK) == 0) {
            found++;
            rc = load_one(sub, l, err);
        }
        free(sub);
        free(sub_json);
    }
    closedir(d);
    if (rc == 0 && found == 0)
        return lb_fail(err,
                       "'%s' holds no results.json, nor does any directory in it: "
                       "expected a campaign or a directory of campaigns",
                       arg);
    return rc;
}

static int history_result_markdown(const void *result, const void *opts, FILE *out,
                                   struct lb_error *err)
{
    return history_markdown(result, opts, out, err);
}

int cmd_history(int argc, char **argv)
{
    static const enum cli_option accepts[] = {
        OPT_METRIC, OPT_MAX_P, OPT_MIN_MAGNITUDE, OPT_MIN_SEGMENT, OPT_RECENT, OPT_FORMAT,
        OPT_JSON, OPT_END};
    struct history_opts o = {.max_p = HISTORY_MAX_P,
                             .min_magnitude = HISTORY_MIN_MAGNITUDE,
                             .min_segment = HISTORY_MIN_SEGMENT,
                             .recent = HISTORY_RECENT};
    enum cli_format format = CLI_DEFAULT;
    int status = LB_EXIT_OK, c;
    while (status == LB_EXIT_OK && (c = cli_getopt(argc, argv, accepts)) != -1) {
        switch (c) {
        case OPT_METRIC:
            o.metric = optarg;
            break;
        case OPT_MAX_P:
            status = cli_probability("history", c, optarg, &o.max_p);
            break;
        case OPT_MIN_MAGNITUDE:
            status = cli_percent("history", c, optarg, &o.min_magnitude);
            break;
        case OPT_MIN_SEGMENT:
            status = cli_count("history", c, optarg, 2, 1000, "from 2 to 1000", &o.min_segment);
            break;
        case OPT_RECENT:
            status = cli_count("history", c, optarg, 0, 1000, "from 0 (off) to 1000", &o.recent);
            break;
        case OPT_FORMAT:
        case OPT_JSON:
            status = cli_format("history", c, optarg,
                                CLI_FORMATS(CLI_MD) | CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_JSON),
                                &format);
            break;
        default:
            status = cli_bad_option("history", argc, argv);
        }
    }
    if (status != LB_EXIT_OK)
        return status;
    if (optind >= argc)
        return msg_usage_error("history", "history: expected DIR...");
    struct campaign_set l = {0};
    struct history h = {0};
    const struct campaign **order = NULL;
    struct lb_error err;
    status = LB_EXIT_USAGE;
    for (int i = optind; i < argc; i++)
        if (load_arg(argv[i], &l, &err) < 0) {
            msg_error("%s", err.msg);
            goto out;
        }
    order = campaign_set_refs(&l);
    if (history_build(order, l.n, &o, &h, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    format = cli_format_default(format, CLI_MD);
    emit_result(format == CLI_JSON ? history_json(&h, &o) : NULL, format, history_result_markdown,
                &h, &o);
    status = h.fails ? LB_EXIT_FAILURE : LB_EXIT_OK;
out:
    history_release(&h);
    free(order);
    campaign_set_release(&l);
    return status;
}
