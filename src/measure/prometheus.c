#include "prometheus.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "promlex.h"
#include "text.h"
#include "util.h"

/* ---- The exposition's values and timestamps (names and label sets: promlex.h) ------- */

/* A value or timestamp token: up to the next blank. */
static const char *token_end(const char *p, const char *end)
{
    while (p < end && !prom_is_blank(*p))
        p++;
    return p;
}

/* A sample value as Prometheus writes it: a float, +Inf, -Inf or NaN. Overflow to an
 * infinity is an error (as for Go's ParseFloat), underflow is not. */
static bool parse_sample_value(const char *p, const char *end, double *out)
{
    char buf[128];
    size_t len = (size_t)(end - p);
    if (len == 0 || len >= sizeof(buf))
        return false;
    memcpy(buf, p, len);
    buf[len] = '\0';
    char *stop;
    errno = 0;
    double v = strtod(buf, &stop);
    if (stop != buf + len || (errno == ERANGE && isinf(v)))
        return false;
    *out = v;
    return true;
}

/* A timestamp: an integer number of milliseconds. */
static bool is_timestamp(const char *p, const char *end)
{
    if (p < end && *p == '-')
        p++;
    if (p == end)
        return false;
    for (; p < end; p++)
        if (!prom_is_digit(*p))
            return false;
    return true;
}

/* ---- Selected names: a hash table for one parse ------------------------------------ */

/* splitmix64's finaliser: spreads a hash's bits before they are added together. */
static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

enum prom_type { PT_UNTYPED, PT_COUNTER, PT_GAUGE, PT_HISTOGRAM, PT_SUMMARY };

static const char *const prom_type_names[] = {"untyped", "counter", "gauge", "histogram",
                                              "summary"};

#define NO_SELECTION SIZE_MAX

/* A name the parse cares about: a selected series, or the family one may belong to. */
struct name_slot {
    const char *name; /* NULL: free slot */
    size_t len;
    uint64_t hash;
    size_t first; /* the first selection of this series name, or NO_SELECTION */
    bool typed;   /* a TYPE line named it (the first one counts) */
    enum prom_type type;
};

/* A selection during one parse. */
struct wanted {
    size_t next_same_name;   /* the next selection of the same series name */
    uint64_t *seen;          /* label-set hashes already summed: an open-addressing set */
    size_t seen_n, seen_cap; /* 0 is never stored: a hash of 0 is kept as 1 */
};

struct prom_parse {
    const struct metrics_select *sel;
    struct wanted *wanted;
    struct name_slot *slots;
    size_t slot_mask;
    struct prom_label_spans spans;
    struct metrics_snapshot *out;
};

static struct name_slot *slot_find(const struct prom_parse *ps, const char *name, size_t len,
                                   uint64_t hash)
{
    for (size_t i = hash & ps->slot_mask;; i = (i + 1) & ps->slot_mask) {
        struct name_slot *s = &ps->slots[i];
        if (!s->name || (s->hash == hash && s->len == len && memcmp(s->name, name, len) == 0))
            return s;
    }
}

static struct name_slot *slot_add(struct prom_parse *ps, const char *name, size_t len)
{
    uint64_t hash = hash_fnv1a64(name, len, FNV1A64_OFFSET);
    struct name_slot *s = slot_find(ps, name, len, hash);
    if (!s->name)
        *s = (struct name_slot){name, len, hash, NO_SELECTION, false, PT_UNTYPED};
    return s;
}

/* Series names of a histogram's or summary's parts, and of an OpenMetrics counter. */
static const char *const part_suffixes[] = {"_bucket", "_sum", "_count", "_total"};

/* The length of name without `suffix`, or 0 when name does not end with it. */
static size_t family_len(const char *name, size_t len, const char *suffix)
{
    size_t sl = strlen(suffix);
    return len > sl && memcmp(name + len - sl, suffix, sl) == 0 ? len - sl : 0;
}

static void prom_parse_init(struct prom_parse *ps, const struct metrics_select *sel, size_t n,
                            struct metrics_snapshot *out)
{
    memset(ps, 0, sizeof(*ps));
    ps->sel = sel;
    ps->out = out;
    ps->wanted = xcalloc(n, sizeof(*ps->wanted));
    /* At most 2 names a selection (its own and its family's), at most half full. */
    size_t cap = 8;
    while (cap < 4 * n)
        cap *= 2;
    ps->slots = xcalloc(cap, sizeof(*ps->slots));
    ps->slot_mask = cap - 1;
    /* Chained in reverse so that each name's chain runs in selection order. */
    for (size_t i = n; i-- > 0;) {
        const char *name = sel[i].name ? sel[i].name : "";
        size_t len = strlen(name);
        struct name_slot *s = slot_add(ps, name, len);
        ps->wanted[i].next_same_name = s->first;
        s->first = i;
        for (size_t k = 0; k < ARRAY_SIZE(part_suffixes); k++) {
            size_t fl = family_len(name, len, part_suffixes[k]);
            if (fl)
                slot_add(ps, name, fl);
        }
    }
}

static void prom_parse_release(struct prom_parse *ps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ps->wanted[i].seen);
    free(ps->wanted);
    free(ps->slots);
    free(ps->spans.v);
}

/* Add hash to w's set; false when it was there already. */
static bool seen_add(struct wanted *w, uint64_t hash)
{
    if (hash == 0)
        hash = 1;
    if (2 * (w->seen_n + 1) > w->seen_cap) {
        size_t old_cap = w->seen_cap;
        uint64_t *old = w->seen;
        w->seen_cap = old_cap ? old_cap * 2 : 4;
        w->seen = xcalloc(w->seen_cap, sizeof(*w->seen));
        w->seen_n = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                seen_add(w, old[i]);
        free(old);
    }
    size_t mask = w->seen_cap - 1;
    for (size_t i = mix64(hash) & mask;; i = (i + 1) & mask) {
        if (w->seen[i] == hash)
            return false;
        if (!w->seen[i]) {
            w->seen[i] = hash;
            w->seen_n++;
            return true;
        }
    }
}

/* A hash of a label set that does not depend on the labels' order. */
static uint64_t label_set_hash(const struct prom_label_spans *spans)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < spans->n; i++) {
        const struct prom_label_span *l = &spans->v[i];
        /* '=' cannot be in a name, so name and value cannot run into each other. */
        uint64_t h = hash_fnv1a64(l->name, l->name_len, FNV1A64_OFFSET);
        h = hash_fnv1a64("=", 1, h);
        sum += mix64(hash_fnv1a64(l->raw, l->raw_len, h));
    }
    return sum;
}

/* The sample's label set is exactly sel's. */
static bool labels_match(const struct metrics_select *sel, const struct prom_label_spans *spans)
{
    if (spans->n != sel->n_labels)
        return false;
    for (size_t i = 0; i < sel->n_labels; i++) {
        const char *want = sel->labels[i], *eq = strchr(want, '=');
        size_t name_len = eq ? (size_t)(eq - want) : strlen(want);
        const char *value = eq ? eq + 1 : "";
        size_t k = 0;
        while (k < spans->n && !(spans->v[k].name_len == name_len &&
                                 memcmp(spans->v[k].name, want, name_len) == 0 &&
                                 prom_raw_equals(spans->v[k].raw, spans->v[k].raw_len, value)))
            k++;
        if (k == spans->n)
            return false;
    }
    return true;
}

/* A "# TYPE name type" line (p after the '#' and the "TYPE" word); false if malformed. */
static bool parse_type_line(struct prom_parse *ps, const char *p, const char *end)
{
    p = prom_skip_blanks(p, end);
    const char *name = p;
    p = prom_lex_name(p, end, true);
    if (p == name || p == end || !prom_is_blank(*p))
        return false;
    size_t name_len = (size_t)(p - name);
    p = prom_skip_blanks(p, end);
    const char *type = p;
    p = token_end(p, end);
    if (prom_skip_blanks(p, end) != end)
        return false;
    size_t type_len = (size_t)(p - type);
    for (size_t t = 0; t < ARRAY_SIZE(prom_type_names); t++) {
        if (strlen(prom_type_names[t]) != type_len ||
            memcmp(prom_type_names[t], type, type_len) != 0)
            continue;
        struct name_slot *s = slot_find(ps, name, name_len, hash_fnv1a64(name, name_len, FNV1A64_OFFSET));
        if (s->name && !s->typed) {
            s->typed = true;
            s->type = (enum prom_type)t;
        }
        return true;
    }
    return false;
}

/* A comment line (p after the '#'): TYPE lines are read, others ignored. */
static bool parse_comment(struct prom_parse *ps, const char *p, const char *end)
{
    p = prom_skip_blanks(p, end);
    const char *word = p;
    p = token_end(p, end);
    if (p - word == 4 && memcmp(word, "TYPE", 4) == 0)
        return parse_type_line(ps, p, end);
    return true;
}

/* A sample line; false if malformed. */
static bool parse_sample(struct prom_parse *ps, const char *p, const char *end)
{
    const char *name = p;
    p = prom_lex_name(p, end, true);
    if (p == name)
        return false;
    size_t name_len = (size_t)(p - name);
    struct name_slot *slot = slot_find(ps, name, name_len, hash_fnv1a64(name, name_len, FNV1A64_OFFSET));
    bool selected = slot->name && slot->first != NO_SELECTION;
    ps->spans.n = 0;
    p = prom_skip_blanks(p, end);
    if (p < end && *p == '{') {
        const char *problem, *where;
        p = prom_lex_labels(p + 1, end, selected ? &ps->spans : NULL, &problem, &where);
        if (!p)
            return false;
        p = prom_skip_blanks(p, end);
    } else if (p == name + name_len) {
        return false; /* the name runs into something that is not a blank or a '{' */
    }
    const char *value = p;
    p = token_end(p, end);
    double v;
    if (!parse_sample_value(value, p, &v))
        return false;
    p = prom_skip_blanks(p, end);
    if (p < end) {
        const char *stamp = p;
        p = token_end(p, end);
        if (!is_timestamp(stamp, p) || prom_skip_blanks(p, end) != end)
            return false;
    }
    if (!selected)
        return true;
    bool hashed = false;
    uint64_t hash = 0;
    for (size_t i = slot->first; i != NO_SELECTION; i = ps->wanted[i].next_same_name) {
        const struct metrics_select *sel = &ps->sel[i];
        if (sel->n_labels > 0 && !labels_match(sel, &ps->spans))
            continue;
        if (!hashed) {
            hash = label_set_hash(&ps->spans);
            hashed = true;
        }
        if (!seen_add(&ps->wanted[i], hash)) {
            ps->out->duplicates++;
            continue;
        }
        struct metrics_value *mv = &ps->out->values[i];
        mv->value = mv->series ? mv->value + v : v;
        mv->series++;
    }
    return true;
}

static enum metrics_kind kind_of_type(enum prom_type t)
{
    return t == PT_COUNTER ? METRICS_COUNTER : METRICS_GAUGE;
}

/* Selection i's kind from the TYPE lines seen. */
static enum metrics_kind resolve_kind(const struct prom_parse *ps, size_t i)
{
    const struct metrics_select *sel = &ps->sel[i];
    if (sel->kind != METRICS_KIND_AUTO)
        return sel->kind;
    const char *name = sel->name ? sel->name : "";
    size_t len = strlen(name);
    const struct name_slot *own = slot_find(ps, name, len, hash_fnv1a64(name, len, FNV1A64_OFFSET));
    if (own->typed)
        return kind_of_type(own->type);
    for (size_t k = 0; k < ARRAY_SIZE(part_suffixes); k++) {
        size_t fl = family_len(name, len, part_suffixes[k]);
        if (!fl)
            continue;
        const struct name_slot *family = slot_find(ps, name, fl, hash_fnv1a64(name, fl, FNV1A64_OFFSET));
        if (!family->typed)
            continue;
        bool total = strcmp(part_suffixes[k], "_total") == 0;
        if (total ? family->type == PT_COUNTER
                  : family->type == PT_HISTOGRAM || family->type == PT_SUMMARY)
            return METRICS_COUNTER;
    }
    return METRICS_GAUGE;
}

static void snapshot_init(struct metrics_snapshot *out, size_t n)
{
    memset(out, 0, sizeof(*out));
    out->values = xcalloc(n, sizeof(*out->values));
    out->n = n;
}

void metrics_parse_prometheus(const char *text, size_t len, const struct metrics_select *sel,
                              size_t n, struct metrics_snapshot *out)
{
    snapshot_init(out, n);
    struct prom_parse ps;
    prom_parse_init(&ps, sel, n, out);
    const char *p = text, *end = text + len;
    for (size_t line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        const char *next = nl ? nl + 1 : end;
        if (line_end > p && line_end[-1] == '\r')
            line_end--;
        p = prom_skip_blanks(p, line_end);
        bool ok = p == line_end || (*p == '#' ? parse_comment(&ps, p + 1, line_end)
                                              : parse_sample(&ps, p, line_end));
        if (!ok && out->skipped_lines++ == 0)
            out->first_skipped = line;
        p = next;
    }
    for (size_t i = 0; i < n; i++) {
        struct metrics_value *v = &out->values[i];
        v->found = v->series > 0;
        v->miss = v->found ? METRICS_MISS_NONE : METRICS_MISS_ABSENT;
        if (!v->found)
            v->value = NAN;
        v->kind = resolve_kind(&ps, i);
    }
    prom_parse_release(&ps, n);
}

/* ---- JSON --------------------------------------------------------------------------- */

/* A string that is a finite number in full (no NUL inside). */
static bool number_in_string(const json_t *s, double *out)
{
    const char *text = json_string_value(s);
    return strlen(text) == json_string_length(s) && parse_double(text, out) == 0;
}

static void json_select(const json_t *root, const struct metrics_select *sel,
                        struct metrics_value *v)
{
    v->kind = sel->kind == METRICS_COUNTER ? METRICS_COUNTER : METRICS_GAUGE;
    v->value = NAN;
    const json_t *node = root;
    for (v->at = 0; v->at < sel->json_depth; v->at++) {
        if (json_is_array(node)) {
            v->miss = METRICS_MISS_ARRAY;
            return;
        }
        if (!json_is_object(node)) {
            v->miss = METRICS_MISS_NOT_OBJECT;
            return;
        }
        node = json_object_get(node, sel->json_path[v->at]);
        if (!node) {
            v->miss = METRICS_MISS_ABSENT;
            return;
        }
    }
    double x;
    if (json_is_number(node))
        x = json_number_value(node);
    else if (!json_is_string(node) || !number_in_string(node, &x)) {
        v->miss = METRICS_MISS_NOT_NUMBER;
        return;
    }
    v->found = true;
    v->value = x;
    v->series = 1;
}

int metrics_parse_json(const char *text, size_t len, const struct metrics_select *sel, size_t n,
                       struct metrics_snapshot *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    json_error_t jerr;
    /* Integers as doubles and NULs in strings allowed: a 64-bit counter past INT64_MAX
     * or an odd string elsewhere must not fail the whole document. */
    json_t *root =
        json_loadb(text, len, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &jerr);
    if (!root) {
        /* jansson quotes the body near the error: the target's text, kept printable */
        char *near = text_printable(jerr.text);
        lb_fail(err, "the body is not JSON: %s (line %d, column %d)", near, jerr.line, jerr.column);
        free(near);
        return -1;
    }
    snapshot_init(out, n);
    for (size_t i = 0; i < n; i++)
        json_select(root, &sel[i], &out->values[i]);
    json_decref(root);
    return 0;
}

/* ---- Scraping ----------------------------------------------------------------------- */

int metrics_scrape(const struct metrics_endpoint *ep, struct metrics_snapshot *out,
                   struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    bool prometheus = ep->format == METRICS_PROMETHEUS;
    const char *headers[] = {
        prometheus ? "Accept: " METRICS_ACCEPT_PROMETHEUS : "Accept: " METRICS_ACCEPT_JSON,
        NULL,
    };
    double timeout_s = ep->timeout_s > 0 ? ep->timeout_s : METRICS_TIMEOUT_DEFAULT_S;
    struct http_request req = {
        .method = "GET",
        .url = ep->url,
        .headers = headers,
        .timeout_ms = (long)ceil(fmin(timeout_s, METRICS_TIMEOUT_MAX_S) * 1000),
    };
    struct http_response resp;
    uint64_t t0 = mono_ns();
    if (http_request(&req, &resp, err) < 0)
        return -1;
    uint64_t t1 = mono_ns();
    int rc = 0;
    if (resp.status < 200 || resp.status > 299) {
        char *shown = http_url_display(ep->url, false);
        rc = lb_fail(err, "GET %s: HTTP %ld, expected a 2xx status", shown, resp.status);
        free(shown);
    } else if (prometheus) {
        metrics_parse_prometheus(resp.body, resp.body_len, ep->select, ep->n_select, out);
    } else {
        struct lb_error why;
        if (metrics_parse_json(resp.body, resp.body_len, ep->select, ep->n_select, out, &why) < 0) {
            char *shown = http_url_display(ep->url, false);
            rc = lb_fail(err, "GET %s: %s", shown, why.msg);
            free(shown);
        }
    }
    http_response_release(&resp);
    if (rc == 0) {
        out->mono_ns = t0 + (t1 - t0) / 2;
        out->fetch_ns = t1 - t0;
    }
    return rc;
}

void metrics_snapshot_release(struct metrics_snapshot *snap)
{
    free(snap->values);
    memset(snap, 0, sizeof(*snap));
}

char *metrics_miss_text(const struct metrics_endpoint *ep, const struct metrics_snapshot *snap,
                        size_t i)
{
    const struct metrics_value *v = &snap->values[i];
    const struct metrics_select *sel = &ep->select[i];
    if (v->found)
        return xstrdup("found");
    if (ep->format == METRICS_PROMETHEUS) {
        char *selector = metrics_select_text(ep, i);
        char *text = xasprintf("no sample of %s", selector);
        free(selector);
        return text;
    }
    char *where = metrics_path_text(sel->json_path, v->at);
    char *text;
    switch (v->miss) {
    case METRICS_MISS_ABSENT:
        text = xasprintf("%s has no member '%s'", where, sel->json_path[v->at]);
        break;
    case METRICS_MISS_NOT_OBJECT:
        text = xasprintf("%s is not an object: no member '%s' in it", where, sel->json_path[v->at]);
        break;
    case METRICS_MISS_ARRAY:
        text = xasprintf("%s is an array: key paths go through objects only", where);
        break;
    default:
        text = xasprintf("%s is not a number, nor a string holding one", where);
        break;
    }
    free(where);
    return text;
}

/* ---- Windows ------------------------------------------------------------------------ */

void metrics_series_init(struct metrics_series *s, size_t n_metrics)
{
    s->acc = xcalloc(n_metrics, sizeof(*s->acc));
    s->n = n_metrics;
}

void metrics_series_clear(struct metrics_series *s)
{
    memset(s->acc, 0, s->n * sizeof(*s->acc));
}

void metrics_series_release(struct metrics_series *s)
{
    free(s->acc);
    memset(s, 0, sizeof(*s));
}

static void gauge_add(struct metrics_gauge_acc *acc, const struct metrics_value *v)
{
    if (!v->found || isnan(v->value))
        return;
    if (acc->samples == 0 || v->value < acc->min)
        acc->min = v->value;
    if (acc->samples == 0 || v->value > acc->max)
        acc->max = v->value;
    acc->sum += v->value;
    acc->samples++;
}

void metrics_series_add(struct metrics_series *s, const struct metrics_snapshot *snap)
{
    for (size_t i = 0; i < s->n && i < snap->n; i++)
        if (snap->values[i].kind == METRICS_GAUGE)
            gauge_add(&s->acc[i], &snap->values[i]);
}

static void counter_window(const struct metrics_value *a, const struct metrics_value *b,
                           double seconds, struct metrics_window_value *w)
{
    w->found = b->found;
    if (!b->found)
        return;
    if (!a->found) {
        w->appeared = true;
        w->delta = b->value;
    } else if (b->value < a->value) {
        w->reset = true;
        w->delta = b->value;
    } else {
        w->delta = b->value - a->value;
    }
    w->rate_per_s = seconds > 0 ? w->delta / seconds : NAN;
}

static void gauge_window(const struct metrics_value *a, const struct metrics_value *b,
                         const struct metrics_gauge_acc *between, struct metrics_window_value *w)
{
    struct metrics_gauge_acc acc = between ? *between : (struct metrics_gauge_acc){0};
    gauge_add(&acc, a);
    gauge_add(&acc, b);
    w->found = a->found || b->found || acc.samples > 0;
    w->samples = acc.samples;
    if (acc.samples == 0)
        return;
    w->min = acc.min;
    w->max = acc.max;
    w->mean = acc.sum / (double)acc.samples;
}

void metrics_window(const struct metrics_snapshot *start, const struct metrics_snapshot *end,
                    const struct metrics_series *between, struct metrics_window_value *out)
{
    static const struct metrics_value absent = {.miss = METRICS_MISS_ABSENT, .value = NAN};
    double seconds = end->mono_ns > start->mono_ns
                         ? (double)(end->mono_ns - start->mono_ns) / (double)NS_PER_SEC
                         : 0;
    for (size_t i = 0; i < end->n; i++) {
        const struct metrics_value *a = i < start->n ? &start->values[i] : &absent;
        const struct metrics_value *b = &end->values[i];
        struct metrics_window_value *w = &out[i];
        *w = (struct metrics_window_value){
            .kind = b->kind,
            .start = a->found ? a->value : NAN,
            .end = b->found ? b->value : NAN,
            .delta = NAN,
            .rate_per_s = NAN,
            .min = NAN,
            .max = NAN,
            .mean = NAN,
        };
        if (b->kind == METRICS_COUNTER)
            counter_window(a, b, seconds, w);
        else
            gauge_window(a, b, between && i < between->n ? &between->acc[i] : NULL, w);
    }
}
