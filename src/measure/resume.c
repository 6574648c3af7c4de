/* loopbench run --resume DIR: a campaign set up again from the results.json it left,
 * so that an interrupted or crashed hour of measurements is continued, not redone.
 *
 * The file is read by the same reader as `loopbench report`, and its spec resolved again
 * as a new campaign's is. The plan is recomputed from the recorded settings, order and
 * seed, and must match the recorded one run for run; the profile must hash as it did. Completed
 * runs are kept as read; every other run is run again. */
#include <string.h>

#include "results.h"
#include "run.h"

/* The plan recomputed by runner_setup must be the one recorded (whose settings, now's
 * spec taken from it, are now's). */
static int check_plan(const struct campaign *now, const struct campaign *rec, const char *where,
                      struct lb_error *err)
{
    if (rec->n_runs != now->n_runs)
        return lb_fail(err, "%s: campaign.plan: expected %zu runs as planned from its settings, "
                            "repeat, order and seed",
                       where, now->n_runs);
    for (size_t i = 0; i < now->n_runs; i++) {
        const struct run_record *a = &now->runs[i], *b = &rec->runs[i];
        if (a->setting_index != b->setting_index || a->variant_index != b->variant_index ||
            a->repeat != b->repeat || strcmp(a->dir, b->dir) != 0)
            return lb_fail(err,
                           "%s: campaign.plan[%zu] is not the run its settings, order and "
                           "seed plan there (%s #%ld)",
                           where, i, now->spec.values.v[a->setting_index], a->repeat);
    }
    return 0;
}

/* The recorded plan, of `rounds` rounds, and the tune's section as the campaign's own
 * (the runs that did not complete run again: take_recorded keeps only the others'). */
static void adopt_plan(struct campaign *c, const struct campaign *rec, long rounds)
{
    c->runs = xcalloc(rec->n_runs + 1, sizeof(*c->runs));
    c->n_runs = rec->n_runs;
    for (size_t i = 0; i < rec->n_runs; i++) {
        const struct run_record *r = &rec->runs[i];
        c->runs[i].setting_index = r->setting_index;
        c->runs[i].repeat = r->repeat;
        c->runs[i].dir = xstrdup(r->dir);
    }
    c->spec.repeat = rounds;
    c->tune = json_deep_copy(rec->tune);
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
    if (rec.started_wall_ns == 0 || rec.spec.repeat <= 0) {
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
    /* The campaign's own spec, as it was asked and resolved then (taken from rec); a
     * sequential campaign that stopped has its plan cut to the rounds it ran (its repeat). */
    if (!rec.tune != !o->rounds) {
        lb_fail(err, "%s: %s: continue it with loopbench %s --resume", where,
                rec.tune ? "a campaign of loopbench tune" : "not a campaign of loopbench tune",
                rec.tune ? "tune" : "run");
        goto out;
    }
    long rounds = rec.spec.repeat;
    struct run_opts again = *o;
    again.command_line = rec.command_line;
    rc = runner_setup(&again, &rec.spec, rn, err);
    if (rc < 0)
        goto out;
    rc = -1;
    if (strcmp(rn->c.profile.hash, rec.profile.hash) != 0) {
        lb_fail(err, "profile '%s' changed since the campaign in '%s' started (%s, now %s): a "
                     "resumed campaign must measure what it began with; start a new one",
                rec.profile.path, o->resume_dir, rec.profile.hash, rn->c.profile.hash);
        goto out;
    }
    /* a tune's rounds were chosen by what its runs measured: its plan is taken as it is */
    if (rec.tune)
        adopt_plan(&rn->c, &rec, rounds);
    else if (check_plan(&rn->c, &rec, where, err) < 0)
        goto out;
    take_recorded(&rn->c, &rec);
    rc = 0;
out:
    campaign_release(&rec);
    return rc;
}
