#include "compare.h"

#include <math.h>
#include <string.h>

#include "metric.h"
#include "noise.h"
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
    for (size_t i = 0; i < b->spec.values.n; i++)
        if (campaign_setting(a, b->spec.values.v[i]) >= 0)
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

/* The values of one row: every base campaign's runs (k arrays) and NEW's. */
struct row_values {
    double **base;
    size_t *runs, k;
    double *head;
    size_t head_runs;
};

/* The index of variant `name` in c (0 in a campaign without variants, whatever the
 * name), -1 when c has variants and none of that name. */
static long variant_index(const struct campaign *c, const char *name)
{
    if (!c->spec.n_variants)
        return 0;
    for (size_t v = 0; name && v < c->spec.n_variants; v++)
        if (strcmp(c->spec.variants[v].name, name) == 0)
            return (long)v;
    return -1;
}

/* Fill a row's values for new_'s cell x and metric m: each base campaign's runs of the
 * same setting (and variant, by name) and metric key, and new_'s. */
static void gather(const struct campaign *const *base, size_t n_base, const struct campaign *new_,
                   struct cell x, const struct metric *m, struct row_values *v)
{
    const char *value = new_->spec.values.v[x.setting];
    const char *variant = new_->spec.n_variants ? new_->spec.variants[x.variant].name : NULL;
    v->base = xcalloc(n_base, sizeof(*v->base));
    v->runs = xcalloc(n_base, sizeof(*v->runs));
    for (size_t c = 0; c < n_base; c++) {
        long bs = campaign_setting(base[c], value), bv = variant_index(base[c], variant);
        const struct metric *bm = campaign_metric(base[c], m->key);
        if (bs < 0 || bv < 0 || !bm)
            continue; /* this campaign lacks the setting or the key */
        v->base[v->k] = xcalloc(base[c]->n_runs + 1, sizeof(double));
        v->runs[v->k] =
            campaign_cell_values(base[c], (struct cell){(size_t)bs, (size_t)bv}, bm, v->base[v->k]);
        v->k++;
    }
    v->head = xcalloc(new_->n_runs + 1, sizeof(double));
    v->head_runs = campaign_cell_values(new_, x, m, v->head);
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

/* Gates the rows at[0..n) of one family into res[0..n), from the inputs of every row. */
typedef int (*family_gate)(const void *inputs, const size_t *at, size_t n,
                           const struct gate_opts *o, struct gate_result *res,
                           struct lb_error *err);

/* The gated rows, then the others: each family is corrected on its own, so a metric
 * reported beside the gate cannot weaken it. */
static int gate_families(struct compare_result *out, family_gate gate, const void *inputs,
                         const struct compare_opts *o, struct lb_error *err)
{
    size_t *at = xcalloc(out->n_rows + 1, sizeof(*at));
    struct gate_result *res = xcalloc(out->n_rows + 1, sizeof(*res));
    int rc = 0;
    for (int gated = 1; gated >= 0 && rc == 0; gated--) {
        size_t n = family(out, gated, at);
        rc = gate(inputs, at, n, &o->gate, res, err);
        for (size_t j = 0; j < n && rc == 0; j++)
            out->rows[at[j]].g = res[j];
    }
    free(res);
    free(at);
    return rc;
}

/* Every row's base and new values, and what each compares: gate_across's inputs. */
struct across_inputs {
    const struct row_values *v;
    const struct gate_comparison *what;
};

static int gate_across_family(const void *inputs, const size_t *at, size_t n,
                              const struct gate_opts *o, struct gate_result *res,
                              struct lb_error *err)
{
    const struct across_inputs *all = inputs;
    struct gate_across_input *in = xcalloc(n + 1, sizeof(*in));
    for (size_t j = 0; j < n; j++) {
        const struct row_values *rv = &all->v[at[j]];
        in[j] = (struct gate_across_input){all->what[at[j]], (const double *const *)rv->base,
                                           rv->runs, rv->k, rv->head, rv->head_runs};
    }
    int rc = gate_across(in, n, o, res, err);
    free(in);
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

/* A comparison's row of metric m at cell x of c: what it compares and whether the gate
 * holds to it (a guardrail always; else the keys asked for, or the metric's default). */
static void row_init(struct compare_row *row, const struct campaign *c, struct cell x,
                     const struct metric *m, const struct compare_opts *o)
{
    row->setting = c->spec.values.v[x.setting];
    row->variant = c->spec.n_variants ? c->spec.variants[x.variant].name : NULL;
    row->metric = m->key;
    row->label = m->label;
    row->name = m->name;
    row->lower_is_better = m->better == LOWER_IS_BETTER;
    row->gated =
        m->must_be_zero || (o->primary ? listed(o->primary, m->key) : m->primary_by_default);
}

/* values[0..n) and values itself freed. */
static void values_free(double **values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(values[i]);
    free(values);
}

double compare_detectable(const struct compare_row *row, size_t tested, double alpha)
{
    return row->gated && row->g.tested && !row->budget
               ? gate_detectable(&row->g, row->lower_is_better,
                                 alpha / (double)(tested ? tested : 1), COMPARE_POWER)
               : NAN;
}

/* The budgets' rows of campaign c, appended to out: each budget at its setting, of every
 * variant against the base (heads) or of the one that campaign_values reads; gated, and
 * in one Holm correction with the gated comparisons already in out. */
static void add_budgets(const struct campaign *c, bool heads, const struct compare_opts *o,
                        struct compare_result *out)
{
    size_t per = heads && c->spec.n_variants > 1 ? c->spec.n_variants - 1 : 1;
    size_t n = o->budgets ? o->budgets->n * per : 0, first = out->n_rows;
    out->rows = xrealloc(out->rows, (out->n_rows + n + 1) * sizeof(*out->rows));
    struct budget_input *in = xcalloc(n + 1, sizeof(*in));
    double **values = xcalloc(n + 1, sizeof(*values));
    for (size_t j = 0; j < n; j++) {
        const struct budget *b = &o->budgets->v[j / per];
        long si = campaign_setting(c, b->setting);
        const struct metric *m = campaign_metric(c, b->key);
        struct cell x = {(size_t)si, heads && c->spec.n_variants > 1 ? 1 + j % per : 0};
        struct compare_row *row = &out->rows[out->n_rows++];
        memset(row, 0, sizeof(*row));
        row->setting = c->spec.values.v[x.setting];
        row->variant = heads && c->spec.n_variants ? c->spec.variants[x.variant].name : NULL;
        row->metric = b->key;
        row->label = m->label;
        row->name = m->name;
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
    /* the level a regression must reach first: alpha over the gated tests */
    size_t tested = 0;
    for (size_t i = 0; i < m; i++)
        tested += gated[i]->tested;
    for (size_t i = 0; i < out->n_rows; i++)
        out->rows[i].detectable = compare_detectable(&out->rows[i], tested, o->gate.alpha);
    values_free(values, n);
    free(in);
    free(res);
    free(gated);
}

/* "base, head": a campaign's variants for a message (new string). */
static char *variant_list(const struct campaign *c)
{
    char *s = xstrdup("");
    for (size_t v = 0; v < c->spec.n_variants; v++) {
        char *longer = xasprintf("%s%s%s", s, v ? ", " : "", c->spec.variants[v].name);
        free(s);
        s = longer;
    }
    return s;
}

/* Like compared with like: campaigns of variants only with campaigns of variants, each
 * variant of new_ compared (o->variant, when given) found in base; -1 with err saying
 * what to run instead. */
static int same_shape(const struct campaign *base, const struct campaign *new_, const char *only,
                      struct lb_error *err)
{
    const struct campaign *v = base->spec.n_variants ? base : new_,
                          *k = base->spec.n_variants ? new_ : base;
    if (!base->spec.n_variants != !new_->spec.n_variants) {
        char *names = variant_list(v);
        lb_fail(err,
                "'%s' is a campaign of variants (%s) and '%s' one of settings: expected "
                "campaigns of the same kind (compare '%s' alone gates its variants; run "
                "both campaigns with the same --variant names to compare them)",
                campaign_where(v), names, campaign_where(k), campaign_where(v));
        free(names);
        return -1;
    }
    for (size_t i = 0; i < new_->spec.n_variants; i++) {
        const char *name = new_->spec.variants[i].name;
        if ((only && strcmp(only, name) != 0) || variant_index(base, name) >= 0)
            continue;
        char *have = variant_list(base);
        lb_fail(err,
                "'%s' has no variant '%s' of '%s' (it has %s): expected the same variants, "
                "or --variant NAME of one both have",
                campaign_where(base), name, campaign_where(new_), have);
        free(have);
        return -1;
    }
    return 0;
}

/* o->variant names a variant of c (or c has none and it is not given); -1 with err. */
static int check_variant(const struct campaign *c, const char *only, struct lb_error *err)
{
    if (!only || variant_index(c, only) >= 0)
        return 0;
    char *have = variant_list(c);
    if (!c->spec.n_variants)
        lb_fail(err, "--variant '%s': '%s' is a campaign of settings, without variants", only,
                campaign_where(c));
    else
        lb_fail(err, "--variant '%s': not a variant of '%s' (it has %s)", only, campaign_where(c),
                have);
    free(have);
    return -1;
}

int compare_results(const struct campaign *const *base, size_t n_base,
                    const struct campaign *new_, const struct compare_opts *o,
                    struct compare_result *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    out->base_campaigns = n_base;
    if (check_variant(new_, o->variant, err) < 0)
        return -1;
    for (size_t c = 0; c < n_base; c++)
        if (compare_compatible(base[c], new_, err) < 0 ||
            same_shape(base[c], new_, o->variant, err) < 0)
            return -1;
    if (campaign_check_keys(new_, o->metric, "--metric", err) < 0 ||
        campaign_check_keys(new_, o->primary, "--primary", err) < 0)
        return -1;
    size_t nm = new_->profile.n_metrics, cap = campaign_cells(new_) * nm;
    out->rows = xcalloc(cap + 1, sizeof(*out->rows));
    struct row_values *v = xcalloc(cap + 1, sizeof(*v));
    struct gate_comparison *what = xcalloc(cap + 1, sizeof(*what));
    for (size_t ci = 0; ci < campaign_cells(new_); ci++)
        for (size_t k = 0; k < nm; k++) {
            struct cell x = campaign_cell(new_, ci);
            const struct metric *m = &new_->profile.metrics[k];
            const char *key = m->key;
            const char *variant =
                new_->spec.n_variants ? new_->spec.variants[x.variant].name : NULL;
            if (!m->gateable || (o->metric && strcmp(o->metric, key) != 0) ||
                (o->variant && strcmp(o->variant, variant) != 0))
                continue;
            struct row_values *rv = &v[out->n_rows];
            gather(base, n_base, new_, x, m, rv);
            if (rv->k == 0) { /* no base campaign has the setting (or the key) */
                row_values_release(rv);
                continue;
            }
            struct compare_row *row = &out->rows[out->n_rows];
            row_init(row, new_, x, m, o);
            /* the base build against itself says how far the campaigns drifted apart: told,
             * not gated, unless asked for by name (what a gate fails on is a build's change) */
            if (new_->spec.n_variants && x.variant == 0 && !o->variant)
                row->gated = false;
            what[out->n_rows] = (struct gate_comparison){
                row->setting, key, row->lower_is_better, m->must_be_zero,
                guardrail_hit(new_, x, m)};
            summarize_row(rv, row);
            row->saturated = saturation(base, n_base, new_, row->setting);
            out->n_rows++;
        }
    size_t compared = out->n_rows;
    int rc = gate_families(out, gate_across_family, &(struct across_inputs){v, what}, o, err);
    if (rc == 0) /* of a campaign of variants, its builds', as compare DIR holds them */
        add_budgets(new_, new_->spec.n_variants > 1, o, out);
    for (size_t i = 0; i < compared; i++)
        row_values_release(&v[i]);
    free(v);
    free(what);
    out->worst = worst_gated(out);
    return rc;
}

/* inputs: every row's gate_paired_input, within one campaign. */
static int gate_paired_family(const void *inputs, const size_t *at, size_t n,
                              const struct gate_opts *o, struct gate_result *res,
                              struct lb_error *err)
{
    const struct gate_paired_input *all = inputs;
    struct gate_paired_input *in = xcalloc(n + 1, sizeof(*in));
    for (size_t j = 0; j < n; j++)
        in[j] = all[at[j]];
    int rc = gate_paired(in, n, o, res, err);
    free(in);
    return rc;
}

int compare_variants(const struct campaign *c, const struct compare_opts *o,
                     struct compare_result *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    bool budgets = o->budgets && o->budgets->n;
    if (c->spec.n_variants < 2 && !budgets)
        return lb_fail(err, "'%s' is a campaign of settings, not of variants: compare it with "
                            "another campaign (compare BASE NEW), run builds as variants "
                            "(run --variant NAME=DIR ...), or hold it to budgets (--budget, "
                            "the profile's budgets)", campaign_where(c));
    struct compare_opts own = *o;
    own.budgets_only = c->spec.n_variants < 2;
    return c->spec.sequential_max ? compare_sequential(c, &own, out, err)
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
    if (o->variant && c->spec.n_variants && strcmp(o->variant, c->spec.variants[0].name) == 0)
        return lb_fail(err,
                       "--variant '%s': the base of '%s', which the others are compared "
                       "with: expected one of the others",
                       o->variant, campaign_where(c));
    if (check_variant(c, o->variant, err) < 0 ||
        campaign_check_keys(c, o->metric, "--metric", err) < 0 ||
        campaign_check_keys(c, o->primary, "--primary", err) < 0)
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
        if ((base.setting == x.setting && base.variant == x.variant) || o->budgets_only ||
            (o->variant && strcmp(o->variant, c->spec.variants[x.variant].name) != 0))
            continue;
        for (size_t k = 0; k < nm; k++) {
            const struct metric *m = &c->profile.metrics[k];
            const char *key = m->key;
            if (!m->gateable || (o->metric && strcmp(o->metric, key) != 0))
                continue;
            size_t i = out->n_rows++;
            struct compare_row *row = &out->rows[i];
            row_init(row, c, x, m, o);
            row->saturated = saturation(NULL, 0, c, row->setting);
            double *a = values[2 * i] = xcalloc(c->n_runs + 1, sizeof(double));
            double *b = values[2 * i + 1] = xcalloc(c->n_runs + 1, sizeof(double));
            stats_summarize(a, campaign_cell_values(c, base, m, a), &row->a);
            stats_summarize(b, campaign_cell_values(c, x, m, b), &row->b);
            /* the summaries above; then each round's pair, base and variant */
            size_t rounds = campaign_cell_pairs_cpus(c, base, x, m, a, b, cpus_a, cpus_b);
            /* held until the gate has run every row: as long as the pairs, not the runs */
            a = values[2 * i] = xrealloc(a, (rounds + 1) * sizeof(double));
            b = values[2 * i + 1] = xrealloc(b, (rounds + 1) * sizeof(double));
            labels[i] = compare_cpu_assignments(cpus_a, cpus_b, rounds);
            in[i] = (struct gate_paired_input){
                {row->setting, key, row->lower_is_better, m->must_be_zero,
                 guardrail_hit(c, x, m)},
                a, b, rounds, labels[i]};
        }
    }
    size_t compared = out->n_rows;
    int rc = gate_families(out, gate_paired_family, in, o, err);
    if (rc == 0)
        add_budgets(c, true, o, out);
    values_free(values, 2 * compared);
    for (size_t i = 0; i < compared; i++)
        free(labels[i]);
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
    int rc = compare_looks_init(&l, out, c->spec.sequential_max, &o->gate, err);
    long last = c->spec.repeat < c->spec.sequential_max ? c->spec.repeat : c->spec.sequential_max;
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
    out->sequential_max = c->spec.sequential_max;
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

/* "+12.3% (-1.2% to +27.0%)": a change and its interval. */
void compare_fmt_interval(const struct gate_result *g, char *buf, size_t len)
{
    char c[32], lo[32], hi[32];
    if (!g->tested)
        snprintf(buf, len, "%s", fmt_change(g->change, c, sizeof(c)));
    else
        snprintf(buf, len, "%s (%s to %s)", fmt_change(g->change, c, sizeof(c)),
                 fmt_change(g->lo, lo, sizeof(lo)),
                 fmt_change(g->hi, hi, sizeof(hi)));
}

