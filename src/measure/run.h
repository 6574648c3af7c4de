/* Running a campaign: every setting of the knob, repeated, in a chosen order; each run
 * boots the target, waits until it is ready, warms it up, samples one window, stops it
 * and scrapes its log. The operator's config files are restored whatever happens. The
 * campaign's model (campaign.h) is filled as it goes and written after every run. */
#ifndef LOOPBENCH_RUN_H
#define LOOPBENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "campaign.h"
#include "confedit.h"
#include "cpuset.h"
#include "msg.h"
#include "profile.h"
#include "util.h"

/* --order duet without --rotate: the targets swap CPU sets this often inside the window
 * (seconds), as the hand measurement on a 2-CPU VM ran it (docs/ci.md). */
#define RUN_ROTATE_DEFAULT_S 0.5

/* --warmup auto without a MAX: the most a run waits for its target to settle, seconds. */
#define RUN_WARMUP_AUTO_MAX 60.0
/* --warmup auto: the target's CPU is read this often (ns), and has settled when the last
 * RUN_SETTLE_SPAN_NS of it are steady (steady_check). */
#define RUN_SETTLE_EVERY_NS (100ULL * 1000 * 1000)
#define RUN_SETTLE_SPAN_NS (2000ULL * 1000 * 1000)

/* --variant NAME=DIR */
struct variant_opt {
    const char *name, *dir;
};

struct runner;
/* A campaign whose rounds are chosen as it runs (loopbench tune, tune_run.c): when the
 * plan has run, next appends a round (runner_plan_round) and returns 1, or returns 0 to
 * end the campaign, -1 with err to fail it. */
struct runner_rounds {
    int (*next)(void *ctx, struct runner *rn, struct lb_error *err);
    void *ctx;
};

struct run_opts {
    const char *profile_path;  /* NULL: the built-in reference profile */
    struct strv settings;      /* --settings; empty: the profile's values */
    long repeat;               /* <= 0: the profile's default; with sequential, the cap */
    bool sequential;           /* --repeat auto: rounds until decided, at most repeat */
    const char *primary;       /* --primary: keys the gate holds to; NULL: the profile's */
    const char *cpus;          /* --cpus LIST: the CPUs the targets run on; NULL: any */
    struct strv pass_env;      /* --pass-env: variables the targets get besides the base */
    double warmup_s;           /* < 0: the profile's default; with warmup_auto, the most */
    bool warmup_auto;          /* --warmup auto: until the target has settled (steady.h) */
    double sample_s;           /* <= 0: the profile's default */
    bool hold_idle;            /* --hold-idle (else the profile's defaults.hold_idle) */
    double rotate_s;           /* --rotate; < 0: RUN_ROTATE_DEFAULT_S in a duet */
    enum run_order order;
    bool seed_set;
    uint64_t seed;
    unsigned interval_ms;
    uint64_t log_limit;        /* --log-limit, bytes; 0: the profile's default */
    const char *out_dir;       /* NULL: results/<profile>-<UTC time>/ */
    const char *resume_dir;    /* --resume: continue the campaign of this directory */
    bool keep_going;
    enum cpu_source_kind cpu_source;
    const char *command_line;  /* recorded in results */
    const char *commit;        /* --commit SHA[,dirty]: what ran; NULL: found (commit.h) */
    struct variant_opt *variants; /* builds compared setting by setting, the first the base */
    size_t n_variants;
    /* NULL: the plan is every cell, repeat times; else it starts empty and grows a
     * round at a time (runner_plan_round), and --resume keeps the recorded plan. */
    const struct runner_rounds *rounds;
};

/* A campaign being run: its model, and what only the runner holds. */
struct runner {
    struct campaign c;
    /* The target as loaded from its file, and its config files (locked from begin to
     * release): one of each per variant, or one without variants. */
    struct profile *profiles;
    struct confedit *edits;
    size_t n_profiles;
    /* What every target gets of loopbench's environment (targetenv.h), before its
     * profile's env and env setters. */
    struct strv target_env;
    char *dir_lock;             /* the campaign directory's lock file, held likewise */
    int dir_lock_fd;
    /* --cpus, --order duet: the targets run on target_cpus (duet: each cell of a round
     * on a slice of them), loopbench on the other CPUs it may use, if any. */
    bool pinned;
    struct cpuset target_cpus;
    struct cpuset *slices;      /* duet: one per cell */
    bool pin_self;
    struct cpuset self_cpus;
    /* The CPUs whose counters each window records (hostcpus.h): the targets' when
     * pinned, else all loopbench may use; watch false where they cannot be read. */
    bool watch;
    struct cpuset watch_cpus;
};

/* Load the profile and plan the runs (release with runner_release, also on failure).
 * Fails on bad input: an invalid profile or settings. */
int runner_setup(const struct run_opts *opts, struct runner *r, struct lb_error *err);
/* Set r up again from the results.json of an interrupted campaign in opts->resume_dir
 * (resume.c): the same profile (refused if its file changed since), settings, order and
 * plan, with the runs that completed kept and the others (failed, interrupted, never
 * started) still to run. Fails when the directory holds no such campaign. */
int runner_setup_resume(const struct run_opts *opts, struct runner *r, struct lb_error *err);
/* Claim what the campaign touches: lock its config files, put back what a loopbench
 * that died left edited (a line per file in notes), read their originals, make and lock
 * the output directory and write results.json with the plan. */
int runner_begin(const struct run_opts *opts, struct runner *r, struct strv *notes,
                 struct lb_error *err);
/* Run the planned campaign. Returns 0 when every run completed, -1 otherwise with err
 * set; r->c.interrupted_by tells an interrupt from a failure. The config files are
 * restored and results.json written in every case where the directory could be made. */
int runner_run(const struct run_opts *opts, struct runner *r, struct lb_error *err);
/* Append round `round` (>= 1) to the plan: the settings with run[setting] true, in the
 * campaign's order (random: shuffled by its seed and the round). */
void runner_plan_round(struct runner *r, const bool *run, long round);
void runner_release(struct runner *r);

#endif
