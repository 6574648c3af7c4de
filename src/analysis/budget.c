#include "budget.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "metric.h"
#include "results.h"
#include "stats.h"
#include "text.h"
#include "util.h"

const char *budget_verdict_name(enum verdict v)
{
    switch (v) {
    case VERDICT_REGRESSED: return "over";
    case VERDICT_NO_CHANGE: return "within";
    default: return "inconclusive";
    }
}

static void push(struct budget_set *set, const char *setting, size_t setting_len,
                 const char *key, size_t key_len, double limit, bool upper)
{
    set->v = xrealloc(set->v, (set->n + 1) * sizeof(*set->v));
    set->v[set->n++] = (struct budget){xstrndup(setting, setting_len), xstrndup(key, key_len),
                                       limit, upper};
}

/* A limit a budget of key can hold to: finite and >= 0; CPU's > 0 (it is tested on logs,
 * and no running target uses none). */
static bool limit_valid(const char *key, size_t key_len, double limit)
{
    bool cpu = key_len == 3 && strncmp(key, "cpu", 3) == 0;
    return isfinite(limit) && (cpu ? limit > 0 : limit >= 0);
}

int budget_parse(const char *arg, struct budget_set *set, struct lb_error *err)
{
    const char *at = strchr(arg, '@'), *op = NULL;
    /* the last operator: a setting may hold '<' or '>', a number never does */
    for (const char *p = at ? at + 1 : arg; at && *p; p++)
        if ((p[0] == '<' || p[0] == '>') && p[1] == '=')
            op = p;
    double limit;
    char *shown = text_shown(arg);
    if (!at || at == arg || !op || op == at + 1 || parse_double(op + 2, &limit) < 0) {
        lb_fail(err, "--budget '%s': expected KEY@SETTING<=VALUE or KEY@SETTING>=VALUE "
                     "(cpu@2<=1.5)", shown);
        free(shown);
        return -1;
    }
    if (!limit_valid(arg, (size_t)(at - arg), limit)) {
        lb_fail(err, "--budget '%s': expected a finite VALUE, 0 or more (more than 0 for cpu)",
                shown);
        free(shown);
        return -1;
    }
    free(shown);
    push(set, at + 1, (size_t)(op - at - 1), arg, (size_t)(at - arg), limit, op[0] == '<');
    return 0;
}

int budget_from_campaign(const struct campaign *c, struct budget_set *set, struct lb_error *err)
{
    json_t *profile = campaign_profile_json(&c->profile);
    json_t *budgets = json_object_get(profile, "budgets");
    int rc = 0;
    if (budgets && !json_is_array(budgets))
        rc = lb_fail(err, "%s: profile.budgets: expected an array", campaign_where(c));
    size_t i;
    json_t *b;
    json_array_foreach(budgets, i, b) {
        if (rc < 0)
            break;
        const char *setting, *key;
        json_t *max = NULL, *min = NULL;
        bool ok = json_unpack(b, "{s:s, s:s, s?o, s?o}", "setting", &setting, "key", &key, "max",
                              &max, "min", &min) == 0 &&
                  (max || min);
        for (int bound = 0; ok && bound < 2; bound++) {
            json_t *v = bound ? min : max;
            ok = !v || (json_is_number(v) &&
                        limit_valid(key, strlen(key), json_number_value(v)));
        }
        if (!ok) {
            rc = lb_fail(err,
                         "%s: profile.budgets[%zu]: expected a setting, a key and a max or "
                         "min, a finite number 0 or more (more than 0 for cpu)",
                         campaign_where(c), i);
            break;
        }
        if (campaign_setting(c, setting) < 0)
            continue;
        if (max)
            push(set, setting, strlen(setting), key, strlen(key), json_number_value(max), true);
        if (min)
            push(set, setting, strlen(setting), key, strlen(key), json_number_value(min), false);
    }
    json_decref(profile);
    return rc;
}

int budget_check(const struct budget_set *set, const struct campaign *c, struct lb_error *err)
{
    for (size_t i = 0; i < set->n; i++) {
        const struct budget *b = &set->v[i];
        const char *fault = campaign_setting(c, b->setting) < 0 ? "setting"
                            : !campaign_metric(c, b->key)
                                ? "key"
                                : NULL;
        if (!fault)
            continue;
        char *setting = text_shown(b->setting), *key = text_shown(b->key);
        lb_fail(err, "budget %s@%s %s %g: '%s' is not a %s of '%s' (expected %s)", key, setting,
                b->upper ? "<=" : ">=", b->limit, *fault == 's' ? setting : key, fault,
                campaign_where(c),
                *fault == 's' ? "a setting it ran" : "cpu or a health key of its profile");
        free(setting);
        free(key);
        return -1;
    }
    return 0;
}

void budget_set_release(struct budget_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->v[i].setting);
        free(set->v[i].key);
    }
    free(set->v);
    memset(set, 0, sizeof(*set));
}

/* Whether the budget is tested on logs: every value and the limit > 0. */
static bool on_logs(const struct budget_input *in)
{
    if (!(in->limit > 0))
        return false;
    for (size_t i = 0; i < in->n; i++)
        if (!isnan(in->x[i]) && !(in->x[i] > 0))
            return false;
    return true;
}

/* The runs on the scale tested into v (room for n); returns how many. */
static size_t scaled(const double *x, size_t n, bool log_scale, double *v)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            v[k++] = log_scale ? log(x[i]) : x[i];
    return k;
}

double budget_typical(const double *x, size_t n)
{
    const struct budget_input in = {true, 1.0, x, n};
    bool log_scale = on_logs(&in);
    double *v = xcalloc(n + 1, sizeof(double));
    struct stats_summary s;
    stats_summarize(v, scaled(x, n, log_scale, v), &s);
    free(v);
    return log_scale ? exp(s.mean) : s.mean;
}

/* A difference d from the limit L on the scale tested, as a fraction of the limit. */
static double fraction(bool log_scale, double d, double L)
{
    if (log_scale)
        return expm1(d);
    if (d == 0)
        return 0;
    return L != 0 ? d / fabs(L) : copysign(INFINITY, d);
}

static void test_one(const struct budget_input *in, const struct gate_opts *o, size_t family,
                     struct gate_result *r)
{
    memset(r, 0, sizeof(*r));
    r->verdict = VERDICT_INCONCLUSIVE;
    r->log_scale = on_logs(in);
    r->change = r->lo = r->hi = r->df = r->p = r->p_worse = r->p_adjusted = r->p_better =
        r->p_equivalent = r->delta = r->se = r->edge = r->detectable = r->cpu_effect = NAN;
    double *v = xcalloc(in->n + 1, sizeof(double));
    struct stats_summary s;
    stats_summarize(v, scaled(in->x, in->n, r->log_scale, v), &s);
    free(v);
    r->n = s.n;
    if (s.n < 2)
        return;
    double L = r->log_scale ? log(in->limit) : in->limit, d = s.mean - L;
    double h = in->upper ? d : -d; /* beyond the limit: positive */
    r->tested = true;
    r->df = (double)(s.n - 1);
    r->se = s.sd / sqrt((double)s.n);
    r->delta = h;
    r->edge = 0;
    r->past_threshold = h > 0;
    r->test = r->log_scale ? "one-sided t on logs against the budget"
                           : "one-sided t against the budget";
    double q = stats_t_quantile(1.0 - (1.0 - o->level) / 2.0, r->df) * r->se;
    double smallest = stats_t_quantile(1.0 - o->alpha / (double)family, r->df) * r->se;
    if (r->se > 0) {
        r->p_worse = stats_t_cdf(-h / r->se, r->df);
        r->p_equivalent = stats_t_cdf(h / r->se, r->df);
    } else {
        /* every run alike: t is undefined; the sign test's smallest p, 2^-n, is all that
         * n runs on one side of the limit can say */
        r->test = "sign test (no spread)";
        double floor_p = ldexp(1.0, -(int)s.n);
        r->p_worse = h > 0 ? floor_p : 1.0;
        r->p_equivalent = h < 0 ? floor_p : 1.0;
        q = smallest = 2.0 * floor_p < 1.0 - o->level ? 0 : INFINITY;
    }
    r->p_better = r->p_equivalent;
    r->p_adjusted = r->p_worse;
    r->p = fmin(1.0, 2.0 * fmin(r->p_worse, r->p_equivalent));
    r->change = fraction(r->log_scale, d, L);
    r->lo = fraction(r->log_scale, d - q, L);
    r->hi = fraction(r->log_scale, d + q, L);
    r->detectable = fraction(r->log_scale, in->upper ? smallest : -smallest, L);
    if (r->p_worse < o->alpha)
        r->verdict = VERDICT_REGRESSED; /* until Holm over the gate says otherwise */
    else if (r->p_equivalent < o->equivalence_alpha)
        r->verdict = VERDICT_NO_CHANGE;
}

void budget_test(const struct budget_input *in, size_t n, const struct gate_opts *o,
                 struct gate_result *out)
{
    struct gate_result **all = xcalloc(n + 1, sizeof(*all));
    for (size_t i = 0; i < n; i++) {
        test_one(&in[i], o, n, &out[i]);
        all[i] = &out[i];
    }
    gate_holm_joint(all, n, o->alpha);
    free(all);
}
