#include "pool.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gate.h"
#include "metric.h"
#include "text.h"
#include "util.h"

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
    /* the stated power of the pooled gate, as compare's (compare_row.detectable) */
    size_t tested = 0;
    for (size_t j = 0; j < n; j++)
        tested += r->rows[at[j]].row.g.tested;
    for (size_t j = 0; j < n; j++)
        r->rows[at[j]].row.detectable =
            compare_detectable(&r->rows[at[j]].row, tested, o->gate.alpha);
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
