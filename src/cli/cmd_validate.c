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
    "usage: loopbench validate PROFILE... [-f text|json] [--json]\n"
    "\n"
    "Load each profile and check it as a run would: every key and value, the config\n"
    "files it edits and the key paths inside them, the ready rule's regex, the argv\n"
    "placeholders. For a valid profile print what it says, defaults filled in: the\n"
    "command, the knob and how its values are applied, fixed settings, the ready rule,\n"
    "the health keys, how the target is stopped, the run defaults and about how long a\n"
    "campaign of them takes. Also checks that the command would start: a program in\n"
    "PATH, or a path to one relative to cwd.\n"
    "\n"
    "  -f, --format text|json     text (default), or each valid profile as one JSON\n"
    "                             object\n"
    "      --json                 the same as --format json\n"
    "  -h, --help                 show this help\n"
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
    /* '' for the empty argument; double quotes around single ones, where a shell reads
     * nothing else inside them */
    if (strchr(s, '\'') && !strpbrk(s, "\"$`\\!")) {
        printf("\"%s\"", s);
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
    /* what a run with these defaults costs, before anyone waits for it */
    double t = profile_estimate_s(p);
    char took[48];
    if (t < 120)
        snprintf(took, sizeof(took), "%.0f seconds", t);
    else if (t < 2 * 3600)
        snprintf(took, sizeof(took), "%.0f minutes", t / 60);
    else
        snprintf(took, sizeof(took), "%.1f hours", t / 3600);
    printf("  time         about %s: %zu runs (%zu settings x %ld), each %g s of warm-up and "
           "%g s of window, plus its start and stop\n",
           took, p->knob.values.n * (size_t)p->repeat, p->knob.values.n, p->repeat, p->warmup_s,
           p->sample_s);
    printf("  hash         %s\n", p->hash);
}

int cmd_validate(int argc, char **argv)
{
    static const enum cli_option accepts[] = {OPT_JSON, OPT_FORMAT, OPT_END};
    enum cli_format format = CLI_TEXT;
    int c;
    while ((c = cli_getopt(argc, argv, accepts)) != -1) {
        int status = c == OPT_JSON || c == OPT_FORMAT
                         ? cli_format("validate", c, optarg,
                                      CLI_FORMATS(CLI_TEXT) | CLI_FORMATS(CLI_JSON), &format)
                         : cli_bad_option("validate", argc, argv);
        if (status != LB_EXIT_OK)
            return status;
    }
    if (optind >= argc)
        return msg_usage_error("validate", "validate: expected PROFILE...");
    bool as_json = format == CLI_JSON;

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
        if (profile_check_command(&p, &err) < 0) {
            msg_error("%s", err.msg);
            status = LB_EXIT_USAGE;
            profile_release(&p);
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
