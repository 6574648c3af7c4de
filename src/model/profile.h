/* Target profiles: a JSON file describing a server to measure (docs/profiles.md).
 *
 * Nothing about any particular server is hard-coded in loopbench; a profile says how
 * to start it, which setting to vary and how to apply it, when it is ready, what to
 * scrape and how to stop it. Relative paths are resolved against the profile's
 * directory; "{loopbench_dir}" in command and cwd expands to the directory of the
 * loopbench executable (where refshard is built and installed). */
#ifndef LOOPBENCH_PROFILE_H
#define LOOPBENCH_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint_spec.h"
#include "msg.h"
#include "probes.h"
#include "setter.h"
#include "util.h"

struct knob {
    char *name;        /* e.g. "server.eventLoopIdleWaitMs" */
    char *label;       /* e.g. "idle wait (ms)"; defaults to name */
    struct strv values;
    char *baseline;    /* one of values; defaults to the first */
    struct setter set;
};

struct fixed_setting {
    char *name;
    char *value;
    struct setter set;
};

enum ready_kind { READY_LOG = 0, READY_TCP, READY_DELAY, READY_HTTP };

struct ready_rule {
    enum ready_kind kind;
    char *log_pattern;  /* READY_LOG: a POSIX extended regex matched against each line */
    char *host;         /* READY_TCP */
    int port;
    double delay_s;     /* READY_DELAY */
    char *url;          /* READY_HTTP: ready when a GET answers 2xx */
    double timeout_s;   /* for LOG, TCP and HTTP; default 60 */
};

enum direction { LOWER_IS_BETTER = 0, HIGHER_IS_BETTER };

/* The health keys a profile's rtt probe adds, per run: the median and 99th percentile
 * round trip in ms, and the requests that failed (errors and timeouts). */
#define RTT_KEY_P50 "rtt_p50_ms"
#define RTT_KEY_P99 "rtt_p99_ms"
#define RTT_KEY_FAILED "rtt_failed"
#define RTT_HEALTH_KEYS 3

struct health_key {
    char *key;
    char *label;        /* defaults to key */
    enum direction better;
    bool must_be_zero;  /* guardrail: any non-zero window is a regression */
};

/* A bound on a setting's typical value, held to with no base (src/analysis/budget.c): max, min
 * or both, NaN when not given. */
struct profile_budget {
    char *setting, *key; /* a knob value; "cpu" or a health key */
    double max, min;
};

struct profile {
    char *path;         /* as given */
    char *dir;          /* directory of the profile file (absolute) */
    char *name;         /* "name", default: file name without .json */
    char *description;
    struct strv command;    /* after {loopbench_dir} expansion; argv placeholders kept */
    char *cwd;              /* absolute */
    struct strv env;        /* "KEY=VALUE" additions */
    struct strv pass_env;   /* names taken from loopbench's environment (targetenv.h) */
    struct knob knob;
    struct fixed_setting *fixed;
    size_t n_fixed;
    struct ready_rule ready;
    char *marker;           /* default "loop: " */
    struct health_key *health;
    size_t n_health;
    /* metrics.primary: the keys ("cpu", health keys) a campaign's gate holds to by
     * default; empty: every one. */
    struct strv primary;
    /* tune.guards: loopbench tune's guards when its command line gives none, each
     * "KEY<=LIMIT" as --guard takes it (checked by tune, which knows the grammar) */
    struct strv tune_guards;
    struct profile_budget *budgets; /* "budgets" */
    size_t n_budgets;
    int stop_signal;        /* default SIGTERM */
    double stop_grace_s;    /* default 10 */
    double warmup_s;        /* defaults: 45, 60, 3 as the seeds ran */
    double sample_s;
    long repeat;
    uint64_t log_limit;     /* bytes of each stream's log kept per run (window.h) */
    bool hold_idle;         /* defaults.hold_idle: as run --hold-idle */
    /* The round-trip probe run through each sample window (docs/network.md); its
     * strings are owned. Declaring one adds the RTT_KEY_* health keys. */
    bool has_rtt;
    struct rtt_opts rtt;
    /* Metrics from an HTTP endpoint (docs/network.md), n_select == 0 when none. Each
     * value is also a health key. interval_s < 0: the campaign's series interval. */
    struct metrics_endpoint endpoint;
    double endpoint_interval_s;
    char hash[17];          /* FNV-1a 64 of the file's bytes */
    char *text;             /* the file's bytes (for results.json) */
};

/* Load and validate. On failure err names the file (with line and column for syntax
 * errors), the key path and what was expected; unknown keys are errors with a
 * did-you-mean. A config setter's file must exist and contain the key path's parent
 * objects. */
int profile_load(const char *path, struct profile *p, struct lb_error *err);
/* The same for one variant of a campaign (a build of the target): its relative paths
 * (cwd, config files) are taken from variant_dir instead of the profile's directory, and
 * "{variant_dir}" in command and cwd expands to it. */
int profile_load_variant(const char *path, const char *variant_dir, struct profile *p,
                         struct lb_error *err);
/* The same from len bytes already in memory (copied into p->text); path names the
 * file in messages and its directory anchors relative paths, but is not read. */
int profile_parse(const char *text, size_t len, const char *path, struct profile *p,
                  struct lb_error *err);
void profile_release(struct profile *p);

/* Whether the command would start: command[0] an executable file (relative to cwd when it
 * has a directory part; a bare name in PATH). Not checked when it holds a placeholder
 * ("{variant_dir}/server": each variant's own). -1 with err naming it and where it was
 * looked for. */
int profile_check_command(const struct profile *p, struct lb_error *err);
/* How long a campaign of the profile's defaults takes, in seconds: its runs (each knob
 * value, repeat times) of a warm-up and a window each, without the target's start and
 * stop, which only a run can time. */
double profile_estimate_s(const struct profile *p);

/* The profile as JSON (new reference), as `validate --json` prints it and results.json
 * records it: name, path, hash ("fnv1a64:<16 hex digits>"), the profile's own keys with
 * every default filled in and every path resolved (description when there is one,
 * command, cwd, env, knob with its setter, fixed, ready, rtt and http_metrics when
 * declared, stop, defaults), and instead of "metrics" its marker, health and primary (when
 * declared) at the top, budgets when declared,
 * health holding every health key (the rtt probe's and the endpoint's too), each
 * {key, label, better, must_be_zero}. Not the file's text: results.json adds that. */
json_t *profile_to_json(const struct profile *p);
/* The most health keys a profile has, its own and its probes' (a health line holds at
 * most SCRAPE_VALUES_MAX values): every analysis goes over the runs once per key. */
#define PROFILE_HEALTH_MAX 256
/* Of a results.json's "profile" (profile_to_json's object, and in "document" the profile
 * as its file held it), only the keys either knows, in their order (new reference): what
 * a campaign read back keeps, so a document made elsewhere holds no memory with keys
 * nothing reads. */
json_t *profile_section_known(json_t *section);

/* The words a profile uses for its enums (static strings; "unknown" for a value out of
 * range): "config", "argv", "env"; "string", "number"; "log", "tcp", "delay", "http";
 * "lower", "higher". The parsers are their inverses: 0 with *out set, or -1 for any
 * other word, *out unchanged. */
const char *profile_setter_kind_name(enum setter_kind k);
const char *profile_setter_type_name(enum setter_type t);
int profile_setter_type_parse(const char *name, enum setter_type *out);
const char *profile_ready_kind_name(enum ready_kind k);
const char *profile_direction_name(enum direction d);
int profile_direction_parse(const char *name, enum direction *out);

/* A log limit as --log-limit and defaults.log_limit give it: bytes, a whole number with
 * an optional k, M or G suffix (binary: 1k = 1024), at least CAPTURE_LIMIT_MIN. 0 with
 * *out set, or -1. */
int profile_log_limit_parse(const char *s, uint64_t *out);

/* "SIGTERM" for SIGTERM, for the signals a profile's stop.signal accepts; NULL for any
 * other. Static string. */
const char *profile_signal_name(int sig);

/* What the profile's setters (setter.h) make of a value, the fixed settings and the knob
 * applied in order: the profile's own, since its checks at load use them too. Still named
 * for the setters, as when setter.c held them (measure/run.c calls them so). */

/* Settings in the order they are applied: the fixed ones, then the knob (i ==
 * p->n_fixed). *value is the value that setting writes. */
const struct setter *setter_at(const struct profile *p, size_t i, const char *knob_value,
                               const char **value);
/* The target's argv for this value: the profile's command with the knob's placeholder
 * (and each fixed argv setting's) replaced. argv is new, caller releases. */
int setter_argv(const struct profile *p, const char *value, struct strv *argv,
                struct lb_error *err);
/* The target's complete environment: base (e.g. environ), then the profile's env
 * additions, then env setters (knob and fixed). A later entry replaces an earlier one
 * of the same name. envp is new, caller releases. */
void setter_envp(const struct profile *p, const char *value, char *const *base, struct strv *envp);

#endif
