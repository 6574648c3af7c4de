#include "spec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit.h"
#include "targetenv.h"
#include "text.h"

static const char *const order_names[] = {"interleave", "random", "grouped", "duet"};

ENUM_WORDS(enum run_order, order_names, run_order_name, run_order_parse)

#define SPEC_FIRST(kind, name, key, first) .name = first,

void campaign_spec_init(struct campaign_spec *s)
{
    *s = (struct campaign_spec){CAMPAIGN_SPEC(SPEC_FIRST)};
}

static void variants_release(struct campaign_variant *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].dir);
        commit_release(&v[i].commit);
    }
    free(v);
}

#define SPEC_FREE_STR(s, name) free(s->name);
#define SPEC_FREE_TEXT(s, name) free(s->name);
#define SPEC_FREE_LIST(s, name) free(s->name);
#define SPEC_FREE_SETTINGS(s, name) strv_release(&s->name);
#define SPEC_FREE_NAMES(s, name) strv_release(&s->name);
#define SPEC_FREE_VARIANTS(s, name) variants_release(s->name, s->n_##name);
#define SPEC_FREE_SETTING(s, name)
#define SPEC_FREE_LONG(s, name)
#define SPEC_FREE_UINT(s, name)
#define SPEC_FREE_SEED(s, name)
#define SPEC_FREE_DOUBLE(s, name)
#define SPEC_FREE_CAP(s, name)
#define SPEC_FREE_BYTES(s, name)
#define SPEC_FREE_POSITIVE(s, name)
#define SPEC_FREE_FLAG(s, name)
#define SPEC_FREE_ORDER(s, name)
#define SPEC_FREE_CPU_SOURCE(s, name)
#define SPEC_FREE(kind, name, key, first) SPEC_FREE_##kind(s, name)

void campaign_spec_release(struct campaign_spec *s)
{
    CAMPAIGN_SPEC(SPEC_FREE)
    campaign_spec_init(s);
}

/* ---- results.json ------------------------------------------------------------------- */

/* The object that holds key ("a.b": o's object a, made when make; NULL when there is
 * none), and the key's own name in it. */
static json_t *holder(json_t *o, const char *key, bool make, const char **leaf)
{
    const char *dot = strchr(key, '.');
    *leaf = dot ? dot + 1 : key;
    if (!dot)
        return o;
    char head[32];
    snprintf(head, sizeof(head), "%.*s", (int)(dot - key), key);
    json_t *in = json_object_get(o, head);
    if (!in && make) {
        in = json_object();
        json_object_set_new(o, head, in);
    }
    return json_is_object(in) ? in : NULL;
}

static void put(json_t *o, const char *key, json_t *v)
{
    const char *leaf;
    json_t *in = holder(o, key, true, &leaf);
    json_object_set_new(in, leaf, v);
}

/* What a field's kind writes and reads: put_KIND(o, key, field, s) sets key of o when the
 * field is to be written; get_KIND(v, where, key, field, s, knob, err) sets the field from
 * v, the value at key (NULL when absent: the field's value in a campaign from before it),
 * -1 with err when v is not what it should be. */
#define PUT(kind)                                                                                  \
    static void put_##kind(json_t *o, const char *key, const void *field,                          \
                           const struct campaign_spec *s)
#define GET(kind)                                                                                  \
    static int get_##kind(json_t *v, const char *where, const char *key, void *field,              \
                          struct campaign_spec *s, json_t *knob, struct lb_error *err)
#define UNUSED_GET (void)where, (void)key, (void)s, (void)knob, (void)err

PUT(STR)
{
    (void)s;
    const char *str = *(char *const *)field;
    if (str)
        put(o, key, json_string(str));
}

GET(STR)
{
    UNUSED_GET;
    *(char **)field = json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
    return 0;
}

#define put_TEXT put_STR

GET(TEXT)
{
    char prefix[256];
    snprintf(prefix, sizeof(prefix), "campaign.%s", key);
    get_STR(v, where, key, field, s, knob, err);
    return campaign_text_check(*(char **)field, where, prefix, err);
}

/* "a,b" as ["a", "b"] */
PUT(LIST)
{
    (void)s;
    const char *list = *(char *const *)field;
    if (!list)
        return;
    json_t *keys = json_array();
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        json_array_append_new(keys, json_stringn(p, len));
        p += len + (p[len] == ',');
    }
    put(o, key, keys);
}

GET(LIST)
{
    (void)s, (void)knob;
    char **list = field;
    *list = NULL;
    if (!v)
        return 0;
    if (!json_is_array(v) || json_array_size(v) == 0)
        return lb_fail(err, "%s: campaign.%s: expected a non-empty array of keys", where, key);
    char *joined = xstrdup("");
    size_t i;
    json_t *k;
    json_array_foreach(v, i, k) {
        if (!json_is_string(k) || json_string_length(k) == 0 || strchr(json_string_value(k), ',')) {
            free(joined);
            return lb_fail(err, "%s: campaign.%s[%zu]: expected a key", where, key, i);
        }
        char *longer = xasprintf("%s%s%s", joined, i ? "," : "", json_string_value(k));
        free(joined);
        joined = longer;
    }
    *list = joined;
    return 0;
}

PUT(SETTINGS)
{
    (void)s;
    put(o, key, strv_json(field));
}

/* The settings run are the campaign's when recorded, else the profile's values. */
GET(SETTINGS)
{
    (void)s;
    struct strv *values = field;
    json_t *settings = json_is_array(v) ? v : json_object_get(knob, "values");
    if (json_array_size(settings) > CAMPAIGN_SETTINGS_MAX)
        return campaign_size_check(json_array_size(settings), 0, 0, where, err);
    size_t i;
    json_t *x;
    json_array_foreach(settings, i, x) {
        if (!json_is_string(x))
            return lb_fail(err, "%s: campaign.%s[%zu]: expected a string", where, key, i);
        strv_push(values, json_string_value(x));
    }
    if (values->n == 0)
        return lb_fail(err, "%s: no settings", where);
    return 0;
}

PUT(SETTING)
{
    size_t at = *(const size_t *)field;
    if (at < s->values.n)
        put(o, key, json_string(s->values.v[at]));
}

long campaign_spec_setting(const struct campaign_spec *s, const char *value)
{
    for (size_t i = 0; value && i < s->values.n; i++)
        if (strcmp(s->values.v[i], value) == 0)
            return (long)i;
    return -1;
}

/* The baseline likewise: the campaign's, else the profile's, else the first. */
GET(SETTING)
{
    UNUSED_GET;
    long at = campaign_spec_setting(s, json_string_value(v));
    json_t *base = json_object_get(knob, "baseline");
    if (at < 0 && json_is_string(base))
        at = campaign_spec_setting(s, json_string_value(base));
    *(size_t *)field = at < 0 ? 0 : (size_t)at;
    return 0;
}

PUT(VARIANTS)
{
    (void)field;
    json_t *variants = json_array();
    for (size_t i = 0; i < s->n_variants; i++)
        json_array_append_new(variants, json_pack("{s:s, s:s, s:o}", "name", s->variants[i].name,
                                                  "dir", s->variants[i].dir, "commit",
                                                  commit_json(&s->variants[i].commit)));
    put(o, key, variants);
}

GET(VARIANTS)
{
    (void)field, (void)knob;
    if (campaign_size_check(s->values.n, json_array_size(v), 0, where, err) < 0)
        return -1;
    s->variants = xcalloc(json_array_size(v) + 1, sizeof(*s->variants));
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) {
        const char *name = json_string_value(json_object_get(x, "name"));
        const char *dir = json_string_value(json_object_get(x, "dir"));
        if (!name || !dir)
            return lb_fail(err, "%s: campaign.%s[%zu]: expected its name and dir", where, key, i);
        s->variants[s->n_variants++] =
            (struct campaign_variant){.name = xstrdup(name), .dir = xstrdup(dir)};
        char at[64];
        snprintf(at, sizeof(at), "campaign.%s[%zu].commit", key, i);
        if (commit_from_json(json_object_get(x, "commit"), where, at, &s->variants[i].commit, err) <
            0)
            return -1;
    }
    return 0;
}

#define put_NAMES put_SETTINGS

GET(NAMES)
{
    (void)s, (void)knob;
    char at[64];
    snprintf(at, sizeof(at), "campaign.%s", key);
    return campaign_names_from_json(v, where, at, field, err);
}

/* A whole number as written; a real one cut to it; anything else 0. */
static json_int_t whole(json_t *v)
{
    return json_is_integer(v) ? json_integer_value(v)
           : json_is_real(v)  ? (json_int_t)json_real_value(v)
                              : 0;
}

PUT(LONG)
{
    (void)s;
    put(o, key, json_integer(*(const long *)field));
}

GET(LONG)
{
    UNUSED_GET;
    *(long *)field = (long)whole(v);
    return 0;
}

PUT(CAP)
{
    if (*(const long *)field > 0)
        put_LONG(o, key, field, s);
}

#define get_CAP get_LONG

PUT(UINT)
{
    (void)s;
    put(o, key, json_integer(*(const unsigned *)field));
}

GET(UINT)
{
    UNUSED_GET;
    *(unsigned *)field = whole(v) > 0 ? (unsigned)whole(v) : 0;
    return 0;
}

PUT(SEED)
{
    (void)s;
    put(o, key, json_integer((json_int_t) * (const uint64_t *)field));
}

GET(SEED)
{
    UNUSED_GET;
    *(uint64_t *)field = whole(v) > 0 ? (uint64_t)whole(v) : 0;
    return 0;
}

PUT(BYTES)
{
    if (*(const uint64_t *)field > 0)
        put_SEED(o, key, field, s);
}

#define get_BYTES get_SEED

PUT(DOUBLE)
{
    (void)s;
    put(o, key, json_real(*(const double *)field));
}

GET(DOUBLE)
{
    UNUSED_GET;
    *(double *)field = json_is_number(v) ? json_number_value(v) : NAN;
    return 0;
}

PUT(POSITIVE)
{
    if (*(const double *)field > 0)
        put_DOUBLE(o, key, field, s);
}

GET(POSITIVE)
{
    UNUSED_GET;
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    *(double *)field = isfinite(d) ? d : 0;
    return 0;
}

PUT(FLAG)
{
    (void)s;
    if (*(const bool *)field)
        put(o, key, json_true());
}

GET(FLAG)
{
    UNUSED_GET;
    *(bool *)field = json_is_true(v);
    return 0;
}

PUT(ORDER)
{
    (void)s;
    put(o, key, json_string(run_order_name(*(const enum run_order *)field)));
}

GET(ORDER)
{
    (void)s, (void)knob;
    enum run_order *order = field;
    *order = ORDER_INTERLEAVE;
    const char *word = json_string_value(v);
    if (word && run_order_parse(word, order) < 0)
        return lb_fail(err, "%s: campaign.%s '%s': expected interleave, random, grouped or duet",
                       where, key, word);
    return 0;
}

PUT(CPU_SOURCE)
{
    (void)s;
    put(o, key, json_string(cpu_source_name(*(const enum cpu_source_kind *)field)));
}

/* As asked ("perf") or as recorded by older campaigns (its name). */
GET(CPU_SOURCE)
{
    UNUSED_GET;
    enum cpu_source_kind *kind = field;
    const char *word = json_string_value(v);
    *kind = CPU_SOURCE_AUTO;
    if (word && cpu_source_parse(word, kind) < 0)
        *kind = cpu_source_named(word);
    return 0;
}

struct spec_row {
    const char *key;
    size_t at;
    void (*put)(json_t *o, const char *key, const void *field, const struct campaign_spec *s);
    int (*get)(json_t *v, const char *where, const char *key, void *field, struct campaign_spec *s,
               json_t *knob, struct lb_error *err);
};

#define SPEC_ROW(kind, name, key, first)                                                           \
    {key, offsetof(struct campaign_spec, name), put_##kind, get_##kind},

static const struct spec_row rows[] = {CAMPAIGN_SPEC(SPEC_ROW)};

void campaign_spec_to_json(const struct campaign_spec *s, json_t *o)
{
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
        if (rows[i].key)
            rows[i].put(o, rows[i].key, (const char *)s + rows[i].at, s);
}

int campaign_spec_from_json(json_t *camp, json_t *knob, const char *where, struct campaign_spec *s,
                            struct lb_error *err)
{
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
        const char *key = rows[i].key, *leaf;
        if (!key)
            continue;
        json_t *in = holder(camp, key, false, &leaf);
        if (rows[i].get(in ? json_object_get(in, leaf) : NULL, where, key, (char *)s + rows[i].at,
                        s, knob, err) < 0)
            return -1;
    }
    return 0;
}

int campaign_names_from_json(json_t *names, const char *where, const char *key, struct strv *into,
                             struct lb_error *err)
{
    size_t i;
    json_t *v;
    json_array_foreach(names, i, v) {
        char what[96];
        snprintf(what, sizeof(what), "%s[%zu]", key, i);
        struct lb_error e;
        if (!json_is_string(v))
            return lb_fail(err, "%s: %s: expected a variable name", where, what);
        if (targetenv_check(json_string_value(v), what, &e) < 0)
            return lb_fail(err, "%s: %s", where, e.msg);
        strv_push(into, json_string_value(v));
    }
    return 0;
}

int campaign_size_check(size_t settings, size_t variants, size_t runs, const char *where,
                        struct lb_error *err)
{
    const struct {
        size_t n, max;
        const char *what;
    } caps[] = {
        {settings, CAMPAIGN_SETTINGS_MAX, "settings"},
        {variants, CAMPAIGN_VARIANTS_MAX, "variants"},
        {settings * (variants ? variants : 1), CAMPAIGN_CELLS_MAX, "cells (settings x variants)"},
        {runs, CAMPAIGN_RUNS_MAX, "runs"}};
    for (size_t i = 0; i < ARRAY_SIZE(caps); i++)
        if (caps[i].n > caps[i].max)
            return lb_fail(err, "%s: %zu %s, more than the %zu of a campaign loopbench reads",
                           where, caps[i].n, caps[i].what, caps[i].max);
    return 0;
}

int campaign_text_check(const char *s, const char *where, const char *key, struct lb_error *err)
{
    const char *bad = s ? text_control(s) : NULL;
    if (!bad)
        return 0;
    char *shown = text_shown(s);
    lb_fail(err, "%s: %s '%s': a control character at byte %zu: expected printable text", where,
            key, shown, (size_t)(bad - s));
    free(shown);
    return -1;
}

size_t campaign_spec_duet_width(const struct campaign_spec *s)
{
    return s->n_variants ? s->n_variants : s->values.n;
}
