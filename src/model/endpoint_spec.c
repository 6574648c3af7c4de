/* A metrics endpoint's spec: checked, described and released (endpoint_spec.h). */
#include "endpoint_spec.h"

#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "promlex.h"
#include "util.h"

static const char *const format_names[] = {
    [METRICS_PROMETHEUS] = "prometheus", [METRICS_JSON] = "json"};

ENUM_WORDS(enum metrics_format, format_names, metrics_format_name, metrics_format_parse)

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void metrics_endpoint_release(struct metrics_endpoint *ep)
{
    for (size_t i = 0; i < ep->n_select; i++) {
        struct metrics_select *sel = &ep->select[i];
        free(sel->key);
        free(sel->name);
        free_strings(sel->labels, sel->n_labels);
        free_strings(sel->json_path, sel->json_depth);
    }
    free(ep->select);
    free(ep->url);
    memset(ep, 0, sizeof(*ep));
}

int metrics_select_parse(const char *selector, struct metrics_select *sel, struct lb_error *err)
{
    const char *end = selector + strlen(selector);
    const char *p = prom_skip_blanks(selector, end);
    const char *name = p, *problem = "a series name", *where = p;
    p = prom_lex_name(p, end, true);
    struct prom_label_spans spans = {0};
    bool ok = p > name;
    if (ok) {
        size_t name_len = (size_t)(p - name);
        p = prom_skip_blanks(p, end);
        if (p < end && *p == '{')
            p = prom_lex_labels(p + 1, end, &spans, &problem, &where);
        if (p) {
            p = prom_skip_blanks(p, end);
            problem = "the end after the series name or its labels";
            where = p;
        }
        ok = p == end;
        if (ok) {
            free(sel->name);
            free_strings(sel->labels, sel->n_labels);
            sel->name = xstrndup(name, name_len);
            sel->n_labels = spans.n;
            sel->labels = spans.n ? xcalloc(spans.n, sizeof(*sel->labels)) : NULL;
            for (size_t i = 0; i < spans.n; i++) {
                char *value = prom_unescape(spans.v[i].raw, spans.v[i].raw_len);
                sel->labels[i] =
                    xasprintf("%.*s=%s", (int)spans.v[i].name_len, spans.v[i].name, value);
                free(value);
            }
        }
    }
    free(spans.v);
    if (!ok)
        return lb_fail(err, "series selector '%s': expected %s at byte %zu", selector, problem,
                       (size_t)(where - selector) + 1);
    return 0;
}

static size_t label_name_len(const char *label)
{
    const char *eq = strchr(label, '=');
    return eq ? (size_t)(eq - label) : strlen(label);
}

static int check_prometheus_select(const struct metrics_select *sel, struct lb_error *err)
{
    if (!sel->name || !prom_whole_name(sel->name, true))
        return lb_fail(err, "expected a series name ([a-zA-Z_:][a-zA-Z0-9_:]*), not '%s'",
                       sel->name ? sel->name : "");
    if (sel->json_depth > 0)
        return lb_fail(err, "a JSON key path is for a JSON endpoint");
    for (size_t i = 0; i < sel->n_labels; i++) {
        const char *label = sel->labels[i];
        size_t len = label ? label_name_len(label) : 0;
        if (!label || !label[len] || len == 0 ||
            prom_lex_name(label, label + len, false) != label + len)
            return lb_fail(err, "label '%s': expected name=value, the name [a-zA-Z_][a-zA-Z0-9_]*",
                           label ? label : "");
        for (size_t k = 0; k < i; k++)
            if (label_name_len(sel->labels[k]) == len && memcmp(sel->labels[k], label, len) == 0)
                return lb_fail(err, "label '%.*s' is given twice", (int)len, label);
    }
    return 0;
}

static int check_json_select(const struct metrics_select *sel, struct lb_error *err)
{
    if (sel->name || sel->n_labels > 0)
        return lb_fail(err, "a series name and labels are for a Prometheus endpoint");
    if (sel->json_depth == 0)
        return lb_fail(err, "expected a key path of one or more member names");
    for (size_t i = 0; i < sel->json_depth; i++)
        if (!sel->json_path[i])
            return lb_fail(err, "key path member %zu is missing", i + 1);
    if (sel->kind == METRICS_KIND_AUTO)
        return lb_fail(err, "expected a kind, counter or gauge (JSON has no types)");
    return 0;
}

int metrics_endpoint_check(const struct metrics_endpoint *ep, struct lb_error *err)
{
    if (!ep->url)
        return lb_fail(err, "metrics endpoint: expected a URL");
    if (http_url_check("metrics endpoint", ep->url, err) < 0)
        return -1;
    if (!(ep->timeout_s >= 0 && ep->timeout_s <= METRICS_TIMEOUT_MAX_S))
        return lb_fail(err, "metrics endpoint: the timeout must be 0 to %g seconds",
                       METRICS_TIMEOUT_MAX_S);
    if (ep->n_select == 0)
        return lb_fail(err, "metrics endpoint: expected at least one value to select");
    for (size_t i = 0; i < ep->n_select; i++) {
        const struct metrics_select *sel = &ep->select[i];
        size_t key_len = sel->key ? strlen(sel->key) : 0;
        if (key_len == 0 || key_len >= METRICS_KEY_MAX)
            return lb_fail(err, "metrics endpoint: selection %zu: expected a key of 1 to %d bytes",
                           i + 1, METRICS_KEY_MAX - 1);
        for (size_t k = 0; k < i; k++)
            if (strcmp(ep->select[k].key, sel->key) == 0)
                return lb_fail(err, "metrics endpoint: key '%s' is used twice", sel->key);
        struct lb_error why;
        int rc = ep->format == METRICS_PROMETHEUS ? check_prometheus_select(sel, &why)
                                                  : check_json_select(sel, &why);
        if (rc < 0)
            return lb_fail(err, "metrics endpoint: '%s': %s", sel->key, why.msg);
    }
    return 0;
}

char *metrics_path_text(char *const *path, size_t depth)
{
    if (depth == 0)
        return xstrdup("the document");
    size_t len = 0;
    for (size_t i = 0; i < depth; i++)
        len += strlen(path[i]) + 1;
    char *out = xmalloc(len), *o = out;
    for (size_t i = 0; i < depth; i++) {
        size_t l = strlen(path[i]);
        memcpy(o, path[i], l);
        o += l;
        *o++ = i + 1 < depth ? '.' : '\0';
    }
    return out;
}

char *metrics_select_text(const struct metrics_endpoint *ep, size_t i)
{
    const struct metrics_select *sel = &ep->select[i];
    if (ep->format == METRICS_JSON)
        return metrics_path_text(sel->json_path, sel->json_depth);
    char *text = xstrdup(sel->name ? sel->name : "");
    for (size_t k = 0; k < sel->n_labels; k++) {
        const char *label = sel->labels[k];
        size_t len = label_name_len(label);
        char *value = prom_escape(label[len] ? label + len + 1 : "");
        char *longer = xasprintf("%s%s%.*s=\"%s\"%s", text, k == 0 ? "{" : ",", (int)len, label,
                                 value, k + 1 == sel->n_labels ? "}" : "");
        free(value);
        free(text);
        text = longer;
    }
    return text;
}
