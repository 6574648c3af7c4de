#include "pool.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fingerprint.h"
#include "mermaid.h"
#include "text.h"
#include "util.h"
#include "verdict.h"

/* ---- the random-effects model ----------------------------------------------------- */

/* The weighted mean of y at between-host variance tau2 into *mu, the sum of the weights
 * into *sum_w; returns the generalised Q, sum w (y - mu)^2. tau2 > 0 or every v > 0. */
static double generalised_q(const double *y, const double *v, size_t k, double tau2,
                            double *mu, double *sum_w)
{
    double sw = 0, swy = 0;
    for (size_t i = 0; i < k; i++) {
        double w = 1.0 / (v[i] + tau2);
        sw += w;
        swy += w * y[i];
    }
    *mu = swy / sw;
    *sum_w = sw;
    double q = 0;
    for (size_t i = 0; i < k; i++)
        q += (y[i] - *mu) * (y[i] - *mu) / (v[i] + tau2);
    return q;
}

/* Paule-Mandel: Q falls as tau^2 grows, so the tau^2 where it meets k - 1 is found by
 * bisection, between 0 and the plain variance of y (there Q <= sum (y - mean)^2 / tau^2
 * = k - 1). 0 when Q(0) is already below k - 1, or when every y is the same. */
static double paule_mandel(const double *y, const double *v, size_t k)
{
    double mean = 0, ss = 0, mu, sw;
    bool known = true;
    for (size_t i = 0; i < k; i++) {
        mean += y[i] / (double)k;
        known = known && v[i] > 0;
    }
    for (size_t i = 0; i < k; i++)
        ss += (y[i] - mean) * (y[i] - mean);
    if (!(ss > 0) || (known && generalised_q(y, v, k, 0, &mu, &sw) <= (double)(k - 1)))
        return 0;
    double lo = 0, hi = ss / (double)(k - 1);
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
        double mid = (lo + hi) / 2.0;
        if (generalised_q(y, v, k, mid, &mu, &sw) > (double)(k - 1))
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

double pool_moderated_variances(const double *v, const double *dof, size_t k, double *out)
{
    /* Smyth (2004), section 6.2, by moments, as the gate fits its settings' prior */
    double mean = 0, sq = 0, sampling = 0;
    size_t g = 0;
    for (size_t i = 0; i < k; i++) {
        out[i] = v[i];
        if (!(v[i] > 0) || !(dof[i] > 0) || isinf(dof[i]))
            continue;
        double half = dof[i] / 2.0;
        double z = log(v[i]) - stats_digamma(half) + log(half), d = z - mean;
        g++;
        mean += d / (double)g; /* Welford */
        sq += d * (z - mean);
        sampling += stats_trigamma(half);
    }
    if (g < 2)
        return 0;
    double excess = sq / (double)(g - 1) - sampling / (double)g;
    double d0 = excess > 0 ? 2.0 * stats_trigamma_inverse(excess) : INFINITY;
    double prior = isinf(d0) ? exp(mean) : exp(mean + stats_digamma(d0 / 2.0) - log(d0 / 2.0));
    for (size_t i = 0; i < k; i++)
        if (v[i] > 0 && dof[i] > 0 && !isinf(dof[i]))
            out[i] = isinf(d0) ? prior : (dof[i] * v[i] + d0 * prior) / (dof[i] + d0);
    return d0;
}

void pool_random_effects(const double *y, const double *v_own, const double *dof, size_t k,
                         double level, struct pool_estimate *out)
{
    memset(out, 0, sizeof(*out));
    double *v = xcalloc(k + 1, sizeof(double));
    out->prior_df = pool_moderated_variances(v_own, dof, k, v);
    out->k = k;
    out->df = (double)k - 1.0;
    out->tau2 = paule_mandel(y, v, k);
    double fixed = 0;
    bool exact = false; /* a host without spread: the fixed-effect weight is infinite */
    for (size_t i = 0; i < k; i++) {
        exact = exact || !(v[i] > 0);
        fixed += v[i] > 0 ? 1.0 / v[i] : 0;
    }
    out->se_fixed = exact ? 0 : sqrt(1.0 / fixed);
    if (out->tau2 == 0 && exact) {
        /* every y the same (else tau^2 > 0): nothing varies, nothing to weigh */
        out->mu = y[0];
        out->q = 0;
        out->se = 0;
    } else {
        double sum_w;
        out->q = generalised_q(y, v, k, out->tau2, &out->mu, &sum_w) / out->df;
        out->se = sqrt(fmax(1.0, out->q) / sum_w);
    }
    out->pi_lo = out->pi_hi = NAN;
    if (k >= 3) {
        double half = stats_t_quantile(1.0 - (1.0 - level) / 2.0, (double)k - 2.0) *
                      sqrt(out->tau2 + out->se * out->se);
        out->pi_lo = out->mu - half;
        out->pi_hi = out->mu + half;
    }
    free(v);
}

/* ---- campaigns --------------------------------------------------------------------- */

/* The first of two lists' names that differ: its index, or SIZE_MAX when they agree. */
static size_t first_difference(const char *const *a, size_t na, const char *const *b, size_t nb)
{
    size_t i = 0;
    while (i < na && i < nb && strcmp(a[i], b[i]) == 0)
        i++;
    return i == na && i == nb ? SIZE_MAX : i;
}

/* "'X' has WHAT 'A' (its Nth) where 'Y' has 'B'" for lists that differ at i. */
static int list_differs(const struct campaign *a, const struct campaign *b, const char *what,
                        const char *const *la, size_t na, const char *const *lb, size_t nb,
                        size_t i, struct lb_error *err)
{
    char *x = text_shown(i < na ? la[i] : "(none)"), *y = text_shown(i < nb ? lb[i] : "(none)");
    lb_fail(err, "'%s' has %s '%s' as its %s number %zu where '%s' has '%s': expected "
                 "campaigns of the same %ss to pool",
            campaign_where(a), what, x, what, i + 1, campaign_where(b), y, what);
    free(x);
    free(y);
    return -1;
}

int pool_compatible(const struct campaign *a, const struct campaign *b, struct lb_error *err)
{
    if (compare_compatible(a, b, err) < 0)
        return -1;
    size_t i = first_difference((const char *const *)a->spec.values.v, a->spec.values.n,
                                (const char *const *)b->spec.values.v, b->spec.values.n);
    if (i != SIZE_MAX)
        return list_differs(a, b, "setting", (const char *const *)a->spec.values.v,
                            a->spec.values.n, (const char *const *)b->spec.values.v,
                            b->spec.values.n, i, err);
    const char **va = xcalloc(a->spec.n_variants + 1, sizeof(*va));
    const char **vb = xcalloc(b->spec.n_variants + 1, sizeof(*vb));
    const char **ha = xcalloc(a->profile.n_health + 1, sizeof(*ha));
    const char **hb = xcalloc(b->profile.n_health + 1, sizeof(*hb));
    for (size_t j = 0; j < a->spec.n_variants; j++)
        va[j] = a->spec.variants[j].name;
    for (size_t j = 0; j < b->spec.n_variants; j++)
        vb[j] = b->spec.variants[j].name;
    for (size_t j = 0; j < a->profile.n_health; j++)
        ha[j] = a->profile.health[j].key;
    for (size_t j = 0; j < b->profile.n_health; j++)
        hb[j] = b->profile.health[j].key;
    int rc = 0;
    if ((i = first_difference(va, a->spec.n_variants, vb, b->spec.n_variants)) != SIZE_MAX)
        rc = list_differs(a, b, "variant", va, a->spec.n_variants, vb, b->spec.n_variants, i, err);
    else if ((i = first_difference(ha, a->profile.n_health, hb, b->profile.n_health)) !=
             SIZE_MAX)
        rc = list_differs(a, b, "health key", ha, a->profile.n_health, hb,
                          b->profile.n_health, i, err);
    free(va);
    free(vb);
    free(ha);
    free(hb);
    return rc;
}

static const char *pooled_test(bool log_scale)
{
    return log_scale ? "random effects on log ratios (Paule-Mandel, HKSJ)"
                     : "random effects on relative differences (Paule-Mandel, HKSJ)";
}

int pool_gate(const struct gate_result *host, size_t k, const struct gate_comparison *what,
              size_t n, const struct gate_opts *o, struct gate_result *out,
              struct pool_estimate *re, struct lb_error *err)
{
    struct gate_pooled_input *in = xcalloc(n + 1, sizeof(*in));
    double *y = xcalloc(k + 1, sizeof(double)), *v = xcalloc(k + 1, sizeof(double));
    double *dof = xcalloc(k + 1, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        size_t tested = 0, logs = 0, hit = 0, last = 0, scaled = 0;
        for (size_t c = 0; c < k; c++)
            scaled += host[c * n + i].tested && host[c * n + i].scale > 0;
        for (size_t c = 0; c < k; c++) {
            const struct gate_result *g = &host[c * n + i];
            hit += g->verdict == VERDICT_REGRESSED;
            /* A base of 0 has no relative difference, unless head was 0 in every round
             * too: that host saw exactly no change, as compare DIR says, and when every
             * host saw that, so does the pool. */
            bool zero = g->tested && g->delta == 0 && g->se == 0 && !scaled;
            if (!g->tested || (!(g->scale > 0) && !zero))
                continue;
            double harm = zero ? 0 : g->delta / g->scale, se = zero ? 0 : g->se / g->scale;
            y[tested] = what[i].lower_is_better ? harm : -harm; /* head - base */
            v[tested] = se * se;
            dof[tested] = g->df;
            logs += g->log_scale;
            last = c;
            tested++;
        }
        re[i] = (struct pool_estimate){.k = tested, .mu = NAN, .se = NAN, .df = NAN,
                                       .tau2 = NAN, .q = NAN, .se_fixed = NAN, .prior_df = NAN,
                                       .pi_lo = NAN, .pi_hi = NAN,
                                       .mixed_scales = logs != 0 && logs != tested};
        in[i].what = what[i];
        in[i].what.guardrail_hit = what[i].must_be_zero && hit;
        in[i].log_scale = tested > 0 && logs == tested;
        in[i].test = pooled_test(in[i].log_scale);
        if (tested == 1) { /* its own estimate, on its own degrees of freedom */
            re[i].mu = y[0];
            re[i].se = re[i].se_fixed = sqrt(v[0]);
            re[i].df = host[last * n + i].df;
            in[i].test = host[last * n + i].test;
        } else if (tested >= 2 && !re[i].mixed_scales)
            pool_random_effects(y, v, dof, tested, o->level, &re[i]);
        in[i].hosts = re[i].mixed_scales ? 0 : tested;
        in[i].change = re[i].mu;
        in[i].se = re[i].se;
        in[i].df = re[i].df;
    }
    int rc = gate_pooled(in, n, o, out, err);
    free(in);
    free(y);
    free(v);
    free(dof);
    return rc;
}

/* The pooled gate over one family of rows (gated or not), corrected on its own. */
static int pool_family(struct pool_result *r, const struct compare_opts *o, bool gated,
                       struct lb_error *err)
{
    size_t *at = xcalloc(r->n_rows + 1, sizeof(*at)), n = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].row.gated == gated)
            at[n++] = i;
    struct gate_comparison *what = xcalloc(n + 1, sizeof(*what));
    struct gate_result *host = xcalloc(r->k * n + 1, sizeof(*host));
    struct gate_result *res = xcalloc(n + 1, sizeof(*res));
    struct pool_estimate *re = xcalloc(n + 1, sizeof(*re));
    for (size_t j = 0; j < n; j++) {
        const struct compare_row *row = &r->rows[at[j]].row;
        const struct metric *m = campaign_metric(r->campaigns[0], row->metric);
        bool guard = m && m->must_be_zero;
        what[j] = (struct gate_comparison){row->setting, row->metric, row->lower_is_better,
                                           guard, false};
        for (size_t c = 0; c < r->k; c++) /* a campaign without the row: not tested */
            if (r->rows[at[j]].host[c])
                host[c * n + j] = r->rows[at[j]].host[c]->g;
    }
    int rc = pool_gate(host, r->k, what, n, &o->gate, res, re, err);
    for (size_t j = 0; rc == 0 && j < n; j++) {
        r->rows[at[j]].re = re[j];
        /* with one campaign, compare DIR's verdicts (a sequential gate's too) are the pool's */
        r->rows[at[j]].row.g = r->k > 1 ? res[j] : r->each[0].rows[at[j]].g;
    }
    free(what);
    free(host);
    free(res);
    free(re);
    free(at);
    return rc;
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The row of result r that compares what `like` compares; NULL when r has none. */
static const struct compare_row *matching_row(const struct compare_result *r,
                                              const struct compare_row *like)
{
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        if (same_text(row->setting, like->setting) && same_text(row->metric, like->metric) &&
            same_text(row->variant, like->variant) && !row->budget == !like->budget &&
            (!row->budget || (row->budget->limit == like->budget->limit &&
                              row->budget->upper == like->budget->upper)))
            return row;
    }
    return NULL;
}

int pool_campaigns(const struct campaign *const *c, size_t k, const struct compare_opts *o,
                   struct pool_result *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    out->campaigns = c;
    for (size_t i = 1; i < k; i++)
        if (pool_compatible(c[0], c[i], err) < 0)
            return -1;
    out->each = xcalloc(k + 1, sizeof(*out->each));
    for (; out->k < k; out->k++)
        if (compare_variants(c[out->k], o, &out->each[out->k], err) < 0)
            return -1;
    /* The same profile, settings and variants, but not always the same rows: a metric
     * only some hosts record (the idle states of pinned runs, the package's watts) is
     * pooled over the campaigns that have it. */
    const struct compare_result *first = &out->each[0];
    out->rows = xcalloc(first->n_rows + 1, sizeof(*out->rows));
    out->n_rows = first->n_rows;
    for (size_t i = 0; i < first->n_rows; i++) {
        out->rows[i].row = first->rows[i];
        out->rows[i].host = xcalloc(k, sizeof(*out->rows[i].host));
        for (size_t h = 0; h < k; h++)
            out->rows[i].host[h] = matching_row(&out->each[h], &first->rows[i]);
    }
    int rc = pool_family(out, o, true, err) < 0 || pool_family(out, o, false, err) < 0 ? -1 : 0;
    out->worst = VERDICT_NO_CHANGE;
    for (size_t i = 0; i < out->n_rows; i++)
        if (out->rows[i].row.gated)
            out->worst = gate_worst(
                (const struct gate_result[]){{.verdict = out->worst}, out->rows[i].row.g}, 2);
    return rc;
}

void pool_result_release(struct pool_result *r)
{
    for (size_t i = 0; r->each && i < r->k; i++)
        compare_result_release(&r->each[i]);
    free(r->each);
    for (size_t i = 0; i < r->n_rows; i++)
        free(r->rows[i].host);
    free(r->rows);
    memset(r, 0, sizeof(*r));
}

/* ---- presentation ------------------------------------------------------------------ */

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
static int by_host(const struct pool_result *r, const struct pool_row *pr, FILE *out,
                   struct lb_error *err)
{
    char ch[96], tau[32], pi[64];
    char *name = row_name(&pr->row), *shown = text_markdown(name);
    fprintf(out, "\n#### CPU at %s, by host\n\n| host | rounds | change (%s) | verdict |\n"
                 "|---|--:|--:|---|\n",
            shown, "95% CI");
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
            "| **pooled** (%zu hosts) | - | %s | **%s** |\n| a new host (95%% prediction) "
            "| - | %s | - |\n\nBetween hosts tau %s.\n",
            pr->re.k, ch, verdict_word(&pr->row), pi, tau);
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
                 "Hartung-Knapp-Sidik-Jonkman, t with hosts - 1 df). A regression is worse than %s and significant after Holm's correction "
                 "over the %zu gated comparisons: pooling a build with itself fails with a "
                 "chance of at most %g.\n\n",
            base, fmt_change(o->gate.threshold, th, sizeof(th)), tested, o->gate.alpha);
    free(base);
    char *knob = text_markdown(first->profile.knob_label);
    fprintf(out, "| %s | metric | hosts | change (%.0f%% CI) | tau | a new host (95%% PI) | p "
                 "| p worse, Holm | verdict | note |\n|---|---|--:|--:|--:|--:|--:|--:|---|---|\n",
            knob, o->gate.level * 100);
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
        text_put_markdown(out, why);
        fputs(" |\n", out);
        free(cell);
        free(name);
        free(label);
    }
    fputs("\nEach campaign's change is its paired mean of log ratios (or difference relative "
          "to base for keys that can be 0) with its standard error, as compare DIR gives them; "
          "the hosts' variances are moderated toward each other (by how far they differ "
          "beyond what their rounds allow) before they weigh the hosts. tau is the spread of the true change between hosts; "
          "the prediction interval is where the change on a new host of the same kind falls "
          "(t with hosts - 2 df, so it needs 3 hosts). Verdicts as compare DIR's: "
          "*regressed* significant toward harm after the correction and worse than the "
          "threshold, *improved* the same toward benefit, *no change* the 90% interval within "
          "the threshold, *inconclusive* neither.\n", out);
    for (size_t i = 0; i < r->n_rows; i++)
        if (strcmp(r->rows[i].row.metric, "cpu") == 0 && by_host(r, &r->rows[i], out, err) < 0)
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
        json_array_append_new(rows, row);
    }
    char headline[1024];
    pool_headline(r, o, headline, sizeof(headline));
    return json_pack("{s:s, s:s, s:f, s:f, s:f, s:I, s:o, s:o}", "verdict", verdict_name(r->worst),
                     "headline", headline, "alpha", o->gate.alpha, "max_increase",
                     o->gate.threshold, "level", o->gate.level, "campaigns", (json_int_t)r->k,
                     "hosts", hosts, "rows", rows);
}
