/* Target profiles: loading and validating the JSON file (docs/profiles.md).
 *
 * Validation is strict on purpose: a profile drives runs that take minutes each, so a
 * typo must fail at once, naming the file, the key path (knob.config.path[1]) and
 * what was expected, rather than surface as a run that measured the wrong thing. */
#include "profile.h"

#include <errno.h>
#include <math.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "setter.h"
#include "health.h"
#include "http.h"
#include "platform/platform.h"
#include "text.h"
#include "targetenv.h"
#include "window.h"

#define KP_MAX 256
#define LOOPBENCH_DIR "{loopbench_dir}"
#define VARIANT_DIR "{variant_dir}"

/* Most '+' and '{' a ready.log pattern may hold (see parse_ready). */
#define READY_LOG_COSTLY_MAX 12
#define READY_LOG_INTERVAL_MAX 100

/* Flags of get_string(). */
#define STR_REQUIRED 1
#define STR_NONEMPTY 2
/* A name reports print (a setting value, a label): no control character (text.h). */
#define STR_NAME 4

struct loader {
    const char *file; /* the profile as given, for messages */
    const char *dir;  /* where relative paths start: its directory, or its variant's, absolute */
    const char *variant_dir; /* a campaign variant's directory, absolute, or NULL */
    char *exe_dir;    /* found on the first {loopbench_dir} */
    char *real_file;  /* the profile's canonical path, found by the first config file */
    struct lb_error *err;
};

static const struct {
    const char *name;
    int sig;
} signals[] = {
    {"SIGTERM", SIGTERM}, {"SIGINT", SIGINT},   {"SIGHUP", SIGHUP},   {"SIGQUIT", SIGQUIT},
    {"SIGUSR1", SIGUSR1}, {"SIGUSR2", SIGUSR2}, {"SIGKILL", SIGKILL},
};

static const char *const setter_kind_names[] = {[SETTER_CONFIG] = "config",
                                                 [SETTER_ARGV] = "argv", [SETTER_ENV] = "env"};
static const char *const setter_type_names[] = {[SETTER_STRING] = "string",
                                                [SETTER_NUMBER] = "number"};
static const char *const ready_kind_names[] = {[READY_LOG] = "log", [READY_TCP] = "tcp",
                                               [READY_DELAY] = "delay", [READY_HTTP] = "http"};
static const char *const direction_names[] = {[LOWER_IS_BETTER] = "lower",
                                              [HIGHER_IS_BETTER] = "higher"};

static const char *const top_keys[] = {"name",    "description", "command",  "cwd",
                                       "env",     "pass_env",    "knob",     "fixed",
                                       "ready",   "rtt",         "http_metrics",
                                       "metrics", "stop",        "defaults", "budgets",
                                       "tune",    NULL};
static const char *const tune_keys[] = {"guards", NULL};
static const char *const knob_keys[] = {"name",   "label", "values", "baseline",
                                        "config", "argv",  "env",    NULL};
static const char *const fixed_keys[] = {"name", "value", "config", "argv", "env", NULL};
static const char *const config_keys[] = {"file", "path", "type", NULL};
static const char *const argv_keys[] = {"placeholder", NULL};
static const char *const ready_keys[] = {"log", "tcp", "http", "delay", "timeout", NULL};
static const char *const endpoint_keys[] = {"url", "format", "timeout", "interval", "values",
                                            NULL};
static const char *const endpoint_value_keys[] = {"key",  "series", "path",         "kind",
                                                  "label", "better", "must_be_zero", NULL};
static const char *const rtt_keys[] = {"tcp",     "send",        "expect",       "rate",
                                       "connections", "timeout", "connect_rate", NULL};
static const char *const metrics_keys[] = {"marker", "health", "primary", NULL};
static const char *const health_keys[] = {"key", "label", "better", "must_be_zero", NULL};
static const char *const budget_keys[] = {"setting", "key", "max", "min", NULL};
static const char *const stop_keys[] = {"signal", "grace", NULL};
static const char *const defaults_keys[] = {"warmup", "sample", "repeat", "log_limit",
                                             "hold_idle", NULL};

/* A profile's strings may hold control characters ("a\nb" is valid JSON), but an error
 * is one line: they are shown escaped (text_error_shown). */

static int fail(struct loader *ld, const char *kp, const char *fmt, ...) LB_PRINTF(3, 4);

static int fail(struct loader *ld, const char *kp, const char *fmt, ...)
{
    char what[LB_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (*kp)
        lb_fail(ld->err, "profile '%s': %s: %s", ld->file, kp, what);
    else
        lb_fail(ld->err, "profile '%s': %s", ld->file, what);
    return text_error_shown(ld->err);
}

/* Key paths name the place at fault as a user would find it: knob.config.path[1].
 * out = a b c, cut to KP_MAX: only a made-up env key can be that long, and a cut path
 * merely shortens a message. */
static void kp_join(char *out, const char *a, const char *b, const char *c)
{
    const char *parts[] = {a, b, c};
    size_t n = 0;
    for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
        size_t len = strlen(parts[i]);
        if (len > KP_MAX - 1 - n)
            len = KP_MAX - 1 - n;
        memcpy(out + n, parts[i], len);
        n += len;
    }
    out[n] = '\0';
}

static void kp_key(char *out, const char *kp, const char *key)
{
    kp_join(out, kp, *kp ? "." : "", key);
}

static void kp_index(char *out, const char *kp, size_t i)
{
    char index[32];
    snprintf(index, sizeof(index), "[%zu]", i);
    kp_join(out, kp, index, "");
}

/* v must be an object whose keys are all in known. */
static int check_object(struct loader *ld, json_t *v, const char *kp, const char *const *known)
{
    if (!json_is_object(v))
        return fail(ld, kp, "expected an object");
    const char *key;
    json_t *member;
    json_object_foreach(v, key, member) {
        size_t i;
        for (i = 0; known[i] && strcmp(known[i], key) != 0; i++)
            ;
        if (known[i])
            continue;
        const char *hint = text_closest(key, known);
        if (hint)
            return fail(ld, kp, "unknown key '%s' (did you mean '%s'?)", key, hint);
        return fail(ld, kp, "unknown key '%s'", key);
    }
    return 0;
}

/* obj.key as a checked object in *out, or NULL when absent and not required. */
static int get_object(struct loader *ld, json_t *obj, const char *kp, const char *key,
                      bool required, const char *const *known, json_t **out)
{
    char at[KP_MAX];
    *out = json_object_get(obj, key);
    if (!*out)
        return required ? fail(ld, kp, "missing key '%s'", key) : 0;
    kp_key(at, kp, key);
    return check_object(ld, *out, at, known);
}

/* obj.key, an optional array of objects, into *out (NULL when absent): -1 when it is
 * there and no array. */
static int get_array(struct loader *ld, json_t *obj, const char *key, json_t **out)
{
    *out = json_object_get(obj, key);
    return *out && !json_is_array(*out) ? fail(ld, key, "expected an array of objects") : 0;
}

/* root.key, an optional section the network serves (an object of the keys in known), into
 * *out (NULL when absent): -1 when it is malformed, or there and this build has no
 * network. */
static int get_network_section(struct loader *ld, json_t *root, const char *key,
                               const char *const *known, json_t **out)
{
    if (get_object(ld, root, "", key, false, known, out) < 0)
        return -1;
    return *out && !network_available() ? fail(ld, key, NETWORK_UNAVAILABLE) : 0;
}

/* A name with STR_NAME in flags holds no control character; -1 when it does. */
static int check_name(struct loader *ld, const char *at, int flags, const char *s)
{
    const char *bad = flags & STR_NAME ? text_control(s) : NULL;
    if (bad)
        return fail(ld, at, "'%s': a control character at byte %zu: expected printable text",
                    s, (size_t)(bad - s));
    return 0;
}

/* obj.key as a string borrowed from the document; *out is left alone when the key is
 * absent and optional, so callers preset the default. */
static int get_string(struct loader *ld, json_t *obj, const char *kp, const char *key, int flags,
                      const char **out)
{
    char at[KP_MAX];
    json_t *v = json_object_get(obj, key);
    if (!v)
        return (flags & STR_REQUIRED) ? fail(ld, kp, "missing key '%s'", key) : 0;
    kp_key(at, kp, key);
    bool nonempty = flags & STR_NONEMPTY;
    if (!json_is_string(v) || (nonempty && json_string_length(v) == 0))
        return fail(ld, at, "expected a %sstring", nonempty ? "non-empty " : "");
    if (check_name(ld, at, flags, json_string_value(v)) < 0)
        return -1;
    *out = json_string_value(v);
    return 0;
}

/* obj.key as a number > min (above) or >= min, and at most max (why: the reason for that
 * bound, NULL for none); *out keeps its default when absent. */
static int get_bounded(struct loader *ld, json_t *obj, const char *kp, const char *key, double min,
                       bool above, double max, const char *why, double *out)
{
    char at[KP_MAX];
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    kp_key(at, kp, key);
    const char *op = above ? ">" : ">=";
    if (!json_is_number(v))
        return fail(ld, at, "expected a number %s %g", op, min);
    double x = json_number_value(v);
    if (above ? !(x > min) : !(x >= min))
        return fail(ld, at, "expected a number %s %g, got %g", op, min, x);
    if (x > max)
        return fail(ld, at, "expected a number %s %g and at most %g, got %g (%s)", op, min, max, x,
                    why);
    *out = x;
    return 0;
}

static int get_number(struct loader *ld, json_t *obj, const char *kp, const char *key, double min,
                      bool above, double *out)
{
    return get_bounded(ld, obj, kp, key, min, above, INFINITY, NULL, out);
}

/* A duration in seconds: at most a day. */
#define DAY_REASON "a day: a longer one is a typo, and a campaign of them would outlast the host"
static int get_seconds(struct loader *ld, json_t *obj, const char *kp, const char *key, double min,
                       bool above, double *out)
{
    return get_bounded(ld, obj, kp, key, min, above, WINDOW_MAX_S, DAY_REASON, out);
}

/* obj.key as a required non-empty array of strings, each non-empty with STR_NONEMPTY in
 * flags, pushed onto sv (which the caller releases, also on failure). */
static int get_strings(struct loader *ld, json_t *obj, const char *kp, const char *key, int flags,
                       struct strv *sv)
{
    char at[KP_MAX], el[KP_MAX];
    json_t *v = json_object_get(obj, key);
    if (!v)
        return fail(ld, kp, "missing key '%s'", key);
    kp_key(at, kp, key);
    if (!json_is_array(v) || json_array_size(v) == 0)
        return fail(ld, at, "expected a non-empty array of strings");
    size_t i;
    json_t *e;
    bool nonempty = flags & STR_NONEMPTY;
    json_array_foreach(v, i, e) {
        kp_index(el, at, i);
        if (!json_is_string(e) || (nonempty && json_string_length(e) == 0))
            return fail(ld, el, "expected a %sstring", nonempty ? "non-empty " : "");
        if (check_name(ld, el, flags, json_string_value(e)) < 0)
            return -1;
        strv_push(sv, json_string_value(e));
    }
    return 0;
}

/* s with {loopbench_dir} and {variant_dir} expanded (new string, caller frees). */
static int expand(struct loader *ld, const char *kp, const char *s, char **out)
{
    if (strstr(s, VARIANT_DIR) && !ld->variant_dir)
        return fail(ld, kp, "'%s': %s is the directory of a campaign's variant (run --variant), "
                            "and this campaign has none", s, VARIANT_DIR);
    if (strstr(s, LOOPBENCH_DIR) && !ld->exe_dir) {
        struct lb_error e;
        ld->exe_dir = plat_exe_dir(&e);
        if (!ld->exe_dir)
            return fail(ld, kp, "%s", e.msg);
    }
    const char *from[] = {LOOPBENCH_DIR, VARIANT_DIR};
    const char *to[] = {ld->exe_dir ? ld->exe_dir : "", ld->variant_dir ? ld->variant_dir : ""};
    *out = setter_subst(s, from, to, 2, NULL);
    return 0;
}

/* The config file must be a JSON object holding every parent along the path: a typo
 * there would otherwise only show when the first run starts, or never, if the target
 * ignores settings it does not know. The leaf may be absent: targets add missing
 * settings with their defaults, so a fresh config file lacks them. */
/* Paths in a profile are taken literally, from the profile's directory: a '~' that a
 * shell would have expanded is a mistake worth naming. */
static int not_home_relative(struct loader *ld, const char *kp, const char *path)
{
    if (path[0] != '~')
        return 0;
    return fail(ld, kp,
                "'%s': a leading '~' is not expanded; give the path from the profile's "
                "directory '%s', or an absolute one",
                path, ld->dir);
}

static int check_config_file(struct loader *ld, const char *kp, const struct setter *s)
{
    char at[KP_MAX], seg[KP_MAX];
    struct lb_error e;
    char *text;
    size_t len;
    kp_key(at, kp, "file");
    /* Not a device or a FIFO, which could be read forever. */
    struct stat st;
    if (stat(s->file, &st) == 0 && !S_ISREG(st.st_mode))
        return fail(ld, at, "'%s' is not a regular file", s->file);
    /* Editing the profile itself would change what the campaign measures mid-way. */
    if (!ld->real_file)
        ld->real_file = plat_realpath(ld->file);
    char *real_file = plat_realpath(s->file);
    bool itself = real_file && ld->real_file && strcmp(real_file, ld->real_file) == 0;
    free(real_file);
    if (itself)
        return fail(ld, at, "'%s' is the profile itself: a setting cannot be written into it",
                    s->file);
    if (read_file(s->file, &text, &len, &e) < 0)
        return fail(ld, at, "%s", e.msg);
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    free(text);
    if (!doc)
        return fail(ld, at, "'%s' line %d column %d: %s", s->file, jerr.line, jerr.column,
                    jerr.text);
    int rc = 0;
    size_t bad;
    bool missing;
    if (!json_is_object(doc)) {
        rc = fail(ld, at, "'%s' is not a JSON object", s->file);
    } else if (!setter_json_parent(doc, s->key_path, s->key_depth, &bad, &missing)) {
        kp_key(at, kp, "path");
        kp_index(seg, at, bad);
        if (missing)
            rc = fail(ld, seg, "missing key '%s' in '%s'", s->key_path[bad], s->file);
        else
            rc = fail(ld, seg, "'%s' is not an object in '%s'", s->key_path[bad], s->file);
    }
    json_decref(doc);
    return rc;
}

static int parse_config_setter(struct loader *ld, json_t *cfg, const char *kp, struct setter *s)
{
    char at[KP_MAX], type_kp[KP_MAX];
    const char *file = NULL, *type = "string";
    struct strv path = {0};
    s->kind = SETTER_CONFIG;
    kp_key(at, kp, "config");
    if (check_object(ld, cfg, at, config_keys) < 0 ||
        get_string(ld, cfg, at, "file", STR_REQUIRED | STR_NONEMPTY, &file) < 0)
        return -1;
    int rc = get_strings(ld, cfg, at, "path", STR_NONEMPTY, &path);
    s->key_path = path.v;
    s->key_depth = path.n;
    if (rc < 0 || get_string(ld, cfg, at, "type", STR_NONEMPTY, &type) < 0)
        return -1;
    if (profile_setter_type_parse(type, &s->type) < 0) {
        kp_key(type_kp, at, "type");
        return fail(ld, type_kp, "expected 'string' or 'number', got '%s'", type);
    }
    char file_kp[KP_MAX];
    kp_key(file_kp, at, "file");
    if (not_home_relative(ld, file_kp, file) < 0)
        return -1;
    s->file = path_join(ld->dir, file);
    return check_config_file(ld, at, s);
}

/* The one setter of a knob or fixed setting (kp names it); an argv setter's
 * placeholder defaults to placeholder. */
static int parse_setter(struct loader *ld, json_t *obj, const char *kp, const char *placeholder,
                        struct setter *s)
{
    char at[KP_MAX];
    json_t *cfg = json_object_get(obj, "config");
    json_t *av = json_object_get(obj, "argv");
    json_t *env = json_object_get(obj, "env");
    if ((cfg != NULL) + (av != NULL) + (env != NULL) != 1)
        return fail(ld, kp, "expected exactly one of 'config', 'argv' or 'env'");
    if (cfg)
        return parse_config_setter(ld, cfg, kp, s);
    if (av) {
        s->kind = SETTER_ARGV;
        kp_key(at, kp, "argv");
        if (check_object(ld, av, at, argv_keys) < 0 ||
            get_string(ld, av, at, "placeholder", STR_NONEMPTY, &placeholder) < 0)
            return -1;
        s->placeholder = xstrdup(placeholder);
        return 0;
    }
    s->kind = SETTER_ENV;
    kp_key(at, kp, "env");
    if (!json_is_string(env))
        return fail(ld, at, "expected a variable name");
    if (!targetenv_name_valid(json_string_value(env)))
        return fail(ld, at, "invalid variable name '%s'", json_string_value(env));
    s->env_name = xstrdup(json_string_value(env));
    return 0;
}

/* With type number, every value must be a JSON number, or the first run would fail. */
static int check_number(struct loader *ld, const char *kp, const char *setter_kp,
                        const struct setter *s, const char *value)
{
    if (s->kind != SETTER_CONFIG || s->type != SETTER_NUMBER || setter_is_number(value))
        return 0;
    return fail(ld, kp, "'%s' is not a number (%s.config.type is 'number')", value, setter_kp);
}

static int parse_knob(struct loader *ld, json_t *root, struct knob *k)
{
    char at[KP_MAX];
    json_t *o;
    const char *name = NULL, *label = NULL, *baseline = NULL;
    if (get_object(ld, root, "", "knob", true, knob_keys, &o) < 0 ||
        get_string(ld, o, "knob", "name", STR_REQUIRED | STR_NONEMPTY | STR_NAME, &name) < 0 ||
        get_string(ld, o, "knob", "label", STR_NONEMPTY | STR_NAME, &label) < 0 ||
        get_strings(ld, o, "knob", "values", STR_NONEMPTY | STR_NAME, &k->values) < 0 ||
        get_string(ld, o, "knob", "baseline", STR_NONEMPTY | STR_NAME, &baseline) < 0)
        return -1;
    k->name = xstrdup(name);
    k->label = xstrdup(label ? label : name);
    for (size_t i = 1; i < k->values.n; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(k->values.v[i], k->values.v[j]) == 0) {
                kp_index(at, "knob.values", i);
                return fail(ld, at, "duplicate value '%s'", k->values.v[i]);
            }
        }
    }
    if (!baseline)
        baseline = k->values.v[0];
    size_t i;
    for (i = 0; i < k->values.n && strcmp(k->values.v[i], baseline) != 0; i++)
        ;
    if (i == k->values.n)
        return fail(ld, "knob.baseline", "'%s' is not one of knob.values", baseline);
    k->baseline = xstrdup(baseline);
    if (parse_setter(ld, o, "knob", "{value}", &k->set) < 0)
        return -1;
    for (i = 0; i < k->values.n; i++) {
        kp_index(at, "knob.values", i);
        if (check_number(ld, at, "knob", &k->set, k->values.v[i]) < 0)
            return -1;
    }
    return 0;
}

/* Element i of the array arr, at kp, names by key the string s: that no element before
 * it does (two fixed settings of one name, two health keys alike). */
static int check_unique(struct loader *ld, json_t *arr, size_t i, const char *kp, const char *key,
                        const char *s)
{
    for (size_t j = 0; j < i; j++) {
        const char *earlier = json_string_value(json_object_get(json_array_get(arr, j), key));
        if (earlier && strcmp(earlier, s) == 0) {
            char at[KP_MAX];
            kp_key(at, kp, key);
            return fail(ld, at, "duplicate %s '%s'", key, s);
        }
    }
    return 0;
}

static int parse_fixed_one(struct loader *ld, json_t *arr, size_t idx, const char *kp,
                           struct profile *p)
{
    char at[KP_MAX];
    json_t *o = json_array_get(arr, idx);
    struct fixed_setting *f = &p->fixed[idx];
    const char *name = NULL, *value = NULL;
    if (check_object(ld, o, kp, fixed_keys) < 0 ||
        get_string(ld, o, kp, "name", STR_REQUIRED | STR_NONEMPTY, &name) < 0 ||
        get_string(ld, o, kp, "value", STR_REQUIRED, &value) < 0 ||
        check_unique(ld, arr, idx, kp, "name", name) < 0)
        return -1;
    f->name = xstrdup(name);
    f->value = xstrdup(value);
    char *placeholder = xasprintf("{%s}", name);
    int rc = parse_setter(ld, o, kp, placeholder, &f->set);
    free(placeholder);
    if (rc < 0)
        return -1;
    kp_key(at, kp, "value");
    return check_number(ld, at, kp, &f->set, value);
}

static int parse_fixed(struct loader *ld, json_t *root, struct profile *p)
{
    char at[KP_MAX];
    json_t *v;
    if (get_array(ld, root, "fixed", &v) < 0)
        return -1;
    if (!v)
        return 0;
    p->n_fixed = json_array_size(v);
    p->fixed = xcalloc(p->n_fixed, sizeof(*p->fixed));
    for (size_t i = 0; i < p->n_fixed; i++) {
        kp_index(at, "fixed", i);
        if (parse_fixed_one(ld, v, i, at, p) < 0)
            return -1;
    }
    return 0;
}

/* Two settings writing the same place would make the knob's effect depend on the order
 * they are applied in. */
static bool same_target(const struct setter *a, const struct setter *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case SETTER_CONFIG:
        if (strcmp(a->file, b->file) != 0 || a->key_depth != b->key_depth)
            return false;
        for (size_t i = 0; i < a->key_depth; i++)
            if (strcmp(a->key_path[i], b->key_path[i]) != 0)
                return false;
        return true;
    case SETTER_ARGV:
        return strcmp(a->placeholder, b->placeholder) == 0;
    case SETTER_ENV:
        return strcmp(a->env_name, b->env_name) == 0;
    }
    return false;
}

static int check_conflicts(struct loader *ld, const struct profile *p)
{
    char at[KP_MAX];
    for (size_t i = 0; i < p->n_fixed; i++) {
        kp_index(at, "fixed", i);
        if (same_target(&p->fixed[i].set, &p->knob.set))
            return fail(ld, at, "sets the same target as knob");
        for (size_t j = 0; j < i; j++)
            if (same_target(&p->fixed[i].set, &p->fixed[j].set))
                return fail(ld, at, "sets the same target as fixed[%zu]", j);
    }
    return 0;
}

/* "host:port" or "[v6addr]:port". */
static int parse_hostport(const char *s, char **host, int *port)
{
    const char *colon = strrchr(s, ':');
    long n;
    if (!colon || colon == s || parse_long(colon + 1, 1, 65535, &n) < 0)
        return -1;
    const char *h = s;
    size_t hl = (size_t)(colon - s);
    if (h[0] == '[' && h[hl - 1] == ']') {
        h++;
        hl -= 2;
    }
    if (hl == 0)
        return -1;
    *host = xstrndup(h, hl);
    *port = (int)n;
    return 0;
}

static int parse_ready(struct loader *ld, json_t *root, struct ready_rule *r)
{
    json_t *o;
    if (get_object(ld, root, "", "ready", true, ready_keys, &o) < 0)
        return -1;
    json_t *log = json_object_get(o, "log"), *tcp = json_object_get(o, "tcp");
    json_t *delay = json_object_get(o, "delay"), *http = json_object_get(o, "http");
    if ((log != NULL) + (tcp != NULL) + (delay != NULL) + (http != NULL) != 1)
        return fail(ld, "ready", "expected exactly one of 'log', 'tcp', 'http' or 'delay'");
    r->timeout_s = 60;
    if (get_seconds(ld, o, "ready", "timeout", 0, true, &r->timeout_s) < 0)
        return -1;
    const char *s = NULL;
    if (delay) {
        r->kind = READY_DELAY;
        return get_seconds(ld, o, "ready", "delay", 0, false, &r->delay_s);
    }
    if (tcp) {
        r->kind = READY_TCP;
        if (get_string(ld, o, "ready", "tcp", STR_NONEMPTY, &s) < 0)
            return -1;
        if (parse_hostport(s, &r->host, &r->port) < 0)
            return fail(ld, "ready.tcp",
                        "expected 'host:port' with a port from 1 to 65535, got '%s'", s);
        return 0;
    }
    if (http) {
        r->kind = READY_HTTP;
        if (!network_available())
            return fail(ld, "ready.http", NETWORK_UNAVAILABLE);
        struct lb_error e;
        if (get_string(ld, o, "ready", "http", STR_NONEMPTY, &s) < 0)
            return -1;
        if (http_url_check("URL", s, &e) < 0)
            return fail(ld, "ready.http", "%s", e.msg);
        r->url = xstrdup(s);
        return 0;
    }
    r->kind = READY_LOG;
    if (get_string(ld, o, "ready", "log", STR_NONEMPTY, &s) < 0)
        return -1;
    /* glibc's regcomp copies the operand of each '+' and interval: compile time doubles
     * with each one (found by fuzzing; 22 took 14 s). A readiness line needs few. */
    size_t costly = 0;
    bool big_interval = false;
    for (const char *c = s; *c; c++) {
        costly += *c == '+' || *c == '{';
        if (*c == '{')
            for (const char *d = c + 1; *d && *d != '}'; d++)
                if (*d >= '0' && *d <= '9' && strtol(d, NULL, 10) > READY_LOG_INTERVAL_MAX)
                    big_interval = true;
    }
    if (costly > READY_LOG_COSTLY_MAX || big_interval)
        return fail(ld, "ready.log",
                    "more than %d '+' and '{', or an interval over %d, in '%s': the C "
                    "library compiles such patterns in exponential time",
                    READY_LOG_COSTLY_MAX, READY_LOG_INTERVAL_MAX, s);
    /* Compiled here only to reject it early; the run compiles its own. */
    struct plat_regex *re;
    struct lb_error e;
    if (plat_regex_compile(s, &re, &e) < 0)
        return fail(ld, "ready.log", "%s", e.msg);
    plat_regex_free(re);
    r->log_pattern = xstrdup(s);
    return 0;
}

/* Add a health key the profile did not declare itself (the rtt probe's, the endpoint's);
 * kp names where it came from, for a clash with a declared one. */
static int add_health(struct loader *ld, struct profile *p, const char *kp,
                      const struct health_key *h)
{
    for (size_t i = 0; i < p->n_health; i++)
        if (strcmp(p->health[i].key, h->key) == 0)
            return fail(ld, kp, "key '%s' is also a health key of the log or the rtt probe",
                        h->key);
    if (p->n_health == PROFILE_HEALTH_MAX)
        return fail(ld, kp, "key '%s': more than %d health keys in all", h->key,
                    PROFILE_HEALTH_MAX);
    p->health = xrealloc(p->health, (p->n_health + 1) * sizeof(*p->health));
    p->health[p->n_health++] = (struct health_key){
        .key = xstrdup(h->key),
        .label = xstrdup(h->label ? h->label : h->key),
        .better = h->better,
        .must_be_zero = h->must_be_zero,
    };
    return 0;
}

/* "lower" or "higher" at kp into *better. */
static int get_better(struct loader *ld, json_t *o, const char *kp, enum direction *better)
{
    const char *word = "lower";
    char at[KP_MAX];
    if (get_string(ld, o, kp, "better", 0, &word) < 0)
        return -1;
    if (profile_direction_parse(word, better) == 0)
        return 0;
    kp_key(at, kp, "better");
    return fail(ld, at, "expected 'lower' or 'higher', got '%s'", word);
}

static int get_flag(struct loader *ld, json_t *o, const char *kp, const char *key, bool *out)
{
    char at[KP_MAX];
    json_t *v = json_object_get(o, key);
    if (v && !json_is_boolean(v)) {
        kp_key(at, kp, key);
        return fail(ld, at, "expected true or false");
    }
    *out = json_is_true(v);
    return 0;
}

static int parse_endpoint_value(struct loader *ld, json_t *o, const char *kp,
                                struct metrics_select *sel, struct health_key *h)
{
    const char *key = NULL, *series = NULL, *kind = NULL, *label = NULL;
    char at[KP_MAX];
    struct lb_error e;
    struct strv path = {0};
    if (check_object(ld, o, kp, endpoint_value_keys) < 0 ||
        get_string(ld, o, kp, "key", STR_REQUIRED | STR_NONEMPTY | STR_NAME, &key) < 0 ||
        get_string(ld, o, kp, "series", STR_NONEMPTY, &series) < 0 ||
        get_string(ld, o, kp, "kind", STR_NONEMPTY, &kind) < 0 ||
        get_string(ld, o, kp, "label", STR_NONEMPTY | STR_NAME, &label) < 0 ||
        get_better(ld, o, kp, &h->better) < 0 ||
        get_flag(ld, o, kp, "must_be_zero", &h->must_be_zero) < 0)
        return -1;
    sel->key = xstrdup(key);
    if (json_object_get(o, "path")) {
        int rc = get_strings(ld, o, kp, "path", STR_NONEMPTY, &path);
        sel->json_path = path.v;
        sel->json_depth = path.n;
        if (rc < 0)
            return -1;
    }
    if (series && metrics_select_parse(series, sel, &e) < 0) {
        kp_key(at, kp, "series");
        return fail(ld, at, "%s", e.msg);
    }
    if (kind && metrics_kind_parse(kind, &sel->kind) < 0) {
        kp_key(at, kp, "kind");
        return fail(ld, at, "expected 'counter' or 'gauge', got '%s'", kind);
    }
    h->key = sel->key;
    h->label = (char *)label;
    return 0;
}

static int parse_http_metrics(struct loader *ld, json_t *root, struct profile *p)
{
    json_t *o;
    p->endpoint_interval_s = -1;
    if (get_network_section(ld, root, "http_metrics", endpoint_keys, &o) < 0)
        return -1;
    if (!o)
        return 0;
    struct metrics_endpoint *ep = &p->endpoint;
    const char *url = NULL, *format = "prometheus";
    json_t *values = json_object_get(o, "values");
    if (get_string(ld, o, "http_metrics", "url", STR_REQUIRED | STR_NONEMPTY, &url) < 0 ||
        get_string(ld, o, "http_metrics", "format", STR_NONEMPTY, &format) < 0 ||
        get_seconds(ld, o, "http_metrics", "timeout", 0, true, &ep->timeout_s) < 0 ||
        get_seconds(ld, o, "http_metrics", "interval", 0, false, &p->endpoint_interval_s) < 0)
        return -1;
    ep->url = xstrdup(url);
    if (metrics_format_parse(format, &ep->format) < 0)
        return fail(ld, "http_metrics.format", "expected 'prometheus' or 'json', got '%s'",
                    format);
    if (!json_is_array(values) || json_array_size(values) == 0)
        return fail(ld, "http_metrics.values", "expected a non-empty array of objects");
    ep->select = xcalloc(json_array_size(values), sizeof(*ep->select));
    struct health_key *keys = xcalloc(json_array_size(values), sizeof(*keys));
    size_t i;
    json_t *v;
    int rc = 0;
    json_array_foreach(values, i, v) {
        char at[KP_MAX];
        kp_index(at, "http_metrics.values", i);
        ep->n_select++;
        if (parse_endpoint_value(ld, v, at, &ep->select[i], &keys[i]) < 0) {
            rc = -1;
            break;
        }
    }
    struct lb_error e;
    if (rc == 0 && metrics_endpoint_check(ep, &e) < 0)
        rc = fail(ld, "http_metrics", "%s", e.msg);
    /* Each value is a health key: summarised, tabled, tested and gated like the log's. */
    for (size_t k = 0; rc == 0 && k < ep->n_select; k++) {
        char at[KP_MAX];
        kp_index(at, "http_metrics.values", k);
        rc = add_health(ld, p, at, &keys[k]);
    }
    free(keys);
    return rc;
}

/* A JSON string's bytes, which may hold NUL (new, with its length). */
static int get_bytes(struct loader *ld, json_t *o, const char *kp, const char *key, bool required,
                     char **out, size_t *len)
{
    const char *s = NULL;
    if (get_string(ld, o, kp, key, (required ? STR_REQUIRED : 0) | STR_NONEMPTY, &s) < 0)
        return -1;
    if (!s)
        return 0;
    json_t *v = json_object_get(o, key);
    *len = json_string_length(v);
    *out = xmalloc(*len + 1);
    memcpy(*out, json_string_value(v), *len + 1);
    return 0;
}

static int parse_rtt(struct loader *ld, json_t *root, struct profile *p)
{
    json_t *o;
    if (get_network_section(ld, root, "rtt", rtt_keys, &o) < 0)
        return -1;
    if (!o)
        return 0;
    struct rtt_opts *r = &p->rtt;
    const char *tcp = NULL;
    char *host = NULL, *send = NULL, *expect = NULL;
    double connections = 1;
    p->has_rtt = true;
    r->rate_per_s = 100;
    r->timeout_s = 1;
    if (get_string(ld, o, "rtt", "tcp", STR_REQUIRED | STR_NONEMPTY, &tcp) < 0)
        return -1;
    if (parse_hostport(tcp, &host, &r->port) < 0)
        return fail(ld, "rtt.tcp", "expected 'host:port' with a port from 1 to 65535, got '%s'",
                    tcp);
    r->host = host;
    if (get_bytes(ld, o, "rtt", "send", true, &send, &r->send_len) < 0)
        return -1;
    r->send = send;
    if (get_bytes(ld, o, "rtt", "expect", false, &expect, &r->expect_len) < 0)
        return -1;
    r->expect = expect;
    if (get_number(ld, o, "rtt", "rate", 0, true, &r->rate_per_s) < 0 ||
        get_number(ld, o, "rtt", "connections", 1, false, &connections) < 0 ||
        get_seconds(ld, o, "rtt", "timeout", 0, true, &r->timeout_s) < 0 ||
        get_number(ld, o, "rtt", "connect_rate", 0, false, &r->connect_rate_per_s) < 0)
        return -1;
    if (connections != floor(connections) || connections > 1024)
        return fail(ld, "rtt.connections", "expected a whole number from 1 to 1024");
    r->connections = (int)connections;
    /* rtt_start judges the rest (rate x timeout within bounds) the same way. */
    struct lb_error e;
    if (rtt_check(r, &e) < 0)
        return fail(ld, "", "%s", e.msg); /* "rtt: ..." */

    /* Its figures are health keys like any scraped one: tested, tabled and gated. */
    static const struct health_key keys[RTT_HEALTH_KEYS] = {
        {.key = RTT_KEY_P50, .label = "RTT p50"},
        {.key = RTT_KEY_P99, .label = "RTT p99"},
        {.key = RTT_KEY_FAILED, .label = "RTT failures", .must_be_zero = true},
    };
    for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
        if (add_health(ld, p, "metrics.health", &keys[k]) < 0)
            return -1;
    return 0;
}

static int parse_health(struct loader *ld, json_t *arr, struct profile *p)
{
    char at[KP_MAX];
    if (!json_is_array(arr))
        return fail(ld, "metrics.health", "expected an array of objects");
    if (json_array_size(arr) > PROFILE_HEALTH_MAX)
        return fail(ld, "metrics.health", "%zu keys: expected at most %d", json_array_size(arr),
                    PROFILE_HEALTH_MAX);
    p->n_health = json_array_size(arr);
    p->health = xcalloc(p->n_health, sizeof(*p->health));
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        struct health_key *h = &p->health[i];
        const char *key = NULL, *label = NULL;
        kp_index(at, "metrics.health", i);
        if (check_object(ld, o, at, health_keys) < 0 ||
            get_string(ld, o, at, "key", STR_REQUIRED | STR_NONEMPTY | STR_NAME, &key) < 0 ||
            get_string(ld, o, at, "label", STR_NONEMPTY | STR_NAME, &label) < 0 ||
            check_unique(ld, arr, i, at, "key", key) < 0)
            return -1;
        if (!scrape_is_key(key, strlen(key)))
            return fail(ld, at,
                        "key '%s': no KEY=VALUE token of a marker line can have it: "
                        "expected letters, digits, '_', '.' or '-' (no space, no "
                        "'='), at most %d characters",
                        key, SCRAPE_KEY_MAX - 1);
        h->key = xstrdup(key);
        h->label = xstrdup(label ? label : key);
        if (get_better(ld, o, at, &h->better) < 0 ||
            get_flag(ld, o, at, "must_be_zero", &h->must_be_zero) < 0)
            return -1;
    }
    return 0;
}

static int parse_metrics(struct loader *ld, json_t *root, struct profile *p)
{
    json_t *o;
    const char *marker = "loop: ";
    if (get_object(ld, root, "", "metrics", false, metrics_keys, &o) < 0)
        return -1;
    if (o && get_string(ld, o, "metrics", "marker", STR_NONEMPTY, &marker) < 0)
        return -1;
    p->marker = xstrdup(marker);
    json_t *health = o ? json_object_get(o, "health") : NULL;
    if (health && parse_health(ld, health, p) < 0)
        return -1;
    return o && json_object_get(o, "primary")
               ? get_strings(ld, o, "metrics", "primary", STR_NONEMPTY, &p->primary)
               : 0;
}

/* "tune": {"guards": ["KEY<=LIMIT", ...]} */
static int parse_tune(struct loader *ld, json_t *root, struct profile *p)
{
    json_t *o;
    if (get_object(ld, root, "", "tune", false, tune_keys, &o) < 0)
        return -1;
    return o ? get_strings(ld, o, "tune", "guards", STR_NONEMPTY, &p->tune_guards) : 0;
}

/* Every primary key is "cpu" or a health key: checked once the probe's and the
 * endpoint's keys have been added. */
static int check_primary(struct loader *ld, const struct profile *p)
{
    char at[KP_MAX];
    for (size_t i = 0; i < p->primary.n; i++) {
        const char *key = p->primary.v[i];
        bool known = strcmp(key, "cpu") == 0;
        for (size_t k = 0; k < p->n_health && !known; k++)
            known = strcmp(p->health[k].key, key) == 0;
        kp_index(at, "metrics.primary", i);
        if (!known)
            return fail(ld, at, "unknown key '%s' (expected 'cpu' or a health key)", key);
    }
    return 0;
}

/* budgets: each names a setting of the knob and "cpu" or a health key (so read after
 * the probe's and the endpoint's keys are added) and bounds it by max, min or both. */
static int parse_budgets(struct loader *ld, json_t *root, struct profile *p)
{
    char at[KP_MAX], sub[KP_MAX];
    json_t *arr;
    if (get_array(ld, root, "budgets", &arr) < 0)
        return -1;
    if (!arr)
        return 0;
    p->budgets = xcalloc(json_array_size(arr) + 1, sizeof(*p->budgets));
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o) {
        const char *setting = NULL, *key = NULL;
        double max = NAN, min = NAN;
        kp_index(at, "budgets", i);
        int name = STR_REQUIRED | STR_NONEMPTY | STR_NAME;
        if (check_object(ld, o, at, budget_keys) < 0 ||
            get_string(ld, o, at, "setting", name, &setting) < 0 ||
            get_string(ld, o, at, "key", name, &key) < 0)
            return -1;
        bool known = false, cpu = strcmp(key, "cpu") == 0;
        for (size_t v = 0; v < p->knob.values.n && !known; v++)
            known = strcmp(p->knob.values.v[v], setting) == 0;
        kp_key(sub, at, "setting");
        if (!known)
            return fail(ld, sub, "unknown setting '%s' (expected one of knob.values)", setting);
        known = cpu;
        for (size_t k = 0; k < p->n_health && !known; k++)
            known = strcmp(p->health[k].key, key) == 0;
        kp_key(sub, at, "key");
        if (!known)
            return fail(ld, sub, "unknown key '%s' (expected 'cpu' or a health key)", key);
        /* CPU is tested on logs: its bounds are above 0 */
        if (get_number(ld, o, at, "max", 0, cpu, &max) < 0 ||
            get_number(ld, o, at, "min", 0, cpu, &min) < 0)
            return -1;
        if (isnan(max) && isnan(min))
            return fail(ld, at, "expected a max, a min or both");
        if (min > max)
            return fail(ld, at, "min %g is above max %g: no value could be within", min, max);
        p->budgets[p->n_budgets++] =
            (struct profile_budget){xstrdup(setting), xstrdup(key), max, min};
    }
    return 0;
}

static int parse_stop(struct loader *ld, json_t *root, struct profile *p)
{
    json_t *o;
    p->stop_signal = SIGTERM;
    p->stop_grace_s = 10;
    if (get_object(ld, root, "", "stop", false, stop_keys, &o) < 0)
        return -1;
    if (!o)
        return 0;
    const char *name = NULL;
    if (get_string(ld, o, "stop", "signal", STR_NONEMPTY, &name) < 0 ||
        get_seconds(ld, o, "stop", "grace", 0, false, &p->stop_grace_s) < 0)
        return -1;
    if (!name)
        return 0;
    for (size_t i = 0; i < ARRAY_SIZE(signals); i++) {
        if (strcmp(signals[i].name, name) == 0 || strcmp(signals[i].name + 3, name) == 0) {
            p->stop_signal = signals[i].sig;
            return 0;
        }
    }
    return fail(ld, "stop.signal",
                "unknown signal '%s' (expected SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, "
                "SIGUSR2 or SIGKILL)",
                name);
}

int profile_log_limit_parse(const char *s, uint64_t *out)
{
    static const char suffixes[] = "kMG";
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long n = strtoull(s, &end, 10);
    unsigned shift = 0;
    const char *suffix = *end ? strchr(suffixes, *end) : NULL;
    if (suffix && end[1] == '\0')
        shift = 10 * (unsigned)(suffix - suffixes + 1);
    else if (*end)
        return -1;
    if (errno || n > (UINT64_MAX >> shift) || (n << shift) < CAPTURE_LIMIT_MIN)
        return -1;
    *out = (uint64_t)n << shift;
    return 0;
}

/* defaults.log_limit: bytes, as a whole number or a string with a k, M or G suffix. */
static int get_log_limit(struct loader *ld, json_t *o, uint64_t *out)
{
    json_t *v = json_object_get(o, "log_limit");
    if (!v)
        return 0;
    char text[32];
    if (json_is_integer(v) && json_integer_value(v) >= 0)
        snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
    else
        snprintf(text, sizeof(text), "%s", json_is_string(v) ? json_string_value(v) : "");
    if (profile_log_limit_parse(text, out) < 0)
        return fail(ld, "defaults.log_limit", "expected bytes from %llu, a whole number or a "
                    "string with a k, M or G suffix (\"64M\")", CAPTURE_LIMIT_MIN);
    return 0;
}

static int parse_defaults(struct loader *ld, json_t *root, struct profile *p)
{
    json_t *o;
    p->warmup_s = 45;
    p->sample_s = 60;
    p->repeat = 3;
    p->log_limit = CAPTURE_LIMIT_DEFAULT;
    if (get_object(ld, root, "", "defaults", false, defaults_keys, &o) < 0)
        return -1;
    if (!o)
        return 0;
    if (get_seconds(ld, o, "defaults", "warmup", 0, false, &p->warmup_s) < 0 ||
        get_seconds(ld, o, "defaults", "sample", 0, true, &p->sample_s) < 0 ||
        get_log_limit(ld, o, &p->log_limit) < 0)
        return -1;
    if (p->sample_s < WINDOW_MIN_S)
        return fail(ld, "defaults.sample",
                    "expected at least %g seconds, got %g (a shorter "
                    "window measures the CPU clock's resolution and the "
                    "sampler's own reads more than the target)",
                    WINDOW_MIN_S, p->sample_s);
    json_t *v = json_object_get(o, "hold_idle");
    if (v && !json_is_boolean(v))
        return fail(ld, "defaults.hold_idle", "expected true or false");
    p->hold_idle = json_is_true(v);
    v = json_object_get(o, "repeat");
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > REPEAT_MAX) {
        char got[64] = "";
        if (json_is_number(v))
            snprintf(got, sizeof(got), ", got %g", json_number_value(v));
        bool many = json_is_number(v) && json_number_value(v) > REPEAT_MAX;
        return fail(ld, "defaults.repeat", "expected a whole number from 1 to %d%s%s", REPEAT_MAX,
                    got,
                    many ? " (more runs per setting would take years even at the shortest "
                           "window)"
                         : "");
    }
    p->repeat = (long)json_integer_value(v);
    return 0;
}

static int parse_env(struct loader *ld, json_t *root, struct profile *p)
{
    char at[KP_MAX];
    json_t *o = json_object_get(root, "env");
    if (!o)
        return 0;
    if (!json_is_object(o))
        return fail(ld, "env", "expected an object of strings");
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        if (!targetenv_name_valid(key))
            return fail(ld, "env", "invalid variable name '%s'", key);
        if (!json_is_string(v)) {
            kp_key(at, "env", key);
            return fail(ld, at, "expected a string");
        }
        strv_push_owned(&p->env, xasprintf("%s=%s", key, json_string_value(v)));
    }
    return 0;
}

/* The variables of loopbench's environment the target is given besides the base
 * (targetenv.h): names, never a credential's. */
static int parse_pass_env(struct loader *ld, json_t *root, struct profile *p)
{
    if (!json_object_get(root, "pass_env"))
        return 0;
    if (get_strings(ld, root, "", "pass_env", STR_NONEMPTY, &p->pass_env) < 0)
        return -1;
    for (size_t i = 0; i < p->pass_env.n; i++) {
        char at[KP_MAX];
        struct lb_error e;
        kp_index(at, "pass_env", i);
        if (targetenv_check(p->pass_env.v[i], at, &e) < 0)
            return fail(ld, "", "%s", e.msg);
    }
    return 0;
}

/* The program must be named, but an argument may be empty: Redis keeps no snapshots
 * when told `--save ""`. */
static int parse_command(struct loader *ld, json_t *root, struct profile *p)
{
    char at[KP_MAX];
    struct strv raw = {0};
    int rc = get_strings(ld, root, "", "command", 0, &raw);
    if (rc == 0 && !*raw.v[0])
        rc = fail(ld, "command[0]", "expected a non-empty string, the program to run");
    for (size_t i = 0; rc == 0 && i < raw.n; i++) {
        char *arg;
        kp_index(at, "command", i);
        rc = expand(ld, at, raw.v[i], &arg);
        if (rc == 0)
            strv_push_owned(&p->command, arg);
    }
    strv_release(&raw);
    return rc;
}

/* The target starts there, so a missing directory is caught now, not at the first run. */
static int parse_cwd(struct loader *ld, json_t *root, struct profile *p)
{
    const char *cwd = ".";
    char *expanded;
    if (get_string(ld, root, "", "cwd", STR_NONEMPTY, &cwd) < 0 ||
        not_home_relative(ld, "cwd", cwd) < 0 || expand(ld, "cwd", cwd, &expanded) < 0)
        return -1;
    p->cwd = strcmp(expanded, ".") == 0 ? xstrdup(ld->dir) : path_join(ld->dir, expanded);
    free(expanded);
    struct stat st;
    if (stat(p->cwd, &st) < 0)
        return fail(ld, "cwd", "cannot access '%s': %s", p->cwd, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return fail(ld, "cwd", "'%s' is not a directory", p->cwd);
    return 0;
}

static char *default_name(const char *path)
{
    const char *base = path_basename(path);
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    return xstrndup(base, len);
}

static int parse_profile(struct loader *ld, json_t *root, struct profile *p)
{
    const char *name = NULL, *description = NULL;
    if (!json_is_object(root))
        return fail(ld, "", "expected a JSON object");
    if (check_object(ld, root, "", top_keys) < 0 ||
        get_string(ld, root, "", "name", STR_NONEMPTY | STR_NAME, &name) < 0 ||
        get_string(ld, root, "", "description", 0, &description) < 0)
        return -1;
    p->name = name ? xstrdup(name) : default_name(p->path);
    p->description = description ? xstrdup(description) : NULL;
    if (parse_command(ld, root, p) < 0 || parse_cwd(ld, root, p) < 0 ||
        parse_env(ld, root, p) < 0 || parse_pass_env(ld, root, p) < 0 ||
        parse_knob(ld, root, &p->knob) < 0 ||
        parse_fixed(ld, root, p) < 0 || parse_ready(ld, root, &p->ready) < 0 ||
        parse_metrics(ld, root, p) < 0 || parse_rtt(ld, root, p) < 0 ||
        parse_http_metrics(ld, root, p) < 0 || parse_stop(ld, root, p) < 0 ||
        parse_defaults(ld, root, p) < 0 || check_conflicts(ld, p) < 0 ||
        check_primary(ld, p) < 0 || parse_budgets(ld, root, p) < 0 ||
        parse_tune(ld, root, p) < 0)
        return -1;
    /* Every argv placeholder must occur in the command: setter_argv checks that. */
    struct strv argv = {0};
    struct lb_error e;
    int rc = setter_argv(p, p->knob.baseline, &argv, &e);
    strv_release(&argv);
    return rc < 0 ? fail(ld, "", "%s", e.msg) : 0;
}

/* The profile in text, its relative paths taken from variant_dir when there is one. */
static int parse_text(const char *text, size_t len, const char *path, const char *variant_dir,
                      struct profile *p, struct lb_error *err)
{
    memset(p, 0, sizeof(*p));
    /* A copy with a final NUL, as read_file gives, for results.json. */
    p->text = xmalloc(len + 1);
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    p->path = xstrdup(path);
    hash_fnv1a64_hex(p->text, len, p->hash);

    char *dir = path_dirname(path);
    p->dir = plat_realpath(dir);
    free(dir);
    if (!p->dir) {
        lb_fail_errno(err, errno, "profile '%s': cannot resolve its directory", path);
        text_error_shown(err);
        profile_release(p);
        return -1;
    }

    json_error_t jerr;
    json_t *root = json_loadb(p->text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        lb_fail(err, "profile '%s' line %d column %d: %s", path, jerr.line, jerr.column, jerr.text);
        text_error_shown(err);
        profile_release(p);
        return -1;
    }
    char *anchor = variant_dir ? plat_realpath(variant_dir) : NULL;
    int rc = -1;
    if (variant_dir && !anchor) {
        lb_fail_errno(err, errno, "variant directory '%s'", variant_dir);
    } else {
        struct loader ld = {.file = path, .dir = anchor ? anchor : p->dir, .variant_dir = anchor,
                            .err = err};
        rc = parse_profile(&ld, root, p);
        free(ld.exe_dir);
        free(ld.real_file);
    }
    free(anchor);
    json_decref(root);
    if (rc < 0)
        profile_release(p);
    return rc;
}

int profile_parse(const char *text, size_t len, const char *path, struct profile *p,
                  struct lb_error *err)
{
    return parse_text(text, len, path, NULL, p, err);
}

int profile_load_variant(const char *path, const char *variant_dir, struct profile *p,
                         struct lb_error *err)
{
    char *text;
    size_t len;
    memset(p, 0, sizeof(*p));
    if (read_file(path, &text, &len, err) < 0)
        return -1;
    int rc = parse_text(text, len, path, variant_dir, p, err);
    free(text);
    return rc;
}

int profile_load(const char *path, struct profile *p, struct lb_error *err)
{
    return profile_load_variant(path, NULL, p, err);
}

static void setter_release(struct setter *s)
{
    free(s->file);
    for (size_t i = 0; i < s->key_depth; i++)
        free(s->key_path[i]);
    free(s->key_path);
    free(s->placeholder);
    free(s->env_name);
}

void profile_release(struct profile *p)
{
    free(p->path);
    free(p->dir);
    free(p->name);
    free(p->description);
    strv_release(&p->command);
    free(p->cwd);
    strv_release(&p->env);
    strv_release(&p->pass_env);
    free(p->knob.name);
    free(p->knob.label);
    strv_release(&p->knob.values);
    free(p->knob.baseline);
    setter_release(&p->knob.set);
    for (size_t i = 0; i < p->n_fixed; i++) {
        free(p->fixed[i].name);
        free(p->fixed[i].value);
        setter_release(&p->fixed[i].set);
    }
    free(p->fixed);
    FREE_ALL(p->ready.log_pattern, p->ready.host, p->ready.url, (char *)p->rtt.host,
             (char *)p->rtt.send, (char *)p->rtt.expect);
    metrics_endpoint_release(&p->endpoint);
    free(p->marker);
    strv_release(&p->primary);
    strv_release(&p->tune_guards);
    for (size_t i = 0; i < p->n_budgets; i++) {
        free(p->budgets[i].setting);
        free(p->budgets[i].key);
    }
    free(p->budgets);
    for (size_t i = 0; i < p->n_health; i++) {
        free(p->health[i].key);
        free(p->health[i].label);
    }
    free(p->health);
    free(p->text);
    memset(p, 0, sizeof(*p));
}

const char *profile_setter_kind_name(enum setter_kind k)
{
    return name_of(setter_kind_names, ARRAY_SIZE(setter_kind_names), (size_t)k);
}

ENUM_WORDS(enum setter_type, setter_type_names, profile_setter_type_name, profile_setter_type_parse)

const char *profile_ready_kind_name(enum ready_kind k)
{
    return name_of(ready_kind_names, ARRAY_SIZE(ready_kind_names), (size_t)k);
}

ENUM_WORDS(enum direction, direction_names, profile_direction_name, profile_direction_parse)

const char *profile_signal_name(int sig)
{
    for (size_t i = 0; i < ARRAY_SIZE(signals); i++)
        if (signals[i].sig == sig)
            return signals[i].name;
    return NULL;
}

/* ---- the profile as JSON ------------------------------------------------------------ */

/* Whole seconds print as integers: 45, not 45.0. */
static json_t *seconds_json(double x)
{
    if (x == floor(x) && fabs(x) < 1e15)
        return json_integer((json_int_t)x);
    return json_real(x);
}

static json_t *strings_json(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

/* The setter under its profile key ("config", "argv" or "env") in obj. */
static void setter_json(json_t *obj, const struct setter *s)
{
    json_t *v;
    switch (s->kind) {
    case SETTER_CONFIG:
        v = json_pack("{s:s, s:o, s:s}", "file", s->file, "path",
                      strings_json(s->key_path, s->key_depth), "type",
                      profile_setter_type_name(s->type));
        break;
    case SETTER_ARGV:
        v = json_pack("{s:s}", "placeholder", s->placeholder);
        break;
    default:
        v = json_string(s->env_name);
        break;
    }
    json_object_set_new(obj, profile_setter_kind_name(s->kind), v);
}

static json_t *env_json(const struct strv *env)
{
    json_t *o = json_object();
    for (size_t i = 0; i < env->n; i++) {
        const char *eq = strchr(env->v[i], '=');
        char *name = xstrndup(env->v[i], (size_t)(eq - env->v[i]));
        json_object_set_new(o, name, json_string(eq + 1));
        free(name);
    }
    return o;
}

static json_t *knob_json(const struct knob *k)
{
    json_t *o = json_pack("{s:s, s:s, s:o, s:s}", "name", k->name, "label", k->label, "values",
                          strings_json(k->values.v, k->values.n), "baseline", k->baseline);
    setter_json(o, &k->set);
    return o;
}

static json_t *fixed_json(const struct profile *p)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->n_fixed; i++) {
        json_t *f = json_pack("{s:s, s:s}", "name", p->fixed[i].name, "value", p->fixed[i].value);
        setter_json(f, &p->fixed[i].set);
        json_array_append_new(a, f);
    }
    return a;
}

/* The rule under its profile key ("log", "tcp", "delay" or "http"), and its timeout. */
static json_t *ready_json(const struct ready_rule *r)
{
    json_t *v;
    char *hp;
    switch (r->kind) {
    case READY_LOG:
        v = json_string(r->log_pattern);
        break;
    case READY_TCP:
        hp = format_hostport(r->host, r->port);
        v = json_string(hp);
        free(hp);
        break;
    case READY_HTTP:
        v = json_string(r->url);
        break;
    default:
        v = seconds_json(r->delay_s);
        break;
    }
    json_t *o = json_object();
    json_object_set_new(o, profile_ready_kind_name(r->kind), v);
    json_object_set_new(o, "timeout", seconds_json(r->timeout_s));
    return o;
}

static json_t *health_key_json(const struct health_key *h)
{
    return json_pack("{s:s, s:s, s:s, s:b}", "key", h->key, "label", h->label, "better",
                     profile_direction_name(h->better), "must_be_zero",
                     h->must_be_zero);
}

static json_t *rtt_json(const struct rtt_opts *q)
{
    char *hp = format_hostport(q->host, q->port);
    json_t *o = json_pack("{s:s, s:s%, s:o, s:i, s:o, s:o}", "tcp", hp, "send", q->send,
                          q->send_len, "rate", seconds_json(q->rate_per_s), "connections",
                          q->connections, "timeout", seconds_json(q->timeout_s), "connect_rate",
                          seconds_json(q->connect_rate_per_s));
    free(hp);
    if (q->expect)
        json_object_set_new(o, "expect", json_stringn(q->expect, q->expect_len));
    return o;
}

/* The endpoint's values were added last to the health keys (after the rtt probe's), in
 * their order. */
static json_t *http_metrics_json(const struct profile *p)
{
    const struct metrics_endpoint *ep = &p->endpoint;
    json_t *values = json_array();
    for (size_t i = 0; i < ep->n_select; i++) {
        const struct metrics_select *sel = &ep->select[i];
        json_t *v = health_key_json(&p->health[p->n_health - ep->n_select + i]);
        if (ep->format == METRICS_JSON) {
            json_object_set_new(v, "path", strings_json(sel->json_path, sel->json_depth));
        } else {
            char *series = metrics_select_text(ep, i);
            json_object_set_new(v, "series", json_string(series));
            free(series);
        }
        if (sel->kind != METRICS_KIND_AUTO)
            json_object_set_new(v, "kind", json_string(metrics_kind_name(sel->kind)));
        json_array_append_new(values, v);
    }
    json_t *o = json_pack("{s:s, s:s, s:o}", "url", ep->url, "format",
                          metrics_format_name(ep->format), "values", values);
    if (ep->timeout_s > 0)
        json_object_set_new(o, "timeout", seconds_json(ep->timeout_s));
    if (p->endpoint_interval_s >= 0)
        json_object_set_new(o, "interval", seconds_json(p->endpoint_interval_s));
    return o;
}

/* The keys profile_to_json writes, and "document", the profile's own text parsed. */
static const char *const section_keys[] = {
    "name",     "path", "hash",         "description", "command",  "cwd",      "env",
    "pass_env", "knob", "fixed",        "ready",       "marker",   "health",   "primary",
    "budgets",  "rtt",  "http_metrics", "stop",        "defaults", "document", NULL};

/* A new object of o's keys that are among keys, in o's order. */
static json_t *known_keys(json_t *o, const char *const *keys)
{
    json_t *known = json_object();
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        for (size_t i = 0; keys[i]; i++)
            if (strcmp(key, keys[i]) == 0) {
                json_object_set(known, key, v);
                break;
            }
    }
    return known;
}

json_t *profile_section_known(json_t *section)
{
    json_t *known = known_keys(section, section_keys);
    json_t *doc = json_object_get(known, "document");
    if (json_is_object(doc))
        json_object_set_new(known, "document", known_keys(doc, top_keys));
    return known;
}

json_t *profile_to_json(const struct profile *p)
{
    char hash[32];
    snprintf(hash, sizeof(hash), "fnv1a64:%s", p->hash);
    json_t *o = json_pack("{s:s, s:s, s:s}", "name", p->name, "path", p->path, "hash", hash);
    if (p->description)
        json_object_set_new(o, "description", json_string(p->description));
    json_object_set_new(o, "command", strings_json(p->command.v, p->command.n));
    json_object_set_new(o, "cwd", json_string(p->cwd));
    json_object_set_new(o, "env", env_json(&p->env));
    if (p->pass_env.n)
        json_object_set_new(o, "pass_env", strings_json(p->pass_env.v, p->pass_env.n));
    json_object_set_new(o, "knob", knob_json(&p->knob));
    json_object_set_new(o, "fixed", fixed_json(p));
    json_object_set_new(o, "ready", ready_json(&p->ready));
    json_object_set_new(o, "marker", json_string(p->marker));
    json_t *health = json_array();
    for (size_t i = 0; i < p->n_health; i++)
        json_array_append_new(health, health_key_json(&p->health[i]));
    json_object_set_new(o, "health", health);
    if (p->primary.n)
        json_object_set_new(o, "primary", strings_json(p->primary.v, p->primary.n));
    if (p->n_budgets) {
        json_t *budgets = json_array();
        for (size_t i = 0; i < p->n_budgets; i++) {
            const struct profile_budget *b = &p->budgets[i];
            json_t *v = json_pack("{s:s, s:s}", "setting", b->setting, "key", b->key);
            if (!isnan(b->max))
                json_object_set_new(v, "max", json_real(b->max));
            if (!isnan(b->min))
                json_object_set_new(v, "min", json_real(b->min));
            json_array_append_new(budgets, v);
        }
        json_object_set_new(o, "budgets", budgets);
    }
    if (p->has_rtt)
        json_object_set_new(o, "rtt", rtt_json(&p->rtt));
    if (p->endpoint.n_select)
        json_object_set_new(o, "http_metrics", http_metrics_json(p));
    json_object_set_new(o, "stop",
                        json_pack("{s:s, s:o}", "signal", profile_signal_name(p->stop_signal),
                                  "grace", seconds_json(p->stop_grace_s)));
    json_object_set_new(o, "defaults",
                        json_pack("{s:o, s:o, s:I, s:I}", "warmup", seconds_json(p->warmup_s),
                                  "sample", seconds_json(p->sample_s), "repeat",
                                  (json_int_t)p->repeat, "log_limit", (json_int_t)p->log_limit));
    if (p->hold_idle) /* absent: the CPUs idle freely */
        json_object_set_new(json_object_get(o, "defaults"), "hold_idle", json_true());
    return o;
}

int profile_check_command(const struct profile *p, struct lb_error *err)
{
    const char *program = p->command.v[0];
    if (strchr(program, '{'))
        return 0;
    int rc = plat_program_check(program, p->cwd);
    if (rc == 0)
        return 0;
    bool bare = !strpbrk(program, "/\\");
    if (rc == EACCES)
        return lb_fail(err, "profile '%s': command[0]: '%s' %s is not an executable file", p->path,
                       program, bare ? "in PATH" : "(relative to its cwd)");
    if (bare)
        return lb_fail(err,
                       "profile '%s': command[0]: '%s' is not found in PATH: expected a "
                       "program installed there, or a path to one",
                       p->path, program);
    return lb_fail(err,
                   "profile '%s': command[0]: '%s' does not exist relative to its cwd "
                   "'%s': expected the path of the program to start",
                   p->path, program, p->cwd);
}

double profile_estimate_s(const struct profile *p)
{
    return (double)p->knob.values.n * (double)p->repeat * (p->warmup_s + p->sample_s);
}

/* ---- what the profile makes of a value ---------------------------------------------- */

const struct setter *setter_at(const struct profile *p, size_t i, const char *knob_value,
                               const char **value)
{
    if (i < p->n_fixed) {
        *value = p->fixed[i].value;
        return &p->fixed[i].set;
    }
    *value = knob_value;
    return &p->knob.set;
}

int setter_argv(const struct profile *p, const char *value, struct strv *argv, struct lb_error *err)
{
    size_t cap = p->n_fixed + 1, n = 0;
    const char **from = xcalloc(cap, sizeof(*from));
    const char **to = xcalloc(cap, sizeof(*to));
    size_t *owner = xcalloc(cap, sizeof(*owner));
    size_t *hits = xcalloc(cap, sizeof(*hits));
    for (size_t i = 0; i < cap; i++) {
        const char *v;
        const struct setter *s = setter_at(p, i, value, &v);
        if (s->kind != SETTER_ARGV)
            continue;
        from[n] = s->placeholder;
        to[n] = v;
        owner[n++] = i;
    }
    memset(argv, 0, sizeof(*argv));
    /* One pass over each element: a value that looks like a placeholder stays as is. */
    for (size_t i = 0; i < p->command.n; i++)
        strv_push_owned(argv, setter_subst(p->command.v[i], from, to, n, hits));
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        if (hits[k])
            continue;
        if (owner[k] == p->n_fixed)
            rc = lb_fail(err, "knob.argv.placeholder: '%s' occurs in no element of command",
                         from[k]);
        else
            rc = lb_fail(err, "fixed[%zu].argv.placeholder: '%s' occurs in no element of command",
                         owner[k], from[k]);
    }
    if (rc < 0)
        strv_release(argv);
    free(from);
    free(to);
    free(owner);
    free(hits);
    return rc;
}

/* Add NAME=VALUE, replacing an entry of the same name where it stands. Steals entry. */
static void env_put(struct strv *envp, char *entry)
{
    size_t nl = strcspn(entry, "=");
    for (size_t i = 0; i < envp->n; i++) {
        char *e = envp->v[i];
        if (strncmp(e, entry, nl) == 0 && (e[nl] == '=' || e[nl] == '\0')) {
            free(e);
            envp->v[i] = entry;
            return;
        }
    }
    strv_push_owned(envp, entry);
}

void setter_envp(const struct profile *p, const char *value, char *const *base, struct strv *envp)
{
    memset(envp, 0, sizeof(*envp));
    for (size_t i = 0; base && base[i]; i++)
        env_put(envp, xstrdup(base[i]));
    for (size_t i = 0; i < p->env.n; i++)
        env_put(envp, xstrdup(p->env.v[i]));
    for (size_t i = 0; i <= p->n_fixed; i++) {
        const char *v;
        const struct setter *s = setter_at(p, i, value, &v);
        if (s->kind == SETTER_ENV)
            env_put(envp, xasprintf("%s=%s", s->env_name, v));
    }
    /* execve() wants an array even when it is empty. */
    if (!envp->v) {
        envp->v = xcalloc(1, sizeof(*envp->v));
        envp->cap = 1;
    }
}
