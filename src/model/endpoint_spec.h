/* A metrics endpoint as a profile declares it (http_metrics): its URL, its format and the
 * values selected from its answers, each under a key (prometheus.h: how they are selected
 * and read, endpoint.h: how the endpoint is scraped over a window). Checked here, in every
 * build.
 *
 * Ownership. Every string and array in a metrics_endpoint is the endpoint's own
 * (allocated by whoever fills it, the profile parser) and freed by
 * metrics_endpoint_release. */
#ifndef LOOPBENCH_ENDPOINT_SPEC_H
#define LOOPBENCH_ENDPOINT_SPEC_H

#include <stddef.h>

#include "msg.h"
#include "probes.h"

/* Longest key, terminator included: as for the keys scraped from logs (scrape.h). */
#define METRICS_KEY_MAX 64
#define METRICS_TIMEOUT_DEFAULT_S 5.0
#define METRICS_TIMEOUT_MAX_S 600.0

enum metrics_format { METRICS_PROMETHEUS, METRICS_JSON };

/* "prometheus", "json": a profile's http_metrics.format (static strings). The inverse:
 * 0 with *out set, or -1 for any other word; *out is then unchanged. */
const char *metrics_format_name(enum metrics_format f);
int metrics_format_parse(const char *name, enum metrics_format *out);

struct metrics_select {
    char *key; /* its name in results: 1 to METRICS_KEY_MAX - 1 bytes, unique */
    /* Prometheus */
    char *name;      /* the series name, e.g. "http_requests_total" */
    char **labels;   /* "name=value" (value unescaped, split at the first '='), or NULL */
    size_t n_labels; /* 0: every label set of `name`, summed */
    /* JSON */
    char **json_path;       /* object member names, outermost first */
    size_t json_depth;      /* 1 or more */
    enum metrics_kind kind; /* Prometheus: AUTO (from TYPE) or forced; JSON: required */
};

struct metrics_endpoint {
    char *url; /* http:// or https:// */
    enum metrics_format format;
    double timeout_s;              /* the whole request, at most METRICS_TIMEOUT_MAX_S;
                                      0: METRICS_TIMEOUT_DEFAULT_S */
    struct metrics_select *select; /* n_select of them, 1 or more */
    size_t n_select;
};

/* Frees every string and array of ep and zeroes it; safe on a zeroed endpoint. */
void metrics_endpoint_release(struct metrics_endpoint *ep);

/* 0 when ep can be scraped: a valid URL, a timeout of 0 to METRICS_TIMEOUT_MAX_S, at
 * least one selection, keys non-empty, short enough and unique; for Prometheus valid
 * series and label names, no label named twice and no JSON path; for JSON a path of one
 * or more non-NULL names, a declared kind and no series name. Else -1 saying which
 * selection is at fault and why. For the profile parser, once ep is filled. */
int metrics_endpoint_check(const struct metrics_endpoint *ep, struct lb_error *err);

/* Fill sel->name and sel->labels from a selector in Prometheus' notation:
 * `name` or `name{label="value",...}` (values with the \\ \" \n escapes). sel->name
 * and sel->labels, NULL or owned, are replaced; sel's other fields are left as they
 * are. On -1 (saying what is wrong and at which byte), nothing is changed. */
int metrics_select_parse(const char *selector, struct metrics_select *sel, struct lb_error *err);

/* Selection i of ep as text (new string): the selector for Prometheus, re-escaped, e.g.
 * `http_requests_total{code="200"}`; the path joined with dots for JSON,
 * e.g. `stats.loop.missed16ms`. For messages and results. */
char *metrics_select_text(const struct metrics_endpoint *ep, size_t i);
/* path[0..depth) joined with dots (new string); "the document" when depth is 0. */
char *metrics_path_text(char *const *path, size_t depth);

#endif
