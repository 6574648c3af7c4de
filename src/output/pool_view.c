/* compare --pool presented: the pooled table, each CPU comparison by host with its chart,
 * as Markdown, and the JSON (src/analysis/pool.c computes them). */
#include "views.h"

#include <math.h>
#include <string.h>

#include "mermaid.h"
#include "text.h"
#include "util.h"
#include "verdict.h"

/* A figure on the scale tested as a fraction: the change a log ratio stands for. */
static double as_fraction(bool log_scale, double x)
{
    return log_scale ? expm1(x) : x;
}

/* "setting" or "setting variant" (new string). */
static char *row_name(const struct compare_row *row)
{
    return xasprintf("%s%s%s", row->setting, row->variant ? " " : "",
                     row->variant ? row->variant : "");
}

/* Why a pooled row got its verdict, into buf. */
static void pool_why(const struct pool_row *pr, const struct compare_opts *o, char *buf, size_t len)
{
    const struct verdict_frame f = {
        0, 0, &o->gate,
        pr->re.mixed_scales ? "some campaigns compared it on logs and some on differences: "
                              "not pooled"
                            : "no campaign could test it"};
    /* a campaign's saturation is its own: the by-host table names it */
    struct compare_row row = pr->row;
    row.saturated = NULL;
    verdict_why(&row, &f, buf, len);
    size_t l = strlen(buf);
    if (pr->row.g.tested && pr->re.k == 1)
        snprintf(buf + l, len - l, "%sone campaign tested it", l ? "; " : "");
}

/* The pool's rows as compare's result, for the headline (rows borrowed: a new array). */
static struct compare_result as_compare_result(const struct pool_result *r)
{
    struct compare_result c = {.n_rows = r->n_rows, .worst = r->worst};
    c.rows = xcalloc(r->n_rows + 1, sizeof(*c.rows));
    for (size_t i = 0; i < r->n_rows; i++) {
        c.rows[i] = r->rows[i].row;
        c.rows[i].saturated = NULL; /* the first campaign's, not the pool's */
    }
    return c;
}

/* The pool's headline reason into buf. */
static void pool_headline(const struct pool_result *r, const struct compare_opts *o, char *buf,
                          size_t len)
{
    struct compare_result c = as_compare_result(r);
    const struct verdict_frame f = {0, 0, &o->gate, "no campaign could test it"};
    verdict_headline(&c, &f, r->campaigns[0]->profile.knob_label, buf, len);
    free(c.rows);
}

/* The pooled row's tau and prediction interval as text. */
static void fmt_spread(const struct pool_row *pr, char *tau, size_t tlen, char *pi, size_t plen)
{
    char lo[32], hi[32];
    bool logs = pr->row.g.log_scale;
    if (pr->re.k < 2 || isnan(pr->re.tau2)) {
        snprintf(tau, tlen, "-");
        snprintf(pi, plen, "-");
        return;
    }
    fmt_change(as_fraction(logs, sqrt(pr->re.tau2)), tau, tlen);
    if (pr->re.k < 3)
        snprintf(pi, plen, "needs 3 hosts");
    else
        snprintf(pi, plen, "%s to %s",
                 fmt_change(as_fraction(logs, pr->re.pi_lo), lo, sizeof(lo)),
                 fmt_change(as_fraction(logs, pr->re.pi_hi), hi, sizeof(hi)));
}

/* "hostname (fingerprint's short name) `dir`": a campaign as its rows name it, for
 * Markdown (new string). */
static char *host_label(const struct campaign *c)
{
    char *name = xasprintf("%s (%s)", campaign_host(c), campaign_fingerprint_short(c));
    char *h = text_markdown(name), *w = text_code(campaign_where(c));
    char *s = xasprintf("%s %s", h, w);
    free(name);
    free(h);
    free(w);
    return s;
}

/* The changes of one CPU comparison by campaign beside the pooled one, as ratios (a bar
 * from 0; 1 is no change), each bar's label its value. */
static int host_chart(const struct pool_result *r, const struct pool_row *pr, FILE *out,
                      struct lb_error *err)
{
    char **names = xcalloc(r->k + 2, sizeof(*names));
    double *ratio = xcalloc(r->k + 2, sizeof(double));
    size_t bars = 0;
    for (size_t c = 0; c < r->k; c++) { /* numbered: campaigns of one host share its name */
        if (!pr->host[c])
            continue;
        names[bars] = xasprintf("%zu %s", c + 1, campaign_host(r->campaigns[c]));
        ratio[bars++] = 1.0 + pr->host[c]->g.change;
    }
    names[bars] = xstrdup("pooled");
    ratio[bars] = 1.0 + pr->row.g.change;
    char *title = row_name(&pr->row);
    char *full = xasprintf("CPU head / base at %s, by host", title);
    const struct mermaid_series series[] = {{NULL, ratio}};
    struct mermaid_bars chart = {{"host", (const char *const *)names, bars + 1,
                                  MERMAID_NO_BASELINE}, full,
                                 "ratio (1 = no change)", series, 1};
    fputc('\n', out);
    int rc = mermaid_bars_write(out, &chart, err);
    free(title);
    free(full);
    for (size_t c = 0; c <= bars; c++)
        free(names[c]);
    free(names);
    free(ratio);
    return rc;
}

/* Each CPU comparison host by host: its campaign's own verdict, the pooled row, the
 * prediction for a new host, and the chart. */
static int by_host(const struct pool_result *r, const struct pool_row *pr, double level,
                   FILE *out, struct lb_error *err)
{
    char ch[96], tau[32], pi[64];
    char *name = row_name(&pr->row), *shown = text_markdown(name);
    fprintf(out, "\n#### CPU at %s, by host\n\n| host | rounds | change (%.0f%% CI) | verdict |\n"
                 "|---|--:|--:|---|\n",
            shown, level * 100);
    free(name);
    free(shown);
    for (size_t c = 0; c < r->k; c++) {
        const struct compare_row *row = pr->host[c];
        char *host = host_label(r->campaigns[c]);
        if (row) {
            compare_fmt_interval(&row->g, ch, sizeof(ch));
            fprintf(out, "| %s | %zu | %s | %s |\n", host, row->g.n, ch, verdict_word(row));
        } else
            fprintf(out, "| %s | - | not recorded | - |\n", host);
        free(host);
    }
    compare_fmt_interval(&pr->row.g, ch, sizeof(ch));
    fmt_spread(pr, tau, sizeof(tau), pi, sizeof(pi));
    fprintf(out,
            "| **pooled** (%zu hosts) | - | %s | **%s** |\n| a new host (%.0f%% prediction) "
            "| - | %s | - |\n\nBetween hosts tau %s.\n",
            pr->re.k, ch, verdict_word(&pr->row), level * 100, pi, tau);
    return pr->row.g.log_scale ? host_chart(r, pr, out, err) : 0;
}

int pool_markdown(const struct pool_result *r, const struct compare_opts *o, FILE *out,
                  struct lb_error *err)
{
    char ch[96], p[32], pa[32], th[32], tau[32], pi[64], why[1024];
    size_t tested = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        tested += r->rows[i].row.gated && r->rows[i].row.g.tested;
    const struct campaign *first = r->campaigns[0];
    char *profile = text_code(first->profile.name), *base = text_code(first->spec.variants[0].name);
    pool_headline(r, o, why, sizeof(why));
    fprintf(out, "### loopbench compare --pool: %s\n\n", verdict_name(r->worst));
    text_put_markdown(out, why);
    fprintf(out, ".\n\n%zu campaigns of profile %s pooled, hosts as the unit: ", r->k, profile);
    free(profile);
    for (size_t c = 0; c < r->k; c++) {
        char *host = host_label(r->campaigns[c]);
        fprintf(out, "%s%s", c ? ", " : "", host);
        free(host);
    }
    fprintf(out, ". In each, every variant against %s, paired round by round (compare DIR); "
                 "their changes pooled by a random-effects model (the hosts' variances "
                 "moderated, between-host variance by Paule-Mandel, interval by "
                 "Hartung-Knapp-Sidik-Jonkman, t with hosts - 1 df). A regression is worse "
                 "than %s and significant after Holm's correction over the %zu gated "
                 "comparisons: pooling a build with itself fails with a chance of at most "
                 "%g.\n\n",
            base, fmt_change(o->gate.threshold, th, sizeof(th)), tested, o->gate.alpha);
    free(base);
    char *knob = text_markdown(first->profile.knob_label);
    fprintf(out, "| %s | metric | hosts | change (%.0f%% CI) | tau | a new host (%.0f%% PI) | p "
                 "| p worse, Holm | verdict | note |\n|---|---|--:|--:|--:|--:|--:|--:|---|---|\n",
            knob, o->gate.level * 100, o->gate.level * 100);
    free(knob);
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct pool_row *pr = &r->rows[i];
        char *cell = row_name(&pr->row);
        char *name = text_markdown(cell), *label = text_markdown(pr->row.label);
        compare_fmt_interval(&pr->row.g, ch, sizeof(ch));
        fmt_spread(pr, tau, sizeof(tau), pi, sizeof(pi));
        fprintf(out, "| %s | %s | %zu | %s | %s | %s | %s | %s | **%s** | ", name, label, pr->re.k,
                ch, tau, pi, fmt_p(pr->row.g.p, p, sizeof(p)),
                fmt_p(pr->row.g.p_adjusted, pa, sizeof(pa)), verdict_word(&pr->row));
        pool_why(pr, o, why, sizeof(why));
        verdict_power(&pr->row, why, sizeof(why));
        text_put_markdown(out, why);
        fputs(" |\n", out);
        free(cell);
        free(name);
        free(label);
    }
    fputs("\nEach campaign's change is its paired mean of log ratios (or difference relative "
          "to base for keys that can be 0) with its standard error, as compare DIR gives them; "
          "the hosts' variances are moderated toward each other (by how far they differ "
          "beyond what their rounds allow) before they weigh the hosts. tau is the spread of "
          "the true change between hosts; the prediction interval is where the change on a "
          "new host of the same kind falls "
          "(t with hosts - 2 df, so it needs 3 hosts). Verdicts as compare DIR's: "
          "*regressed* significant toward harm after the correction and worse than the "
          "threshold, *improved* the same toward benefit, *no change* the 90% interval within "
          "the threshold, *inconclusive* neither.\n", out);
    for (size_t i = 0; i < r->n_rows; i++)
        if (strcmp(r->rows[i].row.metric, "cpu") == 0 &&
            by_host(r, &r->rows[i], o->gate.level, out, err) < 0)
            return -1;
    return 0;
}

/* [lo, hi] of a fraction's interval, as compare's JSON writes it ([null, null] untested). */
static json_t *json_interval(double lo, double hi)
{
    return json_pack("[o, o]", json_num_or_null(lo), json_num_or_null(hi));
}

json_t *pool_json(const struct pool_result *r, const struct compare_opts *o)
{
    json_t *hosts = json_array(), *rows = json_array();
    for (size_t c = 0; c < r->k; c++)
        json_array_append_new(
            hosts, json_pack("{s:s, s:s, s:s, s:s, s:s}", "host", campaign_host(r->campaigns[c]),
                             "fingerprint", campaign_fingerprint(r->campaigns[c]),
                             "fingerprint_short", campaign_fingerprint_short(r->campaigns[c]),
                             "dir", campaign_where(r->campaigns[c]), "verdict",
                             verdict_name(r->each[c].worst)));
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct pool_row *pr = &r->rows[i];
        const struct gate_result *g = &pr->row.g;
        bool logs = g->log_scale;
        json_t *per_host = json_array();
        for (size_t c = 0; c < r->k; c++) {
            if (!pr->host[c]) { /* that campaign did not record the metric */
                json_array_append_new(per_host, json_null());
                continue;
            }
            const struct gate_result *h = &pr->host[c]->g;
            json_array_append_new(
                per_host,
                json_pack("{s:s, s:I, s:o, s:o, s:s}", "host", campaign_host(r->campaigns[c]),
                          "rounds", (json_int_t)h->n, "change", json_num_or_null(h->change), "ci",
                          json_interval(h->lo, h->hi), "verdict", verdict_word(pr->host[c])));
        }
        json_t *row = json_pack("{s:s}", "setting", pr->row.setting);
        if (pr->row.variant)
            json_object_set_new(row, "variant", json_string(pr->row.variant));
        json_object_update_new(
            row,
            json_pack("{s:s, s:b, s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
                      "s:s, s:o}",
                      "metric", pr->row.metric, "gated", pr->row.gated, "hosts",
                      (json_int_t)pr->re.k, "scale", logs ? "log" : "difference", "change",
                      json_num_or_null(g->change), "ci", json_interval(g->lo, g->hi), "tau",
                      json_num_or_null(pr->re.k >= 2 ? sqrt(pr->re.tau2) : NAN), "prediction",
                      pr->re.k >= 3 ? json_interval(as_fraction(logs, pr->re.pi_lo),
                                                    as_fraction(logs, pr->re.pi_hi))
                                    : json_null(),
                      "df", json_num_or_null(g->df), "p", json_num_or_null(g->p), "p_worse",
                      json_num_or_null(g->p_worse), "p_adjusted", json_num_or_null(g->p_adjusted),
                      "test", g->test ? json_string(g->test) : json_null(), "verdict",
                      verdict_word(&pr->row), "per_host", per_host));
        char why[1024];
        pool_why(pr, o, why, sizeof(why));
        json_object_set_new(row, "why", json_string(why));
        json_object_set_new(row, "detectable", json_num_or_null(pr->row.detectable));
        json_array_append_new(rows, row);
    }
    char headline[1024];
    pool_headline(r, o, headline, sizeof(headline));
    return json_pack("{s:s, s:s, s:f, s:f, s:f, s:I, s:o, s:o}", "verdict", verdict_name(r->worst),
                     "headline", headline, "alpha", o->gate.alpha, "max_increase",
                     o->gate.threshold, "level", o->gate.level, "campaigns", (json_int_t)r->k,
                     "hosts", hosts, "rows", rows);
}
