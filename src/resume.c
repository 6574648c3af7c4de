/* loopbench run --resume DIR: a campaign set up again from the results.json it left,
 * so that an interrupted or crashed hour of measurements is continued, not redone.
 *
 * The plan is recomputed from the recorded settings, order and seed, and must match
 * the recorded one run for run; the profile must hash as it did. Completed runs are
 * kept verbatim (their results.json objects) with the figures the summary and noise
 * assessment need read back; every other run is run again. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "run.h"

/* A run's round trips, for the setting's merged histogram. */
static int restore_rtt(struct run_record *r, json_t *rtt, const char *where, struct lb_error *err)
{
    if (!rtt)
        return 0;
    json_int_t errors, timeouts, scheduled;
    struct lb_error e;
    histogram_init(&r->rtt.rtt);
    histogram_init(&r->rtt.lag);
    histogram_init(&r->rtt.setup);
    r->has_rtt = true; /* from here on, campaign_release releases the histograms */
    if (json_unpack(rtt, "{s:{s:I, s:I, s:I}}", "requests", "scheduled", &scheduled, "errors",
                    &errors, "timeouts", &timeouts) < 0 ||
        histogram_from_json(json_object_get(rtt, "histogram"), "ns", &r->rtt.rtt, &e) < 0)
        return lb_fail(err, "%s: rtt: %s", where,
                       json_object_get(rtt, "histogram") ? e.msg : "expected its requests");
    r->rtt.requests.scheduled = (uint64_t)scheduled;
    r->rtt.requests.errors = (uint64_t)errors;
    r->rtt.requests.timeouts = (uint64_t)timeouts;
    return 0;
}

/* The parts of a stored run the summary, the table and the noise checks read. */
static int restore_figures(struct run_record *r, json_t *run, const char *where,
                           struct lb_error *err)
{
    double cpu, wall, steal, others;
    json_int_t vol;
    int unreliable;
    json_t *metrics;
    json_error_t je;
    if (json_unpack_ex(run, &je, 0, "{s:F, s:F, s:I, s:b, s:F, s:F, s:o}", "cpu_percent", &cpu,
                       "wall_seconds", &wall, "voluntary_ctxsw", &vol, "unreliable", &unreliable,
                       "steal_percent", &steal, "others_cpu_percent", &others, "metrics",
                       &metrics) < 0 ||
        !json_is_object(metrics))
        return lb_fail(err, "%s: a completed run needs its figures: %s", where, je.text);
    r->sampled = true;
    r->sample.cpu_percent = cpu;
    r->sample.wall_ns = (uint64_t)(wall * 1e9);
    r->sample.voluntary_ctxsw = (uint64_t)vol;
    r->sample.unreliable = unreliable;
    r->sample.steal_percent = steal;
    r->sample.others_cpu_percent = others;

    /* Room to the next power of two, as scrape_run_add expects of the array. */
    size_t room = 1;
    while (room < json_object_size(metrics))
        room *= 2;
    r->scrape.aggs = xcalloc(room, sizeof(*r->scrape.aggs));
    const char *key;
    json_t *m;
    json_object_foreach(metrics, key, m) {
        struct scrape_agg *a = &r->scrape.aggs[r->scrape.n_aggs];
        const char *type;
        json_int_t windows;
        json_t *mean, *min, *max, *sum, *total = NULL;
        if (json_unpack_ex(m, &je, 0, "{s:s, s:I, s:o, s:o, s:o, s:o, s?o}", "type", &type,
                           "windows", &windows, "mean", &mean, "min", &min, "max", &max, "sum",
                           &sum, "total_sum", &total) < 0 ||
            strlen(key) >= sizeof(a->key))
            return lb_fail(err, "%s: metrics.%s: %s", where, key, je.text);
        bool known = false;
        for (int t = SCRAPE_NUMBER; t <= SCRAPE_FLAG && !known; t++)
            if (strcmp(type, scrape_type_name((enum scrape_type)t)) == 0) {
                a->type = (enum scrape_type)t;
                known = true;
            }
        if (!known)
            return lb_fail(err, "%s: metrics.%s.type: unknown type '%s'", where, key, type);
        strcpy(a->key, key);
        a->n = (size_t)windows;
        /* null is how results.json writes an undefined figure */
        a->mean = json_is_number(mean) ? json_number_value(mean) : NAN;
        a->min = json_is_number(min) ? json_number_value(min) : NAN;
        a->max = json_is_number(max) ? json_number_value(max) : NAN;
        a->sum = json_is_number(sum) ? json_number_value(sum) : NAN;
        a->total_sum = json_is_number(total) ? json_number_value(total) : NAN;
        r->scrape.n_aggs++;
    }
    return restore_rtt(r, json_object_get(run, "rtt"), where, err);
}

/* The plan recomputed by campaign_setup must be the one recorded. */
static int check_plan(const struct campaign *c, json_t *plan, const char *where,
                      struct lb_error *err)
{
    if (!json_is_array(plan) || json_array_size(plan) != c->n_runs)
        return lb_fail(err, "%s: campaign.plan: expected %zu runs as planned from its settings, "
                            "repeat, order and seed",
                       where, c->n_runs);
    for (size_t i = 0; i < c->n_runs; i++) {
        const char *setting, *dir;
        json_int_t repeat;
        const struct run_record *r = &c->runs[i];
        if (json_unpack(json_array_get(plan, i), "{s:s, s:I, s:s}", "setting", &setting,
                        "repeat", &repeat, "dir", &dir) < 0 ||
            strcmp(setting, c->values.v[r->setting_index]) != 0 || repeat != r->repeat ||
            strcmp(dir, r->dir) != 0)
            return lb_fail(err, "%s: campaign.plan[%zu] is not the run its settings, order and "
                                "seed plan there (%s #%ld)",
                           where, i, c->values.v[r->setting_index], r->repeat);
    }
    return 0;
}

static int keep_completed_runs(struct campaign *c, json_t *runs, const char *where,
                               struct lb_error *err)
{
    if (!json_is_array(runs))
        return lb_fail(err, "%s: runs: expected an array", where);
    size_t i;
    json_t *run;
    json_array_foreach(runs, i, run) {
        const char *status, *dir;
        if (json_unpack(run, "{s:s, s:s}", "status", &status, "dir", &dir) < 0)
            return lb_fail(err, "%s: runs[%zu]: expected its status and dir", where, i);
        if (strcmp(status, "ok") != 0)
            continue;
        struct run_record *r = NULL;
        for (size_t k = 0; k < c->n_runs && !r; k++)
            if (strcmp(c->runs[k].dir, dir) == 0)
                r = &c->runs[k];
        if (!r)
            return lb_fail(err, "%s: runs[%zu]: dir '%s' is not in the plan", where, i, dir);
        char *run_where = xasprintf("%s: runs[%zu]", where, i);
        int rc = restore_figures(r, run, run_where, err);
        free(run_where);
        if (rc < 0)
            return -1;
        r->status = RUN_OK;
        r->resumed = json_incref(run);
    }
    return 0;
}

int campaign_setup_resume(const struct run_opts *o, struct campaign *c, struct lb_error *err)
{
    memset(c, 0, sizeof(*c));
    char *path = path_join(o->resume_dir, "results.json");
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    int rc = -1;
    if (!doc) {
        lb_fail(err, "--resume '%s': cannot read '%s': %s (is it a campaign's directory?)",
                o->resume_dir, path, je.text);
        goto out;
    }
    const char *schema, *profile_path, *hash, *order, *cpu_source, *started, *command_line;
    json_t *settings, *plan, *runs, *resumed = NULL;
    json_int_t repeat, interval, seed;
    double warmup, sample;
    if (json_unpack_ex(doc, &je, 0,
                       "{s:s, s:s, s:{s:s, s:s}, s:{s:o, s:I, s:F, s:F, s:I, s:s, s:I, s:s, "
                       "s:s, s:o, s?o}, s:o}",
                       "schema", &schema, "command_line", &command_line, "profile", "path",
                       &profile_path, "hash", &hash, "campaign", "settings", &settings,
                       "repeat", &repeat, "warmup_seconds", &warmup, "sample_seconds", &sample,
                       "interval_ms", &interval, "order", &order, "seed", &seed,
                       "cpu_source_requested", &cpu_source, "started_at", &started, "plan",
                       &plan, "resumed_at", &resumed, "runs", &runs) < 0) {
        lb_fail(err, "%s: not a campaign loopbench can resume: %s", path, je.text);
        goto out;
    }
    if (strcmp(schema, RESULTS_SCHEMA) != 0) {
        lb_fail(err, "%s: schema '%s': expected '%s'", path, schema, RESULTS_SCHEMA);
        goto out;
    }

    /* The campaign's own shape, as its first command line gave it. */
    struct run_opts again = *o;
    memset(&again.settings, 0, sizeof(again.settings));
    again.profile_path = profile_path;
    again.repeat = (long)repeat;
    again.warmup_s = warmup;
    again.sample_s = sample;
    again.interval_ms = (unsigned)interval;
    again.seed_set = true;
    again.seed = (uint64_t)seed;
    again.command_line = command_line;
    size_t i;
    json_t *v;
    json_array_foreach(settings, i, v) {
        if (!json_is_string(v)) {
            lb_fail(err, "%s: campaign.settings[%zu]: expected a string", path, i);
            goto out_settings;
        }
        strv_push(&again.settings, json_string_value(v));
    }
    if (run_order_parse(order, &again.order) < 0 ||
        cpu_source_parse(cpu_source, &again.cpu_source) < 0) {
        lb_fail(err, "%s: campaign: unknown order '%s' or cpu source '%s'", path, order,
                cpu_source);
        goto out_settings;
    }
    if (campaign_setup(&again, c, err) < 0)
        goto out_settings;
    char now_hash[32];
    snprintf(now_hash, sizeof(now_hash), "fnv1a64:%s", c->profile.hash);
    if (strcmp(now_hash, hash) != 0) {
        lb_fail(err, "profile '%s' changed since the campaign in '%s' started (%s, now %s): a "
                     "resumed campaign must measure what it began with; start a new one",
                profile_path, o->resume_dir, hash, now_hash);
        goto out_settings;
    }
    if (parse_utc(started, &c->started_wall_ns) < 0) {
        lb_fail(err, "%s: campaign.started_at '%s': expected YYYY-MM-DDTHH:MM:SSZ", path,
                started);
        goto out_settings;
    }
    if (check_plan(c, plan, path, err) < 0 || keep_completed_runs(c, runs, path, err) < 0)
        goto out_settings;
    json_array_foreach(resumed, i, v)
        if (json_is_string(v))
            strv_push(&c->resumed_at, json_string_value(v));
    char now[32];
    format_utc(wall_ns(), false, now, sizeof(now));
    strv_push(&c->resumed_at, now);
    rc = 0;
out_settings:
    strv_release(&again.settings);
out:
    json_decref(doc);
    free(path);
    return rc;
}
