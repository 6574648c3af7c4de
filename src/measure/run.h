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

/* --warmup auto: the target's CPU is read this often (ns), and has settled when the last
 * RUN_SETTLE_SPAN_NS of it are steady (steady_check). */
#define RUN_SETTLE_EVERY_NS (100ULL * 1000 * 1000)
#define RUN_SETTLE_SPAN_NS (2000ULL * 1000 * 1000)

struct runner;
/* A campaign whose rounds are chosen as it runs (loopbench tune, tune_run.c): when the
 * plan has run, next appends a round (runner_plan_round) and returns 1, or returns 0 to
 * end the campaign, -1 with err to fail it. */
struct runner_rounds {
    int (*next)(void *ctx, struct runner *rn, struct lb_error *err);
    void *ctx;
};

/* What `run` is told that is not the campaign's (the spec holds that: spec.h): how this
 * loopbench goes about it, which a resumed campaign is told afresh. */
struct run_opts {
    const char *resume_dir;   /* --resume: continue the campaign of this directory */
    bool keep_going;          /* --keep-going: on after a failed run */
    const char *command_line; /* as typed, recorded in results.json */
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

/* The campaign spec asks (taken from *spec, which is left empty): resolve it against its
 * profile (campaign_spec_resolve) and plan the runs (release with runner_release, also on
 * failure). Fails on bad input: an invalid profile, or a spec it cannot run. */
int runner_setup(const struct run_opts *opts, struct campaign_spec *spec, struct runner *r,
                 struct lb_error *err);
/* Set r up again from the results.json of an interrupted campaign in opts->resume_dir
 * (resume.c): its spec resolved again, so the same profile (refused if its file changed
 * since), settings, order and plan, with the runs that completed kept and the others
 * (failed, interrupted, never started) still to run. Fails when the directory holds no
 * such campaign. */
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
