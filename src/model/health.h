/* A run's health figures as results keep them: the values of its log's marker lines
 * (scrape.h parses them out of the log), aggregated per key over its sample window, and
 * the log's level counts. Here, below the measuring, because the campaign's records
 * (campaign.h) hold them and results.json writes and reads them back. */
#ifndef LOOPBENCH_HEALTH_H
#define LOOPBENCH_HEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "msg.h"

/* Longest key, terminator included. Caps that keep a hostile log from costing unbounded
 * time or memory: values kept per line and keys aggregated per run (the rest are
 * dropped). */
#define SCRAPE_KEY_MAX 64
#define SCRAPE_VALUES_MAX 256

enum scrape_type {
    SCRAPE_NUMBER = 0,
    SCRAPE_PERCENT,
    SCRAPE_RATIO,
    SCRAPE_DURATION_MS,
    SCRAPE_FLAG,
};

/* Whether s[0..n) can be a key of a marker line's KEY=VALUE token: letters, digits, '_',
 * '.' and '-', fewer than SCRAPE_KEY_MAX (keys end up as JSON object keys and table
 * headings; that also keeps binary garbage out). A health key a profile names must be
 * one, or no line can ever match it. */
bool scrape_is_key(const char *s, size_t n);

/* "number", "percent", "ratio", "duration_ms", "flag" */
const char *scrape_type_name(enum scrape_type t);

struct scrape_value {
    char key[SCRAPE_KEY_MAX];
    enum scrape_type type;
    double value;    /* the number; for a ratio the numerator */
    double total;    /* ratio only: the denominator */
    double percent;  /* ratio only: the "(95.6%)" that may follow, else NAN */
};

/* Log levels as ModernUO prints them. */
enum log_level { LOG_VRB, LOG_DBG, LOG_INF, LOG_WRN, LOG_ERR, LOG_FTL, LOG_LEVELS };
const char *log_level_name(enum log_level l); /* "VRB" ... */

/* Per key, aggregated over the windows (marker lines) of one run. */
struct scrape_agg {
    char key[SCRAPE_KEY_MAX];
    enum scrape_type type;
    size_t n;           /* windows that had this key */
    double mean, min, max, sum;
    double total_sum;   /* ratio only: sum of denominators */
};

struct scrape_run {
    size_t n_windows;                  /* marker lines in the window */
    struct scrape_agg *aggs;           /* one per key seen, in first-seen order */
    size_t n_aggs;
    unsigned level_counts[LOG_LEVELS]; /* over the whole log, not only the window */
    unsigned long lines;               /* lines read */
    /* What the bounds left out: marker lines that could not be told in or out of the
     * window (scrape_stream), and values past SCRAPE_VALUES_MAX in a line or keys past it
     * in a run. Both 0 for any ordinary log. */
    unsigned long lines_dropped, values_dropped;
};

void scrape_run_release(struct scrape_run *r);
/* Aggregate one more value into r, as if a window's line had held it. */
void scrape_run_add(struct scrape_run *r, const struct scrape_value *v);
/* Add the windows, aggregates and drop counts of from to into (key by key, in from's
 * order; a key whose type differs from into's is left out, as scrape_run_add does). */
void scrape_run_merge(struct scrape_run *into, const struct scrape_run *from);
/* Look up an aggregate by key; NULL if absent. */
const struct scrape_agg *scrape_run_find(const struct scrape_run *r, const char *key);

/* The aggregates of s as the object results.json keeps under a run's "metrics" and
 * `sample --json` prints (new reference): per key, in first-seen order, {type, windows,
 * mean, min, max, sum} and for a ratio total_sum; an undefined figure (NaN) is null. */
json_t *scrape_run_to_json(const struct scrape_run *s);
/* What the bounds left out of s, {lines, values} (new reference), for results.json's
 * "health_dropped" and `sample --json`; NULL when nothing was (the key is then absent). */
json_t *scrape_dropped_json(const struct scrape_run *s);

/* The inverse (metrics is borrowed): out is overwritten with those aggregates, null
 * read back as NaN, so that scrape_run_to_json gives metrics again; nothing else of out
 * is set (results.json keeps a run's window count and log levels elsewhere). out can
 * still take scrape_run_add and is freed by scrape_run_release. -1 with err naming
 * where, the key and what was expected (an unknown type, a missing figure...); out is
 * then empty. */
int scrape_run_from_json(json_t *metrics, struct scrape_run *out, const char *where,
                         struct lb_error *err);

#endif
