/* loopbench compare: the CI regression gate. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "emit.h"
#include "options.h"
#include "pool.h"
#include "results.h"
#include "util.h"
#include "views.h"

const char cmd_compare_usage[] =
    "usage: loopbench compare DIR [options]\n"
    "       loopbench compare BASE... NEW [options]\n"
    "       loopbench compare --pool DIR... [options]\n"
    "\n"
    "With one DIR, a campaign of variants (run --variant): gate each variant against the\n"
    "base (the first) setting by setting, paired round by round, which cancels the host's\n"
    "drift between rounds: what a CI job should run.\n"
    "Gate NEW against BASE (result directories or their results.json): one campaign, or\n"
    "several kept as a history, of the same profile, setting by setting, for CPU and each\n"
    "health key. Campaigns are the unit: with a history NEW is held against the spread\n"
    "between BASE campaigns; with one campaign a side a drift between campaigns is allowed\n"
    "for. A change regresses when it is significant after Holm's correction over every\n"
    "gated comparison (alpha is the chance that a build compared with itself fails) and\n"
    "worse than the threshold; no change when its 90% interval lies within the threshold;\n"
    "inconclusive otherwise, with the smallest change that would be called. A health key\n"
    "the profile marks must_be_zero regresses on any non-zero window in NEW.\n"
    "With --pool, each DIR a campaign of variants from one host (or occasion): each is\n"
    "compared as compare DIR, and their changes pooled by a random-effects model, hosts\n"
    "as the unit, under the same verdicts; with one DIR the verdicts are compare DIR's.\n"
    "\n"
    "      --metric KEY           compare only KEY: cpu or a health key\n"
    "      --primary KEY,...      gate only these keys (default: NEW's campaign's, from\n"
    "                             run --primary or its profile, else every one); the\n"
    "                             others are reported, corrected among themselves, never\n"
    "                             fail\n"
    "      --max-increase PCT     practical threshold in percent (default 10)\n"
    "      --alpha A              chance an A/A gate fails, over the gate (default 0.05)\n"
    "      --drift PCT            drift between campaigns allowed for with one BASE\n"
    "                             (default 18)\n"
    "      --budget KEY@SETTING<=VALUE\n"
    "      --budget KEY@SETTING>=VALUE\n"
    "                             hold NEW's typical value of KEY (cpu: its geometric\n"
    "                             mean, % of a core; a health key: its mean) at SETTING\n"
    "                             to a bound with no base: within, over (fails) or\n"
    "                             inconclusive; repeatable, added to the profile's\n"
    "                             budgets. A campaign of settings is gated by budgets\n"
    "                             alone\n"
    "      --trim                 with one DIR: the trimmed paired t (Yuen), 20% of an\n"
    "                             assignment's rounds from each end once it ran 5, so\n"
    "                             one disturbed round does not set the spread\n"
    "      --fail-on inconclusive an inconclusive gate fails too (exit 3)\n"
    "      --pool                 pool campaigns of the same variants from several hosts\n"
    "      --same-host            BASE and NEW run on hosts of different fingerprints\n"
    "                             (CPU model, CPUs, kernel, virtualization, runner\n"
    "                             image) is an error (exit 2), not a warning\n"
    "      --variant NAME         campaigns of variants: only NAME (against the base\n"
    "                             within one campaign; across campaigns, NAME of BASE\n"
    "                             against NAME of NEW)\n"
    EMIT_USAGE
    "\n"
    "exit status: 0 no regression (improved, no change, or inconclusive) and no budget\n"
    "over, 1 regression or a budget over, 2 bad usage or unreadable or incompatible\n"
    "input (other hosts under --same-host), 3 inconclusive with --fail-on inconclusive.\n";

/* A comparison and the campaigns it read, for emit_result. */
struct compared {
    const struct compare_result *r;
    const struct campaign *const *base;
    const struct campaign *new_;
};

static int compared_markdown(const void *result, const void *opts, FILE *out,
                             struct lb_error *err)
{
    const struct compared *c = result;
    return compare_markdown(c->r, opts, c->base, c->new_, out, err);
}

static int pool_result_markdown(const void *result, const void *opts, FILE *out,
                                struct lb_error *err)
{
    return pool_markdown(result, opts, out, err);
}

/* The exit status of a gate whose worst gated verdict is worst. */
static int gate_status(enum verdict worst, bool fail_inconclusive)
{
    return worst == VERDICT_REGRESSED                              ? LB_EXIT_FAILURE
           : fail_inconclusive && worst == VERDICT_INCONCLUSIVE ? COMPARE_EXIT_INCONCLUSIVE
                                                                : LB_EXIT_OK;
}

/* compare --pool DIR...: n campaigns of variants, one per host, pooled. */
static int compare_pool(int n, char **dirs, struct compare_opts *o, enum cli_format format,
                        bool fail_inconclusive)
{
    struct campaign_set set = {0};
    const struct campaign **c = NULL;
    struct pool_result r = {0};
    struct lb_error err;
    int status = LB_EXIT_USAGE;
    if (campaign_set_load(&set, dirs, (size_t)n, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    c = campaign_set_refs(&set);
    /* the keys the first campaign was run to decide, unless told otherwise: the same for
     * every campaign, so their rows are the same */
    if (!o->primary)
        o->primary = set.v[0].spec.primary;
    if (pool_campaigns(c, set.n, o, &r, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    emit_result(format == CLI_JSON ? pool_json(&r, o) : NULL, format, pool_result_markdown, &r, o);
    status = gate_status(r.worst, fail_inconclusive);
out:
    pool_result_release(&r);
    campaign_set_release(&set);
    free(c);
    return status;
}

/* compare's options into o, budgets (which the caller releases), format,
 * fail_inconclusive, same_host and pool: LB_EXIT_OK, or the status of a usage error after
 * saying why. */
static int options(int argc, char **argv, struct compare_opts *o, struct budget_set *budgets,
                   enum cli_format *format, bool *fail_inconclusive, bool *same_host, bool *pool)
{
    static const enum cli_option accepts[] = {
        OPT_METRIC, OPT_PRIMARY, OPT_VARIANT,   OPT_MAX_INCREASE, OPT_ALPHA,
        OPT_DRIFT,  OPT_FAIL_ON, OPT_SAME_HOST, OPT_BUDGET,       OPT_FORMAT,
        OPT_JSON,   OPT_POOL,    OPT_TRIM,      OPT_END};
    struct lb_error err;
    int status = LB_EXIT_OK, c;
    while (status == LB_EXIT_OK && (c = cli_getopt(argc, argv, accepts)) != -1) {
        switch (c) {
        case OPT_METRIC:
            o->metric = optarg;
            break;
        case OPT_PRIMARY:
            o->primary = optarg;
            break;
        case OPT_VARIANT:
            o->variant = optarg;
            break;
        case OPT_MAX_INCREASE:
            status = cli_percent("compare", c, optarg, &o->gate.threshold);
            break;
        case OPT_DRIFT:
            status = cli_percent("compare", c, optarg, &o->gate.drift);
            break;
        case OPT_ALPHA:
            status = cli_probability("compare", c, optarg, &o->gate.alpha);
            break;
        case OPT_FAIL_ON:
            *fail_inconclusive = strcmp(optarg, "inconclusive") == 0;
            if (!*fail_inconclusive)
                status = cli_bad_value("compare", c, optarg, "inconclusive");
            break;
        case OPT_BUDGET:
            if (budget_parse(optarg, budgets, &err) < 0)
                status = msg_usage_error("compare", "compare: %s", err.msg);
            break;
        case OPT_POOL:
            *pool = true;
            break;
        case OPT_TRIM:
            o->gate.trim = GATE_TRIM;
            break;
        case OPT_SAME_HOST:
            *same_host = true;
            break;
        case OPT_FORMAT:
        case OPT_JSON:
            status = cli_format("compare", c, optarg,
                                CLI_FORMATS(CLI_MD) | CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_JSON),
                                format);
            break;
        default:
            status = cli_bad_option("compare", argc, argv);
        }
    }
    return status;
}

int cmd_compare(int argc, char **argv)
{
    struct compare_opts o = {.gate = gate_opts_default()};
    struct budget_set budgets = {0};
    struct lb_error err;
    enum cli_format format = CLI_DEFAULT;
    bool fail_inconclusive = false, same_host = false, pool = false;
    int parsed = options(argc, argv, &o, &budgets, &format, &fail_inconclusive, &same_host, &pool);
    format = cli_format_default(format, CLI_MD);
    const char *misuse = argc - optind < 1 ? (pool ? "compare: --pool: expected DIR..."
                                                   : "compare: expected DIR, or BASE... and NEW")
                         : pool && same_host ? "compare: --same-host: not with --pool, whose "
                                               "campaigns are of several hosts"
                         : pool && budgets.n ? "compare: --budget: not with --pool (a budget "
                                               "holds one campaign: gate each with compare DIR)"
                                             : NULL;
    if (parsed != LB_EXIT_OK || misuse) {
        budget_set_release(&budgets);
        return parsed != LB_EXIT_OK ? parsed : msg_usage_error("compare", "%s", misuse);
    }
    if (pool)
        return compare_pool(argc - optind, argv + optind, &o, format, fail_inconclusive);
    size_t n_base = (size_t)(argc - optind - 1);
    struct campaign_set set = {0};
    const struct campaign **base = NULL;
    struct compare_result r = {0};
    int status = LB_EXIT_USAGE;
    if (campaign_set_load(&set, argv + optind, n_base + 1, &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    struct campaign *all = set.v;
    base = campaign_set_refs(&set);
    for (size_t i = 0; i < n_base; i++) {
        /* a change of host moves the figures as much as a change of code */
        char *change = compare_host_change(&all[i], &all[n_base], false);
        if (change && same_host) {
            msg_error("compare: --same-host: %s", change);
            free(change);
            goto out;
        }
        if (change)
            msg_warn("compare: %s", change);
        free(change);
        /* held CPUs poll instead of idling: wake-ups cost less, and the ratio moves */
        if (all[i].spec.hold_idle != all[n_base].spec.hold_idle)
            msg_warn("'%s' was run with its CPUs %s out of idle states and '%s' %s: their "
                     "absolute CPU figures, and the ratio, are not comparable (run both with "
                     "--hold-idle or both without)",
                     campaign_where(&all[i]), all[i].spec.hold_idle ? "held" : "not held",
                     campaign_where(&all[n_base]),
                     all[n_base].spec.hold_idle ? "held" : "not held");
    }
    /* the keys NEW's campaign was run to decide, unless told otherwise */
    if (!o.primary)
        o.primary = all[n_base].spec.primary;
    /* NEW's budgets: those asked for, then its profile's */
    if (budget_from_campaign(&all[n_base], &budgets, &err) < 0 ||
        budget_check(&budgets, &all[n_base], &err) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    o.budgets = &budgets;
    /* One directory: its variants against its base, round by round. */
    if ((n_base ? compare_results(base, n_base, &all[n_base], &o, &r, &err)
                : compare_variants(&all[0], &o, &r, &err)) < 0) {
        msg_error("%s", err.msg);
        goto out;
    }
    struct compared c = {&r, base, &all[n_base]};
    emit_result(format == CLI_JSON ? compare_json(&r, &o, all[n_base].profile.knob_label) : NULL,
                format, compared_markdown, &c, &o);
    status = gate_status(r.worst, fail_inconclusive);
out:
    compare_result_release(&r);
    budget_set_release(&budgets);
    campaign_set_release(&set);
    free(base);
    return status;
}
