/* loopbench validate PROFILE... [--json]: check profiles as a run would and say what
 * each one will do, so that a typo costs a second rather than a failed measurement. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "msg.h"
#include "profile.h"

#define USAGE                                                                                      \
    "usage: loopbench validate [--json] PROFILE...\n"                                              \
    "\n"                                                                                           \
    "Load each profile and check it as a run would: every key and value, the config\n"             \
    "files it edits and the key paths inside them, the ready rule's regex, the argv\n"             \
    "placeholders. For a valid profile print what it says, defaults filled in: the\n"              \
    "command, the knob and how its values are applied, fixed settings, the ready rule,\n"          \
    "the health keys, how the target is stopped and the run defaults.\n"                           \
    "\n"                                                                                           \
    "options:\n"                                                                                   \
    "  --json   print each valid profile as one JSON object instead of text\n"                     \
    "\n"                                                                                           \
    "exit status: 0 every profile is valid, 2 any is invalid (one line each on stderr).\n"         \
    "See docs/profiles.md.\n"

/* An argv element as a shell user would type it, quoted only when needed. */
static void print_arg(const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        "_@%+=:,./-{}") == strlen(s)) {
        fputs(s, stdout);
        return;
    }
    putchar('\'');
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*s);
    }
    putchar('\'');
}

static void print_key_path(const struct setter *s)
{
    for (size_t i = 0; i < s->key_depth; i++)
        printf("%s%s", i ? "/" : "", s->key_path[i]);
}

static void print_setter(const struct setter *s)
{
    switch (s->kind) {
    case SETTER_CONFIG:
        printf("config '%s' at ", s->file);
        print_key_path(s);
        printf(" as a %s", s->type == SETTER_NUMBER ? "number" : "string");
        break;
    case SETTER_ARGV:
        printf("argv placeholder '%s'", s->placeholder);
        break;
    case SETTER_ENV:
        printf("environment variable %s", s->env_name);
        break;
    }
}

static void print_summary(const struct profile *p)
{
    printf("profile '%s': ok\n", p->path);
    printf("  name         %s\n", p->name);
    if (p->description)
        printf("  description  %s\n", p->description);
    fputs("  command     ", stdout);
    for (size_t i = 0; i < p->command.n; i++) {
        putchar(' ');
        print_arg(p->command.v[i]);
    }
    printf("\n  cwd          %s\n", p->cwd);
    for (size_t i = 0; i < p->env.n; i++)
        printf("  %s  %s\n", i ? "           " : "env        ", p->env.v[i]);

    const struct knob *k = &p->knob;
    printf("  knob         %s", k->name);
    if (strcmp(k->label, k->name) != 0)
        printf(" (%s)", k->label);
    fputs(":", stdout);
    for (size_t i = 0; i < k->values.n; i++)
        printf(" %s", k->values.v[i]);
    printf(", baseline %s\n               set by ", k->baseline);
    print_setter(&k->set);
    putchar('\n');
    for (size_t i = 0; i < p->n_fixed; i++) {
        printf("  %s  %s = %s\n               set by ", i ? "           " : "fixed      ",
               p->fixed[i].name, p->fixed[i].value);
        print_setter(&p->fixed[i].set);
        putchar('\n');
    }

    const struct ready_rule *r = &p->ready;
    switch (r->kind) {
    case READY_LOG:
        printf("  ready        a log line matching '%s', within %g s\n", r->log_pattern,
               r->timeout_s);
        break;
    case READY_TCP:
        printf("  ready        a TCP connection to %s port %d, within %g s\n", r->host, r->port,
               r->timeout_s);
        break;
    case READY_DELAY:
        printf("  ready        after %g s\n", r->delay_s);
        break;
    case READY_HTTP:
        printf("  ready        a 2xx answer to GET %s, within %g s\n", r->url, r->timeout_s);
        break;
    }
    if (p->has_rtt) {
        const struct rtt_opts *q = &p->rtt;
        printf("  rtt          %g requests/s over %d connection%s to %s port %d, timeout %g s",
               q->rate_per_s, q->connections, q->connections == 1 ? "" : "s", q->host, q->port,
               q->timeout_s);
        if (q->connect_rate_per_s > 0)
            printf(", %g new connections/s timed", q->connect_rate_per_s);
        putchar('\n');
    }
    if (p->endpoint.n_select) {
        printf("  http         %s metrics from %s", p->endpoint.format == METRICS_JSON ? "JSON"
                                                                                    : "Prometheus",
               p->endpoint.url);
        if (p->endpoint_interval_s >= 0)
            printf(", every %g s", p->endpoint_interval_s);
        printf(":");
        for (size_t i = 0; i < p->endpoint.n_select; i++) {
            char *what = metrics_select_text(&p->endpoint, i);
            printf("%s%s = %s", i ? ";" : "", p->endpoint.select[i].key, what);
            free(what);
        }
        putchar('\n');
    }
    printf("  metrics      lines marked '%s'", p->marker);
    for (size_t i = 0; i < p->n_health; i++) {
        const struct health_key *h = &p->health[i];
        printf("%s%s (", i ? "; " : ", health ", h->key);
        if (strcmp(h->label, h->key) != 0)
            printf("%s, ", h->label);
        printf("%s is better%s)", h->better == HIGHER_IS_BETTER ? "higher" : "lower",
               h->must_be_zero ? ", must be zero" : "");
    }
    printf("\n  stop         %s, SIGKILL after %g s\n", profile_signal_name(p->stop_signal),
           p->stop_grace_s);
    printf("  defaults     warmup %g s, sample %g s, repeat %ld\n", p->warmup_s, p->sample_s,
           p->repeat);
    printf("  hash         %s\n", p->hash);
}

/* Whole seconds print as integers: 45, not 45.0. */
static json_t *js_seconds(double x)
{
    if (x == floor(x) && fabs(x) < 1e15)
        return json_integer((json_int_t)x);
    return json_real(x);
}

static json_t *js_strings(char *const *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

/* The setter under its profile key ("config", "argv" or "env") in obj. */
static void js_setter(json_t *obj, const struct setter *s)
{
    switch (s->kind) {
    case SETTER_CONFIG:
        json_object_set_new(obj, "config",
                            json_pack("{s:s, s:o, s:s}", "file", s->file, "path",
                                      js_strings(s->key_path, s->key_depth), "type",
                                      s->type == SETTER_NUMBER ? "number" : "string"));
        break;
    case SETTER_ARGV:
        json_object_set_new(obj, "argv", json_pack("{s:s}", "placeholder", s->placeholder));
        break;
    case SETTER_ENV:
        json_object_set_new(obj, "env", json_string(s->env_name));
        break;
    }
}

/* The profile in its own format with every default filled in and paths resolved. */
static json_t *js_profile(const struct profile *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "path", json_string(p->path));
    json_object_set_new(o, "hash", json_string(p->hash));
    json_object_set_new(o, "name", json_string(p->name));
    if (p->description)
        json_object_set_new(o, "description", json_string(p->description));
    json_object_set_new(o, "command", js_strings(p->command.v, p->command.n));
    json_object_set_new(o, "cwd", json_string(p->cwd));
    json_t *env = json_object();
    for (size_t i = 0; i < p->env.n; i++) {
        const char *eq = strchr(p->env.v[i], '=');
        char *name = xstrndup(p->env.v[i], (size_t)(eq - p->env.v[i]));
        json_object_set_new(env, name, json_string(eq + 1));
        free(name);
    }
    json_object_set_new(o, "env", env);

    const struct knob *k = &p->knob;
    json_t *knob = json_pack("{s:s, s:s, s:o, s:s}", "name", k->name, "label", k->label, "values",
                             js_strings(k->values.v, k->values.n), "baseline", k->baseline);
    js_setter(knob, &k->set);
    json_object_set_new(o, "knob", knob);
    json_t *fixed = json_array();
    for (size_t i = 0; i < p->n_fixed; i++) {
        json_t *f = json_pack("{s:s, s:s}", "name", p->fixed[i].name, "value", p->fixed[i].value);
        js_setter(f, &p->fixed[i].set);
        json_array_append_new(fixed, f);
    }
    json_object_set_new(o, "fixed", fixed);

    const struct ready_rule *r = &p->ready;
    json_t *ready = json_object();
    if (r->kind == READY_LOG) {
        json_object_set_new(ready, "log", json_string(r->log_pattern));
    } else if (r->kind == READY_TCP) {
        char *hp = format_hostport(r->host, r->port);
        json_object_set_new(ready, "tcp", json_string(hp));
        free(hp);
    } else if (r->kind == READY_HTTP) {
        json_object_set_new(ready, "http", json_string(r->url));
    } else {
        json_object_set_new(ready, "delay", js_seconds(r->delay_s));
    }
    json_object_set_new(ready, "timeout", js_seconds(r->timeout_s));
    json_object_set_new(o, "ready", ready);

    if (p->has_rtt) {
        const struct rtt_opts *q = &p->rtt;
        char *hp = format_hostport(q->host, q->port);
        json_t *rtt = json_pack("{s:s, s:s%, s:o, s:i, s:o, s:o}", "tcp", hp, "send", q->send,
                                q->send_len, "rate", js_seconds(q->rate_per_s), "connections",
                                q->connections, "timeout", js_seconds(q->timeout_s),
                                "connect_rate", js_seconds(q->connect_rate_per_s));
        if (q->expect)
            json_object_set_new(rtt, "expect", json_stringn(q->expect, q->expect_len));
        json_object_set_new(o, "rtt", rtt);
        free(hp);
    }
    /* The keys the rtt probe and the endpoint add (last, in that order) come back with
     * them, not as declared. */
    size_t declared = p->n_health - (p->has_rtt ? RTT_HEALTH_KEYS : 0) - p->endpoint.n_select;
    if (p->endpoint.n_select) {
        const struct metrics_endpoint *ep = &p->endpoint;
        json_t *values = json_array();
        for (size_t i = 0; i < ep->n_select; i++) {
            const struct metrics_select *sel = &ep->select[i];
            const struct health_key *h = &p->health[p->n_health - ep->n_select + i];
            json_t *v = json_pack("{s:s, s:s, s:s, s:b}", "key", sel->key, "label", h->label,
                                  "better", h->better == HIGHER_IS_BETTER ? "higher" : "lower",
                                  "must_be_zero", h->must_be_zero);
            if (ep->format == METRICS_JSON) {
                json_object_set_new(v, "path", js_strings(sel->json_path, sel->json_depth));
            } else {
                char *series = metrics_select_text(ep, i);
                json_object_set_new(v, "series", json_string(series));
                free(series);
            }
            if (sel->kind != METRICS_KIND_AUTO)
                json_object_set_new(v, "kind", json_string(metrics_kind_name(sel->kind)));
            json_array_append_new(values, v);
        }
        json_t *e = json_pack("{s:s, s:s, s:o}", "url", ep->url, "format",
                              ep->format == METRICS_JSON ? "json" : "prometheus", "values", values);
        if (ep->timeout_s > 0)
            json_object_set_new(e, "timeout", js_seconds(ep->timeout_s));
        if (p->endpoint_interval_s >= 0)
            json_object_set_new(e, "interval", js_seconds(p->endpoint_interval_s));
        json_object_set_new(o, "http_metrics", e);
    }
    json_t *health = json_array();
    for (size_t i = 0; i < declared; i++) {
        const struct health_key *h = &p->health[i];
        json_array_append_new(health, json_pack("{s:s, s:s, s:s, s:b}", "key", h->key, "label",
                                                h->label, "better",
                                                h->better == HIGHER_IS_BETTER ? "higher" : "lower",
                                                "must_be_zero", h->must_be_zero));
    }
    json_object_set_new(o, "metrics",
                        json_pack("{s:s, s:o}", "marker", p->marker, "health", health));
    json_object_set_new(o, "stop",
                        json_pack("{s:s, s:o}", "signal", profile_signal_name(p->stop_signal),
                                  "grace", js_seconds(p->stop_grace_s)));
    json_object_set_new(o, "defaults",
                        json_pack("{s:o, s:o, s:I}", "warmup", js_seconds(p->warmup_s), "sample",
                                  js_seconds(p->sample_s), "repeat", (json_int_t)p->repeat));
    return o;
}

static int validate_run(int argc, char **argv)
{
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    bool as_json = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (c != 'j')
            return cli_bad_option("validate", argc, argv);
        as_json = true;
    }
    if (optind >= argc)
        return msg_usage_error("validate", "validate: missing PROFILE argument");

    int status = LB_EXIT_OK;
    bool printed = false;
    for (int i = optind; i < argc; i++) {
        struct profile p;
        struct lb_error err;
        if (profile_load(argv[i], &p, &err) < 0) {
            msg_error("%s", err.msg);
            status = LB_EXIT_USAGE;
            continue;
        }
        if (as_json) {
            json_t *o = js_profile(&p);
            json_dumpf(o, stdout, JSON_INDENT(2));
            putchar('\n');
            json_decref(o);
        } else {
            if (printed)
                putchar('\n');
            print_summary(&p);
        }
        printed = true;
        profile_release(&p);
    }
    return status;
}

const struct command command_validate = {
    .name = "validate",
    .summary = "check profiles and show what each one will do",
    .usage = USAGE,
    .run = validate_run,
};
