#include "results_load.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"
#include "util.h"

static double num_or_nan(json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str_or(json_t *v, const char *dflt)
{
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static int load_health(struct loaded_results *r, json_t *health, struct lb_error *err)
{
    r->n_health = json_array_size(health);
    r->health = xcalloc(r->n_health ? r->n_health : 1, sizeof(*r->health));
    for (size_t k = 0; k < r->n_health; k++) {
        json_t *h = json_array_get(health, k);
        const char *key, *better;
        int zero = 0;
        const char *label = NULL;
        if (json_unpack(h, "{s:s, s?s, s:s, s?b}", "key", &key, "label", &label, "better",
                        &better, "must_be_zero", &zero) < 0)
            return lb_fail(err, "'%s': profile.health[%zu]: expected key, better and "
                                "must_be_zero", r->path, k);
        r->health[k] = (struct loaded_health){key, label ? label : key,
                                              strcmp(better, "higher") != 0, zero, NULL};
    }
    return 0;
}

static void load_run(struct loaded_results *r, json_t *run, size_t si, struct loaded_run *out)
{
    size_t nh = r->n_health ? r->n_health : 1;
    out->setting = si;
    out->repeat = (long)json_integer_value(json_object_get(run, "repeat"));
    out->cpu_percent = num_or_nan(json_object_get(run, "cpu_percent"));
    out->health = xmalloc(nh * sizeof(double));
    out->health_max = xmalloc(nh * sizeof(double));
    out->health_total = xmalloc(nh * sizeof(double));
    json_t *metrics = json_object_get(run, "metrics");
    for (size_t k = 0; k < r->n_health; k++) {
        json_t *m = json_object_get(metrics, r->health[k].key);
        if (!r->health[k].type && json_is_string(json_object_get(m, "type")))
            r->health[k].type = json_string_value(json_object_get(m, "type"));
        double windows = num_or_nan(json_object_get(m, "windows"));
        out->health[k] = windows > 0 ? num_or_nan(json_object_get(m, "mean")) : NAN;
        out->health_max[k] = windows > 0 ? num_or_nan(json_object_get(m, "max")) : NAN;
        out->health_total[k] = windows > 0 ? num_or_nan(json_object_get(m, "total_sum")) / windows
                                           : NAN;
    }
}

/* Add a completed run's round trips to its setting's. */
static int load_rtt(struct loaded_results *r, json_t *run, size_t si, size_t index,
                    struct lb_error *err)
{
    json_t *rtt = json_object_get(run, "rtt");
    if (!rtt)
        return 0;
    if (!r->rtt) {
        r->rtt = xcalloc(r->n_settings, sizeof(*r->rtt));
        for (size_t i = 0; i < r->n_settings; i++)
            histogram_init(&r->rtt[i].latency);
    }
    struct histogram h;
    struct lb_error e;
    histogram_init(&h);
    json_int_t scheduled, errors, timeouts;
    int rc = 0;
    if (json_unpack(rtt, "{s:{s:I, s:I, s:I}}", "requests", "scheduled", &scheduled, "errors",
                    &errors, "timeouts", &timeouts) < 0)
        rc = lb_fail(err, "'%s': runs[%zu].rtt: expected its requests", r->path, index);
    else if (histogram_from_json(json_object_get(rtt, "histogram"), "ns", &h, &e) < 0)
        rc = lb_fail(err, "'%s': runs[%zu].rtt.%s", r->path, index, e.msg);
    if (rc == 0) {
        struct loaded_rtt *l = &r->rtt[si];
        l->scheduled += (uint64_t)scheduled;
        l->failed += (uint64_t)(errors + timeouts);
        histogram_add(&l->latency, &h);
    }
    histogram_release(&h);
    return rc;
}

int results_load(const char *path, struct loaded_results *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    struct stat st;
    out->path = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path_join(path, "results.json")
                                                           : xstrdup(path);
    json_error_t jerr;
    out->doc = json_load_file(out->path, 0, &jerr);
    if (!out->doc) {
        if (jerr.line <= 0)
            return lb_fail(err, "cannot read '%s': %s", out->path, jerr.text);
        return lb_fail(err, "'%s' line %d column %d: %s", out->path, jerr.line, jerr.column,
                       jerr.text);
    }
    const char *schema = str_or(json_object_get(out->doc, "schema"), "none");
    if (strcmp(schema, RESULTS_SCHEMA) != 0)
        return lb_fail(err, "'%s': schema '%s': expected '%s'", out->path, schema,
                       RESULTS_SCHEMA);
    json_t *host, *runs, *values, *health;
    const char *baseline;
    if (json_unpack(out->doc, "{s:{s:s, s:s, s:{s:s, s:o, s:s}, s:o}, s:o, s:o}",
                    "profile", "name", &out->profile_name, "hash", &out->profile_hash,
                    "knob", "label", &out->knob_label, "values", &values, "baseline", &baseline,
                    "health", &health, "host", &host, "runs", &runs) < 0 ||
        !json_is_array(runs) || !json_is_array(health))
        return lb_fail(err, "'%s': expected the fixed keys profile, host and runs", out->path);
    out->host = str_or(json_object_get(host, "hostname"), "host");
    json_t *campaign = json_object_get(out->doc, "campaign");
    out->order = str_or(json_object_get(campaign, "order"), "unknown");
    /* The settings run are the campaign's when recorded, else the profile's values. */
    json_t *settings = json_object_get(campaign, "settings");
    if (!json_is_array(settings))
        settings = values;
    out->n_settings = json_array_size(settings);
    if (out->n_settings == 0)
        return lb_fail(err, "'%s': no settings", out->path);
    out->settings = xcalloc(out->n_settings, sizeof(*out->settings));
    const char *camp_base = str_or(json_object_get(campaign, "baseline"), baseline);
    for (size_t i = 0; i < out->n_settings; i++) {
        out->settings[i] = str_or(json_array_get(settings, i), "?");
        if (strcmp(out->settings[i], camp_base) == 0)
            out->baseline = i;
    }
    if (load_health(out, health, err) < 0)
        return -1;
    out->runs = xcalloc(json_array_size(runs) + 1, sizeof(*out->runs));
    for (size_t i = 0; i < json_array_size(runs); i++) {
        json_t *run = json_array_get(runs, i);
        const char *setting = str_or(json_object_get(run, "setting"), "");
        long si = results_loaded_setting(out, setting);
        if (si < 0)
            return lb_fail(err, "'%s': runs[%zu]: setting '%s' is not among the campaign's",
                           out->path, i, setting);
        if (strcmp(str_or(json_object_get(run, "status"), ""), "ok") != 0) {
            out->runs_failed++;
            continue;
        }
        load_run(out, run, (size_t)si, &out->runs[out->n_runs++]);
        if (load_rtt(out, run, (size_t)si, i, err) < 0)
            return -1;
    }
    return 0;
}

void results_loaded_release(struct loaded_results *r)
{
    for (size_t i = 0; r->rtt && i < r->n_settings; i++)
        histogram_release(&r->rtt[i].latency);
    free(r->rtt);
    for (size_t i = 0; i < r->n_runs; i++) {
        free(r->runs[i].health);
        free(r->runs[i].health_max);
        free(r->runs[i].health_total);
    }
    free(r->runs);
    free(r->health);
    free(r->settings);
    free(r->path);
    json_decref(r->doc);
    memset(r, 0, sizeof(*r));
}

size_t results_loaded_pairs(const struct loaded_results *r, size_t sa, size_t sb, int metric,
                            double *a, double *b)
{
    size_t n = 0;
    if (strcmp(r->order, "grouped") == 0)
        return 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        const struct loaded_run *x = &r->runs[i];
        if (x->setting != sa)
            continue;
        for (size_t j = 0; j < r->n_runs; j++) {
            const struct loaded_run *y = &r->runs[j];
            if (y->setting == sb && y->repeat == x->repeat) {
                a[n] = metric < 0 ? x->cpu_percent : x->health[metric];
                b[n++] = metric < 0 ? y->cpu_percent : y->health[metric];
                break;
            }
        }
    }
    return n;
}

size_t results_loaded_values(const struct loaded_results *r, size_t si, int metric,
                             double *out)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_runs; i++)
        if (r->runs[i].setting == si)
            out[n++] = metric < 0 ? r->runs[i].cpu_percent : r->runs[i].health[metric];
    return n;
}

long results_loaded_setting(const struct loaded_results *r, const char *value)
{
    for (size_t i = 0; i < r->n_settings; i++)
        if (strcmp(r->settings[i], value) == 0)
            return (long)i;
    return -1;
}
