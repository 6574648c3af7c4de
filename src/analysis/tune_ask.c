#include "tune_ask.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric.h"
#include "text.h"

void tune_ask_init(struct tune_ask *a)
{
    memset(a, 0, sizeof(*a));
    a->max_rounds = TUNE_DEFAULT_ROUNDS;
    a->tie = -1;
}

int tune_ask_range(struct tune_ask *a, const char *text, struct lb_error *err)
{
    double v[3] = {0, 0, 1};
    size_t n = 0;
    bool ok = true;
    for (const char *p = text; ok && p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char part[64];
        ok = n < 3 && len > 0 && len < sizeof(part);
        if (ok) {
            memcpy(part, p, len);
            part[len] = '\0';
            ok = parse_double(part, &v[n++]) == 0;
        }
        p = colon ? colon + 1 : NULL;
    }
    if (!ok || n < 2)
        return lb_fail(err, "expected LO:HI or LO:HI:STEP, numbers (STEP the resolution, "
                            "default 1)");
    tune_grid_release(&a->grid);
    if (tune_grid_range(&a->grid, v[0], v[1], v[2], err) < 0)
        return -1;
    a->range = true;
    a->lo = v[0];
    a->hi = v[1];
    a->step = v[2];
    return 0;
}

int tune_ask_list(struct tune_ask *a, const struct strv *values, struct lb_error *err)
{
    tune_grid_release(&a->grid);
    a->range = false;
    return tune_grid_list(&a->grid, (const char *const *)values->v, values->n, err);
}

int tune_ask_guard(struct tune_ask *a, const char *text, struct lb_error *err)
{
    if (a->guards == TUNE_GUARDS_MAX) {
        char *shown = text_shown(text);
        lb_fail(err, "guard '%s': expected at most %d guards", shown, TUNE_GUARDS_MAX);
        free(shown);
        return -1;
    }
    size_t g = a->guards;
    if (tune_guard_parse(text, &a->guard[g], &a->guard_key[g], err) < 0)
        return -1;
    a->guard_text[g] = xstrdup(text);
    a->guards++;
    return 0;
}

void tune_ask_values(const struct tune_ask *a, struct strv *out)
{
    for (size_t i = 0; i < a->grid.n; i++) {
        if (a->grid.label) {
            strv_push(out, a->grid.label[i]);
            continue;
        }
        char buf[64];
        /* 12 digits: 0:1:0.1's 0.30000000000000004 is "0.3" */
        snprintf(buf, sizeof(buf), "%.12g", a->grid.value[i]);
        strv_push(out, buf);
    }
}

/* The key of option (a guard's text, --minimize) a metric of c, NULL after err. */
static const struct metric *ask_metric(const struct campaign *c, const char *key, const char *what,
                                       struct lb_error *err)
{
    const struct metric *m = campaign_metric(c, key);
    if (m)
        return m;
    char *shown = text_shown(what), *keys = xstrdup("");
    for (size_t i = 0; i < c->profile.n_metrics; i++) {
        char *longer = xasprintf("%s%s%s", keys, i ? ", " : "", c->profile.metrics[i].key);
        free(keys);
        keys = longer;
    }
    char *shown_keys = text_shown(keys);
    lb_fail(err, "%s: no metric '%s' in profile '%s': expected one of %s", shown, key,
            c->profile.name, shown_keys);
    free(shown);
    free(keys);
    free(shown_keys);
    return NULL;
}

int tune_ask_bind(struct tune_ask *a, const struct campaign *c, const char *baseline,
                  struct lb_error *err)
{
    if (a->guards == 0)
        return lb_fail(err, "no guard: expected at least one --guard 'KEY<=LIMIT' (or "
                            "guards in the profile's tune section)");
    if (!a->minimize)
        a->minimize = xstrdup("cpu");
    char *what = xasprintf("--minimize '%s'", a->minimize);
    const struct metric *m = ask_metric(c, a->minimize, what, err);
    free(what);
    if (!m)
        return -1;
    if (a->tie < 0)
        a->tie = strcmp(a->minimize, "cpu") == 0 ? TUNE_TIE_CPU : 0;
    for (size_t g = 0; g < a->guards; g++) {
        what = xasprintf("guard '%s'", a->guard_text[g]);
        m = ask_metric(c, a->guard_key[g], what, err);
        free(what);
        if (!m)
            return -1;
        a->guard[g].higher_is_better = m->better == HIGHER_IS_BETTER;
    }
    const char *ref = a->reference ? a->reference : baseline;
    long k = ref ? tune_grid_find(&a->grid, ref) : -1;
    if (k < 0) {
        char *shown = text_shown(ref ? ref : "");
        lb_fail(err,
                a->reference ? "--reference '%s': not a value of the grid: expected one of "
                               "the settings tuned"
                             : "the profile's baseline '%s' is not a value of the grid: "
                               "give the reference setting with --reference V",
                shown);
        free(shown);
        return -1;
    }
    a->ref = (size_t)k;
    return 0;
}

json_t *tune_ask_json(const struct tune_ask *a)
{
    json_t *guards = json_array();
    for (size_t g = 0; g < a->guards; g++)
        json_array_append_new(guards, json_string(a->guard_text[g]));
    json_t *o = json_pack("{s:s, s:s, s:f, s:o, s:I, s:f, s:I}", "reference",
                          a->grid.label ? a->grid.label[a->ref] : "", "minimize",
                          a->minimize ? a->minimize : "cpu", "tie", a->tie, "guards", guards,
                          "max_runs",
                          (json_int_t)a->max_runs, "max_time_seconds", a->max_time_s, "max_rounds",
                          (json_int_t)a->max_rounds);
    if (a->range) {
        char ref[64];
        snprintf(ref, sizeof(ref), "%.12g", a->grid.value[a->ref]);
        json_object_set_new(o, "reference", json_string(ref));
        json_object_set_new(
            o, "range", json_pack("{s:f, s:f, s:f}", "lo", a->lo, "hi", a->hi, "step", a->step));
    }
    return o;
}

int tune_ask_from_campaign(struct tune_ask *a, const struct campaign *c, struct lb_error *err)
{
    tune_ask_init(a);
    const char *where = campaign_where(c);
    struct lb_error e;
    json_t *t = c->tune, *range = json_object_get(t, "range"),
           *guards = json_object_get(t, "guards");
    const char *ref = json_string_value(json_object_get(t, "reference"));
    const char *min = json_string_value(json_object_get(t, "minimize"));
    json_t *rounds = json_object_get(t, "max_rounds");
    bool ok = json_is_object(t) && json_is_array(guards) && ref && min &&
              strlen(min) < TUNE_TEXT_MAX && json_is_integer(rounds);
    if (ok && range) {
        double v[3];
        const char *k[3] = {"lo", "hi", "step"};
        for (size_t i = 0; i < 3; i++) {
            json_t *x = json_object_get(range, k[i]);
            ok &= json_is_number(x);
            v[i] = ok ? json_number_value(x) : 0;
        }
        if (ok && tune_grid_range(&a->grid, v[0], v[1], v[2], &e) < 0)
            return lb_fail(err, "%s: campaign.tune.range: %s", where, e.msg);
        a->range = true;
        a->lo = v[0];
        a->hi = v[1];
        a->step = v[2];
    } else if (ok && tune_ask_list(a, &c->spec.values, &e) < 0) {
        return lb_fail(err, "%s: campaign.tune: %s", where, e.msg);
    }
    if (!ok)
        return lb_fail(err,
                       "%s: campaign.tune: expected the reference, minimize, guards and "
                       "max_rounds loopbench tune writes",
                       where);
    struct strv values = {0};
    tune_ask_values(a, &values);
    bool same = values.n == c->spec.values.n;
    for (size_t i = 0; same && i < values.n; i++)
        same = strcmp(values.v[i], c->spec.values.v[i]) == 0;
    strv_release(&values);
    if (!same)
        return lb_fail(err,
                       "%s: campaign.tune.range: its values are not the campaign's "
                       "settings",
                       where);
    a->max_rounds = (long)json_integer_value(rounds);
    json_t *mr = json_object_get(t, "max_runs"), *mt = json_object_get(t, "max_time_seconds");
    a->max_runs = json_is_integer(mr) ? (long)json_integer_value(mr) : 0;
    a->max_time_s = json_is_number(mt) ? json_number_value(mt) : 0;
    json_t *tie = json_object_get(t, "tie"); /* absent before it was asked: the default */
    a->tie = json_is_number(tie) ? json_number_value(tie) : -1;
    if (a->max_rounds < SEQ_MIN_ROUNDS || a->max_rounds > 1000 || a->max_runs < 0 ||
        !(a->max_time_s >= 0) || (tie && !(a->tie >= 0 && isfinite(a->tie))))
        return lb_fail(err,
                       "%s: campaign.tune: max_rounds, max_runs, max_time_seconds or tie "
                       "out of range",
                       where);
    size_t i;
    json_t *g;
    json_array_foreach(guards, i, g) {
        const char *text = json_string_value(g);
        if (!text || strlen(text) >= TUNE_TEXT_MAX || tune_ask_guard(a, text, &e) < 0)
            return lb_fail(err, "%s: campaign.tune.guards[%zu]: %s", where, i,
                           text && strlen(text) < TUNE_TEXT_MAX ? e.msg
                                                                : "expected a guard's text");
    }
    a->reference = xstrndup(ref, TUNE_TEXT_MAX);
    a->minimize = xstrdup(min);
    if (tune_ask_bind(a, c, NULL, &e) < 0)
        return lb_fail(err, "%s: campaign.tune: %s", where, e.msg);
    return 0;
}

struct tune_spec tune_ask_spec(const struct tune_ask *a)
{
    struct tune_spec s = tune_spec_default();
    s.grid = &a->grid;
    s.reference = a->ref;
    s.guard = a->guard;
    s.guards = a->guards;
    s.max_rounds = a->max_rounds;
    s.max_runs = a->max_runs;
    s.tie = a->tie > 0 ? a->tie : 0;
    return s;
}

int tune_ask_analyse(const struct tune_ask *a, struct tune *t, const struct campaign *c,
                     struct tune_result *r, struct lb_error *err)
{
    size_t n = 0, cap = c->n_runs + 1;
    size_t *setting = xcalloc(cap, sizeof(*setting));
    long *round = xcalloc(cap, sizeof(*round));
    double *objective = xcalloc(cap, sizeof(double));
    double *values = xcalloc(cap * a->guards + 1, sizeof(double));
    const double *guard[TUNE_GUARDS_MAX];
    const struct metric *om = campaign_metric(c, a->minimize);
    const struct metric *gm[TUNE_GUARDS_MAX];
    for (size_t g = 0; g < a->guards; g++) {
        guard[g] = values + g * cap;
        gm[g] = campaign_metric(c, a->guard_key[g]);
    }
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *run = &c->runs[i];
        if (run->status != RUN_OK && run->status != RUN_FAILED)
            continue;
        bool ok = run->status == RUN_OK && om;
        setting[n] = run->setting_index;
        round[n] = run->repeat - 1;
        objective[n] = ok ? metric_read(c, run, om) : NAN;
        for (size_t g = 0; g < a->guards; g++)
            values[g * cap + n] = ok && gm[g] ? metric_read(c, run, gm[g]) : NAN;
        n++;
    }
    struct tune_obs obs = {n, setting, round, objective, guard};
    int rc = tune_analyse(t, &obs, r, err);
    free(setting);
    free(round);
    free(objective);
    free(values);
    return rc;
}

/* The mean of setting si's wake-ups per second, NaN without runs. */
static double wake_rate(const struct campaign *c, size_t si)
{
    const struct metric *m = campaign_metric(c, "voluntary_per_s");
    double *v = xcalloc(c->n_runs + 1, sizeof(double)), sum = 0;
    size_t n = m ? campaign_values(c, si, m, v) : 0, used = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            sum += v[i];
            used++;
        }
    free(v);
    return used ? sum / (double)used : NAN;
}

/* Whether setting s is beaten by another on both its objective and its first guard's
 * figure (toward harm: a floor's lower value is worse). */
static bool dominated(const struct tune_ask *a, const struct tune_result *r, size_t s)
{
    const struct tune_check *cs = &r->check[s * r->guards];
    double sign = a->guard[0].higher_is_better ? -1 : 1;
    for (size_t o = 0; o < r->settings; o++) {
        const struct tune_check *co = &r->check[o * r->guards];
        if (o == s || !r->setting[o].rounds || !isfinite(co->value) ||
            !isfinite(r->setting[o].objective))
            continue;
        bool no_worse = r->setting[o].objective <= r->setting[s].objective &&
                        sign * co->value <= sign * cs->value;
        bool better = r->setting[o].objective < r->setting[s].objective ||
                      sign * co->value < sign * cs->value;
        if (no_worse && better)
            return true;
    }
    return false;
}

json_t *tune_ask_answer(const struct tune_ask *a, const struct campaign *c,
                        const struct tune_result *r)
{
    json_t *frontier = json_array();
    for (size_t s = 0; s < r->settings; s++) {
        const struct tune_setting *st = &r->setting[s];
        if (!st->rounds)
            continue;
        json_t *guards = json_array();
        for (size_t g = 0; g < r->guards; g++) {
            const struct tune_check *k = &r->check[s * r->guards + g];
            json_array_append_new(
                guards,
                json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I}", "guard", a->guard_text[g],
                          "verdict", tune_verdict_name(k->verdict), "value",
                          json_num_or_null(k->value), "limit", json_num_or_null(k->limit), "lo",
                          json_num_or_null(k->lo), "hi", json_num_or_null(k->hi), "detectable",
                          json_num_or_null(k->detectable), "rounds_needed",
                          (json_int_t)k->rounds_needed));
        }
        bool valued = isfinite(st->objective) && isfinite(r->check[s * r->guards].value);
        json_t *row = json_pack(
            "{s:s, s:b, s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "setting",
            c->spec.values.v[s], "reference", s == a->ref, "rounds", (json_int_t)st->rounds,
            "verdict", tune_verdict_name(st->verdict), a->minimize,
            json_num_or_null(st->objective), "change", json_num_or_null(st->change), "change_lo",
            json_num_or_null(st->change_lo), "change_hi", json_num_or_null(st->change_hi),
            "wakeups_per_s", json_num_or_null(wake_rate(c, s)), "guards", guards, "pareto",
            valued && !dominated(a, r, s));
        json_object_update_new(row, json_pack("{s:o, s:o, s:o}", "to_best",
                                              json_num_or_null(st->to_best), "to_best_lo",
                                              json_num_or_null(st->to_best_lo), "to_best_hi",
                                              json_num_or_null(st->to_best_hi)));
        json_array_append_new(frontier, row);
    }
    json_t *rec = json_null();
    if (r->recommended >= 0)
        rec =
            json_pack("{s:s, s:o, s:o, s:o}", "setting", c->spec.values.v[r->recommended], "saving",
                      json_num_or_null(r->saving), "saving_lo", json_num_or_null(r->saving_lo),
                      "saving_hi", json_num_or_null(r->saving_hi));
    return json_pack("{s:o, s:o, s:b, s:I, s:I, s:o}", "recommended", rec, "best",
                     r->best >= 0 ? json_string(c->spec.values.v[r->best]) : json_null(),
                     "monotonic", r->monotonic, "rounds", (json_int_t)r->rounds, "runs",
                     (json_int_t)r->runs, "frontier", frontier);
}

void tune_ask_release(struct tune_ask *a)
{
    tune_grid_release(&a->grid);
    free(a->reference);
    free(a->minimize);
    for (size_t g = 0; g < a->guards; g++) {
        free(a->guard_text[g]);
        free(a->guard_key[g]);
    }
    memset(a, 0, sizeof(*a));
}
