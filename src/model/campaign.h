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
#include "util.h"
#include "window.h"

/* The registry's descriptor (metric.h): the campaign holds its registry and reads none of
 * it, so metric.h, which reads the campaign, stays above it. */
struct metric;

/* The first round after which --repeat auto looks (src/analysis/sequential.c), and so the
 * round of a campaign's first look. */
#define SEQ_MIN_ROUNDS 3

/* The largest campaign loopbench plans or reads back: one made elsewhere past these is
 * refused, not read for minutes (an analysis goes over every run once per cell). A run
 * is about 1 KB in memory however small its JSON, so the runs one command reads, over
 * every campaign it is given, have a cap too. */
#define CAMPAIGN_RUNS_MAX 100000
#define CAMPAIGN_SETTINGS_MAX 256
#define CAMPAIGN_VARIANTS_MAX 32
#define CAMPAIGN_CELLS_MAX 1024 /* settings x variants */
#define CAMPAIGN_RUNS_TOTAL_MAX 250000
/* 0, or -1 with err (naming `where`) when a campaign of that many settings, variants
 * (0 without) and runs is past the caps above. */
int campaign_size_check(size_t settings, size_t variants, size_t runs, const char *where,
                        struct lb_error *err);

/* duet: the variants of a setting (without variants, the settings of a round) at the
 * same time, each on CPUs of its own, the CPU sets turned round by one every round
 * (Bulej et al. 2020); otherwise interleave's order. */
enum run_order { ORDER_INTERLEAVE = 0, ORDER_RANDOM, ORDER_GROUPED, ORDER_DUET };
const char *run_order_name(enum run_order o);
int run_order_parse(const char *s, enum run_order *out);

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

/* A build of the target compared with the others in one campaign: its runs take the
 * command, cwd and config files from its directory (docs/cli.md). */
struct campaign_variant {
    char *name;                 /* "base", "head" */
    char *dir;                  /* as given */
    struct campaign_commit commit; /* of dir's work tree */
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
    size_t setting_index;       /* into campaign.values */
    size_t variant_index;       /* into campaign.variants; 0 in a knob-only campaign */
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
    struct strv values;         /* settings, in the order given */
    size_t baseline;            /* index into values */
    /* Builds compared setting by setting, the first the base the others are compared
     * with; none in a knob-only campaign, which compares settings with the baseline. */
    struct campaign_variant *variants;
    size_t n_variants;
    long repeat;
    /* --repeat auto=MAX (runs until decided, src/analysis/sequential.c): the cap, 0 for a fixed
     * count; then repeat is the cap until the campaign stops, the rounds run after. Look
     * i, after round SEQ_MIN_ROUNDS + i, left look_undecided[i] gated comparisons
     * undecided; sequential_stop says why it stopped ("decided"; "futile": the rest
     * would rarely be decided by the cap; "cap"; static), NULL while it runs. */
    long sequential_max;
    /* The keys the campaign's gate holds to, comma-separated ("cpu", health keys): from
     * run --primary, else the profile's metrics.primary; NULL: every one. compare and
     * the looks of --repeat auto take it unless told otherwise. */
    char *primary;
    /* --cpus or --order duet: the CPUs the targets ran on (each run records its own)
     * and those loopbench kept to, "0-3,6"; NULL: not pinned, or nothing spare. */
    char *cpus, *loopbench_cpus;
    /* The targets' environment (targetenv.h): the names run --pass-env asked for, the
     * names taken from loopbench's environment (the base and those asked for, the
     * profile's pass_env included) and how many of its variables were withheld.
     * env_recorded false: a campaign run before these were. */
    bool env_recorded;
    struct strv pass_env, env_passed;
    size_t env_withheld;
    long *look_undecided;
    size_t n_looks;
    const char *sequential_stop;
    double warmup_s, sample_s;  /* with warmup_auto, warmup_s is the most a run waits */
    bool warmup_auto;           /* --warmup auto: each run until its target has settled */
    /* --hold-idle: the CPUs held out of idle states through every warm-up and window */
    bool hold_idle;
    double rotate_s;            /* --rotate: a duet's swaps inside the window; 0: none */
    char *cpuidle_driver;       /* the host's, NULL: none (or not known) */
    /* Package energy: why the runs record none, one line ("no RAPL: ...", or a duet's
     * targets sharing the package), NULL when they do (or a results.json from before);
     * and the packages' power over a quiet spell before the first run, as a reference. */
    char *energy_unavailable;
    struct run_energy energy_idle;
    unsigned interval_ms;
    uint64_t log_limit;         /* bytes of each stream's log kept per run */
    enum run_order order;
    uint64_t seed;
    enum cpu_source_kind cpu_source; /* what was asked; each run records what was used */
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
