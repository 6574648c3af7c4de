/* Reading results.json back (schema in docs/results.md): what report and compare need,
 * from the fixed keys only, so any loopbench/results/1 file can be read. */
#ifndef LOOPBENCH_RESULTS_LOAD_H
#define LOOPBENCH_RESULTS_LOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "histogram.h"
#include "msg.h"

struct loaded_health {
    const char *key, *label; /* borrowed from the document */
    bool lower_is_better;
    bool must_be_zero;
    const char *type;        /* the scraped type ("ratio", "duration_ms"...), NULL if never seen */
};

/* One completed (`ok`) run. */
struct loaded_run {
    size_t setting;          /* index into settings */
    long repeat;             /* 1-based: runs of the same repeat share an interleaved round */
    double cpu_percent;
    double *health;          /* per health key: mean over the run's windows (NaN if none) */
    double *health_max;      /* per health key: largest window (for must_be_zero guardrails) */
    double *health_total;    /* ratio keys: denominator per window (NaN otherwise) */
};

struct loaded_results {
    char *path;              /* the results.json read */
    json_t *doc;             /* the whole document; strings below are borrowed from it */
    const char *profile_name, *profile_hash, *knob_label, *order;
    const char *host;        /* hostname, else "host" */
    struct loaded_health *health;
    size_t n_health;
    const char **settings;   /* in the campaign's order */
    size_t n_settings;
    size_t baseline;
    struct loaded_run *runs; /* ok runs, in execution order */
    size_t n_runs;
    size_t runs_failed;      /* runs started that did not complete */
    /* Round trips per setting, when the profile had an rtt probe: the histograms of
     * its completed runs added together (n_settings entries, or NULL). */
    struct loaded_rtt *rtt;
};

struct loaded_rtt {
    uint64_t scheduled, failed; /* requests; failed: errors and timeouts */
    struct histogram latency;   /* ns */
};

/* Read DIR/results.json, or the file itself when `path` is not a directory. Fails with
 * a message naming the file and the key when it is not a loopbench/results/1 document. */
int results_load(const char *path, struct loaded_results *out, struct lb_error *err);
void results_loaded_release(struct loaded_results *r);

/* The values of one metric over setting si's runs into out[] (room for n_runs values);
 * metric -1 is CPU %, k >= 0 health key k. Returns how many. */
size_t results_loaded_values(const struct loaded_results *r, size_t si, int metric,
                             double *out);
/* Interleaved (and random-order) campaigns run every setting once per round: pair
 * setting sa's and sb's runs of the same round into a[] and b[] (room for n_runs
 * each). Returns the pairs; 0 for grouped campaigns, where rounds do not exist. */
size_t results_loaded_pairs(const struct loaded_results *r, size_t sa, size_t sb, int metric,
                            double *a, double *b);
/* Index of setting `value`, or -1. */
long results_loaded_setting(const struct loaded_results *r, const char *value);

#endif
