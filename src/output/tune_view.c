#include "tune_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mermaid.h"
#include "metric.h"
#include "numfmt.h"
#include "text.h"

/* A guard's figure in its limit's terms: "1.23", "+0.5", "+12.3%". */
static const char *guard_figure(const struct tune_guard *g, double v, char *buf, size_t len)
{
    if (g->kind == TUNE_PERCENT)
        return fmt_change(v, buf, len);
    char num[24];
    fmt_number(v, num, sizeof(num));
    snprintf(buf, len, "%s%s", g->kind == TUNE_DELTA && v >= 0 ? "+" : "", num);
    return buf;
}

/* Why the search stopped, from campaign.tune.stopped; NULL while it ran. */
static const char *stopped(const struct campaign *c)
{
    const char *s = json_string_value(json_object_get(c->tune, "stopped"));
    static const enum tune_stop all[] = {TUNE_LOCATED, TUNE_BUDGET, TUNE_STUCK};
    for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++)
        if (strcmp(s, tune_stop_name(all[i])) == 0)
            return tune_stop_name(all[i]);
    return NULL;
}

/* Setting s's objective over the lowest's, in its unit (tune minimises it), with the bound
 * a tie is judged by: "+0.36 (≤ 0.45) tie", "lowest", or "" outside a guard or without
 * the pairs. */
static const char *over_lowest(const struct tune_view *v, size_t s, char *buf, size_t len)
{
    const struct tune_result *r = v->r;
    const struct tune_setting *st = &r->setting[s];
    *buf = '\0';
    if ((long)s == r->best)
        snprintf(buf, len, "lowest");
    else if (r->best >= 0 && isfinite(st->to_best)) {
        double est, lo, hi;
        tune_over_lowest(r, s, false, &est, &lo, &hi);
        char a[32], b[32];
        snprintf(buf, len, "%s%s (≤ %s)%s", est >= 0 ? "+" : "", fmt_number(est, a, sizeof(a)),
                 fmt_number(hi, b, sizeof(b)), st->tied ? " tie" : "");
    }
    return buf;
}

/* The setting the campaign recorded as its answer when it ran, when this reading differs
 * (a loopbench whose statistics have changed since): NULL otherwise, and when it recorded
 * none (interrupted before its first look). Borrowed from c->tune. */
static const char *answer_when_run(const struct tune_view *v)
{
    const char *was =
        json_string_value(json_object_get(json_object_get(v->c->tune, "recommended"), "setting"));
    long now = v->r->recommended;
    if (!was || (now >= 0 && strcmp(was, v->c->spec.values.v[now]) == 0))
        return NULL;
    return was;
}

static void headline(const struct tune_view *v, FILE *out)
{
    const struct campaign *c = v->c;
    const struct tune_result *r = v->r;
    char *knob = text_markdown(c->profile.knob_label),
         *ref = text_markdown(c->spec.values.v[v->a->ref]);
    fprintf(out, "## Which value of %s to run\n\n", knob);
    if (r->recommended >= 0 && (size_t)r->recommended == v->a->ref) {
        fprintf(out,
                "**Recommended: %s = %s**, the reference itself: no other setting is "
                "proven within every guard at a lower %s.\n\n",
                knob, ref, v->a->minimize);
    } else if (r->recommended >= 0) {
        char *rec = text_markdown(c->spec.values.v[r->recommended]);
        char s[32], lo[32], hi[32];
        fprintf(out,
                "**Recommended: %s = %s**, within every guard: %s %s %s%% against the "
                "reference %s (90%% interval of the saving %s%% to %s%%).\n\n",
                knob, rec, v->a->minimize, r->saving >= 0 ? "saves" : "costs",
                fmt_number(100 * fabs(r->saving), s, sizeof(s)), ref,
                fmt_number(100 * r->saving_lo, lo, sizeof(lo)),
                fmt_number(100 * r->saving_hi, hi, sizeof(hi)));
        if (r->best != r->recommended) {
            char *best = text_markdown(c->spec.values.v[r->best]);
            char tie[32];
            fprintf(out,
                    "Its %s is shown within %s of the lowest, %s = %s's, and it is nearer the "
                    "reference: a tie goes to the smaller change (`--tie`).\n\n",
                    v->a->minimize, fmt_number(v->a->tie, tie, sizeof(tie)), knob, best);
            free(best);
        }
        free(rec);
    } else {
        fprintf(out, "**No setting is proven within every guard yet.**\n\n");
    }
    const char *why = stopped(c);
    fprintf(out, "%zu runs in %zu rounds; the search %s%s.%s\n\n", r->runs, r->rounds,
            why ? "stopped: " : "did not finish", why ? why : "",
            r->monotonic ? "" : " The knob is not monotonic here: every value of that side ran.");
    const char *was = answer_when_run(v);
    if (was) {
        char *shown = text_markdown(was);
        fprintf(out,
                "When it ran, this campaign recommended %s = %s: read again from its runs with "
                "this loopbench's statistics, the answer is the one above.\n\n",
                knob, shown);
        free(shown);
    }
    free(knob);
    free(ref);
}

int tune_markdown(const void *view, const void *opts, FILE *out, struct lb_error *err)
{
    (void)opts;
    const struct tune_view *v = view;
    const struct campaign *c = v->c;
    const struct tune_ask *a = v->a;
    const struct tune_result *r = v->r;
    headline(v, out);
    const struct metric *om = campaign_metric(c, a->minimize);
    char *ol = text_markdown(om ? om->label : a->minimize);
    fprintf(out,
            "| | %s | rounds | %s | change (90%% interval) | over the lowest (95%% bound) | "
            "wake-ups /s |",
            "setting", ol);
    free(ol);
    for (size_t g = 0; g < a->guards; g++) {
        char *gt = text_markdown(a->guard_text[g]);
        fprintf(out, " %s (95%% bound) |", gt);
        free(gt);
    }
    fprintf(out, "\n|---|---|--:|--:|--:|--:|--:|");
    for (size_t g = 0; g < a->guards; g++)
        fprintf(out, "---|");
    fputc('\n', out);
    json_t *answer = tune_ask_answer(a, c, r);
    json_t *rows = json_object_get(answer, "frontier");
    size_t k = 0;
    for (size_t s = 0; s < r->settings; s++) {
        const struct tune_setting *st = &r->setting[s];
        if (!st->rounds)
            continue;
        json_t *row = json_array_get(rows, k++);
        double wake = json_number_value(json_object_get(row, "wakeups_per_s"));
        char *name = text_markdown(c->spec.values.v[s]);
        char o[32], ch[32], lo[32], hi[32], w[32], ob[96];
        char change[112] = "";
        if (s != a->ref)
            snprintf(change, sizeof(change), "%s (%s to %s)",
                     fmt_change(st->change, ch, sizeof(ch)),
                     fmt_change(st->change_lo, lo, sizeof(lo)),
                     fmt_change(st->change_hi, hi, sizeof(hi)));
        fprintf(out, "| %s | %s%s | %zu | %s | %s | %s | %s |",
                (long)s == r->recommended ? "**→**" : "", name, s == a->ref ? " (reference)" : "",
                st->rounds, fmt_number(st->objective, o, sizeof(o)), change,
                over_lowest(v, s, ob, sizeof(ob)), fmt_number(wake, w, sizeof(w)));
        free(name);
        for (size_t g = 0; g < a->guards; g++) {
            const struct tune_check *x = &r->check[s * r->guards + g];
            char val[32], b[32];
            /* the bound that decided it, or would: toward harm unless proven outside */
            bool upper = a->guard[g].higher_is_better == (x->verdict == TUNE_OUTSIDE);
            fprintf(out, " %s (%s %s) %s |", guard_figure(&a->guard[g], x->value, val, sizeof(val)),
                    upper ? "≤" : "≥",
                    guard_figure(&a->guard[g], upper ? x->hi : x->lo, b, sizeof(b)),
                    tune_verdict_name(x->verdict));
        }
        fputc('\n', out);
    }
    json_decref(answer);
    fputc('\n', out);
    /* what more runs would settle */
    bool any = false;
    for (size_t s = 0; s < r->settings; s++)
        for (size_t g = 0; r->setting[s].rounds && g < a->guards; g++) {
            const struct tune_check *x = &r->check[s * r->guards + g];
            if (x->verdict != TUNE_UNDECIDED || !x->tested)
                continue;
            char *name = text_markdown(c->spec.values.v[s]), *gt = text_markdown(a->guard_text[g]);
            char need[64] = "more rounds than are advised";
            if (x->rounds_needed > 0)
                snprintf(need, sizeof(need), "about %ld rounds in all", x->rounds_needed);
            fprintf(out, "%s- %s, %s: undecided%s; %s would settle it (80%% power).\n",
                    any ? "" : "Undecided:\n\n", name, gt,
                    r->setting[s].longer > 0 ? " in a longer trial past its cap" : "", need);
            any = true;
            free(name);
            free(gt);
        }
    if (any)
        fputc('\n', out);
    if (ferror(out))
        return lb_fail(err, "writing the tune's table failed");
    return 0;
}

json_t *tune_json(const struct tune_view *v)
{
    json_t *o = tune_ask_json(v->a);
    json_object_update_new(o, tune_ask_answer(v->a, v->c, v->r));
    const char *why = stopped(v->c);
    json_object_set_new(o, "stopped", why ? json_string(why) : json_null());
    const char *was = answer_when_run(v);
    if (was)
        json_object_set_new(o, "recommended_when_run", json_string(was));
    return o;
}

int tune_chart(const struct tune_view *v, FILE *out, struct lb_error *err)
{
    const struct tune_result *r = v->r;
    json_t *answer = tune_ask_answer(v->a, v->c, r);
    json_t *rows = json_object_get(answer, "frontier");
    struct mermaid_dot *dots = xcalloc(r->settings + 1, sizeof(*dots));
    size_t n = 0;
    for (size_t s = 0; s < r->settings; s++) {
        if (!r->setting[s].rounds)
            continue;
        bool pareto = json_is_true(json_object_get(json_array_get(rows, n), "pareto"));
        enum mermaid_dot_style style = (long)s == r->recommended               ? MERMAID_DOT_MARKED
                                       : r->setting[s].verdict == TUNE_OUTSIDE ? MERMAID_DOT_FADED
                                       : pareto                                ? MERMAID_DOT_FRONT
                                                                               : MERMAID_DOT_PLAIN;
        dots[n++] = (struct mermaid_dot){v->c->spec.values.v[s], r->check[s * r->guards].value,
                                         r->setting[s].objective, style};
    }
    json_decref(answer);
    const struct metric *om = campaign_metric(v->c, v->a->minimize);
    char *title = xasprintf("%s against %s per setting", v->a->minimize, v->a->guard_key[0]);
    static const char *const terms[] = {[TUNE_ABSOLUTE] = "",
                                        [TUNE_DELTA] = " over the reference",
                                        [TUNE_PERCENT] = " change against the reference"};
    char *x = xasprintf("%s%s", v->a->guard_key[0], terms[v->a->guard[0].kind]);
    struct mermaid_scatter chart = {title, x, om ? om->label : v->a->minimize, dots, n};
    int rc = mermaid_scatter_write(out, &chart, err);
    if (rc == 0)
        fprintf(out,
                "Each dot a setting: its typical %s against its figure of the first "
                "guard; red the recommended setting, blue the Pareto frontier (no "
                "setting lower on both), grey proven outside a guard. The intervals "
                "are in the table above.\n\n",
                v->a->minimize);
    free(title);
    free(x);
    free(dots);
    return rc;
}

int tune_judge(struct tune_judged *j, const struct campaign *c, struct lb_error *err)
{
    memset(j, 0, sizeof(*j));
    if (tune_ask_from_campaign(&j->a, c, err) < 0)
        return -1;
    struct tune_spec spec = tune_ask_spec(&j->a);
    if (tune_init(&j->t, &spec, err) < 0 || tune_ask_analyse(&j->a, &j->t, c, &j->r, err) < 0)
        return -1;
    tune_advise(&j->t, &j->r);
    return 0;
}

void tune_judged_release(struct tune_judged *j)
{
    tune_result_release(&j->r);
    tune_release(&j->t);
    tune_ask_release(&j->a);
}

json_t *tune_report_json(const struct campaign *c)
{
    struct tune_judged j;
    struct lb_error e;
    json_t *o;
    if (tune_judge(&j, c, &e) < 0) {
        o = json_pack("{s:s}", "error", e.msg);
    } else {
        struct tune_view v = {c, &j.a, &j.r};
        o = tune_json(&v);
    }
    tune_judged_release(&j);
    return o;
}

int tune_report(const struct campaign *c, bool charts, FILE *out, struct lb_error *err)
{
    struct tune_judged j;
    struct lb_error e;
    int rc = 0;
    if (tune_judge(&j, c, &e) < 0) {
        char *shown = text_markdown(e.msg);
        fprintf(out, "The tune of this campaign cannot be judged again: %s.\n\n", shown);
        free(shown);
    } else {
        struct tune_view v = {c, &j.a, &j.r};
        rc = tune_markdown(&v, NULL, out, err);
        if (rc == 0 && charts)
            rc = tune_chart(&v, out, err);
    }
    tune_judged_release(&j);
    return rc;
}
