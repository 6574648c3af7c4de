/* loopbench compare: the CI regression gate. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "results.h"
#include "util.h"

const char cmd_compare_usage[] =
    "usage: loopbench compare BASE NEW [options]\n"
    "\n"
    "Compare two campaigns of the same profile (result directories or their results.json),\n"
    "setting by setting, for CPU and each health key of the profile. A change is a\n"
    "regression only when it is statistically significant and larger than the threshold;\n"
    "when the runs are too few or too noisy for a change of the threshold's size to have\n"
    "been seen, the verdict is inconclusive, with the runs that would decide it. A health\n"
    "key the profile marks must_be_zero regresses on any non-zero window in NEW.\n"
    "\n"
    "      --metric KEY           compare only KEY: cpu or a health key\n"
    "      --max-increase PCT     practical threshold in percent (default 10)\n"
    "      --alpha A              significance level (default 0.05)\n"
    "      --fail-on inconclusive an inconclusive verdict fails too (exit 1)\n"
    "  -f, --format md|json       output (default md)\n"
    "  -h, --help                 show this help\n"
    "\n"
    "The Markdown is also appended to $GITHUB_STEP_SUMMARY when that is set.\n"
    "\n"
    "exit status: 0 no regression (improved, no change, or inconclusive), 1 regression,\n"
    "2 bad usage or unreadable or incompatible input.\n";

/* GitHub shows the step summary file on the run's page. */
static int append_summary(const char *path, const struct compare_result *r,
                          const struct compare_opts *o, const struct campaign *base,
                          const struct campaign *new_)
{
    FILE *f = fopen(path, "a");
    if (!f)
        return -1;
    int rc = compare_markdown(r, o, base, new_, f, NULL);
    return fclose(f) == 0 ? rc : -1;
}

int cmd_compare(int argc, char **argv)
{
    enum { OPT_METRIC = 256, OPT_MAX_INCREASE, OPT_ALPHA, OPT_FAIL_ON };
    static const struct option longopts[] = {
        {"metric", required_argument, NULL, OPT_METRIC},
        {"max-increase", required_argument, NULL, OPT_MAX_INCREASE},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"fail-on", required_argument, NULL, OPT_FAIL_ON},
        {"format", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    struct compare_opts o = {.max_increase = 0.10, .alpha = 0.05};
    bool json = false, fail_inconclusive = false;
    double d;
    int c;
    while ((c = getopt_long(argc, argv, ":f:", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_METRIC:
            o.metric = optarg;
            break;
        case OPT_MAX_INCREASE:
            if (parse_double(optarg, &d) < 0 || d < 0 || d > 10000)
                return msg_usage_error("compare", "compare: --max-increase '%s': expected a "
                                                  "percentage, 0 or more", optarg);
            o.max_increase = d / 100.0;
            break;
        case OPT_ALPHA:
            if (parse_double(optarg, &d) < 0 || d <= 0 || d >= 1)
                return msg_usage_error("compare", "compare: --alpha '%s': expected a number "
                                                  "between 0 and 1", optarg);
            o.alpha = d;
            break;
        case OPT_FAIL_ON:
            if (strcmp(optarg, "inconclusive") != 0)
                return msg_usage_error("compare", "compare: --fail-on '%s': expected "
                                                  "inconclusive", optarg);
            fail_inconclusive = true;
            break;
        case 'f':
            if (strcmp(optarg, "md") != 0 && strcmp(optarg, "json") != 0)
                return msg_usage_error("compare", "compare: --format '%s': expected md or json",
                                       optarg);
            json = strcmp(optarg, "json") == 0;
            break;
        default:
            return cli_bad_option("compare", argc, argv);
        }
    }
    if (argc - optind != 2)
        return msg_usage_error("compare", "compare: expected BASE and NEW, got %d argument%s",
                               argc - optind, argc - optind == 1 ? "" : "s");
    struct campaign base, new_;
    struct compare_result r = {0};
    struct lb_error err;
    int status = LB_EXIT_USAGE;
    if (results_load(argv[optind], &base, &err) < 0) {
        msg_error("%s", err.msg);
        campaign_release(&base);
        return LB_EXIT_USAGE;
    }
    if (results_load(argv[optind + 1], &new_, &err) < 0 ||
        compare_results(&base, &new_, &o, &r, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    if (json) {
        json_t *doc = compare_json(&r, &o);
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
        fputc('\n', stdout);
        json_decref(doc);
    } else {
        if (compare_markdown(&r, &o, &base, &new_, stdout, &err) < 0)
            msg_warn("%s", err.msg);
    }
    const char *summary = getenv("GITHUB_STEP_SUMMARY");
    if (summary && *summary && append_summary(summary, &r, &o, &base, &new_) < 0)
        msg_warn("cannot append to '%s' ($GITHUB_STEP_SUMMARY)", summary);
    status = r.worst == VERDICT_REGRESSED ||
                     (fail_inconclusive && r.worst == VERDICT_INCONCLUSIVE)
                 ? LB_EXIT_FAILURE
                 : LB_EXIT_OK;
out:
    compare_result_release(&r);
    campaign_release(&base);
    campaign_release(&new_);
    return status;
}
