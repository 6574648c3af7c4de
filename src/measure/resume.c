/* loopbench run --resume DIR: a campaign set up again from the results.json it left,
 * so that an interrupted or crashed hour of measurements is continued, not redone.
 *
 * The file is read by the same reader as `loopbench report`. The plan is recomputed
 * from the recorded settings, order and seed, and must match the recorded one run for
 * run; the profile must hash as it did. Completed runs are kept as read; every other
 * run is run again. */
#include <string.h>

#include "results.h"
#include "run.h"

/* The plan recomputed by runner_setup must be the one recorded. */
static int check_plan(const struct campaign *now, const struct campaign *rec, const char *where,
                      struct lb_error *err)
{
    if (rec->n_runs != now->n_runs)
        return lb_fail(err, "%s: campaign.plan: expected %zu runs as planned from its settings, "
                            "repeat, order and seed",
                       where, now->n_runs);
    for (size_t i = 0; i < now->n_runs; i++) {
        const struct run_record *a = &now->runs[i], *b = &rec->runs[i];
        if (strcmp(now->values.v[a->setting_index], rec->values.v[b->setting_index]) != 0 ||
            a->variant_index != b->variant_index || a->repeat != b->repeat ||
            strcmp(a->dir, b->dir) != 0)
            return lb_fail(err, "%s: campaign.plan[%zu] is not the run its settings, order and "
                                "seed plan there (%s #%ld)",
                           where, i, now->values.v[a->setting_index], a->repeat);
    }
    return 0;
}

/* The recorded plan and the tune's section as the campaign's own (the runs that did not
 * complete run again: take_recorded keeps only the others' figures). */
static void adopt_plan(struct campaign *c, const struct campaign *rec)
{
    c->runs = xcalloc(rec->n_runs + 1, sizeof(*c->runs));
    c->n_runs = rec->n_runs;
    for (size_t i = 0; i < rec->n_runs; i++) {
        const struct run_record *r = &rec->runs[i];
        c->runs[i].setting_index = r->setting_index;
        c->runs[i].repeat = r->repeat;
        c->runs[i].dir = xstrdup(r->dir);
    }
    c->repeat = rec->repeat;
    c->tune = json_deep_copy(rec->tune);
}

/* The campaign's own shape, as its first command line gave it. */
static void recorded_opts(const struct campaign *rec, const struct run_opts *o,
                          struct run_opts *again)
{
    *again = *o;
    memset(&again->settings, 0, sizeof(again->settings));
    for (size_t i = 0; i < rec->values.n; i++)
        strv_push(&again->settings, rec->values.v[i]);
    again->profile_path = rec->profile.path;
    /* a sequential campaign that stopped has its plan cut to the rounds it ran */
    again->repeat = rec->sequential_max && !rec->sequential_stop ? rec->sequential_max : rec->repeat;
    again->sequential = rec->sequential_max > 0;
    again->primary = rec->primary;
    again->pass_env = rec->pass_env; /* borrowed */
    /* duet pins without --cpus: its CPUs were all loopbench could use then */
    again->cpus = rec->order == ORDER_DUET ? NULL : rec->cpus;
    again->warmup_s = rec->warmup_s;
    again->warmup_auto = rec->warmup_auto;
    again->hold_idle = rec->hold_idle;
    again->rotate_s = rec->rotate_s;
    again->sample_s = rec->sample_s;
    again->interval_ms = rec->interval_ms;
    again->log_limit = rec->log_limit; /* 0 (not recorded): the profile's */
    again->order = rec->order;
    again->seed_set = true;
    again->seed = rec->seed;
    again->cpu_source = rec->cpu_source;
    again->command_line = rec->command_line;
    again->variants = xcalloc(rec->n_variants + 1, sizeof(*again->variants));
    again->n_variants = rec->n_variants;
    for (size_t i = 0; i < rec->n_variants; i++)
        again->variants[i] = (struct variant_opt){rec->variants[i].name, rec->variants[i].dir};
}

/* The recorded campaign's history and completed runs into the one set up again. */
static void take_recorded(struct campaign *c, struct campaign *rec)
{
    c->started_wall_ns = rec->started_wall_ns;
    for (size_t i = 0; i < rec->resumed_at.n; i++)
        strv_push(&c->resumed_at, rec->resumed_at.v[i]);
    char now[32];
    format_utc(wall_ns(), false, now, sizeof(now));
    strv_push(&c->resumed_at, now);
    for (size_t i = 0; i < c->n_runs; i++) {
        if (rec->runs[i].status != RUN_OK)
            continue;
        run_record_release(&c->runs[i]);
        c->runs[i] = rec->runs[i];
        memset(&rec->runs[i], 0, sizeof(rec->runs[i]));
    }
}

int runner_setup_resume(const struct run_opts *o, struct runner *rn, struct lb_error *err)
{
    memset(rn, 0, sizeof(*rn));
    rn->dir_lock_fd = -1;
    struct campaign rec;
    struct lb_error e;
    if (results_load(o->resume_dir, &rec, &e) < 0) {
        campaign_release(&rec);
        return lb_fail(err, "--resume '%s': %s (is it a campaign's directory?)", o->resume_dir,
                       e.msg);
    }
    const char *where = rec.path;
    int rc = -1;
    if (rec.started_wall_ns == 0 || rec.repeat <= 0) {
        lb_fail(err, "%s: not a campaign loopbench can resume: its campaign's start, repeat "
                     "and plan are missing", where);
        goto out;
    }
    for (size_t i = 0; i < rec.n_runs; i++)
        if (rec.runs[i].status == RUN_OK && !rec.runs[i].sampled) {
            lb_fail(err, "%s: runs: the completed run '%s' has no figures", where,
                    rec.runs[i].dir);
            goto out;
        }
    struct run_opts again;
    recorded_opts(&rec, o, &again);
    rc = runner_setup(&again, rn, err);
    strv_release(&again.settings);
    free(again.variants);
    if (rc < 0)
        goto out;
    rc = -1;
    if (strcmp(rn->c.profile.hash, rec.profile.hash) != 0) {
        lb_fail(err, "profile '%s' changed since the campaign in '%s' started (%s, now %s): a "
                     "resumed campaign must measure what it began with; start a new one",
                rec.profile.path, o->resume_dir, rec.profile.hash, rn->c.profile.hash);
        goto out;
    }
    if (!rec.tune != !o->rounds) {
        lb_fail(err, "%s: %s: continue it with loopbench %s --resume", where,
                rec.tune ? "a campaign of loopbench tune" : "not a campaign of loopbench tune",
                rec.tune ? "tune" : "run");
        goto out;
    }
    /* a tune's rounds were chosen by what its runs measured: its plan is taken as it is */
    if (rec.tune)
        adopt_plan(&rn->c, &rec);
    else if (check_plan(&rn->c, &rec, where, err) < 0)
        goto out;
    take_recorded(&rn->c, &rec);
    rc = 0;
out:
    campaign_release(&rec);
    return rc;
}
