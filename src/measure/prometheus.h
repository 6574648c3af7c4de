/* Metrics from an HTTP endpoint: a Prometheus text exposition (format 0.0.4) or a JSON
 * document, scraped at a window's start and end (and at the series interval). The
 * endpoint and its selections, as a profile declares them: endpoint_spec.h.
 *
 * Selection. A profile names the values it wants, each under a key (its name in
 * results):
 *   - Prometheus: a series name and an optional label set. With labels, the sample
 *     whose label set is exactly that one (no more, no fewer labels; values compared
 *     unescaped). Without labels, every sample of that name, summed whatever the kind
 *     (the sum of a gauge over its label sets is a total too: connections per state,
 *     bytes per pool); `series` says how many were summed.
 *   - JSON: a key path of object members, e.g. ["stats", "loop", "missed16ms"]. Arrays
 *     are not indexed: a path meeting an array is reported as such. The value must be
 *     a number, or a string that is a finite number in full, e.g. "18446744073709551615"
 *     (protobuf's JSON mapping writes 64-bit integers as strings); booleans and null are
 *     not numbers. Every JSON number is read as a double (exact up to 2^53).
 *
 * Kinds. A counter is differenced over the window, a gauge sampled. Prometheus series
 * get their family's `# TYPE` (wherever the line is in the body):
 *   counter -> counter; gauge, untyped, or no TYPE line -> gauge;
 *   NAME_bucket, NAME_sum, NAME_count of a histogram or summary NAME -> counter;
 *   a summary's quantile samples (NAME{quantile="0.9"}) -> gauge;
 *   NAME_total of a counter NAME (OpenMetrics naming) -> counter.
 * A series' own TYPE line wins over its family's. A selection's declared kind, when not
 * METRICS_KIND_AUTO, wins over both (for an untyped counter); JSON selections must
 * declare one (JSON has no types).
 *
 * Damage. The Prometheus parser rejects nothing as a whole: a malformed line (a bad
 * name, an unterminated label value, an unknown escape, a value that is not a number,
 * a TYPE line of an unknown type, trailing garbage) is skipped and counted; of TYPE
 * lines repeating a name, the first counts. CRLF line ends, blank lines, comments and a
 * missing final newline are fine; sample timestamps are checked but ignored (the
 * scrape's own time counts). A series repeated in one body (invalid exposition) counts
 * once: its first sample is kept, as Prometheus does, and the repeats are counted in
 * `duplicates` (repeats are recognised by a 64-bit hash of the label set: a false
 * match is astronomically unlikely). Parsing is linear in the body's length whatever
 * the number of series, and allocates nothing for series that are not selected.
 *
 * Ownership. Snapshots, series accumulators and window values never point into the
 * endpoint (endpoint_spec.h: what it owns). */
#ifndef LOOPBENCH_PROMETHEUS_H
#define LOOPBENCH_PROMETHEUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint_spec.h"
#include "msg.h"
#include "probes.h"

#define METRICS_ACCEPT_PROMETHEUS "text/plain;version=0.0.4"
#define METRICS_ACCEPT_JSON "application/json"

/* Why a selected value was not found (METRICS_MISS_NONE when it was). */
enum metrics_miss {
    METRICS_MISS_NONE = 0,
    METRICS_MISS_ABSENT,     /* no such sample; JSON: no member json_path[at] */
    METRICS_MISS_NOT_OBJECT, /* JSON: the value at json_path[0..at) is a scalar */
    METRICS_MISS_ARRAY,      /* JSON: the value at json_path[0..at) is an array */
    METRICS_MISS_NOT_NUMBER, /* JSON: the value is not a number nor a string holding one */
};

struct metrics_value {
    bool found;
    enum metrics_miss miss; /* when not found */
    size_t at;              /* JSON misses: how many path members were walked */
    enum metrics_kind kind; /* COUNTER or GAUGE, resolved as above (found or not) */
    double value;           /* the sum for a name-only selection; NAN when not found */
    size_t series;          /* Prometheus: samples summed (1 with labels); JSON: 1 */
};

/* One scrape: a value per selection, in the endpoint's order. */
struct metrics_snapshot {
    struct metrics_value *values;
    size_t n;
    uint64_t mono_ns;     /* metrics_scrape: the request's midpoint (monotonic);
                             the parsers leave it 0 for the caller to set */
    uint64_t fetch_ns;    /* metrics_scrape: how long the request took */
    size_t skipped_lines; /* Prometheus: malformed lines skipped */
    size_t first_skipped; /* the first of them, 1-based (0: none), for a message */
    size_t duplicates;    /* Prometheus: repeated samples of a selected series ignored */
};

/* Parse a Prometheus text exposition (len bytes, need not be NUL-terminated) for the
 * n selections of sel. Never fails (see Damage above). out is overwritten: release it
 * with metrics_snapshot_release. */
void metrics_parse_prometheus(const char *text, size_t len, const struct metrics_select *sel,
                              size_t n, struct metrics_snapshot *out);

/* Parse a JSON document for the n selections of sel. -1 only when text is not JSON,
 * with err saying where (out is then empty); a missing or unusable value is reported
 * in its metrics_value. out is overwritten: release it with metrics_snapshot_release. */
int metrics_parse_json(const char *text, size_t len, const struct metrics_select *sel, size_t n,
                       struct metrics_snapshot *out, struct lb_error *err);

/* GET ep->url (Accept: METRICS_ACCEPT_PROMETHEUS or METRICS_ACCEPT_JSON, ep's timeout)
 * and parse the body. -1 with err naming the URL (without its credentials) when no
 * answer came (refused, timed out...), when the status is not 2xx (saying which), or
 * when a JSON body is not JSON; out is empty then. */
int metrics_scrape(const struct metrics_endpoint *ep, struct metrics_snapshot *out,
                   struct lb_error *err);

/* Why value i of snap was not found, one line (new string), e.g.
 * "no sample of http_requests_total{code=\"200\"}" or
 * "stats.loop is an array: key paths go through objects only". */
char *metrics_miss_text(const struct metrics_endpoint *ep, const struct metrics_snapshot *snap,
                        size_t i);

/* Frees snap's values and zeroes it; safe on a zeroed snapshot. */
void metrics_snapshot_release(struct metrics_snapshot *snap);

/* Gauge samples taken between a window's start and end (the series-interval scrapes),
 * per metric. Allocated once by metrics_series_init; metrics_series_add never
 * allocates. */
struct metrics_gauge_acc {
    size_t samples; /* scrapes that found it with a value that is not NaN */
    double min, max, sum;
};
struct metrics_series {
    struct metrics_gauge_acc *acc;
    size_t n;
};
void metrics_series_init(struct metrics_series *s, size_t n_metrics);
/* Add one scrape's gauges (snap->n must be s->n; counters are not accumulated). */
void metrics_series_add(struct metrics_series *s, const struct metrics_snapshot *snap);
/* Empty again for the next window, keeping the allocation. */
void metrics_series_clear(struct metrics_series *s);
void metrics_series_release(struct metrics_series *s);

/* The window from the start and end scrapes of the same endpoint (snapshots with the
 * same n, taken start first), and the series-interval scrapes between them (`between`,
 * which must not hold start or end; may be NULL). out has end->n entries. */
void metrics_window(const struct metrics_snapshot *start, const struct metrics_snapshot *end,
                    const struct metrics_series *between, struct metrics_window_value *out);

#endif
