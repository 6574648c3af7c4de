/* A campaign's spec resolved against its profile: campaign_spec_resolve (resolve.h). */
#include "resolve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commit.h"
#include "cpuset.h"
#include "metric.h"
#include "results.h"

/* Each variant named once, its directory absolute (so that a campaign resumed from
 * another directory finds it) and its commit found. */
static int resolve_variants(struct campaign_spec *s, struct lb_error *err)
{
    for (size_t i = 0; i < s->n_variants; i++) {
        struct campaign_variant *v = &s->variants[i];
        for (size_t j = 0; j < i; j++)
            if (strcmp(v->name, s->variants[j].name) == 0)
                return lb_fail(err, "--variant '%s': the name is given twice", v->name);
        char *dir = plat_realpath(v->dir);
        if (!dir)
            return lb_fail_errno(err, errno, "--variant '%s': directory '%s'", v->name, v->dir);
        free(v->dir);
        v->dir = dir;
        commit_release(&v->commit);
        commit_from_git(dir, &v->commit);
    }
    return 0;
}

/* Two variants must not edit one config file: each run would overwrite the other's. */
static int check_variant_files(const struct campaign_spec *s, const struct profile *p, size_t n,
                               struct lb_error *err)
{
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) {
            const struct profile *pa = &p[a], *pb = &p[b];
            if (pa->knob.set.kind == SETTER_CONFIG && pb->knob.set.kind == SETTER_CONFIG &&
                strcmp(pa->knob.set.file, pb->knob.set.file) == 0)
                return lb_fail(err,
                               "variants '%s' and '%s' both edit '%s': give each variant "
                               "its own config file (in its directory)",
                               s->variants[a].name, s->variants[b].name, pa->knob.set.file);
        }
    return 0;
}

/* The target's profile once per variant (once without variants), each checked as
 * validate checks it: a command that cannot start is said now, not after the campaign's
 * directory is made. */
static int load_profiles(const struct campaign_spec *s, struct profile **out, size_t *n,
                         struct lb_error *err)
{
    *n = s->n_variants ? s->n_variants : 1;
    *out = xcalloc(*n, sizeof(**out));
    for (size_t i = 0; i < *n; i++) {
        int rc = s->n_variants
                     ? profile_load_variant(s->profile_path, s->variants[i].dir, &(*out)[i], err)
                     : profile_load(s->profile_path, &(*out)[i], err);
        if (rc < 0 || profile_check_command(&(*out)[i], err) < 0)
            return -1;
    }
    return check_variant_files(s, *out, *n, err);
}

/* What results.json says of the profile: its serialisation and the file itself, read
 * back through the same reader as any results.json's. */
static int describe_profile(struct campaign *c, const struct profile *p, struct lb_error *err)
{
    json_t *section = profile_to_json(p);
    json_t *doc = p->text ? json_loads(p->text, 0, NULL) : NULL;
    json_object_set_new(section, "document", doc ? doc : json_null());
    int rc = campaign_profile_from_json(section, p->path, &c->profile, err);
    json_decref(section);
    struct campaign_endpoint *ep = &c->endpoint;
    if (p->endpoint.n_select) {
        ep->url = xstrdup(p->endpoint.url);
        ep->format = xstrdup(metrics_format_name(p->endpoint.format));
        for (size_t i = 0; i < p->endpoint.n_select; i++) {
            strv_push(&ep->keys, p->endpoint.select[i].key);
            strv_push_owned(&ep->sources, metrics_select_text(&p->endpoint, i));
        }
    }
    c->has_rtt = p->has_rtt;
    return rc;
}

/* What the campaign runs: as told (--commit, then $LOOPBENCH_COMMIT), else the work tree
 * of the target's directory (with variants the last's, the head), else $GITHUB_SHA. Read
 * before any config file is edited, which would make every tree dirty. */
static int resolve_commit(struct campaign *c, const struct profile *prof, struct lb_error *err)
{
    const struct campaign_spec *s = &c->spec;
    struct lb_error e;
    if (s->commit) {
        if (commit_parse(s->commit, "option", &c->commit, &e) < 0)
            return lb_fail(err, "--commit %s", e.msg);
        return 0;
    }
    const char *told = getenv("LOOPBENCH_COMMIT");
    if (told && *told)
        return commit_from_env(&c->commit, err);
    if (s->n_variants && s->variants[s->n_variants - 1].commit.sha) {
        const struct campaign_commit *head = &s->variants[s->n_variants - 1].commit;
        c->commit = (struct campaign_commit){xstrdup(head->sha), head->dirty, head->source};
        return 0;
    }
    if (!s->n_variants && commit_from_git(prof->cwd, &c->commit) == 0)
        return 0;
    return commit_from_env(&c->commit, err);
}

/* The settings, each once, the profile's when none were asked; the profile's baseline
 * when it is among them, else the first. */
static int resolve_settings(struct campaign_spec *s, const struct profile *prof,
                            struct lb_error *err)
{
    bool asked = s->values.n > 0;
    for (size_t i = 0; !asked && i < prof->knob.values.n; i++)
        strv_push(&s->values, prof->knob.values.v[i]);
    /* Never a campaign loopbench could not read back. */
    if (campaign_size_check(s->values.n, s->n_variants, 0, "run", err) < 0)
        return -1;
    for (size_t i = 0; i < s->values.n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->values.v[i], s->values.v[j]) == 0)
                return lb_fail(err, "--settings: '%s' is given twice", s->values.v[i]);
    if (s->values.n == 0)
        return lb_fail(err, "--settings: expected at least one value");
    long base = campaign_spec_setting(s, prof->knob.baseline);
    s->baseline = base < 0 ? 0 : (size_t)base;
    return 0;
}

/* --cpus and --order duet: the CPUs the targets run on, all loopbench may use in a duet
 * not told which; a duet's cells each on a slice of them. */
static int resolve_cpus(struct campaign_spec *s, const struct profile *prof, struct lb_error *err)
{
    const char *what = s->cpus ? "--cpus" : "--order duet";
    struct cpuset avail, target;
    struct lb_error e;
    char list[256], have[256];
    if (plat_cpus_available(&avail, &e) < 0)
        return lb_fail(err, "%s: %s", what, e.msg);
    cpuset_format(&avail, have, sizeof(have));
    target = avail;
    if (s->cpus && cpuset_parse(s->cpus, &target, &e) < 0)
        return lb_fail(err, "--cpus %s", e.msg);
    if (!cpuset_within(&target, &avail))
        return lb_fail(err, "--cpus '%s': loopbench may run on CPUs %s only", s->cpus, have);
    cpuset_format(&target, list, sizeof(list));
    free(s->cpus);
    s->cpus = xstrdup(list);
    if (s->order != ORDER_DUET)
        return 0;
    size_t width = campaign_spec_duet_width(s), cpus = cpuset_count(&target);
    if (width < 2 || width > SAMPLER_MAX_TARGETS || width > cpus)
        return lb_fail(err,
                       "--order duet: runs %s at once, each on CPUs of its own: expected 2 "
                       "to %d of them, and no more than the %zu CPUs loopbench may use "
                       "(%s); %zu given",
                       s->n_variants ? "the variants of a setting" : "the settings of a round",
                       SAMPLER_MAX_TARGETS, cpus, s->cpus, width);
    if (!s->n_variants && prof->knob.set.kind == SETTER_CONFIG)
        return lb_fail(err,
                       "--order duet: the settings would run at once from one config file "
                       "('%s'): compare builds as variants, or set the knob by argv or env",
                       prof->knob.set.file);
    return 0;
}

/* The order: variants shuffled within each round unless asked, and compared round by
 * round, which grouped runs do not have. */
static int resolve_order(struct campaign_spec *s, struct lb_error *err)
{
    if (s->order == ORDER_UNSET)
        s->order = s->n_variants ? ORDER_RANDOM : ORDER_INTERLEAVE;
    if (s->n_variants && s->order == ORDER_GROUPED)
        return lb_fail(err, "--order grouped: variants are compared round by round, and grouped "
                            "runs have no rounds (use random or interleave)");
    return 0;
}

/* The rounds: as asked, --repeat auto's cap, else the profile's; auto looks after each
 * round, which grouped runs do not have. */
static int resolve_repeat(struct campaign_spec *s, const struct profile *prof, struct lb_error *err)
{
    if (s->repeat <= 0)
        s->repeat = s->sequential_max ? s->sequential_max : prof->repeat;
    if (s->sequential_max && s->order == ORDER_GROUPED)
        return lb_fail(err, "--repeat auto: looks after each round, which --order grouped "
                            "does not have: use interleave or random");
    return 0;
}

/* The profile's defaults for the window's phases and the logs, and a seed drawn from
 * the clock when none was given. */
static void resolve_defaults(struct campaign_spec *s, const struct profile *prof)
{
    if (s->warmup_s < 0)
        s->warmup_s = prof->warmup_s;
    if (s->sample_s <= 0)
        s->sample_s = prof->sample_s;
    if (!s->log_limit)
        s->log_limit = prof->log_limit;
    if (s->seed == SPEC_SEED_UNSET)
        s->seed = wall_ns() ^ ((uint64_t)getpid() << 32);
    s->seed &= (1ULL << 53) - 1;
    s->hold_idle |= prof->hold_idle;
}

/* The keys the gate holds to: as asked, else the profile's metrics.primary. */
static int resolve_primary(struct campaign *c, const struct profile *prof, struct lb_error *err)
{
    struct campaign_spec *s = &c->spec;
    if (!s->primary)
        for (size_t i = 0; i < prof->primary.n; i++) {
            char *longer =
                xasprintf("%s%s%s", i ? s->primary : "", i ? "," : "", prof->primary.v[i]);
            free(s->primary);
            s->primary = longer;
        }
    return campaign_check_keys(c, s->primary, "--primary", err);
}

/* Budgets of the profile for settings the campaign runs. */
static size_t budgets_run(const struct campaign_spec *s, const struct profile *prof)
{
    size_t n = 0;
    for (size_t i = 0; i < prof->n_budgets; i++)
        n += campaign_spec_setting(s, prof->budgets[i].setting) >= 0;
    return n;
}

int campaign_spec_resolve(struct campaign *c, struct profile **profiles, size_t *n_profiles,
                          struct lb_error *err)
{
    struct campaign_spec *s = &c->spec;
    if (resolve_variants(s, err) < 0 || load_profiles(s, profiles, n_profiles, err) < 0 ||
        describe_profile(c, &(*profiles)[0], err) < 0)
        return -1;
    const struct profile *prof = &(*profiles)[0];
    if (resolve_commit(c, prof, err) < 0 || resolve_order(s, err) < 0 ||
        resolve_settings(s, prof, err) < 0 || resolve_repeat(s, prof, err) < 0 ||
        campaign_size_check(0, 0, campaign_cells(c) * (size_t)s->repeat, "run", err) < 0)
        return -1;
    resolve_defaults(s, prof);
    if ((s->cpus || s->order == ORDER_DUET) && resolve_cpus(s, prof, err) < 0)
        return -1;
    if (s->rotate_s > 0 && s->order != ORDER_DUET)
        return lb_fail(err,
                       "--rotate %g: swaps the CPU sets of a duet's targets inside the "
                       "window: expected --order duet",
                       s->rotate_s);
    if (s->order != ORDER_DUET)
        s->rotate_s = 0;
    else if (s->rotate_s < 0)
        s->rotate_s = SPEC_ROTATE_DEFAULT_S;
    /* Refused before anything runs, rather than at the first warm-up. */
    int held = s->hold_idle ? plat_idle_hold(err) : 0;
    if (held < 0)
        return -1;
    plat_idle_release(s->hold_idle ? held : -1);
    if (resolve_primary(c, prof, err) < 0)
        return -1;
    /* budgets need no second cell: a single setting can run until they are decided */
    if (s->sequential_max && campaign_cells(c) < 2 && budgets_run(s, prof) == 0)
        return lb_fail(err, "--repeat auto: nothing to compare: give two settings or more, "
                            "two variants, or budgets in the profile");
    return 0;
}
