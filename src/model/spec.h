/* What a campaign was asked: the spec. The command line fills it (src/cli/options.c binds
 * an option straight to its field), campaign_spec_resolve (resolve.h) takes the
 * profile's defaults for what was not asked and checks the whole against the profile, the
 * host and itself,
 * results.c writes it into results.json's campaign object and reads it back, and
 * `run --resume` resolves the spec it read again. What a campaign found or did (the
 * commit of what ran, its CPUs' facts, the looks, the runs) is the campaign's, not here.
 *
 * A field is one row of CAMPAIGN_SPEC below: the struct, its first value, its release and
 * its JSON are made from the rows, so a new field is a row (and its check, if any, in
 * resolve.c). */
#ifndef LOOPBENCH_SPEC_H
#define LOOPBENCH_SPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "commit.h"
#include "msg.h"
#include "platform/platform.h"
#include "util.h"

/* duet: the variants of a setting (without variants, the settings of a round) at the
 * same time, each on CPUs of its own, the CPU sets turned round by one every round
 * (Bulej et al. 2020); otherwise interleave's order. ORDER_UNSET: not asked, interleave
 * or (with variants) random. */
enum run_order { ORDER_UNSET = -1, ORDER_INTERLEAVE = 0, ORDER_RANDOM, ORDER_GROUPED, ORDER_DUET };
const char *run_order_name(enum run_order o);
int run_order_parse(const char *s, enum run_order *out);

/* A build of the target compared with the others in one campaign: its runs take the
 * command, cwd and config files from its directory (docs/cli.md). */
struct campaign_variant {
    char *name;                    /* "base", "head" */
    char *dir;                     /* as given; resolved: absolute */
    struct campaign_commit commit; /* of dir's work tree, found when resolved */
};

/* --seed not given: one is drawn from the clock when the spec is resolved. */
#define SPEC_SEED_UNSET UINT64_MAX
/* --warmup auto without a MAX: the most a run waits for its target to settle, seconds. */
#define SPEC_WARMUP_AUTO_MAX 60.0
/* --order duet without --rotate: the targets swap CPU sets this often inside the window
 * (seconds), as the hand measurement on a 2-CPU VM ran it (docs/ci.md). */
#define SPEC_ROTATE_DEFAULT_S 0.5

/* The largest campaign loopbench plans or reads back: one made elsewhere past these is
 * refused, not read for minutes (an analysis goes over every run once per cell). A run
 * is about 1 KB in memory however small its JSON, so the runs one command reads, over
 * every campaign it is given, have a cap too. */
#define CAMPAIGN_RUNS_MAX 100000
#define CAMPAIGN_SETTINGS_MAX 256
#define CAMPAIGN_VARIANTS_MAX 32
#define CAMPAIGN_CELLS_MAX 1024 /* settings x variants */
#define CAMPAIGN_RUNS_TOTAL_MAX 250000
/* 0, or -1 with err (naming `where`) when a campaign of that many settings, variants
 * (0 without) and runs is past the caps above. */
int campaign_size_check(size_t settings, size_t variants, size_t runs, const char *where,
                        struct lb_error *err);

/* The fields: X(KIND, name, key, first), where key is where results.json's campaign object
 * holds it ("a.b": key b of object a; NULL: not there) and first its value before
 * anything is asked ("not asked" where the profile or the resolution decides). KIND is
 * its C type and JSON form, spec.c's put_KIND and get_KIND:
 *   STR, TEXT     a string, written when set; TEXT is printed by reports: printable only
 *   LIST          "a,b" as the array ["a", "b"] of keys, written when set
 *   SETTINGS      the knob's values, an array of strings
 *   SETTING       an index into the settings, written as the setting
 *   VARIANTS      the builds compared: name, dir and commit each (n_variants with them)
 *   NAMES         variable names of the environment, an array
 *   LONG, UINT, SEED, DOUBLE   a number, always written
 *   CAP, BYTES, POSITIVE       a number, written when above 0
 *   FLAG          true, written when true
 *   ORDER, CPU_SOURCE          their enum's word */
/* clang-format off */
#define CAMPAIGN_SPEC(X)                                                                   \
    /* PROFILE (profile.path); NULL: the built-in one */                                   \
    X(STR,        profile_path,   NULL,                   NULL)                            \
    /* --settings; resolved: the profile's values when not given */                        \
    X(SETTINGS,   values,         "settings",             {0})                             \
    /* resolved: the profile's baseline when among the settings, else the first */         \
    X(SETTING,    baseline,       "baseline",             0)                               \
    /* --variant NAME=DIR..., the first the base the others are compared with */           \
    X(VARIANTS,   variants,       "variants",             NULL)                            \
    /* --repeat N: runs per setting (0: the profile's); with --repeat auto the cap, and   \
     * once the campaign stopped, the rounds it ran */                                     \
    X(LONG,       repeat,         "repeat",               0)                               \
    /* --warmup: seconds (< 0: the profile's); with warmup_auto the most a run waits */    \
    X(DOUBLE,     warmup_s,       "warmup_seconds",       -1)                              \
    /* --sample: the window, seconds (<= 0: the profile's) */                              \
    X(DOUBLE,     sample_s,       "sample_seconds",       0)                               \
    /* --interval: the time series' interval */                                            \
    X(UINT,       interval_ms,    "interval_ms",          1000)                            \
    X(ORDER,      order,          "order",                ORDER_UNSET)                     \
    /* --seed: for --order random; 53 bits, so that it survives any JSON reader */        \
    X(SEED,       seed,           "seed",                 SPEC_SEED_UNSET)                 \
    /* --cpu-source: what was asked; each run records what was used */                     \
    X(CPU_SOURCE, cpu_source,     "cpu_source_requested", CPU_SOURCE_AUTO)                 \
    /* --primary: the keys the gate holds to; resolved: else the profile's metrics.primary,\
     * NULL: every one */                                                                  \
    X(LIST,       primary,        "primary",              NULL)                            \
    /* --warmup auto: each run until its target has settled (steady.h) */                  \
    X(FLAG,       warmup_auto,    "warmup_auto",          false)                           \
    /* --hold-idle (or the profile's defaults.hold_idle): CPUs out of idle states */       \
    X(FLAG,       hold_idle,      "hold_idle",            false)                           \
    /* --rotate: a duet's swaps inside the window (< 0: the default; resolved: 0 none) */  \
    X(POSITIVE,   rotate_s,       "rotate_seconds",       -1)                              \
    /* --commit SHA[,dirty]: what runs, as told; NULL: found (the campaign's commit) */    \
    X(STR,        commit,         NULL,                   NULL)                            \
    /* --cpus LIST: the CPUs the targets run on; resolved: a duet's are all loopbench    \
     * may use when not given; NULL: not pinned */                                         \
    X(TEXT,       cpus,           "cpus.targets",         NULL)                            \
    /* --pass-env: what the targets get of loopbench's environment besides the base */     \
    X(NAMES,      pass_env,       "environment.pass_env", {0})                             \
    /* --log-limit: bytes of each stream's log kept per run (0: the profile's) */          \
    X(BYTES,      log_limit,      "log_limit",            0)                               \
    /* --repeat auto=MAX: rounds until decided, at most MAX (0: a fixed count) */          \
    X(CAP,        sequential_max, "sequential.max",       0)                               \
    /* -o DIR: the campaign's directory as asked (NULL: results/<profile>-<time>); the   \
     * campaign's out_dir is where it is */                                                \
    X(STR,        out_dir,        NULL,                   NULL)                            \
    /* --note TEXT: what the campaign is for, in the report's header */                    \
    X(TEXT,       note,           "note",                 NULL)
/* clang-format on */

#define SPEC_DECL_STR(name) char *name;
#define SPEC_DECL_TEXT(name) char *name;
#define SPEC_DECL_LIST(name) char *name;
#define SPEC_DECL_SETTINGS(name) struct strv name;
#define SPEC_DECL_SETTING(name) size_t name;
#define SPEC_DECL_VARIANTS(name)                                                                   \
    struct campaign_variant *name;                                                                 \
    size_t n_##name;
#define SPEC_DECL_NAMES(name) struct strv name;
#define SPEC_DECL_LONG(name) long name;
#define SPEC_DECL_UINT(name) unsigned name;
#define SPEC_DECL_SEED(name) uint64_t name;
#define SPEC_DECL_DOUBLE(name) double name;
#define SPEC_DECL_CAP(name) long name;
#define SPEC_DECL_BYTES(name) uint64_t name;
#define SPEC_DECL_POSITIVE(name) double name;
#define SPEC_DECL_FLAG(name) bool name;
#define SPEC_DECL_ORDER(name) enum run_order name;
#define SPEC_DECL_CPU_SOURCE(name) enum cpu_source_kind name;
#define SPEC_DECLARE(kind, name, key, first) SPEC_DECL_##kind(name)

struct campaign_spec {
    CAMPAIGN_SPEC(SPEC_DECLARE)
};

/* Every field at its first value: nothing asked. */
void campaign_spec_init(struct campaign_spec *s);
void campaign_spec_release(struct campaign_spec *s);

/* s into o, results.json's campaign object (its keys, each where CAMPAIGN_SPEC says). */
void campaign_spec_to_json(const struct campaign_spec *s, json_t *o);
/* The same read back from camp into s (campaign_spec_init'd), the settings and baseline
 * falling back to knob (the profile's "knob" object) for documents from before they were
 * recorded; -1 with err naming `where` and the key when one is not what it should be. */
int campaign_spec_from_json(json_t *camp, json_t *knob, const char *where, struct campaign_spec *s,
                            struct lb_error *err);

/* The index of setting value in s's settings, -1 when it is not one. */
long campaign_spec_setting(const struct campaign_spec *s, const char *value);
/* How many targets a duet runs at once: the variants of a setting (each setting in turn),
 * or without variants every setting of the round. */
size_t campaign_spec_duet_width(const struct campaign_spec *s);

/* The names of an array of variables' names (targetenv_check'd) at `key` into into; -1
 * with err naming where and key when one is not a name, or is one never passed. */
int campaign_names_from_json(json_t *names, const char *where, const char *key, struct strv *into,
                             struct lb_error *err);
/* A string that reports print, read back: -1 with err naming where and key (and the byte)
 * when it holds a control character (a campaign loopbench ran holds none). */
int campaign_text_check(const char *s, const char *where, const char *key, struct lb_error *err);

#endif
