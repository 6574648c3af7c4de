/* The campaign: what was planned, what each run measured, and what the profile said,
 * in one model. The runner (run.c) fills it, results.c writes it as results.json and
 * reads it back, and everything after (resume, summary, report, compare, plots, noise)
 * reads the same model, whichever way it came. */
#ifndef LOOPBENCH_CAMPAIGN_H
#define LOOPBENCH_CAMPAIGN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "commit.h"
#include "fingerprint.h"
#include "health.h"
#include "platform/platform.h"
#include "probes.h"
#include "profile.h"
#include "spec.h"
#include "util.h"
#include "window.h"

/* The registry's descriptor (metric.h): the campaign holds its registry and reads none of
 * it, so metric.h, which reads the campaign, stays above it. */
struct metric;

/* The first round after which --repeat auto looks (src/analysis/sequential.c), and so the
 * round of a campaign's first look. */
#define SEQ_MIN_ROUNDS 3

enum run_status { RUN_PENDING = 0, RUN_OK, RUN_FAILED, RUN_INTERRUPTED };
const char *run_status_name(enum run_status s);
int run_status_parse(const char *s, enum run_status *out);

/* A health key as the campaign's profile declared it. */
struct campaign_health {
    char *key, *label;
    enum direction better;
    bool must_be_zero;
};

/* What results.json says of the profile: its "profile" object, the keys loopbench knows
 * (so a campaign read back is written back as it was), and the parts the readers use. */
struct campaign_profile {
    /* The object as compact JSON: as text, it holds no more memory than its bytes,
     * however a document made elsewhere fills it. */
    char *text;
    char *name, *path, *hash; /* hash: "fnv1a64:<hex>" */
    char *knob_name, *knob_label, *marker;
    struct campaign_health *health;
    size_t n_health;
    /* The registry (metric.h): CPU first, then each health key in the profile's order,
     * then the wake rate. */
    struct metric *metrics;
    size_t n_metrics;
    struct strv metric_text;    /* the keys and labels of metrics made from the runs */
};

void campaign_profile_release(struct campaign_profile *p);

/* The HTTP metrics endpoint of the profile, as each run's record names it. */
struct campaign_endpoint {
    char *url, *format;
    struct strv keys, sources; /* per selected value, in the profile's order */
};

/* An idle state of one CPU over a window: the cpuidle counters' deltas. */
struct run_idle_state {
    int cpu;
    char *name;
    uint64_t usage, time_us, above, below;
};

/* What the host's CPUs did over a run's window (hostcpus.h): those its target ran on
 * (pinned; rotating: every CPU set it turned through), else every CPU loopbench could
 * use. cpus NULL: not recorded. */
struct run_host_cpus {
    char *cpus;                 /* "0-1" */
    double steal_percent;       /* of their time */
    /* Their busy time less the targets' on them (and loopbench's, when it shared them),
     * % of their time: what other processes took from the target's CPUs. */
    double others_percent;
    /* Their whole busy time, the targets' and loopbench's too, % of their time: near 100,
     * the window left no idle CPU (noise.h's saturation). NaN: not recorded (older). */
    double busy_percent;
    struct run_idle_state *idle; /* per CPU and state; none without a cpuidle driver */
    size_t n_idle;
};

/* The energy the CPU packages drew over a span (RAPL, src/measure/energy.c): a run's
 * window, or the campaign's idle reference. domains NULL: not recorded. */
struct run_energy_domain {
    char *zone, *name;          /* "intel-rapl:0", "package-0" */
    double joules, watts;
};
struct run_energy {
    struct run_energy_domain *domains;
    size_t n_domains;
    double joules, seconds, watts; /* summed over the domains; the span's length */
};

/* run --rotate: the swaps inside the window and the time on each CPU set. */
struct run_rotation {
    long swaps;
    struct strv cpus;           /* the sets, in the order turned through */
    double *seconds;            /* per set */
};

/* A run's CPU over its window: n points of t_s and cpu_percent. */
struct run_series {
    double *t, *cpu;
    size_t n;
};

struct run_record {
    size_t setting_index;       /* into campaign.spec.values */
    size_t variant_index;       /* into campaign.spec.variants; 0 in a knob-only campaign */
    long repeat;                /* 1-based: runs of the same repeat share a round */
    enum run_status status;
    char *dir;                  /* relative to the campaign directory: runs/<setting>-<k> */
    uint64_t started_wall_ns;   /* 0: never started */
    double ready_s;             /* from spawn to ready */
    double warmup_s;            /* from ready to the window that counts; NaN: not recorded */
    long window_restarts;       /* --warmup auto: windows abandoned for a change inside */
    bool warmup_capped;         /* --warmup auto: MAX came before the target settled */
    /* The window's CPU series checked for a trend or a change point (steady.h):
     * steady_tested false when it had too few points. */
    bool steady_tested, steady;
    char *unsteady;             /* why it was not steady, one line; NULL when it was */
    enum cpu_source_kind cpu_source; /* the source this run's target was measured with */
    bool sampled;               /* the window's figures below are set */
    struct sample_result sample;
    struct scrape_run scrape;   /* the health lines of the window (and the log's levels) */
    bool exited;                /* the target exited on its own */
    int wstatus;
    bool killed;                /* stop needed SIGKILL */
    char *containment;          /* what held its tree for the stop, "cgroup2" (platform.h);
                                   NULL: no target started, or an older results.json */
    char *isolation;            /* what hid loopbench's ancestors from it, "pid-namespace"
                                   (platform.h); NULL as containment */
    char *cpus;                 /* the CPUs its tree was pinned to, "1"; NULL: any */
    bool idle_held;             /* run --hold-idle: through its warm-up and window */
    struct run_rotation rotation; /* swaps 0 and no sets: it did not rotate */
    struct run_host_cpus host_cpus;
    struct run_energy energy;   /* runs in turn on a host with RAPL only */
    /* What became of its stdout and stderr (window.h), under the limit it ran with;
     * log_limit 0: not recorded (a run that never started, or an older results.json). */
    uint64_t log_limit;
    struct capture_log logs[CAPTURE_STREAMS];
    char *failure;              /* why it failed, one line */
    char *log_tail;             /* last lines of its logs when it failed, printable */
    bool has_rtt;               /* the profile's round-trip probe ran through the window */
    struct rtt_result rtt;
    bool has_endpoint;          /* the profile's HTTP metrics endpoint was scraped */
    struct endpoint_result endpoint;
    struct run_series series; /* campaign_series_load's; n 0 until then */
};

/* loopbench's own version and cost, as of the last write. */
struct campaign_self {
    char *version, *platform;
    char *commit;               /* "6cb843b[-dirty]"; NULL: built from a tarball */
    double cpu_seconds;
    long long max_rss_kib;
};

struct campaign {
    struct campaign_spec spec;  /* what it was asked (spec.h), resolved */
    char *out_dir;              /* the campaign's directory (where results.json is) */
    char *path;                 /* the results.json it was read from; NULL while it runs */
    char *command_line;
    struct campaign_self self;
    struct campaign_profile profile;
    struct campaign_endpoint endpoint; /* url NULL: none */
    bool has_rtt;               /* the profile runs a round-trip probe */
    struct plat_host_facts host;
    struct host_fingerprint fingerprint; /* of host, computed when read (fingerprint.h) */
    /* What ran: run --commit, $LOOPBENCH_COMMIT, the target's directory's work tree
     * (with variants, the last's: the head), else $GITHUB_SHA. */
    struct campaign_commit commit;
    /* --repeat auto (spec.sequential_max, src/analysis/sequential.c): look i, after round
     * SEQ_MIN_ROUNDS + i, left look_undecided[i] gated comparisons undecided;
     * sequential_stop says why it stopped ("decided"; "futile": the rest would rarely be
     * decided by the cap; "cap"; static), NULL while it runs. */
    long *look_undecided;
    size_t n_looks;
    /* loopbench tune: what it was asked and what it found, results.json's campaign.tune
     * as written (src/analysis/tune_ask.c reads and checks it); NULL: not a tune. Its
     * rounds are planned as it runs, so its plan is not recomputed on --resume. */
    json_t *tune;
    const char *sequential_stop;
    /* Pinned (spec.cpus): the CPUs loopbench kept to, "0-3,6"; NULL: nothing spare. */
    char *loopbench_cpus;
    /* The targets' environment (targetenv.h): the names taken from loopbench's
     * environment (the base and those asked for, the profile's pass_env included) and how
     * many of its variables were withheld. */
    struct strv env_passed;
    size_t env_withheld;
    char *cpuidle_driver;       /* the host's, NULL: none (or not known) */
    /* Package energy: why the runs record none, one line ("no RAPL: ...", or a duet's
     * targets sharing the package), NULL when they do (or a results.json from before);
     * and the packages' power over a quiet spell before the first run, as a reference. */
    char *energy_unavailable;
    struct run_energy energy_idle;
    uint64_t started_wall_ns, finished_wall_ns;
    int interrupted_by;         /* signal number, 0 if not interrupted */
    struct strv resumed_at;     /* UTC times of each --resume */
    struct run_record *runs;    /* in execution order, the plan whole */
    size_t n_runs;
};

/* The directory of a run: runs/<value>-<repeat>, or runs/<variant>/<value>-<repeat>,
 * the names made safe for a file name (new string, caller frees). */
char *run_dir_name(const char *variant, const char *value, long repeat);

/* A cell of the campaign: a setting, under a variant when there are some. Every cell
 * runs once per round. */
struct cell {
    size_t setting, variant;
};
/* How many cells: settings x variants (x 1 without variants). */
size_t campaign_cells(const struct campaign *c);
/* Cell i, in the order settings-major: each setting's variants together. */
struct cell campaign_cell(const struct campaign *c, size_t i);
/* The cell a cell is compared with: the same setting of the base variant, or (without
 * variants) the baseline setting. Itself for the base or the baseline. */
struct cell campaign_reference(const struct campaign *c, struct cell x);
/* Whether run r is of cell x. */
bool run_in_cell(const struct run_record *r, struct cell x);
/* Index of cell (setting `value`, variant `variant` or NULL without variants) in
 * campaign_cell's order, or -1. */
long campaign_find_cell(const struct campaign *c, const char *value, const char *variant);
/* "2" or "2 head": a cell named for messages and tables (new string). */
char *campaign_cell_name(const struct campaign *c, struct cell x);

/* The warm-up as reports give it, into buf: "3 s", or with --warmup auto "auto, 2.1-2.4 s
 * (at most 60 s)" over the runs that reached their window. */
void campaign_warmup_text(const struct campaign *c, char *buf, size_t size);

/* "running", "finished" or "interrupted". */
const char *campaign_state_name(const struct campaign *c);

/* The hostname the campaign ran on, "host" when unknown. */
const char *campaign_host(const struct campaign *c);
/* Where the campaign's results are, for messages: its results.json or directory. */
const char *campaign_where(const struct campaign *c);
/* The campaign's host fingerprint (its id) and short name, as computed when it was read. */
const char *campaign_fingerprint(const struct campaign *c);
const char *campaign_fingerprint_short(const struct campaign *c);
/* The name of the first fingerprint field that differs between a's host and b's, NULL
 * when they are the same host to the figures. */
const char *campaign_fingerprint_differs(const struct campaign *a, const struct campaign *b);

/* Index of setting `value`, or -1. */
long campaign_setting(const struct campaign *c, const char *value);
/* Index of health key `key`, or -1. */
long campaign_health_index(const struct campaign *c, const char *key);

/* Health key k's mean over run r's windows, NaN when no window had it. */
double run_health_mean(const struct campaign *c, const struct run_record *r, size_t k);
/* The largest window of health key k in run r (guardrails), NaN if none. */
double run_health_max(const struct campaign *c, const struct run_record *r, size_t k);
/* Ratio key k's denominator per window in run r, NaN for other keys. */
double run_health_total(const struct campaign *c, const struct run_record *r, size_t k);

/* The scraped type of health key k ("duration_ms", "ratio"...: the first completed run
 * that has it), NULL if no run has. */
const char *campaign_health_type(const struct campaign *c, size_t k);
/* The unit a health key's figures are shown with: " ms", "%" or "". */
const char *campaign_health_unit(const struct campaign *c, size_t k);

/* The largest series.csv read back: an hour's window at the shortest interval (10 ms) is
 * some 36 MiB. Of a longer series than SERIES_POINTS_MAX points (that hour is 360,000),
 * every k-th is kept: what report draws is a few thousand pixels wide. */
#define SERIES_SIZE_MAX (64ULL << 20)
#define SERIES_POINTS_MAX 100000
/* Each sampled run's CPU series, from its series.csv beside results.json, into its
 * record's `series` (what report draws): none when the file is missing. -1 with err for
 * one that cannot be read back (read_back_file: a link, not a regular file, over
 * SERIES_SIZE_MAX or the total one command reads). */
int campaign_series_load(struct campaign *c, struct lb_error *err);

void run_host_cpus_release(struct run_host_cpus *h);
void run_energy_release(struct run_energy *e);
void run_record_release(struct run_record *r);
void campaign_release(struct campaign *c);

#endif
