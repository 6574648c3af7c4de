/* loopbench validate PROFILE... [--json]: check profiles as a run would and say what
 * each one will do, so that a typo costs a second rather than a failed measurement. */
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "options.h"
#include "msg.h"
#include "profile.h"

const char cmd_validate_usage[] =
    "usage: loopbench validate [--json] PROFILE...\n"
    "\n"
    "Load each profile and check it as a run would: every key and value, the config\n"
    "files it edits and the key paths inside them, the ready rule's regex, the argv\n"
    "placeholders. For a valid profile print what it says, defaults filled in: the\n"
    "command, the knob and how its values are applied, fixed settings, the ready rule,\n"
    "the health keys, how the target is stopped and the run defaults.\n"
    "\n"
    "options:\n"
    "  --json   print each valid profile as one JSON object instead of text\n"
    "\n"
    "exit status: 0 every profile is valid, 2 any is invalid (one line each on stderr).\n"
    "See docs/profiles.md.\n";

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
        printf(" as a %s", profile_setter_type_name(s->type));
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
    if (p->pass_env.n) {
        fputs("  pass_env    ", stdout);
        for (size_t i = 0; i < p->pass_env.n; i++)
            printf(" %s", p->pass_env.v[i]);
        putchar('\n');
    }

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
        printf("  http         %s metrics from %s", metrics_format_name(p->endpoint.format),
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
        printf("%s is better%s)", profile_direction_name(h->better),
               h->must_be_zero ? ", must be zero" : "");
    }
    printf("\n  stop         %s, SIGKILL after %g s\n", profile_signal_name(p->stop_signal),
           p->stop_grace_s);
    printf("  defaults     warmup %g s, sample %g s, repeat %ld\n", p->warmup_s, p->sample_s,
           p->repeat);
    printf("  hash         %s\n", p->hash);
}

int cmd_validate(int argc, char **argv)
{
    static const enum cli_option accepts[] = {OPT_JSON, OPT_END};
    bool as_json = false;
    int c;
    opterr = 0;
    while ((c = cli_getopt(argc, argv, accepts)) != -1) {
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
            json_t *o = profile_to_json(&p);
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
