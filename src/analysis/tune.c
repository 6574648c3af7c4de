#include "tune.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "budget.h"
#include "gate.h"
#include "sequential.h"
#include "stats.h"
#include "text.h"
#include "util.h"

/* ---- the grid ------------------------------------------------------------------------ */

int tune_grid_range(struct tune_grid *g, double lo, double hi, double step, struct lb_error *err)
{
    memset(g, 0, sizeof(*g));
    if (!isfinite(lo) || !isfinite(hi) || !isfinite(step) || !(step > 0))
        return lb_fail(err, "range %g:%g:%g: expected finite bounds and a step above 0", lo, hi,
                       step);
    if (hi < lo)
        return lb_fail(err, "range %g:%g:%g is reversed: expected LO <= HI", lo, hi, step);
    /* a hair of slack: 0:1:0.1 holds 11 values though (1 - 0) / 0.1 is 9.999... */
    double count = floor((hi - lo) / step + 1e-9) + 1.0;
    if (count < 2)
        return lb_fail(err, "range %g:%g:%g holds one value: expected at least 2", lo, hi, step);
    if (count > TUNE_GRID_MAX)
        return lb_fail(err, "range %g:%g:%g holds %.0f values: expected at most %d", lo, hi, step,
                       count, TUNE_GRID_MAX);
    g->n = (size_t)count;
    g->value = xcalloc(g->n, sizeof(double));
    for (size_t k = 0; k < g->n; k++)
        g->value[k] = lo + step * (double)k;
    return 0;
}

int tune_guard_parse(const char *text, struct tune_guard *g, char **key, struct lb_error *err)
{
    memset(g, 0, sizeof(*g));
    *key = NULL;
    const char *op = strstr(text, "<=");
    size_t klen = op ? (size_t)(op - text) : 0;
    bool named = klen > 0 && klen <= 64;
    for (size_t i = 0; named && i < klen; i++)
        named =
            isalnum((unsigned char)text[i]) || text[i] == '_' || text[i] == '.' || text[i] == '-';
    const char *v = op ? op + 2 : "";
    g->kind = *v == '+' ? TUNE_DELTA : TUNE_ABSOLUTE;
    char num[64];
    size_t len = strlen(v + (*v == '+'));
    snprintf(num, sizeof(num), "%s", v + (*v == '+'));
    if (g->kind == TUNE_DELTA && len > 0 && len < sizeof(num) && num[len - 1] == '%') {
        g->kind = TUNE_PERCENT;
        num[len - 1] = '\0';
    }
    bool number = len > 0 && len < sizeof(num) && parse_double(num, &g->limit) == 0 &&
                  isfinite(g->limit) && (g->kind == TUNE_ABSOLUTE || g->limit >= 0);
    if (named && number) {
        *key = xstrndup(text, klen);
        g->key = *key;
        return 0;
    }
    char *shown = text_shown(text);
    if (!named)
        lb_fail(err,
                "guard '%s': expected KEY<=LIMIT, KEY<=+DELTA or KEY<=+PCT%%, KEY a "
                "metric's key",
                shown);
    else
        lb_fail(err,
                "guard '%s': expected a number after '<=': LIMIT in the key's unit, "
                "+DELTA or +PCT%% over the reference (0 or more)",
                shown);
    free(shown);
    return -1;
}

int tune_grid_list(struct tune_grid *g, const char *const *label, size_t n, struct lb_error *err)
{
    memset(g, 0, sizeof(*g));
    if (n < 2 || n > TUNE_GRID_MAX)
        return lb_fail(err, "a list of %zu settings: expected 2 to %d", n, TUNE_GRID_MAX);
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < i && strcmp(label[j], label[i]) != 0)
            j++;
        if (*label[i] && j == i)
            continue;
        char *shown = text_shown(label[i]);
        lb_fail(err, "setting '%s' of the list is %s: expected distinct names", shown,
                *label[i] ? "given twice" : "empty");
        free(shown);
        return -1;
    }
    g->n = n;
    g->value = xcalloc(n, sizeof(double));
    g->label = xcalloc(n, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        g->value[i] = (double)i;
        g->label[i] = xstrdup(label[i]);
    }
    return 0;
}

long tune_grid_find(const struct tune_grid *g, const char *text)
{
    if (g->label) {
        for (size_t i = 0; i < g->n; i++)
            if (strcmp(g->label[i], text) == 0)
                return (long)i;
        return -1;
    }
    double v, step = g->value[1] - g->value[0];
    if (parse_double(text, &v) < 0)
        return -1;
    double k = floor((v - g->value[0]) / step + 0.5);
    if (k < 0 || k >= (double)g->n || fabs(g->value[(size_t)k] - v) > step / 1000.0)
        return -1;
    return (long)k;
}

void tune_grid_release(struct tune_grid *g)
{
    for (size_t i = 0; g->label && i < g->n; i++)
        free(g->label[i]);
    free(g->label);
    free(g->value);
    memset(g, 0, sizeof(*g));
}

/* ---- the spec --------------------------------------------------------------------------- */

struct tune_spec tune_spec_default(void)
{
    return (struct tune_spec){
        .alpha = TUNE_ALPHA, .power = TUNE_POWER, .max_rounds = TUNE_DEFAULT_ROUNDS};
}

int tune_init(struct tune *t, const struct tune_spec *spec, struct lb_error *err)
{
    memset(t, 0, sizeof(*t));
    const struct tune_spec *s = spec;
    if (!s->grid || s->grid->n < 2 || s->reference >= s->grid->n)
        return lb_fail(err, "tune: the reference (index %zu) must be a value of the grid of %zu",
                       s->reference, s->grid ? s->grid->n : 0);
    if (s->guards == 0)
        return lb_fail(err, "tune: expected at least one guard");
    for (size_t g = 0; g < s->guards; g++) {
        const struct tune_guard *q = &s->guard[g];
        bool relative = q->kind != TUNE_ABSOLUTE;
        if (isfinite(q->limit) && (!relative || q->limit >= 0))
            continue;
        char *key = text_shown(q->key ? q->key : "");
        lb_fail(err, "tune: guard on '%s': limit %g, expected a finite number%s", key, q->limit,
                relative ? ", 0 or more for a rise over the reference" : "");
        free(key);
        return -1;
    }
    if (!(s->alpha > 0 && s->alpha < 0.5) || !(s->power > 0 && s->power < 1))
        return lb_fail(err, "tune: alpha %g must lie in (0, 0.5) and power %g in (0, 1)", s->alpha,
                       s->power);
    if (!(s->tie >= 0 && isfinite(s->tie)))
        return lb_fail(err, "tune: tie %g: expected 0 or more, in the objective's unit", s->tie);
    if (s->max_runs < 0)
        return lb_fail(err, "tune: max runs %ld: expected 0 (no limit) or more", s->max_runs);
    struct gate_opts o = gate_opts_default();
    o.alpha = s->alpha;
    t->seq = xcalloc(1, sizeof(*t->seq));
    if (seq_init_spending(t->seq, 0, s->max_rounds, TUNE_GAMMA, &o, err) < 0) {
        free(t->seq);
        t->seq = NULL;
        return lb_fail(err, "tune: max rounds %ld: expected %d to %d", s->max_rounds,
                       SEQ_MIN_ROUNDS, SEQ_LIMIT_MAX);
    }
    t->spec = *s;
    t->sides = (s->reference > 0) + (s->reference + 1 < s->grid->n);
    t->longest = s->max_rounds * TUNE_LONGER;
    t->longest = t->longest < SEQ_LIMIT_MAX ? t->longest : SEQ_LIMIT_MAX;
    t->long_seq = xcalloc(1, sizeof(*t->long_seq));
    if (t->longest > s->max_rounds &&
        seq_init_spending(t->long_seq, 0, t->longest, TUNE_GAMMA, &o, err) < 0) {
        tune_release(t);
        return -1;
    }
    return 0;
}

void tune_release(struct tune *t)
{
    if (t->seq)
        seq_release(t->seq);
    free(t->seq);
    if (t->long_seq)
        seq_release(t->long_seq);
    free(t->long_seq);
    memset(t, 0, sizeof(*t));
}

const char *tune_verdict_name(enum tune_verdict v)
{
    static const char *const names[] = {
        [TUNE_UNDECIDED] = "undecided", [TUNE_WITHIN] = "within", [TUNE_OUTSIDE] = "outside"};
    return name_of(names, ARRAY_SIZE(names), (size_t)v);
}

const char *tune_stop_name(enum tune_stop s)
{
    static const char *const names[] = {[TUNE_RUN] = "run",
                                        [TUNE_LOCATED] = "located",
                                        [TUNE_BUDGET] = "budget spent",
                                        [TUNE_STUCK] = "undecided at the cap"};
    return name_of(names, ARRAY_SIZE(names), (size_t)s);
}

/* ---- one setting x guard's values ------------------------------------------------------ */

/* The alpha of the within sequence: the outside tests run at alpha, and a setting they
 * prove outside is passed over; were it truly outside but at its limit, the passing
 * itself had a chance of up to alpha, after which the next setting gets the sequence's
 * alpha again. alpha (1 - alpha) keeps the sum within alpha (docs/report.md). */
static double within_alpha(const struct tune_spec *s)
{
    return s->alpha * (1.0 - s->alpha);
}

static int sign_of(const struct tune_guard *q)
{
    return q->higher_is_better ? -1 : 1;
}

/* A guard's scale and its limit there: the excess toward harm of a value u on the raw
 * scale (a log, a value, a difference from the reference, a log ratio or a change
 * relative to the reference's mean) is h = sign (u - raw_limit). */
struct scale {
    bool log_scale;
    double raw_limit;
};

/* u (raw scale) in the limit's terms. */
static double terms(const struct tune_guard *q, const struct scale *sc, double u)
{
    if (sc->log_scale)
        return q->kind == TUNE_ABSOLUTE ? exp(u) : expm1(u);
    return u;
}

/* An excess h back in the limit's terms. */
static double excess_terms(const struct tune_guard *q, const struct scale *sc, double h)
{
    return terms(q, sc, sc->raw_limit + sign_of(q) * h);
}

struct series {
    size_t n;      /* values (at most the cap) */
    size_t seen;   /* values by the look being replayed */
    size_t *at;    /* [n]: the look value k arrived at */
    double *h;     /* [n]: excess toward harm on the scale */
    double *p_in;  /* [n]: p of within over the first k + 1 values */
    double *p_out; /* [n]: p of outside */
};

/* One-sided p of the first k of h: the t test of their mean against 0, or, when they all
 * tie, the sign test (2^-k, the chance that k values fall on one side of a median at the
 * limit; a value at the limit counts as within it). */
static void fill_p(struct series *s)
{
    double mean = 0, m2 = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < s->n; k++) {
        double v = s->h[k], d = v - mean;
        mean += d / (double)(k + 1);
        m2 += d * (v - mean);
        lo = fmin(lo, v);
        hi = fmax(hi, v);
        s->p_in[k] = s->p_out[k] = 1.0;
        if (k == 0)
            continue;
        double df = (double)k;
        if (lo == hi) {
            double sign_p = ldexp(1.0, -(int)(k + 1));
            *(v <= 0 ? &s->p_in[k] : &s->p_out[k]) = sign_p;
            continue;
        }
        double t = mean / sqrt(m2 / df / (double)(k + 1));
        s->p_in[k] = stats_t_cdf(t, df);
        s->p_out[k] = stats_t_cdf(-t, df);
    }
}

/* Whether s's within (or outside) test crossed the boundary of level alpha at any of its
 * looks from `from` values up to `seen`. */
static bool crossed(struct seq *q, const struct series *s, bool outside, double alpha, size_t from)
{
    const double *p = outside ? s->p_out : s->p_in;
    for (size_t k = from > SEQ_MIN_ROUNDS ? from : SEQ_MIN_ROUNDS; k <= s->seen; k++)
        if (p[k - 1] <= seq_nominal(q, alpha, (long)k))
            return true;
    return false;
}

/* ---- the replay ------------------------------------------------------------------------- */

struct replay {
    struct tune *t;
    const struct tune_obs *obs;
    size_t S, G, R, runs_n; /* grid values, guards, rounds */
    long *round_id;         /* [R], ascending */
    size_t *run_order;      /* [settings run], ascending index */
    size_t nrun;
    size_t *sequence[2]; /* each side's settings run, in the order they are tested */
    size_t in_sequence[2];
    size_t *first;       /* [S]: the look a setting first ran at; R when not run */
    size_t *slot;        /* [S]: a setting's row in cell; SIZE_MAX when not run */
    long *cell;          /* [settings run * R]: the run of a setting in round r; -1 */
    struct scale *scale; /* [G] */
    bool *trivial;       /* [S * G]: the reference's relative guards, within by definition */
    struct series *ser;  /* [S * G]: the first max_rounds values */
    struct series *ext;  /* [S * G]: the first tune.longest, for a longer trial */
    double *level;       /* [S]: its alpha in the within sequence */
    double *longer;      /* [S]: its longer trial's alpha; 0 */
    long *claimed;       /* [S]: the look it was called within every guard; -1 */
    long *within;        /* [S * G]: the look its guard was called within; -1 */
    long *outside;       /* [S * G]: the look its guard was proven outside; -1 */
    double *out_alpha;   /* [S * G]: the Holm share its outside test was held to */
};

static size_t apart(size_t a, size_t b)
{
    return a > b ? a - b : b - a;
}

static int side_of(const struct replay *p, size_t s)
{
    size_t ref = p->t->spec.reference;
    return s < ref ? -1 : (s > ref ? 1 : 0);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Rounds in order, who ran where. -1 with err on an observation that makes no sense. */
static int index_runs(struct replay *p, struct lb_error *err)
{
    const struct tune_obs *o = p->obs;
    long *ids = xcalloc(o->n + 1, sizeof(long));
    for (size_t i = 0; i < o->n; i++) {
        if (o->setting[i] >= p->S || o->round[i] < 0) {
            free(ids);
            return lb_fail(err,
                           "tune: run %zu: setting %zu, round %ld: expected a setting of "
                           "the grid of %zu and a round of 0 or more",
                           i, o->setting[i], o->round[i], p->S);
        }
        ids[i] = o->round[i];
    }
    qsort(ids, o->n, sizeof(long), cmp_long);
    for (size_t i = 0; i < o->n; i++)
        if (p->R == 0 || ids[i] != ids[p->R - 1])
            ids[p->R++] = ids[i];
    p->round_id = ids;
    /* the settings run, ascending, each its row of the rounds (a grid may hold thousands
     * of values, a campaign runs tens) */
    p->slot = xcalloc(p->S, sizeof(size_t));
    for (size_t i = 0; i < o->n; i++)
        p->slot[o->setting[i]] = 1;
    p->run_order = xcalloc(p->S, sizeof(size_t));
    for (size_t s = 0; s < p->S; s++)
        if (p->slot[s]) {
            p->slot[s] = p->nrun;
            p->run_order[p->nrun++] = s;
        } else
            p->slot[s] = SIZE_MAX;
    size_t R = p->R ? p->R : 1;
    p->cell = xmalloc((p->nrun ? p->nrun : 1) * R * sizeof(long));
    for (size_t i = 0; i < p->nrun * p->R; i++)
        p->cell[i] = -1;
    p->first = xcalloc(p->S, sizeof(size_t));
    for (size_t s = 0; s < p->S; s++)
        p->first[s] = p->R;
    for (size_t i = 0; i < o->n; i++) {
        long *at = bsearch(&o->round[i], ids, p->R, sizeof(long), cmp_long);
        size_t r = (size_t)(at - ids), s = o->setting[i], c = p->slot[s] * p->R + r;
        if (p->cell[c] >= 0)
            return lb_fail(err, "tune: setting %zu ran twice in round %ld: expected once a round",
                           s, o->round[i]);
        p->cell[c] = (long)i;
        p->first[s] = r < p->first[s] ? r : p->first[s];
    }
    return 0;
}

/* The run of setting s in round r (a position among the rounds); -1 when none. */
static long run_at(const struct replay *p, size_t s, size_t r)
{
    return p->slot[s] == SIZE_MAX ? -1 : p->cell[p->slot[s] * p->R + r];
}

/* Guard g's value in setting s's round r (NaN when it did not run or gave none). */
static double value_at(const struct replay *p, size_t g, size_t s, size_t r)
{
    long i = run_at(p, s, r);
    return i < 0 ? NAN : p->obs->guard[g][i];
}

/* On logs when every value of the key is > 0 (and an absolute limit too): a ratio scale,
 * like the gate's CPU; a difference limit (+DELTA) is on the values. */
static void choose_scale(struct replay *p, size_t g)
{
    const struct tune_guard *q = &p->t->spec.guard[g];
    struct scale *sc = &p->scale[g];
    sc->log_scale = q->kind == TUNE_PERCENT || (q->kind == TUNE_ABSOLUTE && q->limit > 0);
    for (size_t i = 0; i < p->obs->n && sc->log_scale; i++) {
        double v = p->obs->guard[g][i];
        sc->log_scale = isnan(v) || (v > 0 && isfinite(v));
    }
    int sign = sign_of(q);
    switch (q->kind) {
    case TUNE_ABSOLUTE:
        sc->raw_limit = sc->log_scale ? log(q->limit) : q->limit;
        break;
    case TUNE_DELTA:
        sc->raw_limit = sign * q->limit;
        break;
    case TUNE_PERCENT:
        sc->raw_limit = sign * (sc->log_scale ? log1p(q->limit / 100.0) : q->limit / 100.0);
        break;
    }
}

/* Setting s's values of guard g in the order of its rounds, the first cap usable, into z
 * (sized by its runs, not the cap: a crafted results.json's cap of 1000 costs nothing). */
static void build_series(struct replay *p, size_t s, size_t g, size_t cap, struct series *z)
{
    const struct tune_guard *q = &p->t->spec.guard[g];
    const struct scale *sc = &p->scale[g];
    size_t ref = p->t->spec.reference, ran = 0;
    bool relative = q->kind != TUNE_ABSOLUTE;
    for (size_t r = 0; r < p->R; r++)
        ran += run_at(p, s, r) >= 0;
    cap = ran < cap ? ran : cap;
    size_t room = cap ? cap : 1;
    z->at = xcalloc(room, sizeof(size_t));
    z->h = xcalloc(room, sizeof(double));
    z->p_in = xcalloc(room, sizeof(double));
    z->p_out = xcalloc(room, sizeof(double));
    double *u = xcalloc(room, sizeof(double)), ref_sum = 0;
    for (size_t r = 0; r < p->R && z->n < cap; r++) {
        double x = value_at(p, g, s, r), y = relative ? value_at(p, g, ref, r) : 0;
        if (isnan(x) || isnan(y))
            continue;
        z->at[z->n] = r;
        ref_sum += y;
        if (q->kind == TUNE_ABSOLUTE)
            u[z->n] = sc->log_scale ? log(x) : x;
        else
            u[z->n] = sc->log_scale ? log(x / y) : x - y;
        z->n++;
    }
    /* a change relative to the reference on values: of its mean over these pairs */
    double rs = z->n ? fabs(ref_sum / (double)z->n) : 0;
    for (size_t k = 0; k < z->n; k++) {
        double raw = q->kind == TUNE_PERCENT && !sc->log_scale && rs > 0 ? u[k] / rs : u[k];
        z->h[k] = sign_of(q) * (raw - sc->raw_limit);
    }
    free(u);
    fill_p(z);
}

/* Holm's alpha over m: exact to 4, then the next power of 2 up (each alpha needs its own
 * boundaries, 2^17 simulated paths: a few serve every campaign). */
static double holm_share(double alpha, size_t m)
{
    if (m <= 4)
        return alpha / (double)m;
    size_t k = 8;
    while (k < m)
        k *= 2;
    return alpha / (double)k;
}

static bool any_outside(const struct replay *p, size_t s)
{
    for (size_t g = 0; g < p->G; g++)
        if (p->outside[s * p->G + g] >= 0)
            return true;
    return false;
}

/* Holm's step-down over the settings run (those called within left out), every guard:
 * each held at every look so far to alpha over those not yet proven outside. */
static void look_outside(struct replay *p, size_t look)
{
    size_t family = 0, called = 0;
    double alpha = p->t->spec.alpha;
    for (size_t i = 0; i < p->nrun; i++) {
        size_t s = p->run_order[i];
        for (size_t g = 0; g < p->G && p->first[s] <= look; g++) {
            size_t c = s * p->G + g;
            if (p->trivial[c] || (p->claimed[s] >= 0 && p->outside[c] < 0))
                continue;
            family += p->outside[c] >= 0 || p->ser[c].seen >= SEQ_MIN_ROUNDS;
            called += p->outside[c] >= 0;
        }
    }
    for (bool more = true; more && called < family;) {
        more = false;
        double share = holm_share(alpha, family - called);
        for (size_t i = 0; i < p->nrun; i++) {
            size_t s = p->run_order[i];
            for (size_t g = 0; g < p->G && p->first[s] <= look; g++) {
                size_t c = s * p->G + g;
                if (p->trivial[c] || p->claimed[s] >= 0 || p->outside[c] >= 0 ||
                    p->ser[c].seen < SEQ_MIN_ROUNDS)
                    continue;
                p->out_alpha[c] = share;
                if (crossed(p->t->seq, &p->ser[c], true, share, 0)) {
                    p->outside[c] = (long)look;
                    called++;
                    more = true;
                }
            }
        }
    }
}

/* s is the head of its sequence at this look: each guard not yet within is tested at s's
 * alpha over every look so far, to the cap; or, in a longer trial (the last of the second
 * sequence: s undecided at its cap, every setting behind it settled), at that sequence's
 * alpha over its looks past the cap to tune.longest (their boundaries: every look from
 * the first spends a little of it, but the spending is late). Returns whether s is now
 * within every guard. */
static bool test_head(struct replay *p, size_t s, size_t look, bool longer)
{
    struct seq *q = longer ? p->t->long_seq : p->t->seq;
    const struct series *z = longer ? p->ext : p->ser;
    double alpha = longer ? p->longer[s] : p->level[s];
    size_t from = longer ? (size_t)p->t->spec.max_rounds + 1 : 0;
    bool all = true;
    for (size_t g = 0; g < p->G; g++) {
        size_t c = s * p->G + g;
        if (!p->trivial[c] && p->within[c] < 0 && alpha > 0 &&
            crossed(q, &z[c], false, alpha, from))
            p->within[c] = (long)look;
        all = all && (p->trivial[c] || p->within[c] >= 0);
    }
    if (all)
        p->claimed[s] = (long)look;
    return all;
}

/* Whether s is passed over: called within, or proven outside a guard. Else it is the
 * head of its sequence, and is tested. */
static bool passed(struct replay *p, size_t s, size_t look)
{
    if (p->claimed[s] >= 0 || any_outside(p, s))
        return true;
    return test_head(p, s, look, false);
}

/* Whether undecided s can no longer cross: each guard's looks, up to the cap, are done. */
static bool exhausted(const struct replay *p, size_t s)
{
    for (size_t g = 0; g < p->G; g++) {
        size_t c = s * p->G + g;
        if (!p->trivial[c] && p->within[c] < 0 &&
            p->ser[c].seen < (size_t)p->t->spec.max_rounds)
            return false;
    }
    return true;
}

/* The sequences at this look: the reference, then each side's, each stopping at its first
 * setting not passed; but past the first head undecided at its cap the rest of the side
 * goes on as a second sequence at the rescue's share of the alpha (the first's is the
 * rest: a union bound), so one setting too thin to prove does not leave every one behind
 * it untested; and once every one of those is passed, their alpha goes to that head's
 * longer trial. */
static void look_within(struct replay *p, size_t look)
{
    if (!passed(p, p->t->spec.reference, look))
        return;
    double whole = within_alpha(&p->t->spec) / (double)p->t->sides;
    for (int side = 0; side < 2; side++) {
        long stuck = -1;
        bool settled = true;
        for (size_t i = 0; i < p->in_sequence[side] && settled; i++) {
            size_t s = p->sequence[side][i];
            if (p->first[s] > look)
                break;
            if (p->claimed[s] < 0)
                p->level[s] = whole * (stuck >= 0 ? TUNE_RESCUE : 1.0 - TUNE_RESCUE);
            if (passed(p, s, look))
                continue;
            settled = stuck < 0 && exhausted(p, s);
            stuck = settled ? (long)s : stuck;
        }
        if (stuck >= 0 && settled) {
            p->longer[stuck] = whole * TUNE_RESCUE;
            test_head(p, (size_t)stuck, look, true);
        }
    }
}

/* The settings run on each side, in the order of their first round, those of one round
 * from the reference outward: a setting joins the end of its side's sequence when it
 * first runs, never ahead of one there, so each head stays the head until it is decided
 * (a setting put ahead of an undecided head, because that head looked outside, took it
 * out of the test exactly when it would not have crossed: 8.7% of a knob at its limit
 * recommended, docs/report.md). */
static bool tested_before(const struct replay *p, size_t x, size_t y)
{
    size_t ref = p->t->spec.reference;
    if (p->first[x] != p->first[y])
        return p->first[x] < p->first[y];
    return apart(x, ref) < apart(y, ref);
}

/* Each side's sequence (an insertion sort: a campaign runs tens of settings), and every
 * setting's alpha in it: the reference's whole, each side's a share of it. */
static void build_sequences(struct replay *p)
{
    size_t ref = p->t->spec.reference;
    double whole = within_alpha(&p->t->spec);
    for (int side = 0; side < 2; side++) {
        size_t *q = p->sequence[side] = xcalloc(p->nrun + 1, sizeof(size_t)), m = 0;
        for (size_t i = 0; i < p->nrun; i++) {
            size_t s = p->run_order[i];
            if (side_of(p, s) != (side ? 1 : -1))
                continue;
            size_t j = m++;
            while (j > 0 && tested_before(p, s, q[j - 1])) {
                q[j] = q[j - 1];
                j--;
            }
            q[j] = s;
        }
        p->in_sequence[side] = m;
    }
    for (size_t s = 0; s < p->S; s++)
        p->level[s] = s == ref ? whole : whole * (1.0 - TUNE_RESCUE) / (double)p->t->sides;
}

/* The values a look sees: those of its round and before. */
static void advance(struct series *z, size_t look)
{
    while (z->seen < z->n && z->at[z->seen] <= look)
        z->seen++;
}

static void replay(struct replay *p)
{
    size_t ref = p->t->spec.reference;
    /* the reference's relative guards hold by definition; with none else it is within */
    bool ref_trivial = true;
    for (size_t g = 0; g < p->G; g++)
        ref_trivial = ref_trivial && p->trivial[ref * p->G + g];
    if (ref_trivial)
        p->claimed[ref] = (long)(p->first[ref] < p->R ? p->first[ref] : 0);
    for (size_t look = 0; look < p->R; look++) {
        for (size_t i = 0; i < p->nrun; i++) {
            size_t s = p->run_order[i];
            for (size_t g = 0; g < p->G; g++) {
                advance(&p->ser[s * p->G + g], look);
                advance(&p->ext[s * p->G + g], look);
            }
        }
        look_outside(p, look);
        look_within(p, look);
    }
}

/* ---- the result ------------------------------------------------------------------------ */

/* The check of setting s x guard g from its series at the last look. */
static void fill_check(struct replay *p, size_t s, size_t g, struct tune_check *c)
{
    const struct tune_guard *q = &p->t->spec.guard[g];
    const struct scale *sc = &p->scale[g];
    size_t at = s * p->G + g;
    /* a longer trial's over its values past the cap too */
    bool longer = p->longer[s] > 0 && p->ext[at].n > p->ser[at].n;
    const struct series *z = longer ? &p->ext[at] : &p->ser[at];
    long last = p->R ? p->round_id[p->R - 1] : -1;
    memset(c, 0, sizeof(*c));
    c->log_scale = sc->log_scale;
    c->limit = terms(q, sc, sc->raw_limit);
    c->lo = c->hi = c->value = c->p_within = c->p_outside = c->excess = c->se = c->df =
        c->detectable = NAN;
    c->decided = -1;
    if (p->trivial[at]) {
        c->verdict = TUNE_WITHIN;
        c->value = c->lo = c->hi = terms(q, sc, 0);
        c->decided = p->first[s] < p->R ? p->round_id[p->first[s]] : last;
        return;
    }
    long within = p->within[at], outside = p->outside[at];
    c->verdict = outside >= 0 ? TUNE_OUTSIDE : (within >= 0 ? TUNE_WITHIN : TUNE_UNDECIDED);
    c->decided = outside >= 0 ? p->round_id[outside] : (within >= 0 ? p->round_id[within] : -1);
    c->n = z->n;
    if (z->n == 0)
        return;
    struct stats_summary sum;
    stats_summarize(z->h, z->n, &sum);
    c->excess = sum.mean;
    c->value = excess_terms(q, sc, sum.mean);
    c->tested = z->n >= 2;
    if (!c->tested)
        return;
    c->df = (double)(z->n - 1);
    c->se = sum.sd / sqrt((double)z->n);
    c->p_within = z->p_in[z->n - 1];
    c->p_outside = z->p_out[z->n - 1];
    if (longer)
        c->level_within = seq_nominal(p->t->long_seq, p->longer[s], (long)z->n);
    else if (p->level[s] > 0)
        c->level_within = seq_nominal(p->t->seq, p->level[s], (long)z->n);
    c->share_outside = p->out_alpha[at] > 0 ? p->out_alpha[at] : p->t->spec.alpha;
    /* the outside test's looks end at the cap */
    c->level_outside = seq_nominal(p->t->seq, c->share_outside, (long)p->ser[at].n);
    /* the bounds the verdicts are judged by; with no spread the sign test's: the point
     * once its p reaches the level, else nothing */
    double worst = NAN, best = NAN;
    if (c->level_within > 0)
        worst = c->se > 0 ? sum.mean + stats_t_quantile(1.0 - c->level_within, c->df) * c->se
                          : (c->p_within <= c->level_within ? sum.mean : INFINITY);
    if (c->level_outside > 0)
        best = c->se > 0 ? sum.mean - stats_t_quantile(1.0 - c->level_outside, c->df) * c->se
                         : (c->p_outside <= c->level_outside ? sum.mean : -INFINITY);
    double a = excess_terms(q, sc, worst), b = excess_terms(q, sc, best);
    c->hi = q->higher_is_better ? b : a;
    c->lo = q->higher_is_better ? a : b;
}

/* Each setting run that `with[]` names against setting `base`'s objective, paired by
 * round (the gate's paired t, its spread moderated by the others'), into out[its slot]
 * (untested where it is not named or shares under 2 rounds with base). */
static void paired_objective(struct replay *p, size_t base, const bool *with,
                             struct gate_result *out)
{
    size_t R = p->R ? p->R : 1, m = 0;
    struct gate_paired_input *in = xcalloc(p->nrun + 1, sizeof(*in));
    struct gate_result *res = xcalloc(p->nrun + 1, sizeof(*res));
    size_t *who = xcalloc(p->nrun + 1, sizeof(size_t));
    double *b = xcalloc(p->nrun * R + 1, sizeof(double)),
           *h = xcalloc(p->nrun * R + 1, sizeof(double));
    for (size_t i = 0; i < p->nrun; i++) {
        size_t s = p->run_order[i], k = 0;
        out[i] = (struct gate_result){.tested = false};
        if (!with[s] || s == base)
            continue;
        for (size_t rr = 0; rr < p->R; rr++) {
            long run = run_at(p, s, rr), at_base = run_at(p, base, rr);
            if (run < 0)
                continue;
            b[m * R + k] = at_base < 0 ? NAN : p->obs->objective[at_base];
            h[m * R + k] = p->obs->objective[run];
            k++;
        }
        in[m] = (struct gate_paired_input){
            {"", "objective", !p->t->spec.objective_higher_is_better, false, false},
            b + m * R,
            h + m * R,
            k,
            NULL};
        who[m++] = i;
    }
    struct gate_opts o = gate_opts_default();
    struct lb_error err;
    if (m && gate_paired(in, m, &o, res, &err) == 0)
        for (size_t j = 0; j < m; j++)
            out[who[j]] = res[j];
    free(in);
    free(res);
    free(who);
    free(b);
    free(h);
}

/* A tested comparison's change and interval into est, lo and hi (untouched otherwise). */
static void take_interval(const struct gate_result *g, double *est, double *lo, double *hi)
{
    if (!g->tested)
        return;
    *est = g->change;
    *lo = g->lo;
    *hi = g->hi;
}

/* The objective: each setting's typical value, and its change against the reference. */
static void fill_objective(struct replay *p, struct tune_result *r)
{
    double *own = xcalloc(p->R + 1, sizeof(double));
    bool *with = xcalloc(p->S, sizeof(bool));
    struct gate_result *out = xcalloc(p->nrun + 1, sizeof(*out));
    for (size_t i = 0; i < p->nrun; i++) {
        size_t s = p->run_order[i], k = 0;
        for (size_t rr = 0; rr < p->R; rr++)
            if (run_at(p, s, rr) >= 0)
                own[k++] = p->obs->objective[run_at(p, s, rr)];
        r->setting[s].objective = budget_typical(own, k);
        with[s] = true;
    }
    paired_objective(p, p->t->spec.reference, with, out);
    for (size_t i = 0; i < p->nrun; i++) {
        struct tune_setting *st = &r->setting[p->run_order[i]];
        take_interval(&out[i], &st->change, &st->change_lo, &st->change_hi);
    }
    free(own);
    free(with);
    free(out);
}

/* The first guard that some setting proved outside nearer the reference than a setting
 * within it on the same side (side 0: either); false when none. */
static bool contradiction(const struct tune_result *r, size_t ref, int side, size_t *guard,
                          long *outside, long *within)
{
    for (size_t g = 0; g < r->guards; g++)
        for (int d = -1; d <= 1; d += 2) {
            if (side && d != side)
                continue;
            long seen = -1;
            for (long s = (long)ref + d; s >= 0 && s < (long)r->settings; s += d) {
                enum tune_verdict v = r->check[(size_t)s * r->guards + g].verdict;
                if (r->setting[s].rounds == 0)
                    continue;
                if (v == TUNE_OUTSIDE && seen < 0)
                    seen = s;
                if (v == TUNE_WITHIN && seen >= 0) {
                    *guard = g;
                    *outside = seen;
                    *within = s;
                    return true;
                }
            }
        }
    return false;
}

/* The lowest objective's point among the settings within every guard; a tie to the
 * nearest the reference. -1: none. */
static long best_within(const struct tune *t, const struct tune_result *r)
{
    size_t ref = t->spec.reference;
    double sign = t->spec.objective_higher_is_better ? -1.0 : 1.0, low = INFINITY;
    long best = -1;
    for (size_t s = 0; s < r->settings; s++) {
        const struct tune_setting *st = &r->setting[s];
        if (st->verdict != TUNE_WITHIN || isnan(st->change))
            continue;
        double key = sign * st->change;
        if (best < 0 || key < low || (key == low && apart(s, ref) < apart((size_t)best, ref))) {
            low = key;
            best = (long)s;
        }
    }
    return best;
}

/* The pairs of each setting with[] names against the lowest, into to_best. */
static void paired_to_best(struct replay *p, struct tune_result *r, const bool *with)
{
    struct gate_result *out = xcalloc(p->nrun + 1, sizeof(*out));
    paired_objective(p, (size_t)r->best, with, out);
    for (size_t i = 0; i < p->nrun; i++) {
        struct tune_setting *st = &r->setting[p->run_order[i]];
        if (!with[p->run_order[i]])
            continue;
        st->to_best = st->to_best_lo = st->to_best_hi = NAN;
        take_interval(&out[i], &st->to_best, &st->to_best_lo, &st->to_best_hi);
    }
    free(out);
}

/* The most settings a tie's fit takes (its matrix is their square, 512 KB here); past it
 * the pairs stand. A campaign runs tens. */
#define TUNE_LINKED_MAX 256

/* Those of with[] still in the running for a tie, and the lowest, through every round
 * that links them (src/analysis/blocks.c), on logs: the lowest of a flat stretch changes
 * hands from look to look, and a setting's rounds shared with the lowest of the moment
 * are then few. The lowest is then the lowest of that fit, and to_best of with[] against
 * it. False when a value is not > 0, or the lowest is not linked (the pairs stand). */
static bool linked_to_best(struct replay *p, struct tune_result *r, const bool *with)
{
    const struct tune_obs *o = p->obs;
    size_t *who = xcalloc(o->n + 1, sizeof(size_t)), n = 0, m = 0;
    size_t *in = xcalloc(p->nrun + 1, sizeof(size_t)), *at = xcalloc(p->S, sizeof(size_t));
    long *round = xcalloc(o->n + 1, sizeof(long));
    double *y = xcalloc(o->n + 1, sizeof(double));
    bool fitted = false;
    for (size_t i = 0; i < p->nrun; i++) {
        size_t s = p->run_order[i];
        if (with[s] || (long)s == r->best) {
            at[s] = m;
            in[m++] = s;
        }
    }
    if (m > TUNE_LINKED_MAX)
        goto out;
    for (size_t i = 0; i < o->n; i++) {
        size_t s = o->setting[i];
        if (!with[s] && (long)s != r->best)
            continue;
        if (!(o->objective[i] > 0) || !isfinite(o->objective[i]))
            goto out;
        who[n] = at[s];
        round[n] = o->round[i];
        y[n++] = log(o->objective[i]);
    }
    struct blocks_fit f;
    blocks_fit(who, round, y, n, m, &f);
    double sign = p->t->spec.objective_higher_is_better ? -1.0 : 1.0, d, se;
    size_t low = at[r->best];
    for (size_t j = 0; j < m; j++)
        if (blocks_contrast(&f, j, low, &d, &se) && sign * d < 0)
            low = j;
    fitted = blocks_contrast(&f, low, low, &d, &se);
    if (fitted)
        r->best = (long)in[low];
    struct gate_opts g = gate_opts_default();
    for (size_t j = 0; fitted && j < m; j++) {
        struct tune_setting *st = &r->setting[in[j]];
        st->to_best = st->to_best_lo = st->to_best_hi = NAN;
        if (j == low || !blocks_contrast(&f, j, low, &d, &se))
            continue;
        double q = stats_t_quantile(0.5 + g.level / 2, f.df) * se;
        st->to_best = expm1(d);
        st->to_best_lo = expm1(d - q);
        st->to_best_hi = expm1(d + q);
    }
    blocks_release(&f);
out:
    FREE_ALL(who, in, at, round, y);
    return fitted;
}

/* Each setting within every guard against the lowest: paired by round; then those whose
 * pairs leave a tie open through every round that links them, which may find a lower
 * lowest (those shown to cost more than a tie over the first cost more over it too), the
 * others paired with it again. */
static void fill_to_best(struct replay *p, struct tune_result *r)
{
    bool *with = xcalloc(p->S, sizeof(bool)), *open = xcalloc(p->S, sizeof(bool));
    for (size_t s = 0; s < p->S; s++) {
        with[s] = r->setting[s].verdict == TUNE_WITHIN;
        r->setting[s].to_best = r->setting[s].to_best_lo = r->setting[s].to_best_hi = NAN;
    }
    paired_to_best(p, r, with);
    long first = r->best;
    for (size_t i = 0; i < p->nrun; i++) {
        size_t s = p->run_order[i];
        double est, lo, hi;
        tune_over_lowest(r, s, p->t->spec.objective_higher_is_better, &est, &lo, &hi);
        /* shown to cost more than a tie: out of the running, and its spread (a spinning
         * loop's is not a sleeping one's) kept out of the others' */
        open[s] = with[s] && (long)s != r->best && !(lo > p->t->spec.tie);
        with[s] = with[s] && !open[s];
    }
    if (linked_to_best(p, r, open) && r->best != first) {
        with[first] = false;
        paired_to_best(p, r, with);
    }
    for (size_t i = 0; i < p->nrun; i++) {
        struct tune_setting *st = &r->setting[p->run_order[i]];
        st->with_best = 0;
        for (size_t rr = 0; rr < p->R; rr++)
            st->with_best += p->cell[i * p->R + rr] >= 0 && run_at(p, (size_t)r->best, rr) >= 0;
    }
    free(with);
    free(open);
}

void tune_over_lowest(const struct tune_result *r, size_t s, bool gain, double *est,
                      double *lo, double *hi)
{
    const struct tune_setting *st = &r->setting[s];
    double scale = r->best >= 0 ? fabs(r->setting[r->best].objective) : NAN;
    *est = scale * (gain ? -st->to_best : st->to_best);
    *lo = scale * (gain ? -st->to_best_hi : st->to_best_lo);
    *hi = scale * (gain ? -st->to_best_lo : st->to_best_hi);
}

/* Whether within setting s is shown to tie with the lowest: its interval's worse end
 * within the tie. One-sided at 5%: the chance of calling a tie for one that costs more. */
static bool ties(const struct tune *t, const struct tune_result *r, size_t s)
{
    double est, lo, hi;
    tune_over_lowest(r, s, t->spec.objective_higher_is_better, &est, &lo, &hi);
    return (long)s == r->best || hi <= t->spec.tie;
}

/* The answer: among the settings within every guard, the nearest the reference that ties
 * with the lowest (a tie in distance to the lower objective), and its saving. */
static void recommend(struct replay *p, struct tune_result *r)
{
    const struct tune *t = p->t;
    size_t ref = t->spec.reference;
    double sign = t->spec.objective_higher_is_better ? -1.0 : 1.0;
    r->recommended = -1;
    r->saving = r->saving_lo = r->saving_hi = NAN;
    r->best = best_within(t, r);
    if (r->best < 0)
        return;
    fill_to_best(p, r);
    for (size_t s = 0; s < r->settings; s++) {
        struct tune_setting *st = &r->setting[s];
        st->tied = st->verdict == TUNE_WITHIN && ties(t, r, s);
        if (!st->tied || isnan(st->change))
            continue;
        long rec = r->recommended;
        if (rec < 0 || apart(s, ref) < apart((size_t)rec, ref) ||
            (apart(s, ref) == apart((size_t)rec, ref) &&
             sign * st->change < sign * r->setting[rec].change))
            r->recommended = (long)s;
    }
    const struct tune_setting *st = &r->setting[r->recommended];
    if ((size_t)r->recommended == ref) { /* no change: 0, not the -0 a negation gives */
        r->saving = r->saving_lo = r->saving_hi = 0;
        return;
    }
    r->saving = -sign * st->change;
    r->saving_lo = sign > 0 ? -st->change_hi : st->change_lo;
    r->saving_hi = sign > 0 ? -st->change_lo : st->change_hi;
}

static void fill_result(struct replay *p, struct tune_result *r)
{
    size_t ref = p->t->spec.reference;
    r->rounds = p->R;
    r->runs = p->obs->n;
    for (size_t s = 0; s < p->S; s++) {
        struct tune_setting *st = &r->setting[s];
        st->side = side_of(p, s);
        st->level = p->level[s];
        st->longer = p->longer[s];
        st->waits_for = -1;
        st->decided = -1;
        st->objective = st->change = st->change_lo = st->change_hi = NAN;
        bool out = false;
        for (size_t g = 0; g < p->G; g++) {
            fill_check(p, s, g, &r->check[s * p->G + g]);
            out = out || r->check[s * p->G + g].verdict == TUNE_OUTSIDE;
        }
        st->verdict = p->claimed[s] >= 0 ? TUNE_WITHIN : (out ? TUNE_OUTSIDE : TUNE_UNDECIDED);
        if (p->claimed[s] >= 0)
            st->decided = p->R ? p->round_id[p->claimed[s]] : -1;
        for (size_t g = 0; out && g < p->G; g++) {
            long o = p->outside[s * p->G + g];
            if (o >= 0 && (st->decided < 0 || p->round_id[o] < st->decided))
                st->decided = p->round_id[o];
        }
    }
    for (size_t i = 0; i < p->obs->n; i++)
        r->setting[p->obs->setting[i]].rounds++;
    /* who waits for whom: the head of each sequence (the reference holds both), past the
     * first head undecided at its cap the rescue's */
    for (int side = 0; side < 2; side++) {
        long head = r->setting[ref].verdict == TUNE_UNDECIDED ? (long)ref : -1;
        bool rescue = head >= 0;
        for (size_t i = 0; i < p->in_sequence[side]; i++) {
            size_t s = p->sequence[side][i];
            if (r->setting[s].verdict != TUNE_UNDECIDED)
                continue;
            if (head >= 0 && (rescue || !exhausted(p, (size_t)head))) {
                r->setting[s].waits_for = head;
                continue;
            }
            rescue = head >= 0;
            head = (long)s;
        }
    }
    /* the reference against itself: no change, run or not */
    r->setting[ref].change = r->setting[ref].change_lo = r->setting[ref].change_hi = 0;
    fill_objective(p, r);
    r->monotonic = !contradiction(r, ref, 0, &r->contradiction_guard, &r->contradiction_outside,
                                  &r->contradiction_within);
    if (r->monotonic)
        r->contradiction_outside = r->contradiction_within = -1;
    recommend(p, r);
}

static void series_release(struct series *z)
{
    free(z->at);
    free(z->h);
    free(z->p_in);
    free(z->p_out);
}

static void replay_release(struct replay *p)
{
    for (size_t i = 0; p->ser && i < p->S * p->G; i++)
        series_release(&p->ser[i]);
    for (size_t i = 0; p->ext && i < p->S * p->G; i++)
        series_release(&p->ext[i]);
    free(p->ser);
    free(p->ext);
    free(p->longer);
    free(p->round_id);
    free(p->run_order);
    free(p->first);
    free(p->cell);
    free(p->slot);
    free(p->scale);
    free(p->trivial);
    free(p->level);
    free(p->sequence[0]);
    free(p->sequence[1]);
    free(p->claimed);
    free(p->within);
    free(p->outside);
    free(p->out_alpha);
}

int tune_analyse(struct tune *t, const struct tune_obs *obs, struct tune_result *r,
                 struct lb_error *err)
{
    memset(r, 0, sizeof(*r));
    struct replay p = {.t = t, .obs = obs, .S = t->spec.grid->n, .G = t->spec.guards};
    size_t cells = p.S * p.G, ref = t->spec.reference;
    if (index_runs(&p, err) < 0) {
        replay_release(&p);
        return -1;
    }
    p.scale = xcalloc(p.G, sizeof(*p.scale));
    p.trivial = xcalloc(cells, sizeof(bool));
    p.ser = xcalloc(cells, sizeof(*p.ser));
    p.ext = xcalloc(cells, sizeof(*p.ext));
    p.level = xcalloc(p.S, sizeof(double));
    p.longer = xcalloc(p.S, sizeof(double));
    p.claimed = xmalloc(p.S * sizeof(long));
    p.within = xmalloc(cells * sizeof(long));
    p.outside = xmalloc(cells * sizeof(long));
    p.out_alpha = xcalloc(cells, sizeof(double));
    for (size_t s = 0; s < p.S; s++)
        p.claimed[s] = -1;
    build_sequences(&p);
    for (size_t c = 0; c < cells; c++)
        p.within[c] = p.outside[c] = -1;
    for (size_t g = 0; g < p.G; g++) {
        choose_scale(&p, g);
        p.trivial[ref * p.G + g] = t->spec.guard[g].kind != TUNE_ABSOLUTE;
        for (size_t i = 0; i < p.nrun; i++)
            if (!p.trivial[p.run_order[i] * p.G + g]) {
                size_t s = p.run_order[i], c = s * p.G + g;
                build_series(&p, s, g, (size_t)t->spec.max_rounds, &p.ser[c]);
                build_series(&p, s, g, (size_t)t->longest, &p.ext[c]);
            }
    }
    replay(&p);
    r->settings = p.S;
    r->guards = p.G;
    r->setting = xcalloc(p.S, sizeof(*r->setting));
    r->check = xcalloc(cells, sizeof(*r->check));
    fill_result(&p, r);
    replay_release(&p);
    return 0;
}

void tune_result_release(struct tune_result *r)
{
    free(r->setting);
    free(r->check);
    memset(r, 0, sizeof(*r));
}

/* ---- the stated power and the advice ----------------------------------------------------- */

/* The nominal level of a boundary of alpha at n rounds, in a longer trial or not, past
 * the last look that of the last (a longer campaign's boundaries differ: advice, not a
 * promise). */
static double level_at(struct tune *t, double alpha, long n, bool longer)
{
    long cap = longer ? t->longest : t->spec.max_rounds;
    return seq_nominal(longer ? t->long_seq : t->seq, alpha, n < cap ? n : cap);
}

/* The smallest rounds in all from n + 1 at which an excess of size |excess| (spread sd a
 * value) is called with the spec's power at alpha; 0 when none by TUNE_ADVICE_MAX. */
static long rounds_for(struct tune *t, double excess, double sd, double alpha, size_t n,
                       bool longer)
{
    if (!(sd > 0) || excess == 0 || !(alpha > 0) || isnan(excess))
        return 0;
    long lo = (long)n > SEQ_MIN_ROUNDS - 1 ? (long)n : SEQ_MIN_ROUNDS - 1, hi = TUNE_ADVICE_MAX;
    double need = fabs(excess);
#define CALLS(k)                                                                                   \
    (stats_t_detectable(sd / sqrt((double)(k)), (double)(k)-1, level_at(t, alpha, k, longer),      \
                        t->spec.power, -INFINITY) <= need)
    if (!CALLS(hi))
        return 0;
    /* what it takes shrinks as rounds grow: bisect for the first that calls it */
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if (CALLS(mid))
            hi = mid;
        else
            lo = mid;
    }
#undef CALLS
    return hi;
}

void tune_advise(struct tune *t, struct tune_result *r)
{
    for (size_t s = 0; s < r->settings; s++)
        for (size_t g = 0; g < r->guards; g++) {
            struct tune_check *c = &r->check[s * r->guards + g];
            c->detectable = NAN;
            c->rounds_needed = 0;
            if (!c->tested || !(c->se > 0) || !(c->level_outside > 0))
                continue;
            double d = stats_t_detectable(c->se, c->df, c->level_outside, t->spec.power, -INFINITY);
            c->detectable = c->log_scale ? expm1(d) : d;
            /* an undecided one is settled by the test on the side its estimate lies (a
             * longer trial's within test is its own) */
            bool outside = c->excess > 0, longer = !outside && r->setting[s].longer > 0;
            if (c->verdict == TUNE_UNDECIDED)
                c->rounds_needed = rounds_for(
                    t, c->excess, c->se * sqrt((double)c->n),
                    outside ? c->share_outside
                            : (longer ? r->setting[s].longer : r->setting[s].level),
                    c->n, longer);
        }
}

/* ---- what to run next -------------------------------------------------------------------- */

struct plan {
    size_t *who;
    int *priority;
    size_t n;
};

static void want(struct plan *pl, size_t s, int priority)
{
    for (size_t i = 0; i < pl->n; i++)
        if (pl->who[i] == s) {
            pl->priority[i] = priority < pl->priority[i] ? priority : pl->priority[i];
            return;
        }
    pl->who[pl->n] = s;
    pl->priority[pl->n++] = priority;
}

static bool looks_outside(const struct tune_result *r, size_t s)
{
    for (size_t g = 0; g < r->guards; g++) {
        const struct tune_check *c = &r->check[s * r->guards + g];
        if (c->tested && c->excess > 0)
            return true;
    }
    return false;
}

/* Whether setting s's longer trial should go on: no guard left to prove lies more than a
 * standard error beyond its limit (a head truly outside stops there; its outside test
 * ended at the cap), and, were it proven within every guard, it would be the answer by
 * what the runs so far show: a lower objective than the lowest's by more than a tie, or
 * a tie with it nearer the reference than the recommended setting. Stopping without a
 * verdict never adds to the error. */
static bool worth_longer(const struct tune *t, const struct tune_result *r, size_t s)
{
    for (size_t g = 0; g < r->guards; g++) {
        const struct tune_check *c = &r->check[s * r->guards + g];
        if (c->verdict != TUNE_WITHIN && c->tested && c->excess > c->se)
            return false;
    }
    if (r->best < 0)
        return true;
    double sign = t->spec.objective_higher_is_better ? -1.0 : 1.0, tie = t->spec.tie;
    double d = sign * (r->setting[s].objective - r->setting[r->best].objective);
    size_t ref = t->spec.reference;
    return !(d >= -tie) ||
           (d <= tie && apart(s, ref) < apart((size_t)r->recommended, ref));
}

/* One side of the reference: what it wants run; returns whether its boundary is found.
 * Every setting run joins its side's sequence at the end, behind every setting run before
 * it (src/analysis/tune.c's replay): each undecided one holds all that come after it, so
 * each is run to its decision first; past the first undecided at its cap the rescue
 * sequence goes on, and nothing is added behind a second (it would never be tested). */
static bool plan_side(const struct tune *t, const struct tune_result *r, int side, struct plan *pl)
{
    long ref = (long)t->spec.reference, n = (long)r->settings, cap = t->spec.max_rounds;
    long end = side > 0 ? n - 1 : 0, last = ref;
    bool unrun = false;
    size_t before = pl->n, stuck = 0;
    for (long s = ref + side; s >= 0 && s < n; s += side) {
        const struct tune_setting *st = &r->setting[s];
        last = st->verdict == TUNE_WITHIN ? s : last;
        unrun = unrun || st->rounds == 0;
        if (st->rounds == 0 || st->verdict != TUNE_UNDECIDED)
            continue;
        if ((long)st->rounds < cap)
            want(pl, (size_t)s, 0);
        else if (st->longer > 0 && (long)st->rounds < t->longest && worth_longer(t, r, (size_t)s))
            want(pl, (size_t)s, 3);
        else
            stuck++;
    }
    /* one undecided at its cap: the rescue sequence tests those behind it; two: no more */
    bool blocked = stuck > 1;
    size_t g;
    long o, w;
    if (contradiction(r, (size_t)ref, side, &g, &o, &w)) {
        /* not monotonic: every value of this side instead of bisecting. Each joins the
         * sequence behind those run before it, so where a better answer could lie goes
         * first: beyond the last within when its objective beats the reference's (the
         * objective improves outward), else nearer the reference; then the others. */
        double sign = t->spec.objective_higher_is_better ? -1.0 : 1.0;
        bool outward = sign * r->setting[last].change < 0;
        size_t added = 0;
        for (int pass = 0; pass < 2 && !blocked; pass++) {
            int dir = (pass == 0) == outward ? side : -side;
            for (long s = last + dir; s != ref && s >= 0 && s < n && added < TUNE_FILL; s += dir)
                if (r->setting[s].rounds == 0) {
                    want(pl, (size_t)s, 1);
                    added++;
                }
        }
        return !unrun && pl->n == before;
    }
    long next = -1;
    for (long s = last + side; last != end && s >= 0 && s < n && next < 0; s += side)
        if (r->setting[s].rounds > 0)
            next = s;
    if (next < 0) {
        if (last != end && !blocked)
            want(pl, (size_t)end, 1);
        return last == end;
    }
    const struct tune_setting *st = &r->setting[next];
    long gap = labs(next - last);
    /* bisection, once the value beyond the last within is outside, looks it, or is
     * undecided at its cap (too near its limit to prove: the answer lies this side) */
    bool at_cap = st->verdict == TUNE_UNDECIDED && (long)st->rounds >= cap;
    if (gap > 1 && !blocked &&
        (st->verdict == TUNE_OUTSIDE || at_cap || looks_outside(r, (size_t)next)))
        want(pl, (size_t)(last + side * (gap / 2)), 1);
    return gap == 1 && st->verdict == TUNE_OUTSIDE;
}

/* Whether a rival that shared half the cap with the lowest or more would leave its tie
 * untold at the cap, were its estimate the truth: the chances that the cap's rounds show
 * it (the bound under the tie) and that they show it dearer are each under TUNE_FUTILE
 * (stochastic curtailment on the conditional power, the standard error read off the
 * bound). Left untold it is not shown to tie, so not the answer: never a tie in error. */
static bool tie_futile(const struct tune *t, const struct tune_setting *st, double est,
                       double hi)
{
    double n = (double)st->with_best, cap = (double)t->spec.max_rounds, tie = t->spec.tie;
    double z = 1.6448536269514722, se = (hi - est) / z; /* its bound: one-sided 95% */
    if (!(se > 0) || 2 * n < cap || n >= cap)
        return false;
    double half = z * se * sqrt(n / cap), sd = se * sqrt(n * (cap - n)) / cap;
    return stats_normal_cdf((tie - half - est) / sd) < TUNE_FUTILE &&
           stats_normal_cdf((est - half - tie) / sd) < TUNE_FUTILE;
}

/* The answer's knee and its rivals. Between the recommended setting and the nearest one
 * run on the reference's side of it (not tied, or the reference), the grid value midway,
 * until they are adjacent: the saving's knee located to the grid's resolution, not to the
 * coarse grid's (an undecided one is run to its verdict first). And, with the lowest,
 * each setting within whose interval against it leaves the answer open, until they shared
 * the cap's rounds: one nearer the reference whose interval holds the tie, one further
 * out whose interval reaches a tie's width below it (it may be the lowest). Adjacent
 * values of a knob often differ by 10%, which a few rounds' spread cannot tell from a
 * tie; counting shared rounds, not its own, leaves room for that when its guard took
 * most of its cap. */
static void plan_answer(const struct tune *t, const struct tune_result *r, struct plan *pl)
{
    long rec = r->recommended, ref = (long)t->spec.reference, cap = t->spec.max_rounds;
    if (rec < 0)
        return;
    if (rec != ref) {
        long side = rec > ref ? -1 : 1, near = rec + side;
        while (near != ref && r->setting[near].rounds == 0)
            near += side;
        if (labs(rec - near) > 1 && r->setting[near].verdict != TUNE_UNDECIDED)
            want(pl, (size_t)(rec + side * (labs(rec - near) / 2)), 1);
    }
    double tie = t->spec.tie;
    bool rivals = false;
    for (size_t s = 0; s < r->settings; s++) {
        const struct tune_setting *st = &r->setting[s];
        double est, lo, hi;
        tune_over_lowest(r, s, t->spec.objective_higher_is_better, &est, &lo, &hi);
        bool nearer = apart(s, (size_t)ref) < apart((size_t)r->best, (size_t)ref);
        bool futile = tie_futile(t, st, est, hi);
        if ((long)s == r->best || s == (size_t)ref || st->verdict != TUNE_WITHIN ||
            !(isnan(st->to_best) || (nearer ? lo <= tie && hi > tie && !futile : lo < -tie)))
            continue;
        if ((long)st->with_best < cap) {
            want(pl, s, 2);
            rivals = true; /* the lowest runs with a rival: the pairs are rounds of both */
        }
    }
    /* A setting still on trial against its guards whose objective looks within a tie or
     * two of the lowest is a rival once it passes: its rounds with the lowest now settle
     * the tie then. (Planning only: which rounds run, not how they are judged.) */
    double sign = t->spec.objective_higher_is_better ? -1.0 : 1.0;
    for (size_t i = 0; i < pl->n && !rivals; i++) {
        const struct tune_setting *st = &r->setting[pl->who[i]];
        rivals = st->verdict == TUNE_UNDECIDED && (long)pl->who[i] != ref &&
                 apart(pl->who[i], (size_t)ref) < apart((size_t)r->best, (size_t)ref) &&
                 sign * (st->objective - r->setting[r->best].objective) <= 2 * tie;
    }
    /* past its cap too: its guards are settled, and a rival's rounds without it link to
     * it only through others */
    if (rivals && r->best != ref)
        want(pl, (size_t)r->best, 2);
}

/* Whether running setting s wants the reference in its round: a relative guard still
 * undecided (its pairs are rounds of both), the reference's own verdict, or the reference
 * as the lowest (a rival pairs with it). Once every setting run is settled against it, a
 * round of rivals and the lowest goes without it. */
static bool pairs_with_reference(const struct tune *t, const struct tune_result *r, size_t s)
{
    size_t ref = t->spec.reference;
    if (s == ref || r->best == (long)ref || r->setting[ref].verdict == TUNE_UNDECIDED)
        return true;
    for (size_t g = 0; g < r->guards; g++)
        if (t->spec.guard[g].kind != TUNE_ABSOLUTE &&
            r->check[s * r->guards + g].verdict == TUNE_UNDECIDED)
            return true;
    return false;
}

enum tune_stop tune_next(const struct tune *t, const struct tune_result *r, bool *next)
{
    size_t n = r->settings, ref = t->spec.reference;
    struct plan pl = {xcalloc(n + 1, sizeof(size_t)), xcalloc(n + 1, sizeof(int)), 0};
    memset(next, 0, n * sizeof(bool));
    /* the coarse grid: the reference, and on each side its end and the values halving the
     * way back (an idle wait's 16, 8, 4, 2: a knob changes most near the reference) */
    for (int k = TUNE_COARSE / (int)t->sides - 1; k >= 0; k--) /* the nearest first */
        for (int side = -1; side <= 1; side += 2) {
            size_t reach = side < 0 ? ref : n - 1 - ref;
            size_t d = (size_t)floor(ldexp((double)reach, -k) + 0.5);
            size_t s = side < 0 ? ref - d : ref + d;
            if (d > 0 && r->setting[s].rounds < SEQ_MIN_ROUNDS)
                want(&pl, s, 0);
        }
    bool located = true;
    if (pl.n == 0) {
        for (int side = -1; side <= 1; side += 2)
            if ((side < 0 && ref > 0) || (side > 0 && ref + 1 < n))
                located = plan_side(t, r, side, &pl) && located;
        plan_answer(t, r, &pl);
    }
    enum tune_stop stop = TUNE_RUN;
    if (pl.n == 0)
        stop = located ? TUNE_LOCATED : TUNE_STUCK;
    /* what the budget allows, the most wanted first (then nearest the reference) */
    long room = t->spec.max_runs ? t->spec.max_runs - (long)r->runs - 1 : (long)pl.n;
    if (stop == TUNE_RUN && room < 1)
        stop = TUNE_BUDGET;
    for (int priority = 0; stop == TUNE_RUN && priority <= 3; priority++)
        for (size_t i = 0; i < pl.n && room > 0; i++)
            if (pl.priority[i] == priority) {
                next[pl.who[i]] = true;
                room--;
            }
    for (size_t s = 0; stop == TUNE_RUN && s < n && !next[ref]; s++)
        next[ref] = next[s] && pairs_with_reference(t, r, s);
    free(pl.who);
    free(pl.priority);
    return stop;
}
