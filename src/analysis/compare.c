#include "compare.h"

#include <math.h>
#include <string.h>

#include "mermaid.h"
#include "noise.h"
#include "text.h"
#include "util.h"

/* True when every value that is a number is > 0: a log scale applies. */
static bool all_positive(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]) && !(x[i] > 0))
            return false;
    return true;
}

/* The paired comparison with the rounds' CPU sets a factor (gate_paired's crossover),
 * when they varied: its ratio, interval and p, or none while it cannot be estimated.
 * false when the CPU sets did not vary (the plain paired t stands). */
static bool crossover_metric(const double *pa, const double *pb, size_t npairs,
                             const int *cpu_set, double level, struct metric_diff *out)
{
    struct gate_paired_input in = {{"", "", true, false, false}, pa, pb, npairs, cpu_set};
    struct gate_opts o = gate_opts_default();
    o.level = level;
    struct gate_result r;
    struct lb_error err;
    if (gate_paired(&in, 1, &o, &r, &err) < 0 || r.cpu_sets < 2 || !r.log_scale)
        return false;
    if (r.tested) {
        out->p = r.p;
        out->test = r.test;
        out->ci = (struct stats_ratio){1.0 + r.change, 1.0 + r.lo, 1.0 + r.hi};
    }
    return true;
}

void compare_metric(const double *a, size_t na, const double *b, size_t nb, const double *pa,
                    const double *pb, size_t npairs, const int *cpu_set, double level,
                    struct metric_diff *out)
{
    memset(out, 0, sizeof(*out));
    stats_summarize(a, na, &out->a);
    stats_summarize(b, nb, &out->b);
    stats_ratio_ci(a, na, b, nb, level, STATS_BOOTSTRAP_ITERATIONS, STATS_BOOTSTRAP_SEED,
                   &out->ratio);
    /* CPU is a ratio scale: compared on logs. Health keys can be 0 (no skipped slot),
     * where a log is undefined: those are compared on the values. */
    out->log_scale = all_positive(a, na) && all_positive(b, nb);
    if (out->log_scale)
        stats_welch_log(a, na, b, nb, &out->welch);
    else
        stats_welch(a, na, b, nb, &out->welch);
    stats_mann_whitney(a, na, b, nb, &out->mwu);
    stats_paired_log(pa, pb, out->log_scale ? npairs : 0, level, &out->paired);
    /* Pairing removes the host's drift between rounds, so it decides when it can. The
     * interval is the decider's, so that it excludes 1 exactly when p < 1 - level. */
    out->p = NAN;
    out->ci = (struct stats_ratio){NAN, NAN, NAN};
    if (out->paired.test.enough && cpu_set &&
        crossover_metric(pa, pb, npairs, cpu_set, level, out))
        return;
    if (out->paired.test.enough) {
        out->p = out->paired.test.p;
        out->test = "paired t on log ratios";
        out->ci = (struct stats_ratio){out->paired.ratio, out->paired.lo, out->paired.hi};
    } else if (out->welch.enough) {
        out->p = out->welch.p;
        out->test = out->log_scale ? "Welch t on logs" : "Welch t";
        if (out->log_scale)
            stats_t_ratio(&out->welch, level, &out->ci);
    } else if (out->mwu.enough) {
        out->p = out->mwu.p;
        out->test = "Mann-Whitney U";
    }
}

int compare_compatible(const struct campaign *a, const struct campaign *b,
                       struct lb_error *err)
{
    const char *pa = campaign_where(a), *pb = campaign_where(b);
    if (strcmp(a->profile.name, b->profile.name) != 0)
        return lb_fail(err, "'%s' is of profile '%s' and '%s' of '%s': expected the same "
                            "profile", pa, a->profile.name, pb, b->profile.name);
    if (strcmp(a->profile.knob_label, b->profile.knob_label) != 0)
        return lb_fail(err, "'%s' varies '%s' and '%s' varies '%s': expected the same knob",
                       pa, a->profile.knob_label, pb, b->profile.knob_label);
    for (size_t i = 0; i < b->values.n; i++)
        if (campaign_setting(a, b->values.v[i]) >= 0)
            return 0;
    return lb_fail(err, "'%s' and '%s' have no setting in common", pa, pb);
}

/* Whether key is in the comma-separated list (NULL: every key is). */
static bool listed(const char *list, const char *key)
{
    if (!list)
        return true;
    size_t n = strlen(key);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, key, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

int compare_check_keys(const struct campaign *new_, const char *list, const char *option,
                       struct lb_error *err)
{
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        char *key = xstrndup(p, end ? (size_t)(end - p) : strlen(p));
        bool known = campaign_metric(new_, key) != NULL;
        if (!known)
            lb_fail(err, "%s '%s': not a health key of profile '%s'", option, key,
                    new_->profile.name);
        free(key);
        if (!known)
            return -1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* The values of one row: every base campaign's runs (k arrays) and NEW's. */
struct row_values {
    double **base;
    size_t *runs, k;
    double *head;
    size_t head_runs;
};

/* Fill row i's values for setting value `setting`, metric m of new_ (each base
 * campaign's metric of the same key). */
static void gather(const struct campaign *const *base, size_t n_base,
                   const struct campaign *new_, size_t si, const struct metric *m,
                   struct row_values *v)
{
    v->base = xcalloc(n_base, sizeof(*v->base));
    v->runs = xcalloc(n_base, sizeof(*v->runs));
    for (size_t c = 0; c < n_base; c++) {
        long bs = campaign_setting(base[c], new_->values.v[si]);
        const struct metric *bm = campaign_metric(base[c], m->key);
        if (bs < 0 || !bm)
            continue; /* this campaign lacks the setting or the key */
        v->base[v->k] = xcalloc(base[c]->n_runs + 1, sizeof(double));
        v->runs[v->k] = campaign_values(base[c], (size_t)bs, bm, v->base[v->k]);
        v->k++;
    }
    v->head = xcalloc(new_->n_runs + 1, sizeof(double));
    v->head_runs = campaign_values(new_, si, m, v->head);
}

static void row_values_release(struct row_values *v)
{
    for (size_t c = 0; c < v->k; c++)
        free(v->base[c]);
    free(v->base);
    free(v->runs);
    free(v->head);
}

/* Whether a must_be_zero metric m was non-zero in a window of a completed run of new_'s
 * cell x (a setting, of the variant compared when there are some). */
static bool guardrail_hit(const struct campaign *new_, struct cell x, const struct metric *m)
{
    if (!m->must_be_zero)
        return false;
    size_t k = (size_t)m->health;
    for (size_t i = 0; i < new_->n_runs; i++) {
        const struct run_record *r = &new_->runs[i];
        double max = run_in_cell(r, x) && r->status == RUN_OK ? run_health_max(new_, r, k)
                                                              : NAN;
        if (max != 0 && !isnan(max))
            return true;
    }
    return false;
}

/* The rows of one family, gated or not (each is corrected on its own), as indices into
 * at (room for n_rows). Returns how many. */
static size_t family(const struct compare_result *out, bool gated, size_t *at)
{
    size_t n = 0;
    for (size_t i = 0; i < out->n_rows; i++)
        if (out->rows[i].gated == gated)
            at[n++] = i;
    return n;
}

/* A family's results, in the order of at, into its rows. */
static void family_results(struct compare_result *out, const size_t *at, size_t n,
                           const struct gate_result *res)
{
    for (size_t j = 0; j < n; j++)
        out->rows[at[j]].g = res[j];
}

/* The rows' base and new summaries, and the gate over the rows of one family (gated
 * or not): each family is corrected on its own. */
static int gate_family(struct compare_result *out, const struct row_values *v,
                       const struct gate_comparison *what, bool gated,
                       const struct compare_opts *o, struct lb_error *err)
{
    size_t *at = xcalloc(out->n_rows + 1, sizeof(*at)), n = family(out, gated, at);
    struct gate_across_input *in = xcalloc(n + 1, sizeof(*in));
    for (size_t j = 0; j < n; j++) {
        const struct row_values *rv = &v[at[j]];
        in[j] = (struct gate_across_input){what[at[j]], (const double *const *)rv->base,
                                           rv->runs, rv->k, rv->head, rv->head_runs};
    }
    struct gate_result *res = xcalloc(n + 1, sizeof(*res));
    int rc = gate_across(in, n, &o->gate, res, err);
    if (rc == 0)
        family_results(out, at, n, res);
    free(in);
    free(res);
    free(at);
    return rc;
}

/* Summaries over every base run, and NEW's. */
static void summarize_row(const struct row_values *v, struct compare_row *row)
{
    size_t total = 0;
    for (size_t c = 0; c < v->k; c++)
        total += v->runs[c];
    double *all = xcalloc(total + 1, sizeof(double));
    for (size_t c = 0, at = 0; c < v->k; at += v->runs[c], c++)
        memcpy(all + at, v->base[c], v->runs[c] * sizeof(double));
    stats_summarize(all, total, &row->a);
    stats_summarize(v->head, v->head_runs, &row->b);
    free(all);
}

/* Why runs at setting saturated their CPUs in NEW or, failing that, a BASE campaign
 * (noise_setting_saturated); NULL when none did. */
static char *saturation(const struct campaign *const *base, size_t n_base,
                        const struct campaign *new_, const char *setting)
{
    char *why = noise_setting_saturated(new_, setting);
    for (size_t c = 0; !why && c < n_base; c++)
        why = noise_setting_saturated(base[c], setting);
    return why;
}

/* The worst verdict of the gated rows: the others are information. */
static enum verdict worst_gated(const struct compare_result *r)
{
    enum verdict worst = VERDICT_NO_CHANGE;
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].gated)
            worst = gate_worst((const struct gate_result[]){{.verdict = worst}, r->rows[i].g}, 2);
    return worst;
}

/* The budgets' rows of campaign c, appended to out: each budget at its setting, of every
 * variant against the base (heads) or of the one that campaign_values reads; gated, and
 * in one Holm correction with the gated comparisons already in out. */
static void add_budgets(const struct campaign *c, bool heads, const struct compare_opts *o,
                        struct compare_result *out)
{
    size_t per = heads && c->n_variants > 1 ? c->n_variants - 1 : 1;
    size_t n = o->budgets ? o->budgets->n * per : 0, first = out->n_rows;
    out->rows = xrealloc(out->rows, (out->n_rows + n + 1) * sizeof(*out->rows));
    struct budget_input *in = xcalloc(n + 1, sizeof(*in));
    double **values = xcalloc(n + 1, sizeof(*values));
    for (size_t j = 0; j < n; j++) {
        const struct budget *b = &o->budgets->v[j / per];
        long si = campaign_setting(c, b->setting);
        const struct metric *m = campaign_metric(c, b->key);
        struct cell x = {(size_t)si, heads && c->n_variants > 1 ? 1 + j % per : 0};
        struct compare_row *row = &out->rows[out->n_rows++];
        memset(row, 0, sizeof(*row));
        row->setting = c->values.v[x.setting];
        row->variant = heads && c->n_variants ? c->variants[x.variant].name : NULL;
        row->metric = b->key;
        row->label = m->label;
        row->lower_is_better = b->upper;
        row->gated = true;
        row->budget = b;
        values[j] = xcalloc(c->n_runs + 1, sizeof(double));
        size_t runs = heads ? campaign_cell_values(c, x, m, values[j])
                            : campaign_values(c, x.setting, m, values[j]);
        stats_summarize(NULL, 0, &row->a);
        stats_summarize(values[j], runs, &row->b);
        row->typical = budget_typical(values[j], runs);
        in[j] = (struct budget_input){b->upper, b->limit, values[j], runs};
    }
    struct gate_result *res = xcalloc(n + 1, sizeof(*res));
    budget_test(in, n, &o->gate, res);
    struct gate_result **gated = xcalloc(out->n_rows + 1, sizeof(*gated));
    size_t m = 0;
    for (size_t i = 0; i < out->n_rows; i++) {
        if (i >= first)
            out->rows[i].g = res[i - first];
        if (out->rows[i].gated)
            gated[m++] = &out->rows[i].g;
    }
    gate_holm_joint(gated, m, o->gate.alpha);
    for (size_t j = 0; j < n; j++)
        free(values[j]);
    free(values);
    free(in);
    free(res);
    free(gated);
}

int compare_results(const struct campaign *const *base, size_t n_base,
                    const struct campaign *new_, const struct compare_opts *o,
                    struct compare_result *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    out->base_campaigns = n_base;
    for (size_t c = 0; c < n_base; c++)
        if (compare_compatible(base[c], new_, err) < 0)
            return -1;
    if (compare_check_keys(new_, o->metric, "--metric", err) < 0 ||
        compare_check_keys(new_, o->primary, "--primary", err) < 0)
        return -1;
    size_t nm = new_->profile.n_metrics, cap = new_->values.n * nm;
    out->rows = xcalloc(cap + 1, sizeof(*out->rows));
    struct row_values *v = xcalloc(cap + 1, sizeof(*v));
    struct gate_comparison *what = xcalloc(cap + 1, sizeof(*what));
    for (size_t si = 0; si < new_->values.n; si++)
        for (size_t k = 0; k < nm; k++) {
            const struct metric *m = &new_->profile.metrics[k];
            const char *key = m->key;
            if (!m->gateable || (o->metric && strcmp(o->metric, key) != 0))
                continue;
            struct row_values *rv = &v[out->n_rows];
            gather(base, n_base, new_, si, m, rv);
            if (rv->k == 0) { /* no base campaign has the setting (or the key) */
                row_values_release(rv);
                continue;
            }
            struct compare_row *row = &out->rows[out->n_rows];
            row->setting = new_->values.v[si];
            row->metric = key;
            row->label = m->label;
            row->lower_is_better = m->better == LOWER_IS_BETTER;
            bool guard = m->must_be_zero;
            row->gated = guard || (o->primary ? listed(o->primary, key) : m->primary_by_default);
            what[out->n_rows] = (struct gate_comparison){
                row->setting, key, row->lower_is_better, guard,
                guardrail_hit(new_, (struct cell){si, 0}, m)};
            summarize_row(rv, row);
            row->saturated = saturation(base, n_base, new_, row->setting);
            out->n_rows++;
        }
    size_t compared = out->n_rows;
    int rc = gate_family(out, v, what, true, o, err);
    if (rc == 0)
        rc = gate_family(out, v, what, false, o, err);
    if (rc == 0)
        add_budgets(new_, false, o, out);
    for (size_t i = 0; i < compared; i++)
        row_values_release(&v[i]);
    free(v);
    free(what);
    out->worst = worst_gated(out);
    return rc;
}

/* One family of rows within one campaign (gated or not), corrected on its own. */
static int gate_paired_family(struct compare_result *out, const struct gate_paired_input *in,
                              bool gated, const struct compare_opts *o, struct lb_error *err)
{
    size_t *at = xcalloc(out->n_rows + 1, sizeof(*at)), n = family(out, gated, at);
    struct gate_paired_input *fam = xcalloc(n + 1, sizeof(*fam));
    for (size_t j = 0; j < n; j++)
        fam[j] = in[at[j]];
    struct gate_result *res = xcalloc(n + 1, sizeof(*res));
    int rc = gate_paired(fam, n, &o->gate, res, err);
    if (rc == 0)
        family_results(out, at, n, res);
    free(fam);
    free(res);
    free(at);
    return rc;
}

int compare_variants(const struct campaign *c, const struct compare_opts *o,
                     struct compare_result *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    bool budgets = o->budgets && o->budgets->n;
    if (c->n_variants < 2 && !budgets)
        return lb_fail(err, "'%s' is a campaign of settings, not of variants: compare it with "
                            "another campaign (compare BASE NEW), run builds as variants "
                            "(run --variant NAME=DIR ...), or hold it to budgets (--budget, "
                            "the profile's budgets)", campaign_where(c));
    struct compare_opts own = *o;
    own.budgets_only = c->n_variants < 2;
    return c->sequential_max ? compare_sequential(c, &own, out, err)
                             : compare_within(c, &own, out, err);
}

int *compare_cpu_assignments(const char *const *cpus_a, const char *const *cpus_b, size_t n)
{
    bool pinned = false;
    for (size_t i = 0; i < n; i++)
        pinned = pinned || cpus_a[i] || cpus_b[i];
    if (!pinned)
        return NULL;
    int *label = xcalloc(n + 1, sizeof(int));
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && !(cpus_a[j] && cpus_b[j] && cpus_a[i] && cpus_b[i] &&
                          strcmp(cpus_a[j], cpus_a[i]) == 0 && strcmp(cpus_b[j], cpus_b[i]) == 0))
            j++;
        label[i] = !cpus_a[i] || !cpus_b[i] ? -1 : j < i ? label[j] : (int)i;
    }
    return label;
}

int compare_within(const struct campaign *c, const struct compare_opts *o,
                   struct compare_result *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    if (compare_check_keys(c, o->metric, "--metric", err) < 0 ||
        compare_check_keys(c, o->primary, "--primary", err) < 0)
        return -1;
    size_t nm = c->profile.n_metrics, cap = campaign_cells(c) * nm;
    out->rows = xcalloc(cap + 1, sizeof(*out->rows));
    struct gate_paired_input *in = xcalloc(cap + 1, sizeof(*in));
    double **values = xcalloc(2 * cap + 1, sizeof(*values));
    int **labels = xcalloc(cap + 1, sizeof(*labels));
    const char **cpus_a = xcalloc(c->n_runs + 1, sizeof(*cpus_a));
    const char **cpus_b = xcalloc(c->n_runs + 1, sizeof(*cpus_b));
    for (size_t ci = 0; ci < campaign_cells(c); ci++) {
        struct cell x = campaign_cell(c, ci), base = campaign_reference(c, x);
        if ((base.setting == x.setting && base.variant == x.variant) || o->budgets_only)
            continue;
        for (size_t k = 0; k < nm; k++) {
            const struct metric *m = &c->profile.metrics[k];
            const char *key = m->key;
            if (!m->gateable || (o->metric && strcmp(o->metric, key) != 0))
                continue;
            size_t i = out->n_rows++;
            struct compare_row *row = &out->rows[i];
            row->setting = c->values.v[x.setting];
            row->variant = c->n_variants ? c->variants[x.variant].name : NULL;
            row->metric = key;
            row->label = m->label;
            row->lower_is_better = m->better == LOWER_IS_BETTER;
            bool guard = m->must_be_zero;
            row->gated = guard || (o->primary ? listed(o->primary, key) : m->primary_by_default);
            row->saturated = saturation(NULL, 0, c, row->setting);
            double *a = values[2 * i] = xcalloc(c->n_runs + 1, sizeof(double));
            double *b = values[2 * i + 1] = xcalloc(c->n_runs + 1, sizeof(double));
            stats_summarize(a, campaign_cell_values(c, base, m, a), &row->a);
            stats_summarize(b, campaign_cell_values(c, x, m, b), &row->b);
            /* the summaries above; then each round's pair, base and variant */
            size_t rounds = campaign_cell_pairs_cpus(c, base, x, m, a, b, cpus_a, cpus_b);
            labels[i] = compare_cpu_assignments(cpus_a, cpus_b, rounds);
            in[i] = (struct gate_paired_input){
                {row->setting, key, row->lower_is_better, guard,
                 guardrail_hit(c, x, m)},
                a, b, rounds, labels[i]};
        }
    }
    size_t compared = out->n_rows;
    int rc = gate_paired_family(out, in, true, o, err);
    if (rc == 0)
        rc = gate_paired_family(out, in, false, o, err);
    if (rc == 0)
        add_budgets(c, true, o, out);
    for (size_t i = 0; i < 2 * compared; i++)
        free(values[i]);
    for (size_t i = 0; i < compared; i++)
        free(labels[i]);
    free(values);
    free(labels);
    free(cpus_a);
    free(cpus_b);
    free(in);
    out->worst = worst_gated(out);
    return rc;
}

int compare_looks_init(struct compare_looks *l, const struct compare_result *first, long max,
                       const struct gate_opts *o, struct lb_error *err)
{
    memset(l, 0, sizeof(*l));
    l->n_rows = first->n_rows;
    l->decided_at = xcalloc(l->n_rows + 1, sizeof(long));
    l->futile = xcalloc(l->n_rows + 1, sizeof(bool));
    l->verdict = xcalloc(l->n_rows + 1, sizeof(enum verdict));
    for (int f = 0; f < 2; f++) {
        l->rows[f] = xcalloc(l->n_rows + 1, sizeof(size_t));
        l->n[f] = family(first, f == 1, l->rows[f]);
        if (seq_init(&l->family[f], l->n[f], max, o, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < l->n_rows; i++)
        l->verdict[i] = VERDICT_INCONCLUSIVE;
    return 0;
}

size_t compare_looks_take(struct compare_looks *l, long round, const struct compare_result *now)
{
    size_t undecided = 0;
    struct gate_result *g = xcalloc(l->n_rows + 1, sizeof(*g));
    for (int f = 0; f < 2; f++) {
        struct seq *s = &l->family[f];
        for (size_t j = 0; j < l->n[f]; j++)
            g[j] = now->rows[l->rows[f][j]].g;
        size_t left = seq_look(s, round, g, NULL);
        undecided += f == 1 ? left : 0;
        for (size_t j = 0; j < l->n[f]; j++) {
            size_t i = l->rows[f][j];
            l->decided_at[i] = s->decided_at[j];
            l->futile[i] = s->futile[j];
            l->verdict[i] = s->latest[j].verdict;
        }
    }
    free(g);
    return undecided;
}

void compare_looks_release(struct compare_looks *l)
{
    for (int f = 0; f < 2; f++) {
        seq_release(&l->family[f]);
        free(l->rows[f]);
    }
    free(l->decided_at);
    free(l->futile);
    free(l->verdict);
    memset(l, 0, sizeof(*l));
}

/* How many runs of an interleaved plan belong to its first `rounds` rounds (they come
 * first: the plan runs round by round). */
static size_t rounds_prefix(const struct campaign *c, long rounds)
{
    size_t n = 0;
    while (n < c->n_runs && c->runs[n].repeat <= rounds)
        n++;
    return n;
}

int compare_sequential(const struct campaign *c, const struct compare_opts *o,
                       struct compare_result *out, struct lb_error *err)
{
    if (compare_within(c, o, out, err) < 0)
        return -1;
    struct compare_looks l;
    int rc = compare_looks_init(&l, out, c->sequential_max, &o->gate, err);
    long last = c->repeat < c->sequential_max ? c->repeat : c->sequential_max;
    for (long round = SEQ_MIN_ROUNDS; rc == 0 && round <= last; round++) {
        /* the campaign as it stood after that round: a prefix of its runs */
        struct campaign then = *c;
        then.n_runs = rounds_prefix(c, round);
        struct compare_result now;
        rc = compare_within(&then, o, &now, err);
        if (rc == 0)
            compare_looks_take(&l, round, &now);
        compare_result_release(&now);
    }
    for (size_t i = 0; rc == 0 && last >= SEQ_MIN_ROUNDS && i < out->n_rows; i++) {
        out->rows[i].g.verdict = l.verdict[i];
        out->rows[i].decided_at = l.decided_at[i];
    }
    out->sequential_max = c->sequential_max;
    out->worst = worst_gated(out);
    compare_looks_release(&l);
    return rc;
}

void compare_result_release(struct compare_result *r)
{
    for (size_t i = 0; i < r->n_rows; i++)
        free(r->rows[i].saturated);
    free(r->rows);
    memset(r, 0, sizeof(*r));
}

const char *compare_fmt(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, isnan(v) ? "-" : v > 0 ? "inf" : "-inf");
    else if (v == 0 || fabs(v) >= 100)
        snprintf(buf, len, "%.0f", v);
    else {
        int decimals = (int)fmax(0, 2 - floor(log10(fabs(v))));
        snprintf(buf, len, "%.*f", decimals, v);
        /* 9.9999 rounds up to "10.00": one decimal fewer keeps three significant digits */
        if (decimals > 0 && fabs(strtod(buf, NULL)) >= pow(10, 3 - decimals))
            snprintf(buf, len, "%.*f", decimals - 1, v);
    }
    return buf;
}

const char *compare_fmt_change(double f, char *buf, size_t len)
{
    char n[32];
    if (isnan(f))
        snprintf(buf, len, "-");
    else if (isinf(f))
        snprintf(buf, len, "%s", f > 0 ? "+inf" : "-inf");
    else
        snprintf(buf, len, "%s%s%%", f >= 0 ? "+" : "", compare_fmt(f * 100.0, n, sizeof(n)));
    return buf;
}

const char *compare_fmt_p(double p, char *buf, size_t len)
{
    char n[32];
    if (isnan(p))
        snprintf(buf, len, "-");
    else if (p < 0.001)
        snprintf(buf, len, "< 0.001");
    else
        snprintf(buf, len, "%s", compare_fmt(p, n, sizeof(n)));
    return buf;
}

/* A row's verdict in its kind's words: a budget is within or over. */
static const char *row_verdict(const struct compare_row *row)
{
    return row->budget ? budget_verdict_name(row->g.verdict) : verdict_name(row->g.verdict);
}

/* The gate's verdict, in the budgets' words when budgets alone are gated. */
static const char *result_verdict(const struct compare_result *r)
{
    bool budgets_only = true;
    for (size_t i = 0; i < r->n_rows; i++)
        budgets_only = budgets_only && (!r->rows[i].gated || r->rows[i].budget);
    return r->n_rows && budgets_only ? budget_verdict_name(r->worst) : verdict_name(r->worst);
}

/* Why a budget's row got its verdict. */
static void explain_budget(const struct compare_row *row, const struct compare_opts *o,
                           FILE *out)
{
    char a[32];
    const struct gate_result *g = &row->g;
    const char *beyond = row->budget->upper ? "above" : "below";
    if (!g->tested)
        fprintf(out, "too few runs to test (%zu)", row->b.n);
    else if (g->verdict == VERDICT_NO_CHANGE)
        fprintf(out, "not %s the budget (one-sided %.0f%% bound)", beyond,
                100.0 * (1.0 - o->gate.equivalence_alpha));
    else if (g->verdict == VERDICT_REGRESSED)
        fprintf(out, "%s the budget after Holm's correction", beyond);
    else
        fprintf(out, "only a typical value %s %s the budget would be called over",
                compare_fmt_change(g->detectable, a, sizeof(a)), beyond);
}

/* Why a row got its verdict, in words a reviewer can act on. */
static void explain(const struct compare_row *row, const struct compare_result *r,
                    const struct compare_opts *o, FILE *out)
{
    char a[32], b[32];
    const struct gate_result *g = &row->g;
    compare_fmt_change(o->gate.threshold, b, sizeof(b));
    if (!row->gated)
        fputs("not gated; ", out);
    if (r->sequential_max && row->decided_at)
        fprintf(out, "decided at the look after round %ld; ", row->decided_at);
    if (row->budget)
        explain_budget(row, o, out);
    else if (g->test && !g->tested) /* a guardrail */
        fputs(g->verdict == VERDICT_REGRESSED ? "must stay 0: non-zero in a window"
                                              : "must stay 0: 0 in every window", out);
    else if (!g->tested && g->cpu_note)
        fputs(g->cpu_note, out);
    else if (!g->tested)
        fprintf(out, "too few runs to test (%zu vs %zu)", row->a.n, row->b.n);
    else if (g->verdict == VERDICT_NO_CHANGE)
        fprintf(out, "within +-%s (90%% interval)", b + 1);
    else if (g->verdict == VERDICT_INCONCLUSIVE) {
        fprintf(out, "only a change of %s would be called",
                compare_fmt_change(g->detectable, a, sizeof(a)));
        if (r->base_campaigns == 1)
            fputs("; one campaign a side: run base and head as variants of one campaign "
                  "to decide", out);
        else if (r->base_campaigns == 0 && g->rounds_needed)
            fprintf(out, "; %ld rounds would decide a change of %s", g->rounds_needed, b);
    }
    if (g->cpu_modelled)
        fprintf(out, "; %zu assignments of CPU sets, their effect +-%s%s removed", g->cpu_sets,
                compare_fmt(g->log_scale ? expm1(g->cpu_effect) * 100 : g->cpu_effect, a,
                            sizeof(a)),
                g->log_scale ? "%" : "");
    else if (g->cpu_note && g->tested)
        fprintf(out, "; %s", g->cpu_note);
    if (g->trimmed)
        fprintf(out, "; %zu rounds trimmed", g->trimmed);
    if (row->saturated) { /* names a setting */
        char *why = text_markdown(row->saturated);
        fprintf(out, "; %s: the comparison measured contention", why);
        free(why);
    }
}

/* CPU per setting, base beside new, as a chart GitHub draws in the step summary. */
static int cpu_chart(const struct compare_result *r, const struct campaign *new_, FILE *out,
                     struct lb_error *err)
{
    const char **settings = xcalloc(r->n_rows + 1, sizeof(*settings));
    double *medians = xcalloc(2 * r->n_rows + 1, sizeof(double));
    size_t n = 0, baseline = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        /* a budget has no base to draw beside; comparisons come first */
        if (row->budget || strcmp(row->metric, "cpu") != 0 ||
            (row->variant && strcmp(row->variant, r->rows[0].variant) != 0))
            continue;
        if (strcmp(row->setting, new_->values.v[new_->baseline]) == 0)
            baseline = n;
        settings[n] = row->setting;
        medians[n] = row->a.median;
        medians[r->n_rows + n++] = row->b.median;
    }
    int rc = 0;
    if (n) {
        double *news = xcalloc(n, sizeof(double));
        memcpy(news, medians + r->n_rows, n * sizeof(double));
        const char *head = r->base_campaigns ? "new" : r->rows[0].variant;
        const char *base = r->base_campaigns ? "base" : new_->variants[0].name;
        const struct mermaid_series series[] = {{base, medians}, {head, news}};
        struct mermaid_bars chart = {{new_->profile.knob_label, settings, n, baseline},
                                     "CPU per setting, median of runs", "CPU % of one core",
                                     series, 2};
        fputc('\n', out);
        rc = mermaid_bars_write(out, &chart, err);
        free(news);
    }
    free(settings);
    free(medians);
    return rc;
}

/* Which metrics the gate holds to, for the sentence above the table. */
static void gated_keys(const struct compare_result *r, FILE *out)
{
    const char *sep = "";
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        bool first = true;
        for (size_t j = 0; j < i; j++)
            first = first && strcmp(r->rows[j].metric, row->metric) != 0;
        if (first && row->gated) {
            char *metric = text_code(row->metric);
            fprintf(out, "%s%s", sep, metric);
            free(metric);
            sep = ", ";
        }
    }
    if (!*sep)
        fputs("none", out);
}

/* "+12.3% (-1.2% to +27.0%)": a change and its interval. */
void compare_fmt_interval(const struct gate_result *g, char *buf, size_t len)
{
    char c[32], lo[32], hi[32];
    if (!g->tested)
        snprintf(buf, len, "%s", compare_fmt_change(g->change, c, sizeof(c)));
    else
        snprintf(buf, len, "%s (%s to %s)", compare_fmt_change(g->change, c, sizeof(c)),
                 compare_fmt_change(g->lo, lo, sizeof(lo)),
                 compare_fmt_change(g->hi, hi, sizeof(hi)));
}

char *compare_host_change(const struct campaign *a, const struct campaign *b, bool markdown)
{
    int f = fingerprint_first_difference(&a->host, &b->host);
    if (f < 0)
        return NULL;
    char va[2 * PLAT_RUNNER_NAME_MAX + 256], vb[sizeof(va)];
    fingerprint_value(&a->host, (size_t)f, va, sizeof(va));
    fingerprint_value(&b->host, (size_t)f, vb, sizeof(vb));
    char *(*quote)(const char *) = markdown ? text_code : text_shown;
    char *wa = quote(campaign_where(a)), *wb = quote(campaign_where(b));
    char *qa = quote(*va ? va : "unknown"), *qb = quote(*vb ? vb : "unknown");
    const char *q = markdown ? "" : "'";
    char *s = xasprintf("BASE %s%s%s and NEW %s%s%s ran on different hosts (fingerprints %s and "
                        "%s): %s %s%s%s against %s%s%s, so the change may be the host's",
                        q, wa, q, q, wb, q, campaign_fingerprint(a), campaign_fingerprint(b),
                        fingerprint_fields[f], q, qa, q, q, qb, q);
    free(wa);
    free(wb);
    free(qa);
    free(qb);
    return s;
}

int compare_markdown(const struct compare_result *r, const struct compare_opts *o,
                     const struct campaign *const *base, const struct campaign *new_, FILE *out,
                     struct lb_error *err)
{
    char m1[64], m2[32], ch[96], p[32], pa[32], th[32];
    size_t tested = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        tested += r->rows[i].gated && r->rows[i].g.tested;
    fprintf(out, "### loopbench compare: %s\n\n", result_verdict(r));
    char *where = text_code(campaign_where(new_)), *host = text_markdown(campaign_host(new_));
    char *profile = text_code(new_->profile.name);
    size_t budgets = 0;
    for (size_t i = 0; i < r->n_rows; i++)
        budgets += r->rows[i].budget != NULL;
    if (r->base_campaigns == 0 && new_->n_variants < 2)
        fprintf(out, "Campaign %s (%s), profile %s: held to its budgets, with no base. Gated: ",
                where, host, profile);
    else if (r->base_campaigns == 0) {
        char *variant = text_code(new_->variants[0].name);
        fprintf(out, "Campaign %s (%s), profile %s: each variant against %s at the same "
                     "setting, paired round by round (the rounds ran every build under the "
                     "same host state). Gated: ",
                where, host, profile, variant);
        free(variant);
    } else {
        fputs("Base ", out);
        for (size_t c = 0; c < r->base_campaigns; c++) {
            char *w = text_code(campaign_where(base[c]));
            char *h = text_markdown(campaign_host(base[c]));
            fprintf(out, "%s%s (%s)", c ? ", " : "", w, h);
            free(w);
            free(h);
        }
        fprintf(out, ", new %s (%s); profile %s. Gated: ", where, host, profile);
    }
    free(where);
    free(host);
    free(profile);
    gated_keys(r, out);
    if (r->base_campaigns == 0 && new_->n_variants < 2)
        fprintf(out, ". A budget is over when significantly beyond it after Holm's correction "
                     "over the %zu tested: a campaign whose typical values lie exactly at its "
                     "budgets fails with a chance of at most %g.\n\n", tested, o->gate.alpha);
    else
        fprintf(out, ". A regression is worse than %s and significant after Holm's correction "
                     "over the %zu gated comparisons: comparing a build with itself fails with "
                     "a chance of at most %g.\n\n",
                compare_fmt_change(o->gate.threshold, th, sizeof(th)), tested, o->gate.alpha);
    if (budgets)
        fprintf(out, "%zu budget%s: a metric's typical value over NEW's runs (the geometric "
                     "mean for CPU, the mean for a health key) held to a bound with no base; "
                     "*over* when beyond it by a one-sided t test in the same correction, "
                     "*within* when its one-sided %.0f%% bound is not, *inconclusive* "
                     "otherwise.\n\n",
                budgets, budgets == 1 ? "" : "s", 100.0 * (1.0 - o->gate.equivalence_alpha));
    if (r->base_campaigns == 1)
        fprintf(out, "One campaign a side: drift between campaigns cannot be told from a "
                     "change, so a drift of %.0f%% (sd) in each is allowed for. Gate base and "
                     "head as variants of one campaign, or against a history of BASE "
                     "campaigns, to see smaller changes.\n\n", o->gate.drift * 100);
    else if (r->base_campaigns > 1)
        fprintf(out, "Campaigns are the unit: NEW against a prediction from %zu BASE "
                     "campaigns' spread between campaigns.\n\n", r->base_campaigns);
    for (size_t c = 0; c < r->base_campaigns; c++) {
        char *change = compare_host_change(base[c], new_, true);
        if (change)
            fprintf(out, "**Warning**: %s.\n\n", change);
        free(change);
        if (change)
            break;
    }
    if (r->sequential_max)
        fprintf(out, "The campaign ran until decided (`--repeat auto=%ld`, %ld rounds): the "
                     "verdicts are its sequential gate's, its looks taken again round by round; "
                     "the changes, intervals and p are over every round it ran.\n\n",
                r->sequential_max, new_->repeat);
    char *knob = text_markdown(new_->profile.knob_label);
    fprintf(out, "| %s | metric | base | new | change (%.0f%% CI) | p | p worse, Holm | test "
                 "| verdict | note |\n", knob, o->gate.level * 100);
    free(knob);
    fputs("|---|---|--:|--:|--:|--:|--:|---|---|---|\n", out);
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        compare_fmt_interval(&row->g, ch, sizeof(ch));
        char *cell = xasprintf("%s%s%s", row->setting, row->variant ? " " : "",
                               row->variant ? row->variant : "");
        char *name = text_markdown(cell), *label = text_markdown(row->label);
        if (row->budget) /* the budget stands where the base would */
            snprintf(m1, sizeof(m1), "budget %s %s", row->budget->upper ? "<=" : ">=",
                     compare_fmt(row->budget->limit, th, sizeof(th)));
        else
            compare_fmt(row->a.median, m1, sizeof(m1));
        fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | **%s** | ", name, label, m1,
                compare_fmt(row->budget ? row->typical : row->b.median, m2, sizeof(m2)), ch,
                compare_fmt_p(row->g.p, p, sizeof(p)), compare_fmt_p(row->g.p_adjusted, pa, sizeof(pa)),
                row->g.test ? row->g.test : "-", row_verdict(row));
        free(cell);
        free(name);
        free(label);
        explain(row, r, o, out);
        fputs(" |\n", out);
    }
    fputs("\nMedians over runs (a health key: each run's mean over its windows). The change is "
          "NEW's mean of logs against BASE's (a ratio), or the difference relative to BASE "
          "for keys that can be 0; its interval and p are the same two-sided test's. "
          "*Regressed*: significant toward harm after the correction and worse than the "
          "threshold; *improved*: the same toward benefit; *no change*: the 90% interval "
          "lies within the threshold (two one-sided tests); *inconclusive*: neither.\n", out);
    if (budgets)
        fputs("A budget's row gives its bound as base, NEW's typical value as new, and that "
              "against the bound as the change.\n", out);
    return cpu_chart(r, new_, out, err);
}

json_t *compare_json(const struct compare_result *r, const struct compare_opts *o)
{
    json_t *rows = json_array(), *gated = json_array();
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        const struct gate_result *g = &row->g;
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen = seen || strcmp(r->rows[j].metric, row->metric) == 0;
        if (!seen && row->gated)
            json_array_append_new(gated, json_string(row->metric));
        json_t *o_row = json_pack("{s:s}", "setting", row->setting);
        if (row->variant)
            json_object_set_new(o_row, "variant", json_string(row->variant));
        json_array_append_new(rows, o_row);
        json_object_update_new(
            o_row,
            json_pack("{s:s, s:s, s:b, s:o, s:o, s:I, s:I, s:s, s:o, s:[o, o], s:o, "
                      "s:o, s:o, s:o, s:o, s:f, s:s, s:o, s:I}",
                      "metric", row->metric, "better",
                      profile_direction_name(row->lower_is_better ? LOWER_IS_BETTER
                                                                  : HIGHER_IS_BETTER),
                      "gated", row->gated, "base_median", json_num_or_null(row->a.median),
                      "new_median", json_num_or_null(row->b.median), "base_runs",
                      (json_int_t)row->a.n, "new_runs", (json_int_t)row->b.n, "scale",
                      g->log_scale ? "log" : "difference", "change",
                      json_num_or_null(g->change), "ci", json_num_or_null(g->lo),
                      json_num_or_null(g->hi), "p", json_num_or_null(g->p), "p_worse",
                      json_num_or_null(g->p_worse), "p_adjusted", json_num_or_null(g->p_adjusted),
                      "df", json_num_or_null(g->df), "test",
                      g->test ? json_string(g->test) : json_null(), "prior_df", g->prior_df,
                      "verdict", verdict_name(g->verdict), "smallest_detectable_change",
                      json_num_or_null(g->detectable), "runs_needed",
                      (json_int_t)g->rounds_needed));
    }
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct compare_row *row = &r->rows[i];
        json_t *o_row = json_array_get(rows, i);
        json_object_set_new(o_row, "kind", json_string(row->budget ? "budget" : "comparison"));
        if (!row->budget)
            continue;
        json_object_update_new(
            o_row, json_pack("{s:s, s:f, s:o, s:s}", "bound", row->budget->upper ? "max" : "min",
                             "budget", row->budget->limit, "typical",
                             json_num_or_null(row->typical), "verdict", row_verdict(row)));
    }
    for (size_t i = 0; r->base_campaigns == 0 && i < r->n_rows; i++) {
        const struct gate_result *g = &r->rows[i].g;
        json_object_update_new(
            json_array_get(rows, i),
            json_pack("{s:I, s:b, s:o, s:o, s:I}", "cpu_sets", (json_int_t)g->cpu_sets,
                      "cpu_modelled", g->cpu_modelled, "cpu_effect",
                      json_num_or_null(g->cpu_modelled ? g->cpu_effect : NAN), "cpu_note",
                      g->cpu_note ? json_string(g->cpu_note) : json_null(), "trimmed_rounds",
                      (json_int_t)g->trimmed));
    }
    for (size_t i = 0; i < r->n_rows; i++)
        json_object_set_new(json_array_get(rows, i), "saturated",
                            r->rows[i].saturated ? json_string(r->rows[i].saturated)
                                                 : json_null());
    if (r->sequential_max)
        for (size_t i = 0; i < r->n_rows; i++)
            json_object_set_new(json_array_get(rows, i), "decided_at_round",
                                r->rows[i].decided_at ? json_integer(r->rows[i].decided_at)
                                                      : json_null());
    return json_pack("{s:s, s:f, s:f, s:f, s:f, s:I, s:o, s:o, s:o}", "verdict",
                     result_verdict(r), "alpha", o->gate.alpha, "max_increase",
                     o->gate.threshold, "level", o->gate.level, "drift_allowance", o->gate.drift,
                     "base_campaigns", (json_int_t)r->base_campaigns, "sequential_max",
                     r->sequential_max ? json_integer(r->sequential_max) : json_null(), "gated",
                     gated, "rows", rows);
}
