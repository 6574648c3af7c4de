/* The campaign: every setting of the knob, repeated, in a chosen order; each run boots
 * the target, waits until it is ready, warms it up, samples one window, stops it and
 * scrapes its log. The operator's config files are restored whatever happens. */
#ifndef LOOPBENCH_RUN_H
#define LOOPBENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "confedit.h"
#include "endpoint.h"
#include "msg.h"
#include "platform/platform.h"
#include "profile.h"
#include "rtt.h"
#include "sampler.h"
#include "scrape.h"
#include "util.h"

enum run_order { ORDER_INTERLEAVE = 0, ORDER_RANDOM, ORDER_GROUPED };
const char *run_order_name(enum run_order o);
int run_order_parse(const char *s, enum run_order *out);

struct run_opts {
    const char *profile_path;  /* NULL: the built-in reference profile */
    struct strv settings;      /* --settings; empty: the profile's values */
    long repeat;               /* <= 0: the profile's default */
    double warmup_s;           /* < 0: the profile's default */
    double sample_s;           /* <= 0: the profile's default */
    enum run_order order;
    bool seed_set;
    uint64_t seed;
    unsigned interval_ms;
    const char *out_dir;       /* NULL: results/<profile>-<UTC time>/ */
    const char *resume_dir;    /* --resume: continue the campaign of this directory */
    bool keep_going;
    enum cpu_source_kind cpu_source;
    const char *command_line;  /* recorded in results */
};

enum run_status { RUN_PENDING = 0, RUN_OK, RUN_FAILED, RUN_INTERRUPTED };
const char *run_status_name(enum run_status s);

struct run_record {
    size_t setting_index;       /* into campaign.values */
    long repeat;                /* 1-based */
    enum run_status status;
    char *dir;                  /* relative to the campaign directory: runs/<setting>-<k> */
    uint64_t started_wall_ns;
    double ready_s;             /* from spawn to ready */
    enum cpu_source_kind cpu_source; /* the source this run's target was measured with */
    bool sampled;
    struct sample_result sample;
    struct series_point *points;
    struct scrape_run scrape;
    bool exited;                /* the target exited on its own */
    int wstatus;
    bool killed;                /* stop needed SIGKILL */
    char *failure;              /* why it failed, one line */
    char *log_tail;             /* last lines of its logs when it failed */
    json_t *resumed;            /* completed before a --resume: its results.json object */
    bool has_rtt;               /* the profile's round-trip probe ran through the window */
    struct rtt_result rtt;
    bool has_endpoint;          /* the profile's HTTP metrics endpoint was scraped */
    struct endpoint_result endpoint;
};

struct campaign {
    struct profile profile;
    struct strv values;         /* settings, in the order given */
    size_t baseline;            /* index into values */
    long repeat;
    double warmup_s, sample_s;
    unsigned interval_ms;
    enum run_order order;
    uint64_t seed;
    enum cpu_source_kind cpu_source; /* what was asked; each run records what was used */
    char *out_dir;
    char *command_line;
    struct plat_host_facts host;
    uint64_t started_wall_ns, finished_wall_ns;
    struct run_record *runs;    /* in execution order */
    size_t n_runs;
    int interrupted_by;         /* signal number, 0 if not interrupted */
    struct strv resumed_at;     /* UTC times of each --resume */
    struct confedit edits;      /* the config files, locked from begin to release */
    char *dir_lock;             /* out_dir's lock file, held from begin to release */
    int dir_lock_fd;
};

/* The directory of a run: runs/<value>-<repeat>, the value made safe for a file name
 * (new string, caller frees). */
char *run_dir_name(const char *value, long repeat);

/* Load the profile and plan the runs into c (caller releases with campaign_release,
 * also on failure). Fails on bad input: an invalid profile or settings. */
int campaign_setup(const struct run_opts *opts, struct campaign *c, struct lb_error *err);
/* Set c up again from the results.json of an interrupted campaign in opts->resume_dir:
 * the same profile (refused if its file changed since), settings, order and plan, with
 * the runs that completed kept and the others (failed, interrupted, never started)
 * still to run. Fails when the directory holds no such campaign. */
int campaign_setup_resume(const struct run_opts *opts, struct campaign *c,
                          struct lb_error *err);
/* Claim what the campaign touches: lock its config files, put back what a loopbench
 * that died left edited (a line per file in notes), read their originals, make and lock
 * the output directory and write results.json with the plan. */
int campaign_begin(const struct run_opts *opts, struct campaign *c, struct strv *notes,
                   struct lb_error *err);
/* Run the planned campaign. Returns 0 when every run completed, -1 otherwise with err
 * set; c->interrupted_by tells an interrupt from a failure. The config files are
 * restored and results.json written in every case where the directory could be made. */
int campaign_run(const struct run_opts *opts, struct campaign *c, struct lb_error *err);
void campaign_release(struct campaign *c);

#endif
