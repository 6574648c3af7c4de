#include "verdict.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "numfmt.h"

bool verdict_untested(const struct compare_row *row)
{
    const struct gate_result *g = &row->g;
    /* a guardrail is decided exactly, without a test */
    return !g->tested && g->verdict == VERDICT_INCONCLUSIVE;
}

const char *verdict_word(const struct compare_row *row)
{
    if (verdict_untested(row))
        return "cannot test";
    return row->budget ? budget_verdict_name(row->g.verdict) : verdict_name(row->g.verdict);
}

struct verdict_frame verdict_frame_of(const struct compare_result *r, const struct gate_opts *o)
{
    return (struct verdict_frame){r->base_campaigns, r->sequential_max, o, NULL};
}

/* printf onto what buf[0..len) already holds. */
LB_PRINTF(3, 4)
static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t at = strlen(buf);
    if (at + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
}

static const char *plural(size_t n, const char *one, const char *more)
{
    return n == 1 ? one : more;
}

/* Why nothing could test the row. */
static void untested_why(const struct compare_row *row, const struct verdict_frame *f, char *buf,
                         size_t len)
{
    const struct gate_result *g = &row->g;
    if (f->untested)
        append(buf, len, "%s", f->untested);
    else if (g->cpu_note)
        append(buf, len, "%s", g->cpu_note);
    else if (row->budget)
        append(buf, len, "%zu %s: a budget's test needs 2", row->b.n,
               plural(row->b.n, "run", "runs"));
    else if (row->a.n == 0 && row->b.n == 0)
        append(buf, len, "no completed run recorded it");
    else if (f->base_campaigns == 0 && (row->a.n == 0 || row->b.n == 0))
        append(buf, len, "no completed run of %s recorded it",
               row->a.n == 0  ? "the reference"
               : row->variant ? row->variant
                              : "the setting");
    else if (f->base_campaigns == 0)
        append(buf, len, "%zu %s paired: a paired test needs 2", g->n,
               plural(g->n, "round", "rounds"));
    else if (row->b.n == 0)
        append(buf, len, "no completed run of NEW recorded it");
    else if (f->base_campaigns == 1)
        append(buf, len, "%zu %s of BASE and %zu of NEW: the test needs 2 a side", row->a.n,
               plural(row->a.n, "run", "runs"), row->b.n);
    else
        append(buf, len, "too few runs to test (%zu of BASE, %zu of NEW)", row->a.n, row->b.n);
}

/* Why a budget's row got its verdict. */
static void budget_why(const struct compare_row *row, const struct verdict_frame *f, char *buf,
                       size_t len)
{
    char a[32];
    const struct gate_result *g = &row->g;
    const char *beyond = row->budget->upper ? "above" : "below";
    if (g->verdict == VERDICT_NO_CHANGE)
        append(buf, len, "not %s the budget (one-sided %.0f%% bound)", beyond,
               100.0 * (1.0 - f->gate->equivalence_alpha));
    else if (g->verdict == VERDICT_REGRESSED)
        append(buf, len, "%s the budget after Holm's correction", beyond);
    else
        append(buf, len, "only a typical value %s %s the budget would be called over",
               fmt_change(g->detectable, a, sizeof(a)), beyond);
}

void verdict_why(const struct compare_row *row, const struct verdict_frame *f, char *buf,
                 size_t len)
{
    char a[32], b[32];
    const struct gate_result *g = &row->g;
    buf[0] = '\0';
    fmt_change(f->gate->threshold, b, sizeof(b));
    if (!row->gated)
        append(buf, len, "not gated; ");
    if (f->sequential_max && row->decided_at)
        append(buf, len, "decided at the look after round %ld; ", row->decided_at);
    if (verdict_untested(row))
        untested_why(row, f, buf, len);
    else if (row->budget)
        budget_why(row, f, buf, len);
    else if (g->test && !g->tested) /* a guardrail */
        append(buf, len, "%s",
               g->verdict == VERDICT_REGRESSED ? "must stay 0: non-zero in a window"
                                               : "must stay 0: 0 in every window");
    else if (g->verdict == VERDICT_NO_CHANGE)
        append(buf, len, "within +-%s (90%% interval)", b + 1);
    else if (g->verdict == VERDICT_INCONCLUSIVE && !g->log_scale && g->scale == 0)
        append(buf, len,
               "its reference is 0 in every run: no change relative to it can be "
               "called");
    else if (g->verdict == VERDICT_INCONCLUSIVE) {
        append(buf, len, "only a change of %s would be called",
               fmt_change(g->detectable, a, sizeof(a)));
        if (f->base_campaigns == 1)
            append(buf, len,
                   "; one campaign a side: run base and head as variants of one "
                   "campaign to decide");
        else if (f->base_campaigns == 0 && g->rounds_needed)
            append(buf, len, "; %ld rounds would decide a change of %s", g->rounds_needed, b);
    }
    if (g->cpu_modelled)
        append(buf, len, "; %zu assignments of CPU sets, their effect +-%s%s removed", g->cpu_sets,
               fmt_number(g->log_scale ? expm1(g->cpu_effect) * 100 : g->cpu_effect, a, sizeof(a)),
               g->log_scale ? "%" : "");
    else if (g->cpu_note && g->tested)
        append(buf, len, "; %s", g->cpu_note);
    if (g->trimmed)
        append(buf, len, "; %zu rounds trimmed", g->trimmed);
    if (row->saturated)
        append(buf, len, "; %s: the comparison measured contention", row->saturated);
    /* nothing after "not gated; " */
    size_t l = strlen(buf);
    if (l >= 2 && strcmp(buf + l - 2, "; ") == 0)
        buf[l - 2] = '\0';
}

const char *verdict_direction(double lo, double hi)
{
    if (lo > 1 && hi > 1 && isfinite(lo))
        return "more";
    if (lo < 1 && hi < 1 && isfinite(hi))
        return "less";
    return "no clear difference";
}

const struct compare_row *verdict_deciding_row(const struct compare_result *r)
{
    for (size_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].gated && r->rows[i].g.verdict == r->worst)
            return &r->rows[i];
    return NULL;
}

const char *verdict_result_word(const struct compare_result *r)
{
    bool budgets_only = true;
    for (size_t i = 0; i < r->n_rows; i++)
        budgets_only = budgets_only && (!r->rows[i].gated || r->rows[i].budget);
    return r->n_rows && budgets_only ? budget_verdict_name(r->worst) : verdict_name(r->worst);
}

void verdict_headline(const struct compare_result *r, const struct verdict_frame *f,
                      const char *knob, char *buf, size_t len)
{
    char why[512], change[96];
    const struct compare_row *row = verdict_deciding_row(r);
    size_t gated = 0, alike = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        gated += r->rows[i].gated;
        alike += r->rows[i].gated && r->rows[i].g.verdict == r->worst;
    }
    buf[0] = '\0';
    if (!row) {
        append(buf, len, "no comparison is gated");
        return;
    }
    if (r->worst == VERDICT_NO_CHANGE) { /* the least of the verdicts: every row is so */
        char th[32];
        size_t budgets = 0;
        for (size_t i = 0; i < r->n_rows; i++)
            budgets += r->rows[i].gated && r->rows[i].budget;
        fmt_change(f->gate->threshold, th, sizeof(th));
        if (budgets == gated)
            append(buf, len, "%s %zu %s", gated == 1 ? "the" : "all", gated,
                   gated == 1 ? "budget holds" : "budgets hold");
        else
            append(buf, len, "%s %zu gated %s within +-%s (90%% %s)%s",
                   gated == budgets + 1 ? "the" : "all", gated - budgets,
                   plural(gated - budgets, "change lies", "changes lie"), th + 1,
                   plural(gated - budgets, "interval", "intervals"),
                   budgets ? ", every budget holds" : "");
        return;
    }
    append(buf, len, "%s at %s %s%s%s", row->name ? row->name : row->label, knob, row->setting,
           row->variant ? " " : "", row->variant ? row->variant : "");
    verdict_why(row, f, why, sizeof(why));
    if (verdict_untested(row))
        append(buf, len, " cannot be tested: %s", why);
    else if (row->g.tested && !row->budget &&
             (r->worst == VERDICT_REGRESSED || r->worst == VERDICT_IMPROVED)) {
        char lo[32], hi[32];
        append(buf, len, " %s (%.0f%% CI %s to %s)", fmt_change(row->g.change, change, 32),
               f->gate->level * 100, fmt_change(row->g.lo, lo, sizeof(lo)),
               fmt_change(row->g.hi, hi, sizeof(hi)));
    } else if (*why)
        append(buf, len, ": %s", why);
    if (alike > 1)
        append(buf, len, "; and %zu more %s", alike - 1,
               plural(alike - 1, "comparison", "comparisons"));
}

int reading_init(struct reading *rd, const struct campaign *c, struct lb_error *err)
{
    memset(rd, 0, sizeof(*rd));
    rd->opts = (struct compare_opts){.gate = gate_opts_default(), .primary = c->spec.primary};
    struct lb_error ignored;
    if (budget_from_campaign(c, &rd->budgets, &ignored) < 0 ||
        budget_check(&rd->budgets, c, &ignored) < 0)
        budget_set_release(&rd->budgets);
    bool variants = c->spec.n_variants > 1;
    struct compare_opts cells = rd->opts;
    if (variants)
        cells.budgets = &rd->budgets;
    int rc = c->spec.sequential_max ? compare_sequential(c, &cells, &rd->cells, err)
                                    : compare_within(c, &cells, &rd->cells, err);
    if (rc == 0 && variants)
        rd->gate = &rd->cells;
    else if (rc == 0 && rd->budgets.n) {
        struct compare_opts alone = rd->opts;
        alone.budgets = &rd->budgets;
        rc = compare_variants(c, &alone, &rd->budget_gate, err);
        rd->gate = &rd->budget_gate;
    }
    return rc;
}

void reading_release(struct reading *rd)
{
    compare_result_release(&rd->cells);
    compare_result_release(&rd->budget_gate);
    budget_set_release(&rd->budgets);
    memset(rd, 0, sizeof(*rd));
}

static bool same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

const struct compare_row *reading_row(const struct reading *rd, const char *setting,
                                      const char *variant, const char *key)
{
    for (size_t i = 0; i < rd->cells.n_rows; i++) {
        const struct compare_row *row = &rd->cells.rows[i];
        if (!row->budget && same(row->setting, setting) && same(row->variant, variant) &&
            strcmp(row->metric, key) == 0)
            return row;
    }
    return NULL;
}

void verdict_power(const struct compare_row *row, char *buf, size_t len)
{
    char a[32];
    if (row->gated && row->g.tested && !row->budget && isfinite(row->detectable))
        append(buf, len, "%scould have missed changes under %s (%.0f%% power)", *buf ? "; " : "",
               fmt_change(row->detectable, a, sizeof(a)), 100 * COMPARE_POWER);
}
