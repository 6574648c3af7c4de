/* Which value of a knob to run (loopbench tune, issue 36): the statistics on plain arrays,
 * no campaign types, so that the command, its unit tests and the calibration benchmark
 * (tests/bench/calibrate.c tune) share one implementation. docs/report.md ("Which value to
 * run: tune's statistics") explains the method and its calibration.
 *
 * The knob's values are an ordered grid, one of them the reference (the profile's
 * baseline). Guards bound keys: KEY <= LIMIT, or a rise over the reference of at most
 * +DELTA or +PCT% (paired by round). The objective (CPU) is minimised. A campaign runs
 * rounds, each the reference and some settings interleaved, and looks after every round:
 * tune_analyse replays those looks over the observations and judges every setting x guard
 *  - within: its one-sided upper bound under the limit. Settings are tested in a fixed
 *    sequence (each side of the reference apart), in the order they first ran, those of a
 *    round from the reference outward, only the first not yet decided at a time, each a
 *    group-sequential test in its own rounds (the boundaries of
 *    src/analysis/sequential.c): a setting run later (bisection) joins the end, never
 *    ahead of one undecided; one proven outside is passed over, so the sequence needs no
 *    monotonic knob to hold its error; past the first head undecided at its cap the rest
 *    of its side is a second sequence at TUNE_RESCUE of the side's alpha (the first has
 *    the rest), and once all of it is settled that head goes on in a longer trial at the
 *    second's alpha, the last of that sequence (TUNE_LONGER). The chance that any setting
 *    truly outside a guard is called within, over every setting and look, is at most alpha;
 *  - outside: its lower bound over the limit, by Holm over the settings run, at alpha;
 *  - undecided otherwise.
 * The answer is the setting within every guard with the lowest objective, its saving
 * against the reference, and for each verdict the smallest exceedance it could have
 * missed (tune_advise). tune_next says which settings the next round runs. */
#ifndef LOOPBENCH_TUNE_H
#define LOOPBENCH_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "msg.h"

struct seq;

#define TUNE_ALPHA 0.05
#define TUNE_POWER 0.80
/* CPU within this of the lowest (percent of a core) ties, and a tie goes to the setting
 * nearest the reference: a saving this small is no reason to move further, and where the
 * CPU is flat (refshard's past its 8 ms tick) the lowest point is the noise's choice. */
#define TUNE_TIE_CPU 0.5
/* The coarse grid run first: the reference and this many values, shared between its
 * sides: each side's end and the values halving the way back (refshard's 16, 8, 4 and 2). */
#define TUNE_COARSE 4
/* Unrun values a round adds where the knob proved not monotonic (each value of that side
 * of the grid is then run, the most promising objective first). */
#define TUNE_FILL 2
#define TUNE_GRID_MAX 10000
/* A setting's rounds at most by default: its within and outside tests' looks' cap. The
 * calibration (tests/bench/calibrate.c tune) put a knob's true best setting 1.2 sd of a
 * round inside its guard: recommended in 85-89% of trials at 10, 98-99% at 15, for a
 * quarter more runs; one 0.44 sd inside needs more, its longer trial's (TUNE_LONGER). */
#define TUNE_DEFAULT_ROUNDS 15
/* The spending function of those looks (Hwang-Shih-DeCani, src/analysis/sequential.h):
 * later than the gate's -1, since a tune's answer rests on the settings near their limits,
 * which reach the cap; -1, -2 and -3 tried in simulation, -3 the most often right at the
 * same error (docs/report.md). */
#define TUNE_GAMMA (-3.0)
/* The share of a side's within alpha kept for the settings behind a head undecided at
 * its cap (a second sequence; the first has the rest). */
#define TUNE_RESCUE 0.2
/* A head undecided at its cap, once every setting behind it is settled, goes on to this
 * many caps' rounds (at most SEQ_LIMIT_MAX) in a longer trial at the rescue's share, which
 * those settings passed on, while proving it would change the answer. The calibration's
 * smooth rise (its best 0.44 sd of a round inside its limit) is found in 41% of campaigns
 * without it, 92% with it at 6 caps (4: 79%), for twice the runs; the other knobs keep
 * their figures for about one run more (docs/report.md). */
#define TUNE_LONGER 6
/* A rival stops when the cap's rounds would tell its tie either way with less than this
 * chance, were its estimate the truth. */
#define TUNE_FUTILE 0.1
/* Beyond this many rounds, "rounds needed" stops being advice. */
#define TUNE_ADVICE_MAX 100

/* ---- what is tuned ---------------------------------------------------------------- */

/* The knob's candidate values in its order: a numeric range, or an ordered list of names
 * (a categorical knob such as Erlang's +sbwt). */
struct tune_grid {
    size_t n;
    double *value; /* [n]: LO + k STEP, or k for a list */
    char **label;  /* [n]: a list's names; NULL for a range */
};

/* LO..HI by STEP (the resolution), at least 2 values. -1 with err (naming the range and
 * what was expected) when a bound is not finite, STEP not > 0, HI below LO (reversed),
 * the range holds one value or more than TUNE_GRID_MAX. */
int tune_grid_range(struct tune_grid *g, double lo, double hi, double step, struct lb_error *err);
/* The names label[0..n) in that order (copied), at least 2 and all different. */
int tune_grid_list(struct tune_grid *g, const char *const *label, size_t n, struct lb_error *err);
/* The index of text on g: a list's name, or a number of the range (within a thousandth
 * of its step); -1 when it is none. */
long tune_grid_find(const struct tune_grid *g, const char *text);
void tune_grid_release(struct tune_grid *g);

enum tune_limit {
    TUNE_ABSOLUTE, /* KEY <= limit, in the key's unit */
    TUNE_DELTA,    /* KEY <= the reference's + limit, in the key's unit (paired by round) */
    TUNE_PERCENT,  /* KEY <= the reference's x (1 + limit / 100) (paired by round) */
};

struct tune_guard {
    const char *key; /* borrowed, for people */
    enum tune_limit kind;
    double limit; /* >= 0 for the relative kinds; a PERCENT of 25 is +25% */
    /* false (the default): lower is better, the limit a ceiling. true: a floor (KEY >=
     * limit; a relative limit is then a fall of at most DELTA, or to 1 / (1 + PCT%)) */
    bool higher_is_better;
};

/* A guard as typed, "KEY<=LIMIT", "KEY<=+DELTA" or "KEY<=+PCT%", into g (its key a new
 * string in *key, g->key pointing at it; higher_is_better false: the caller sets it from
 * the key's metric). -1 with err naming the text and what was expected; the key itself
 * is not checked against any registry here. */
int tune_guard_parse(const char *text, struct tune_guard *g, char **key, struct lb_error *err);

struct tune_spec {
    const struct tune_grid *grid; /* borrowed, like guard */
    size_t reference;             /* its index on the grid */
    const struct tune_guard *guard;
    size_t guards;                   /* at least 1 */
    bool objective_higher_is_better; /* false: minimised (CPU), on logs when all > 0 */
    double alpha;    /* TUNE_ALPHA: the chance of calling within a setting outside a guard */
    double power;    /* TUNE_POWER: of the stated detectable exceedances */
    double tie;      /* an objective shown within this of the lowest's, in its unit, ties
                      * (0: none; TUNE_TIE_CPU for CPU) */
    long max_rounds; /* a setting's rounds at most: the looks' cap (SEQ_MIN_ROUNDS..
                      * SEQ_LIMIT_MAX; TUNE_DEFAULT_ROUNDS) */
    long max_runs;   /* the campaign's runs at most, the reference's too; 0: no limit */
};
/* alpha, power and max_rounds at their defaults, the rest 0. */
struct tune_spec tune_spec_default(void);

/* A spec checked, and the group-sequential boundaries it uses, computed once (2^17
 * simulated paths each, about 50 ms at a cap of 10 rounds) and kept. */
struct tune {
    struct tune_spec spec;
    long sides;           /* sides of the reference the grid has values on: 1 or 2 */
    struct seq *seq;      /* the boundaries' cache (src/analysis/sequential.c) */
    long longest;         /* a longer trial's rounds at most: TUNE_LONGER caps */
    struct seq *long_seq; /* its boundaries, looks to longest */
};
/* -1 with err naming what is at fault: the reference off the grid, no guard, a
 * relative limit below 0, alpha or power outside (0, 1), max_rounds out of range. */
int tune_init(struct tune *t, const struct tune_spec *spec, struct lb_error *err);
void tune_release(struct tune *t);

/* ---- what was measured ------------------------------------------------------------- */

/* The runs so far: run i ran setting[i] (a grid index) in round[i] (>= 0; the runs of a
 * round ran interleaved, at most one per setting) and measured objective[i] and
 * guard[g][i] for guard g (NaN: the run failed, or gave no value). Borrowed. */
struct tune_obs {
    size_t n;
    const size_t *setting;
    const long *round;
    const double *objective;
    const double *const *guard; /* [guards][n] */
};

/* ---- the verdicts and the answer ----------------------------------------------------- */

enum tune_verdict { TUNE_UNDECIDED, TUNE_WITHIN, TUNE_OUTSIDE };
/* "undecided", "within", "outside" (static). */
const char *tune_verdict_name(enum tune_verdict v);

/* One setting x guard. Its figures are in the limit's terms: ABSOLUTE the key's typical
 * value (the geometric mean of the runs on logs, else the mean), DELTA the mean difference
 * from the reference, PERCENT the change against it as a fraction (limit 0.25 for +25%). */
struct tune_check {
    enum tune_verdict verdict;
    long decided;   /* the round whose look decided it (an observation's round); -1 */
    bool tested;    /* 2 values or more (the first look is after SEQ_MIN_ROUNDS) */
    bool log_scale; /* tested on logs: every value of the key (and the limit) > 0 */
    size_t n;       /* values used: runs, or rounds paired with the reference; <= max_rounds,
                     * or tune.longest in a longer trial */
    double value, limit;
    /* The bound on the harmful side at the within test's level, and on the other side at
     * the outside test's: within when the first is inside the limit, outside when the
     * second is beyond it (for a ceiling: hi <= limit, lo > limit). NaN before a look. */
    double lo, hi;
    double p_within, p_outside;         /* one-sided, uncorrected, over the n values */
    double level_within, level_outside; /* the nominal levels they are held to at n */
    double share_outside; /* the outside test's alpha: its share in Holm's step-down (the
                           * within test's is the setting's level) */
    /* On the scale tested (a log, or the limit's terms): the excess over the limit toward
     * harm (positive: beyond it), its standard error and degrees of freedom. */
    double excess, se, df;
    /* tune_advise: the smallest exceedance of the limit the outside test calls with the
     * spec's power at this spread and n ("could have missed exceedances under X"): a
     * fraction of the limit on logs, else in the limit's terms; NaN before a look or
     * without spread. For an undecided one, the rounds in all that would settle it with
     * that power were its truth what is measured (0: unknown, or over TUNE_ADVICE_MAX). */
    double detectable;
    long rounds_needed;
};

struct tune_setting {
    size_t rounds;             /* rounds it ran (0: not run) */
    int side;                  /* -1 below the reference on the grid, +1 above, 0 it */
    enum tune_verdict verdict; /* within every guard, outside one, or undecided */
    long decided;
    double level;   /* the one-sided alpha its within tests had in the sequence */
    double longer;  /* a head undecided at its cap whose followers are settled: the alpha
                     * of its longer trial, to tune.longest rounds; 0 */
    long waits_for; /* undecided and not yet tested for within: the setting ahead of it
                     * in the sequence that is not decided; -1 */
    /* The objective: its typical value (geometric mean on logs), and its change against
     * the reference paired by round (src/analysis/gate.c's paired t: a ratio - 1 on
     * logs) with the 90% interval; NaN with fewer than 2 pairs. */
    double objective, change, change_lo, change_hi;
    /* Within every guard, its objective against the lowest's (tune_result.best) with the
     * 90% interval: paired by round like change, or, while a tie with the lowest is open,
     * through every round that links the two (the additive model of src/analysis/blocks.h);
     * NaN for the others, the lowest itself and too few rounds. The upper end times the
     * lowest's objective at most the spec's tie: shown as good as the lowest. */
    double to_best, to_best_lo, to_best_hi;
    size_t with_best; /* rounds it shared with the lowest */
    bool tied;        /* within every guard and shown to tie with the lowest (or it) */
};

struct tune_result {
    size_t settings, guards, rounds, runs;
    struct tune_setting *setting; /* [settings] */
    struct tune_check *check;     /* [setting * guards + guard] */
    /* Among the settings within every guard (the reference's relative guards hold by
     * definition), best the lowest objective, and recommended the nearest the reference
     * shown to tie with it (to_best; a tie in distance to the lower objective): on a flat
     * stretch the smallest change that gets the saving, not whichever value the noise put
     * lowest. -1: none.
     * Its saving against the reference (1 - ratio on logs; a maximised objective's gain)
     * with the 90% interval; 0 for the reference itself. */
    long best, recommended;
    double saving, saving_lo, saving_hi;
    /* false: a guard proven outside at a setting nearer the reference than one within it
     * (on the same side): the knob is not monotonic there, and tune_next runs every value
     * of that side instead of bisecting. The first such guard and pair of settings. */
    bool monotonic;
    size_t contradiction_guard;
    long contradiction_outside, contradiction_within;
};

/* The looks after every round of obs replayed, into r (new arrays; tune_result_release).
 * -1 with err when an observation names a setting off the grid, a negative round, or a
 * setting twice in one round. */
int tune_analyse(struct tune *t, const struct tune_obs *obs, struct tune_result *r,
                 struct lb_error *err);
/* The stated power and the rounds needed (check.detectable, rounds_needed): the answer
 * printed wants them, the looks do not (a few ms each). */
void tune_advise(struct tune *t, struct tune_result *r);
void tune_result_release(struct tune_result *r);

/* Setting s's objective over the lowest's in the objective's unit (to_best is a fraction
 * of the lowest's), with the interval, its worse end hi; gain: a maximised objective, whose
 * shortfall it gives. NaN where to_best is. */
void tune_over_lowest(const struct tune_result *r, size_t s, bool gain, double *est,
                      double *lo, double *hi);

/* ---- what to run next --------------------------------------------------------------- */

enum tune_stop {
    TUNE_RUN,     /* run the settings next[] says */
    TUNE_LOCATED, /* each side's boundary found to the grid's resolution (its last value
                   * within every guard beside one proven outside, or the grid's end) */
    TUNE_BUDGET,  /* the next round would pass max_runs */
    TUNE_STUCK,   /* what is left undecided has run max_rounds */
};
/* "run", "located", "budget spent", "undecided at the cap" (static). */
const char *tune_stop_name(enum tune_stop s);

/* Which settings the next round runs, next[0..grid n), the most wanted first within
 * max_runs, and the reference with them while one of them is undecided against a relative
 * guard (its pairs are rounds of both) or the reference is undecided itself:
 *  1. the coarse grid, until each value has SEQ_MIN_ROUNDS rounds;
 *  2. on each side, every setting run and undecided, below its cap (each holds the
 *     settings behind it in the sequence; its guard interval straddles the limit);
 *  3. the grid value midway between the last setting within every guard and the next one
 *     run, once that one is outside or looks it (bisection, down to adjacent values);
 *     where the knob proved not monotonic, every value of that side instead, TUNE_FILL a
 *     round, beyond the last within first when the objective improves outward;
 *  4. the answer's knee: the grid value midway between the recommended setting and the
 *     nearest run on the reference's side of it, down to adjacent values; and its rivals,
 *     with the lowest (past its cap too), each until it shared the cap's rounds with the
 *     lowest: the settings within nearer the reference than the lowest whose to_best
 *     interval holds the tie, and those further out whose interval reaches a tie below
 *     it; the lowest too with a setting of 2 or 3 nearer the reference whose objective
 *     looks within two ties of it (its guard rounds then settle the tie as well).
 * A side's first setting undecided at its cap counts as the next one beyond its last
 * within (bisection toward it; the rescue sequence tests what lies behind it); nothing is
 * added behind a second (it would never be tested). Once what lies behind it is settled,
 * it runs on in its longer trial (the last wanted) while it would be the answer and no
 * guard left to prove lies more than a standard error beyond its limit. r is
 * tune_analyse's of the runs so far. */
enum tune_stop tune_next(const struct tune *t, const struct tune_result *r, bool *next);

#endif
