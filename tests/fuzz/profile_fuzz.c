/* libFuzzer entry point for the profile parser: any bytes as the text of a profile that
 * sits in a private directory (made once per process) beside the config files and the
 * directory the seeds name.
 *
 * Besides the sanitizers' checks (leaks included: every result is released), it asserts
 * what callers rely on. A failure leaves nothing to release and says why in one
 * non-empty line that names the profile. A success is complete and usable: non-empty
 * name, command and absolute cwd; knob values non-empty, unique and holding the
 * baseline; every setter filled in for its kind, no two writing the same place, and
 * each config setter's file accepting every value it will be given; a ready rule of
 * one kind with a compiling regex, a port in range or an http(s) URL; an rtt probe and
 * a metrics endpoint that their own checks accept, whose keys are among the (unique)
 * health keys; a known stop signal; finite times in range; and a command each argv
 * placeholder occurs in.
 *
 * Skipped: ready.log patterns that glibc's regcomp takes exponential time to compile
 * (see ready_regex_too_costly()). */
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "setter.h"
#include "http.h"
#include "platform/files.h"
#include "prometheus.h"
#include "profile.h"
#include "rtt.h"
#include "util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(cond)                                                                     \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "profile_fuzz.c:%d: invariant broken: %s\n", __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

/* The files the seed corpus names, relative to the profile's directory. */
static const struct {
    const char *name;
    const char *text;
} fixture_files[] = {
    {"cfg.json", "{\"listeners\": [\"0.0.0.0:2593\"],\n"
                 " \"settings\": {\"a\": \"1\", \"server\": {\"port\": 2593}}}\n"},
    {"list.json", "[1, 2]\n"},
    {"broken.json", "{\n  \"a\": 1,\n}\n"},
    {"srv/server.json", "{\"settings\": {}}\n"},
};

/* Removed at exit; a crash or a kill leaves it in /tmp. */
static char fixture_dir[64];
static char profile_path[96];

static void remove_fixture(void)
{
    char path[160];
    for (size_t i = 0; i < ARRAY_SIZE(fixture_files); i++) {
        snprintf(path, sizeof(path), "%s/%s", fixture_dir, fixture_files[i].name);
        unlink(path);
    }
    snprintf(path, sizeof(path), "%s/srv", fixture_dir);
    rmdir(path);
    rmdir(fixture_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct lb_error err;
    char path[160];
    /* /tmp, not TMPDIR: the paths must stay short enough for the buffers above. */
    snprintf(fixture_dir, sizeof(fixture_dir), "/tmp/loopbench-profile-fuzz.XXXXXX");
    if (!mkdtemp(fixture_dir)) {
        perror("profile_fuzz: mkdtemp");
        exit(1);
    }
    atexit(remove_fixture);
    snprintf(path, sizeof(path), "%s/srv", fixture_dir);
    REQUIRE(mkdir(path, 0755) == 0);
    for (size_t i = 0; i < ARRAY_SIZE(fixture_files); i++) {
        snprintf(path, sizeof(path), "%s/%s", fixture_dir, fixture_files[i].name);
        const char *text = fixture_files[i].text;
        if (write_file_atomic(path, text, strlen(text), 0644, &err) < 0) {
            fprintf(stderr, "profile_fuzz: %s\n", err.msg);
            exit(1);
        }
    }
    /* Never written: profile_parse only takes its directory from it. */
    snprintf(profile_path, sizeof(profile_path), "%s/fuzz.json", fixture_dir);
    return 0;
}

static bool nonempty(const char *s)
{
    return s && *s;
}

static bool env_name_ok(const char *s, size_t len)
{
    if (len == 0 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* A run writes every value it gives a config setter into the file's original text:
 * validation promised that this cannot fail. */
static void check_config_accepts(const struct setter *s, const char *const *values, size_t n)
{
    char *text, *out;
    size_t len, out_len;
    struct lb_error err;
    REQUIRE(read_file(s->file, &text, &len, &err) == 0);
    for (size_t i = 0; i < n; i++) {
        int rc = setter_set_json(text, len, s->key_path, s->key_depth, values[i], s->type, &out,
                                 &out_len, &err);
        if (rc < 0)
            fprintf(stderr, "profile_fuzz: %s\n", err.msg);
        REQUIRE(rc == 0);
        REQUIRE(out_len > 0 && out[out_len - 1] == '\n');
        free(out);
    }
    free(text);
}

static void check_setter(const struct setter *s)
{
    switch (s->kind) {
    case SETTER_CONFIG:
        REQUIRE(nonempty(s->file) && s->file[0] == '/');
        REQUIRE(s->key_depth >= 1 && s->key_path);
        for (size_t i = 0; i < s->key_depth; i++)
            REQUIRE(nonempty(s->key_path[i]));
        REQUIRE(s->type == SETTER_STRING || s->type == SETTER_NUMBER);
        return;
    case SETTER_ARGV:
        REQUIRE(nonempty(s->placeholder));
        return;
    case SETTER_ENV:
        REQUIRE(nonempty(s->env_name) && env_name_ok(s->env_name, strlen(s->env_name)));
        return;
    }
    REQUIRE(!"setter kind out of range");
}

/* Written independently of profile.c's same_target(), as a second opinion. */
static bool write_same_place(const struct setter *a, const struct setter *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == SETTER_ARGV)
        return strcmp(a->placeholder, b->placeholder) == 0;
    if (a->kind == SETTER_ENV)
        return strcmp(a->env_name, b->env_name) == 0;
    if (strcmp(a->file, b->file) != 0 || a->key_depth != b->key_depth)
        return false;
    size_t i = 0;
    while (i < a->key_depth && strcmp(a->key_path[i], b->key_path[i]) == 0)
        i++;
    return i == a->key_depth;
}

static void check_knob_and_fixed(const struct profile *p)
{
    const struct knob *k = &p->knob;
    REQUIRE(nonempty(k->name) && nonempty(k->label));
    REQUIRE(k->values.n >= 1 && k->values.v[k->values.n] == NULL);
    bool baseline_found = false;
    for (size_t i = 0; i < k->values.n; i++) {
        REQUIRE(nonempty(k->values.v[i]));
        for (size_t j = 0; j < i; j++)
            REQUIRE(strcmp(k->values.v[i], k->values.v[j]) != 0);
        baseline_found |= k->baseline && strcmp(k->values.v[i], k->baseline) == 0;
    }
    REQUIRE(baseline_found);
    check_setter(&k->set);
    if (k->set.kind == SETTER_CONFIG)
        check_config_accepts(&k->set, (const char *const *)k->values.v, k->values.n);

    REQUIRE(p->n_fixed == 0 || p->fixed);
    for (size_t i = 0; i < p->n_fixed; i++) {
        const struct fixed_setting *f = &p->fixed[i];
        REQUIRE(nonempty(f->name) && f->value);
        check_setter(&f->set);
        if (f->set.kind == SETTER_CONFIG)
            check_config_accepts(&f->set, (const char *const *)&f->value, 1);
        REQUIRE(!write_same_place(&f->set, &k->set));
        for (size_t j = 0; j < i; j++) {
            REQUIRE(strcmp(f->name, p->fixed[j].name) != 0);
            REQUIRE(!write_same_place(&f->set, &p->fixed[j].set));
        }
    }
}

static void check_ready(const struct ready_rule *r)
{
    REQUIRE(isfinite(r->timeout_s) && r->timeout_s > 0);
    switch (r->kind) {
    case READY_LOG: {
        REQUIRE(nonempty(r->log_pattern) && !r->host && !r->url);
        /* The run compiles the pattern again and must not fail where validation passed. */
        regex_t re;
        REQUIRE(regcomp(&re, r->log_pattern, REG_EXTENDED | REG_NOSUB) == 0);
        regfree(&re);
        return;
    }
    case READY_TCP:
        REQUIRE(nonempty(r->host) && !r->log_pattern && !r->url);
        REQUIRE(r->port >= 1 && r->port <= 65535);
        return;
    case READY_DELAY:
        REQUIRE(!r->host && !r->log_pattern && !r->url);
        REQUIRE(isfinite(r->delay_s) && r->delay_s >= 0);
        return;
    case READY_HTTP: {
        struct lb_error err;
        REQUIRE(nonempty(r->url) && !r->host && !r->log_pattern);
        REQUIRE(http_url_check("URL", r->url, &err) == 0);
        return;
    }
    }
    REQUIRE(!"ready kind out of range");
}

static bool is_health_key(const struct profile *p, const char *key)
{
    for (size_t i = 0; i < p->n_health; i++)
        if (strcmp(p->health[i].key, key) == 0)
            return true;
    return false;
}

/* The probe and the endpoint are started from these fields without another look. */
static void check_rtt_and_endpoint(const struct profile *p)
{
    struct lb_error err;
    if (p->has_rtt) {
        const struct rtt_opts *r = &p->rtt;
        REQUIRE(nonempty(r->host) && r->port >= 1 && r->port <= 65535);
        REQUIRE(r->send && r->send_len > 0 && (r->expect == NULL) == (r->expect_len == 0));
        REQUIRE(rtt_check(r, &err) == 0);
        REQUIRE(is_health_key(p, RTT_KEY_P50) && is_health_key(p, RTT_KEY_P99) &&
                is_health_key(p, RTT_KEY_FAILED));
    }
    const struct metrics_endpoint *ep = &p->endpoint;
    REQUIRE(p->endpoint_interval_s < 0 ? p->endpoint_interval_s == -1
                                       : isfinite(p->endpoint_interval_s));
    if (ep->n_select == 0) {
        REQUIRE(!ep->url);
        return;
    }
    REQUIRE(nonempty(ep->url) && ep->select);
    REQUIRE(metrics_endpoint_check(ep, &err) == 0);
    for (size_t i = 0; i < ep->n_select; i++) {
        REQUIRE(is_health_key(p, ep->select[i].key));
        char *shown = metrics_select_text(ep, i);
        REQUIRE(nonempty(shown));
        free(shown);
    }
}

/* What the run builds from the profile for each value must be buildable. */
static void check_argv_and_env(const struct profile *p)
{
    for (size_t i = 0; i < p->knob.values.n; i++) {
        struct strv argv;
        struct lb_error err;
        const char *value = p->knob.values.v[i];
        REQUIRE(setter_argv(p, value, &argv, &err) == 0);
        REQUIRE(argv.n == p->command.n && argv.v[argv.n] == NULL);
        for (size_t j = 0; j < argv.n; j++)
            REQUIRE(argv.v[j] != NULL);
        strv_release(&argv);

        struct strv envp;
        setter_envp(p, value, NULL, &envp);
        for (size_t j = 0; j < envp.n; j++) {
            const char *eq = strchr(envp.v[j], '=');
            REQUIRE(eq && env_name_ok(envp.v[j], (size_t)(eq - envp.v[j])));
        }
        strv_release(&envp);
    }
}

static void check_valid(const struct profile *p)
{
    REQUIRE(p->path && strcmp(p->path, profile_path) == 0);
    REQUIRE(p->dir && p->dir[0] == '/');
    REQUIRE(p->text && strlen(p->hash) == 16);
    REQUIRE(nonempty(p->name));
    REQUIRE(p->command.n >= 1 && p->command.v[p->command.n] == NULL);
    for (size_t i = 0; i < p->command.n; i++)
        REQUIRE(nonempty(p->command.v[i]));
    REQUIRE(nonempty(p->cwd) && p->cwd[0] == '/');
    for (size_t i = 0; i < p->env.n; i++) {
        const char *eq = strchr(p->env.v[i], '=');
        REQUIRE(eq && env_name_ok(p->env.v[i], (size_t)(eq - p->env.v[i])));
    }
    check_knob_and_fixed(p);
    check_ready(&p->ready);
    REQUIRE(nonempty(p->marker));
    REQUIRE(p->n_health == 0 || p->health);
    for (size_t i = 0; i < p->n_health; i++) {
        const struct health_key *h = &p->health[i];
        REQUIRE(nonempty(h->key) && nonempty(h->label));
        REQUIRE(h->better == LOWER_IS_BETTER || h->better == HIGHER_IS_BETTER);
        for (size_t j = 0; j < i; j++)
            REQUIRE(strcmp(h->key, p->health[j].key) != 0);
    }
    REQUIRE(profile_signal_name(p->stop_signal) != NULL);
    REQUIRE(isfinite(p->stop_grace_s) && p->stop_grace_s >= 0);
    REQUIRE(isfinite(p->warmup_s) && p->warmup_s >= 0);
    REQUIRE(isfinite(p->sample_s) && p->sample_s > 0);
    REQUIRE(p->repeat >= 1);
    check_rtt_and_endpoint(p);
    check_argv_and_env(p);
}

static void check_invalid(const struct profile *p, const struct lb_error *err)
{
    /* Nothing is left to release, and the message names the file on one line. */
    REQUIRE(!p->path && !p->dir && !p->text && !p->name && !p->command.v);
    char prefix[128];
    snprintf(prefix, sizeof(prefix), "profile '%s'", profile_path);
    if (strncmp(err->msg, prefix, strlen(prefix)) != 0 || strpbrk(err->msg, "\n\r"))
        fprintf(stderr, "profile_fuzz: bad message: %s\n", err->msg);
    REQUIRE(strncmp(err->msg, prefix, strlen(prefix)) == 0);
    REQUIRE(!strpbrk(err->msg, "\n\r"));
}

/* glibc's regcomp copies a subexpression for each '+' and up to n times for each {m,n},
 * and its closures grow with the square of the copies of optional parts: a pattern with
 * a score of '+', adjacent or nested ("a++++...", "((a+)+)+..."), or with nested
 * intervals takes it seconds to hours and gigabytes. That is a limit of the C library,
 * which a run's own regcomp shares, not of the parser: such inputs are skipped. */
static bool ready_regex_too_costly(const uint8_t *data, size_t size)
{
    json_t *root = json_loadb((const char *)data, size, 0, NULL);
    const char *pattern = json_string_value(json_object_get(json_object_get(root, "ready"), "log"));
    size_t plus = 0, len = pattern ? strlen(pattern) : 0;
    bool interval = false;
    for (size_t i = 0; i < len; i++) {
        plus += pattern[i] == '+';
        interval |= pattern[i] == '{';
    }
    json_decref(root);
    /* Up to 2^plus copies of at most len nodes each. */
    return interval || plus > 12 || (len << plus) > 4096;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ready_regex_too_costly(data, size))
        return -1; /* libFuzzer: not worth adding to the corpus */
    struct profile p;
    struct lb_error err = {{0}};
    if (profile_parse((const char *)data, size, profile_path, &p, &err) == 0)
        check_valid(&p);
    else
        check_invalid(&p, &err);
    /* Also after a failure: releasing what a failed parse left must be harmless. */
    profile_release(&p);
    return 0;
}
