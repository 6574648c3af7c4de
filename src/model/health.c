/* A run's health figures: aggregating values key by key, and their results.json form. */
#include "health.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const type_names[] = {"number", "percent", "ratio", "duration_ms", "flag"};
static const char *const level_names[LOG_LEVELS] = {"VRB", "DBG", "INF", "WRN", "ERR", "FTL"};

bool scrape_is_key(const char *s, size_t n)
{
    if (n == 0 || n >= SCRAPE_KEY_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

const char *scrape_type_name(enum scrape_type t)
{
    return name_of(type_names, ARRAY_SIZE(type_names), (size_t)t);
}

const char *log_level_name(enum log_level l)
{
    return name_of(level_names, ARRAY_SIZE(level_names), (size_t)l);
}

/* Arrays without a capacity field grow by doubling whenever their length reaches a
 * power of two, which keeps appending linear. */
static bool needs_growth(size_t n)
{
    return (n & (n - 1)) == 0;
}

static size_t agg_index(const struct scrape_run *r, const char *key)
{
    for (size_t i = 0; i < r->n_aggs; i++)
        if (strcmp(r->aggs[i].key, key) == 0)
            return i;
    return SIZE_MAX;
}

void scrape_run_add(struct scrape_run *r, const struct scrape_value *v)
{
    size_t i = agg_index(r, v->key);
    if (i == SIZE_MAX) {
        if (r->n_aggs == SCRAPE_VALUES_MAX) {
            r->values_dropped++;
            return;
        }
        if (needs_growth(r->n_aggs))
            r->aggs = xrealloc(r->aggs, (r->n_aggs ? r->n_aggs * 2 : 1) * sizeof(*r->aggs));
        i = r->n_aggs++;
        r->aggs[i] = (struct scrape_agg){.type = v->type, .min = v->value, .max = v->value};
        memcpy(r->aggs[i].key, v->key, sizeof(r->aggs[i].key));
    } else if (r->aggs[i].type != v->type) {
        return; /* mixing types would mix units: the first-seen type holds */
    }
    struct scrape_agg *a = &r->aggs[i];
    a->n++;
    a->sum += v->value;
    a->mean = a->sum / (double)a->n;
    if (v->value < a->min)
        a->min = v->value;
    if (v->value > a->max)
        a->max = v->value;
    if (v->type == SCRAPE_RATIO)
        a->total_sum += v->total;
}

void scrape_run_merge(struct scrape_run *into, const struct scrape_run *from)
{
    for (size_t k = 0; k < from->n_aggs; k++) {
        const struct scrape_agg *a = &from->aggs[k];
        size_t i = agg_index(into, a->key);
        if (i == SIZE_MAX) {
            if (into->n_aggs == SCRAPE_VALUES_MAX) {
                into->values_dropped += a->n;
                continue;
            }
            if (needs_growth(into->n_aggs))
                into->aggs = xrealloc(into->aggs, (into->n_aggs ? into->n_aggs * 2 : 1) *
                                                      sizeof(*into->aggs));
            into->aggs[into->n_aggs++] = *a;
            continue;
        }
        struct scrape_agg *b = &into->aggs[i];
        if (b->type != a->type)
            continue;
        b->n += a->n;
        b->sum += a->sum;
        b->mean = b->sum / (double)b->n;
        b->min = fmin(b->min, a->min);
        b->max = fmax(b->max, a->max);
        b->total_sum += a->total_sum;
    }
    into->n_windows += from->n_windows;
    into->lines_dropped += from->lines_dropped;
    into->values_dropped += from->values_dropped;
}

void scrape_run_release(struct scrape_run *r)
{
    free(r->aggs);
    memset(r, 0, sizeof(*r));
}

const struct scrape_agg *scrape_run_find(const struct scrape_run *r, const char *key)
{
    size_t i = key ? agg_index(r, key) : SIZE_MAX;
    return i == SIZE_MAX ? NULL : &r->aggs[i];
}

json_t *scrape_run_to_json(const struct scrape_run *s)
{
    json_t *m = json_object();
    for (size_t i = 0; i < s->n_aggs; i++) {
        const struct scrape_agg *a = &s->aggs[i];
        json_t *o = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o}", "type", scrape_type_name(a->type),
                              "windows", (json_int_t)a->n, "mean", json_num_or_null(a->mean),
                              "min", json_num_or_null(a->min), "max", json_num_or_null(a->max),
                              "sum", json_num_or_null(a->sum));
        if (a->type == SCRAPE_RATIO)
            json_object_set_new(o, "total_sum", json_num_or_null(a->total_sum));
        json_object_set_new(m, a->key, xcheck(o));
    }
    return m;
}

json_t *scrape_dropped_json(const struct scrape_run *s)
{
    if (!s->lines_dropped && !s->values_dropped)
        return NULL;
    return json_pack("{s:I, s:I}", "lines", (json_int_t)s->lines_dropped, "values",
                     (json_int_t)s->values_dropped);
}

/* A figure scrape_run_to_json wrote: a number, or null for NaN. */
static int figure_from_json(json_t *v, double *out)
{
    if (json_is_null(v)) {
        *out = NAN;
        return 0;
    }
    if (!json_is_number(v))
        return -1;
    *out = json_number_value(v);
    return 0;
}

/* One key's aggregate; total_sum exactly when the type is ratio, as it is written. */
static int agg_from_json(const char *key, json_t *m, struct scrape_agg *a, const char *where,
                         struct lb_error *err)
{
    const char *type;
    json_int_t windows;
    json_t *mean, *min, *max, *sum, *total = NULL;
    json_error_t je;
    if (json_unpack_ex(m, &je, JSON_STRICT, "{s:s, s:I, s:o, s:o, s:o, s:o, s?o}", "type", &type,
                       "windows", &windows, "mean", &mean, "min", &min, "max", &max, "sum",
                       &sum, "total_sum", &total) < 0)
        return lb_fail(err, "%s: metrics.%s: %s", where, key, je.text);
    if (strlen(key) >= sizeof(a->key))
        return lb_fail(err, "%s: metrics.%s: expected a key of at most %d bytes", where, key,
                       SCRAPE_KEY_MAX - 1);
    int t = name_index(type_names, ARRAY_SIZE(type_names), type);
    if (t < 0)
        return lb_fail(err, "%s: metrics.%s.type: unknown type '%s'", where, key, type);
    a->type = (enum scrape_type)t;
    if (windows < 0)
        return lb_fail(err, "%s: metrics.%s.windows: expected a count >= 0, got %lld", where,
                       key, (long long)windows);
    if ((total != NULL) != (a->type == SCRAPE_RATIO))
        return lb_fail(err, "%s: metrics.%s: total_sum is %s", where, key,
                       total ? "for ratio keys only" : "missing");
    a->total_sum = NAN;
    if (figure_from_json(mean, &a->mean) < 0 || figure_from_json(min, &a->min) < 0 ||
        figure_from_json(max, &a->max) < 0 || figure_from_json(sum, &a->sum) < 0 ||
        (total && figure_from_json(total, &a->total_sum) < 0))
        return lb_fail(err, "%s: metrics.%s: expected mean, min, max, sum%s as numbers or null",
                       where, key, total ? " and total_sum" : "");
    strcpy(a->key, key);
    a->n = (size_t)windows;
    return 0;
}

int scrape_run_from_json(json_t *metrics, struct scrape_run *out, const char *where,
                         struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    if (!json_is_object(metrics))
        return lb_fail(err, "%s: metrics: expected an object", where);
    size_t n = json_object_size(metrics);
    if (n > SCRAPE_VALUES_MAX)
        return lb_fail(err, "%s: metrics: %zu keys, expected at most %d", where, n,
                       SCRAPE_VALUES_MAX);
    /* Room to the next power of two, as scrape_run_add grows the array (needs_growth). */
    size_t room = 1;
    while (room < n)
        room *= 2;
    out->aggs = xcalloc(room, sizeof(*out->aggs));
    const char *key;
    json_t *m;
    json_object_foreach(metrics, key, m) {
        if (agg_from_json(key, m, &out->aggs[out->n_aggs], where, err) < 0) {
            scrape_run_release(out);
            return -1;
        }
        out->n_aggs++;
    }
    return 0;
}
