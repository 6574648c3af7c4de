#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "commit.h"
#include "compare.h"
#include "compat.h"
#include "config.h"
#include "confedit.h"
#include "default_profile.h"
#include "document.h"
#include "endpoint.h"
#include "energy.h"
#include "hostcpus.h"
#include "http.h"
#include "lbversion.h"
#include "platform/files.h"
#include "progress.h"
#include "results.h"
#include "rtt.h"
#include "sampler.h"
#include "scrape.h"
#include "sequential.h"
#include "setter.h"
#include "steady.h"
#include "targetenv.h"
#include "text.h"

extern char **environ;

/* How often readiness is checked: often enough that a run does not wait noticeably
 * longer than the target takes to come up, rarely enough to cost nothing. */
#define READY_POLL_NS (50ULL * 1000 * 1000)
#define LOG_TAIL_LINES 10

enum step { STEP_OK = 0, STEP_FAILED, STEP_INTERRUPTED, STEP_ERROR };

/* splitmix64: small, seedable and good enough to shuffle a handful of settings; the
 * seed is recorded so a random order can be replayed. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Every cell once per round, in order or (random) shuffled within the round; grouped:
 * each cell's runs together. */
static void plan_runs(struct campaign *c)
{
    size_t cells = campaign_cells(c);
    c->n_runs = cells * (size_t)c->repeat;
    c->runs = xcalloc(c->n_runs, sizeof(*c->runs));
    size_t *round = xmalloc(cells * sizeof(*round));
    uint64_t state = c->seed;
    size_t k = 0;
    if (c->order == ORDER_GROUPED) {
        for (size_t i = 0; i < cells; i++)
            for (long rep = 1; rep <= c->repeat; rep++) {
                struct cell x = campaign_cell(c, i);
                c->runs[k].setting_index = x.setting;
                c->runs[k].variant_index = x.variant;
                c->runs[k++].repeat = rep;
            }
    } else {
        for (long rep = 1; rep <= c->repeat; rep++) {
            for (size_t i = 0; i < cells; i++)
                round[i] = i;
            if (c->order == ORDER_RANDOM) {
                for (size_t i = cells - 1; i > 0; i--) {
                    size_t j = (size_t)(next_random(&state) % (i + 1));
                    size_t tmp = round[i];
                    round[i] = round[j];
                    round[j] = tmp;
                }
            }
            for (size_t i = 0; i < cells; i++) {
                struct cell x = campaign_cell(c, round[i]);
                c->runs[k].setting_index = x.setting;
                c->runs[k].variant_index = x.variant;
                c->runs[k++].repeat = rep;
            }
        }
    }
    free(round);
    for (size_t i = 0; i < c->n_runs; i++) {
        const struct run_record *r = &c->runs[i];
        c->runs[i].dir = run_dir_name(c->n_variants ? c->variants[r->variant_index].name : NULL,
                                      c->values.v[r->setting_index], r->repeat);
    }
}

/* 1 when path does not exist or is an empty directory. */
static int dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT;
    int empty = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            empty = 0;
            break;
        }
    }
    closedir(d);
    return empty;
}

static int prepare_out_dir(struct campaign *c, const struct run_opts *o, struct lb_error *err)
{
    free(c->out_dir);
    if (o->resume_dir) {
        c->out_dir = xstrdup(o->resume_dir);
        return 0;
    }
    if (o->out_dir) {
        c->out_dir = xstrdup(o->out_dir);
    } else {
        char stamp[32];
        format_utc(c->started_wall_ns, true, stamp, sizeof(stamp));
        c->out_dir = xasprintf("results/%s-%s", c->profile.name, stamp);
    }
    if (!dir_is_empty(c->out_dir))
        return lb_fail(err,
                       "output directory '%s' exists and is not empty (choose another "
                       "with --output, or continue its campaign with --resume)",
                       c->out_dir);
    return mkdir_p(c->out_dir, 0777, err);
}

/* "exited with status 3", "was killed by signal 11 (Segmentation fault)" */
static char *describe_wstatus(int wstatus)
{
    if (WIFEXITED(wstatus))
        return xasprintf("exited with status %d", WEXITSTATUS(wstatus));
    if (WIFSIGNALED(wstatus))
        return xasprintf("was killed by signal %d (%s)%s", WTERMSIG(wstatus),
                         strsignal(WTERMSIG(wstatus)),
                         WCOREDUMP(wstatus) ? ", core dumped" : "");
    return xasprintf("stopped with wait status %d", wstatus);
}

/* The last `lines` lines of a file (new string, caller frees; NULL when empty). */
static char *file_tail(const char *path, int lines)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char buf[4096];
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0;
    ssize_t n = lseek(fd, from, SEEK_SET) == from ? read(fd, buf, sizeof(buf) - 1) : -1;
    close(fd);
    if (n <= 0)
        return NULL;
    size_t end = (size_t)n;
    while (end > 0 && buf[end - 1] == '\n')
        end--;
    buf[end] = '\0';
    size_t start = end;
    int seen = 0;
    while (start > 0) {
        if (buf[start - 1] == '\n' && ++seen == lines)
            break;
        start--;
    }
    return end > start ? xstrdup(buf + start) : NULL;
}

/* The tail is kept printable (text_printable), not raw: it goes to the terminal, to
 * results.json (whose strings must be UTF-8: raw bytes lost it whole) and from there
 * to whatever prints it; the raw bytes stay in the run's logs. */
static void record_tail(struct run_record *r, const char *stdout_path, const char *stderr_path)
{
    char *out = file_tail(stdout_path, LOG_TAIL_LINES);
    char *errs = file_tail(stderr_path, LOG_TAIL_LINES);
    if (out || errs) {
        char *raw = out && errs ? xasprintf("%s\n%s", out, errs) : xstrdup(out ? out : errs);
        r->log_tail = text_printable(raw);
        free(raw);
    }
    free(out);
    free(errs);
}

/* The target left on its own: record how, for the run's failure line. */
static enum step target_gone(struct run_record *r, const char *phase)
{
    char *how = describe_wstatus(r->wstatus);
    r->failure = xasprintf("the target %s during %s", how, phase);
    free(how);
    return STEP_FAILED;
}

struct run_paths {
    char *dir, *stdout_log, *stderr_log, *series;
};

/* A run in flight: its target, its files and what watches it. A round of a duet
 * campaign has one per cell at once, the other orders one at a time. */
struct slot {
    struct run_record *r;
    size_t index;               /* in the plan, for the progress line */
    const struct profile *prof;
    struct confedit *ce;
    const struct cpuset *cpus;  /* NULL: any */
    char label[128];
    struct run_paths rp;
    struct strv argv, envp;
    struct plat_target *t;
    struct plat_regex *ready_re;
    struct capture *cap;
    struct series_point *points;
    bool ready;
    enum step step;             /* how the run goes: STEP_OK while it may go on */
};

/* The targets still running that have exited on their own fail their runs. */
static void note_exits(struct slot *s, size_t n, const char *phase)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].step == STEP_OK && plat_target_exited(s[i].t, &s[i].r->wstatus) == 1) {
            s[i].r->exited = true;
            s[i].step = target_gone(s[i].r, phase);
        }
}

static bool any_going(const struct slot *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].step == STEP_OK)
            return true;
    return false;
}

/* Record in their journals what the targets still going wrote to their configs
 * (confedit_note_target; if_changed on a tick of the warm-up): a run whose journal
 * cannot be written fails. */
static void note_targets(struct slot *s, size_t n, bool if_changed, struct lb_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].step == STEP_OK && confedit_note_target(s[i].ce, if_changed, err) < 0)
            s[i].step = STEP_ERROR;
}

/* Wait for a phase of fixed length, watching the targets for their exit and for
 * interrupts, and what they write to their configs. Wakes once a second at most, for
 * the progress line. */
static enum step wait_phase(struct slot *s, size_t n, uint64_t ns, struct progress *p,
                            const char *phase, struct lb_error *err)
{
    uint64_t start = mono_ns(), deadline = start + ns;
    for (;;) {
        uint64_t now = mono_ns();
        if (now >= deadline || !any_going(s, n))
            return STEP_OK;
        uint64_t next = now + NS_PER_SEC < deadline ? now + NS_PER_SEC : deadline;
        enum plat_event ev = plat_wait_until(next);
        if (ev == PLAT_EVENT_INTERRUPT)
            return STEP_INTERRUPTED;
        if (ev == PLAT_EVENT_CHILD)
            note_exits(s, n, phase);
        note_targets(s, n, true, err);
        progress_tick(p, (double)(mono_ns() - start) / (double)ns);
    }
}

/* 1 when a GET of url answers 2xx within timeout_ms. */
static int http_ready(const char *url, long timeout_ms)
{
    struct http_request req = {.url = url, .timeout_ms = timeout_ms};
    struct http_response resp;
    struct lb_error e;
    int ok = http_request(&req, &resp, &e) == 0 && resp.status >= 200 && resp.status < 300;
    http_response_release(&resp);
    return ok;
}

static bool ready_now(const struct ready_rule *rule, struct capture *cap, uint64_t since_ns)
{
    switch (rule->kind) {
    case READY_LOG:
        return capture_ready(cap);
    case READY_TCP:
        return plat_tcp_accepting(rule->host, rule->port) == 1;
    case READY_DELAY:
        return mono_ns() - since_ns >= (uint64_t)(rule->delay_s * 1e9);
    case READY_HTTP:
        return http_ready(rule->url, 1000) == 1;
    }
    return false;
}

static char *describe_ready(const struct ready_rule *rule)
{
    switch (rule->kind) {
    case READY_LOG:
        return xasprintf("a log line matching '%s'", rule->log_pattern);
    case READY_TCP:
        return xasprintf("TCP connections accepted at %s:%d", rule->host, rule->port);
    case READY_DELAY:
        return xasprintf("a delay of %g s", rule->delay_s);
    case READY_HTTP: {
        char *shown = http_url_display(rule->url, false);
        char *what = xasprintf("2xx answer from GET %s", shown);
        free(shown);
        return what;
    }
    }
    return xstrdup("?");
}

/* The readiness rule's pattern (NULL for other rules), compiled before the capture that
 * tests each line against it is opened. */
static int ready_pattern(const struct profile *prof, struct plat_regex **re, struct lb_error *err)
{
    *re = NULL;
    if (prof->ready.kind != READY_LOG)
        return 0;
    struct lb_error e;
    if (plat_regex_compile(prof->ready.log_pattern, re, &e) < 0)
        return lb_fail(err, "profile '%s': ready.log: %s", prof->path, e.msg);
    return 0;
}

/* Until every target is ready, has failed to be, or an interrupt. Each is polled by its
 * profile's rule; one that takes too long or exits fails its own run. */
static enum step wait_ready(struct slot *s, size_t n)
{
    uint64_t start = mono_ns();
    enum step step = STEP_OK;
    for (bool waiting = true; waiting;) {
        waiting = false;
        uint64_t now = mono_ns();
        for (size_t i = 0; i < n; i++) {
            struct slot *x = &s[i];
            const struct ready_rule *rule = &x->prof->ready;
            if (x->step != STEP_OK || x->ready)
                continue;
            x->r->ready_s = (double)(now - start) / 1e9;
            x->ready = ready_now(rule, x->cap, start);
            /* A delay always ends ready; the other rules give up after their timeout. */
            if (!x->ready && rule->kind != READY_DELAY &&
                now - start >= (uint64_t)(rule->timeout_s * 1e9)) {
                char *what = describe_ready(rule);
                x->r->failure = xasprintf("the target was not ready after %g s: no %s",
                                          rule->timeout_s, what);
                free(what);
                x->step = STEP_FAILED;
            }
            waiting |= x->step == STEP_OK && !x->ready;
        }
        if (!waiting)
            break;
        enum plat_event ev = plat_wait_until(now + READY_POLL_NS);
        if (ev == PLAT_EVENT_INTERRUPT) {
            step = STEP_INTERRUPTED;
            break;
        }
        if (ev == PLAT_EVENT_CHILD)
            note_exits(s, n, "start-up, before it was ready");
    }
    for (size_t i = 0; i < n; i++)
        if (!s[i].ready)
            s[i].r->ready_s = (double)(mono_ns() - start) / 1e9;
    return step;
}

static int write_series(const char *path, const struct run_record *r,
                        const struct series_point *points, struct lb_error *err)
{
    FILE *f = plat_fopen_output(path);
    if (!f)
        return lb_fail_errno(err, errno, "cannot create '%s'", path);
    fputs("t_s,cpu_percent,rss_bytes,voluntary_per_s,involuntary_per_s,steal_percent\n", f);
    for (size_t i = 0; i < r->sample.n_points; i++) {
        const struct series_point *pt = &points[i];
        fprintf(f, "%.3f,%.4f,%llu,%.2f,%.2f,%.3f\n", pt->t_s, pt->cpu_percent,
                (unsigned long long)pt->rss_bytes, pt->voluntary_per_s, pt->involuntary_per_s,
                pt->steal_percent);
    }
    if (fclose(f) != 0)
        return lb_fail_errno(err, errno, "cannot write '%s'", path);
    return 0;
}

static void run_paths_init(struct run_paths *rp, const struct campaign *c,
                           const struct run_record *r)
{
    rp->dir = path_join(c->out_dir, r->dir);
    rp->stdout_log = path_join(rp->dir, "stdout.log");
    rp->stderr_log = path_join(rp->dir, "stderr.log");
    rp->series = path_join(rp->dir, "series.csv");
}

static void run_paths_release(struct run_paths *rp)
{
    free(rp->dir);
    free(rp->stdout_log);
    free(rp->stderr_log);
    free(rp->series);
}

/* The probe's figures as health values of the run (RTT_KEY_*), so that they are
 * summarised, tabled, tested and gated like the ones scraped from the log. */
static void record_rtt(struct run_record *r)
{
    const struct rtt_result *q = &r->rtt;
    struct scrape_value v = {.type = SCRAPE_DURATION_MS};
    if (histogram_count(&q->rtt) > 0) {
        snprintf(v.key, sizeof(v.key), "%s", RTT_KEY_P50);
        v.value = (double)histogram_percentile(&q->rtt, 50) / 1e6;
        scrape_run_add(&r->scrape, &v);
        snprintf(v.key, sizeof(v.key), "%s", RTT_KEY_P99);
        v.value = (double)histogram_percentile(&q->rtt, 99) / 1e6;
        scrape_run_add(&r->scrape, &v);
    }
    v.type = SCRAPE_NUMBER;
    snprintf(v.key, sizeof(v.key), "%s", RTT_KEY_FAILED);
    v.value = (double)(q->requests.errors + q->requests.timeouts);
    scrape_run_add(&r->scrape, &v);
}

/* Each endpoint value as a health value of the run: a counter's rate per second over
 * the window, a gauge's mean. */
static void record_endpoint(struct run_record *r, const struct metrics_endpoint *ep)
{
    const struct endpoint_result *e = &r->endpoint;
    for (size_t i = 0; i < e->n; i++) {
        const struct metrics_window_value *w = &e->values[i];
        double v = w->kind == METRICS_COUNTER ? w->rate_per_s : w->mean;
        if (!w->found || !isfinite(v))
            continue;
        struct scrape_value sv = {.type = SCRAPE_NUMBER, .value = v};
        snprintf(sv.key, sizeof(sv.key), "%s", ep->select[i].key);
        scrape_run_add(&r->scrape, &sv);
    }
}

/* How many targets a duet runs at once: the variants of a setting (each setting in turn),
 * or without variants every setting of the round. */
static size_t duet_width(const struct campaign *c)
{
    return c->n_variants ? c->n_variants : c->values.n;
}

/* Whether runs i and j of the plan run at once: in a duet, of one round and (with
 * variants) of one setting. */
static bool run_together(const struct campaign *c, size_t i, size_t j)
{
    const struct run_record *a = &c->runs[i], *b = &c->runs[j];
    return c->order == ORDER_DUET && a->repeat == b->repeat &&
           (!c->n_variants || a->setting_index == b->setting_index);
}

/* The CPUs run i's target is pinned to, NULL for any: --cpus; with --order duet the
 * slice of them its place in the round takes, turned by one every round so that each
 * cell runs on each slice in turn. */
static const struct cpuset *runner_cpus_of(const struct runner *rn, size_t i)
{
    const struct campaign *c = &rn->c;
    if (!rn->pinned)
        return NULL;
    if (c->order != ORDER_DUET)
        return &rn->target_cpus;
    const struct run_record *r = &c->runs[i];
    size_t at = c->n_variants ? r->variant_index : r->setting_index;
    return &rn->slices[(at + (size_t)r->repeat) % duet_width(c)];
}

/* The CPU series of a window's first n points (at most SAMPLER_MAX_POINTS_CHECKED):
 * steady, or why not (steady.h). */
static void series_steady(const struct series_point *points, size_t n, struct steady_verdict *v)
{
    double t[SAMPLER_MAX_POINTS_CHECKED], x[SAMPLER_MAX_POINTS_CHECKED];
    if (n > SAMPLER_MAX_POINTS_CHECKED)
        n = SAMPLER_MAX_POINTS_CHECKED;
    for (size_t i = 0; i < n; i++) {
        t[i] = points[i].t_s;
        x[i] = points[i].cpu_percent;
    }
    steady_check(t, x, n, v);
}

static void check_steady(struct run_record *r, const struct series_point *points)
{
    struct steady_verdict v;
    series_steady(points, r->sample.n_points, &v);
    r->steady_tested = r->sample.n_points >= STEADY_MIN_POINTS;
    r->steady = v.steady;
    free(r->unsteady);
    r->unsteady = v.steady ? NULL : xstrdup(v.reason);
}

/* --warmup auto: a window is abandoned, while there is warm-up left, as soon as what it
 * has sampled of any target is not steady (the target had not settled after all). */
struct window_watch {
    struct slot **in;
    size_t n;
    uint64_t until; /* monotonic: the warm-up's limit */
};

static bool window_changed(void *ctx, const struct sample_result *so_far, size_t n)
{
    const struct window_watch *w = ctx;
    if (mono_ns() >= w->until)
        return false;
    for (size_t i = 0; i < n && i < w->n; i++) {
        struct steady_verdict v;
        series_steady(w->in[i]->points, so_far[i].n_points, &v);
        if (!v.steady)
            return true;
    }
    return false;
}

/* --rotate: the swaps of the run's window and its time on each CPU set. */
static void record_rotation(struct run_record *r, const struct sampler_opts *so)
{
    char list[256];
    strv_release(&r->rotation.cpus);
    free(r->rotation.seconds);
    r->rotation.swaps = (long)r->sample.rotations;
    r->rotation.seconds = xcalloc(so->n_slices, sizeof(double));
    for (size_t k = 0; k < so->n_slices; k++) {
        cpuset_format(&so->slices[k], list, sizeof(list));
        strv_push(&r->rotation.cpus, list);
        r->rotation.seconds[k] = (double)r->sample.slice_ns[k] / 1e9;
    }
}

/* What the CPUs of in[j]'s target did over the window: those it ran on (rotating: all
 * the duet's; unpinned: all watched), less what the targets on them and loopbench, when
 * it shared them, used. */
static void record_host_cpus(const struct runner *rn, struct slot *const *in,
                             const struct sample_result *res, size_t k, size_t j,
                             const struct hostcpus *before, const struct hostcpus *after)
{
    const struct cpuset *on = in[j]->cpus && !(rn->c.rotate_s > 0 && rn->c.order == ORDER_DUET)
                                  ? in[j]->cpus
                                  : &rn->watch_cpus;
    uint64_t ours = rn->pin_self ? 0 : res[j].self_cpu_ns;
    for (size_t m = 0; m < k; m++)
        if (!in[m]->cpus || cpuset_within(in[m]->cpus, on))
            ours += res[m].cpu_ns;
    run_host_cpus_release(&in[j]->r->host_cpus);
    hostcpus_record(before, after, on, ours, res[j].wall_ns, &in[j]->r->host_cpus);
}

/* One window over the targets still going, together; each target's round-trip probe
 * and metrics endpoint run through it. STEP_ERROR (err set) when the CPU source cannot
 * be read; how each run's window ended is in its slot. Before abandon_until (monotonic),
 * a window that shows a change is given up (*abandoned): nothing of it is kept. */
static enum step sample_window(struct runner *rn, struct slot *s, size_t n, struct progress *p,
                               uint64_t abandon_until, bool *abandoned, struct lb_error *err)
{
    const struct campaign *c = &rn->c;
    struct slot *in[SAMPLER_MAX_TARGETS];
    struct plat_target *t[SAMPLER_MAX_TARGETS];
    struct sampler_opts so[SAMPLER_MAX_TARGETS];
    struct sample_result res[SAMPLER_MAX_TARGETS];
    struct rtt_probe *probe[SAMPLER_MAX_TARGETS] = {0};
    struct endpoint_window *endpoint[SAMPLER_MAX_TARGETS] = {0};
    struct window_watch watch = {in, 0, abandon_until};
    size_t k = 0;
    *abandoned = false;
    for (size_t i = 0; i < n; i++) {
        struct slot *x = &s[i];
        const struct profile *prof = x->prof;
        if (x->step != STEP_OK)
            continue;
        so[k] = (struct sampler_opts){
            .window_ns = (uint64_t)(c->sample_s * 1e9),
            .interval_ns = (uint64_t)c->interval_ms * 1000000ULL,
            .on_tick = k == 0 ? progress_tick : NULL,
            .tick_ctx = p,
            .abandon = abandon_until > mono_ns() ? window_changed : NULL,
            .abandon_ctx = &watch,
        };
        if (c->rotate_s > 0 && x->cpus) {
            /* the interval rounded so that each CPU set gets an equal share of the window */
            double turns = fmax(1, round(c->sample_s / ((double)duet_width(c) * c->rotate_s)));
            so[k].rotate_ns = (uint64_t)(c->sample_s * 1e9 / ((double)duet_width(c) * turns));
            so[k].slices = rn->slices;
            so[k].n_slices = duet_width(c);
            so[k].slice = (size_t)(x->cpus - rn->slices);
        }
        so[k].points_cap = sampler_points_needed(so[k].window_ns, so[k].interval_ns);
        free(x->points);
        x->points = xcalloc(so[k].points_cap, sizeof(*x->points));
        so[k].points = x->points;
        /* The round-trip probe runs through the window, in its own thread. */
        struct lb_error probe_err;
        if (prof->has_rtt && rtt_start(&prof->rtt, &probe[k], &probe_err) < 0) {
            x->r->failure = xasprintf("the round-trip probe could not start: %s", probe_err.msg);
            x->step = STEP_FAILED;
            continue;
        }
        /* So is the metrics endpoint, scraped at the edges and every interval between. */
        if (prof->endpoint.n_select) {
            double every = prof->endpoint_interval_s >= 0 ? prof->endpoint_interval_s
                                                          : c->interval_ms / 1000.0;
            endpoint[k] = endpoint_window_open(&prof->endpoint, (uint64_t)(every * 1e9));
        }
        t[k] = x->t;
        in[k++] = x;
    }
    if (k == 0)
        return STEP_OK;
    watch.n = k;
    progress_phase(p, in[0]->index, in[0]->label, "sample", c->sample_s);
    for (size_t j = 0; j < k; j++)
        capture_window_open(in[j]->cap);
    struct hostcpus before = {0}, after = {0};
    struct lb_error watch_err;
    bool watched = rn->watch && hostcpus_take(&rn->watch_cpus, &before, &watch_err) == 0;
    /* the packages' energy of a run in turn (a duet's is unavailable): one target */
    struct energy_reading energy_from;
    struct run_energy energy = {0};
    struct lb_error energy_err;
    bool metered = !c->energy_unavailable && energy_take(&energy_from, &energy_err) == 0;
    int sampled = sampler_run_many(t, k, so, res, err);
    metered = metered && sampled == 0 && energy_since(&energy_from, &energy, &energy_err) == 0;
    watched = watched && sampled == 0 && hostcpus_take(&rn->watch_cpus, &after, &watch_err) == 0;
    for (size_t j = 0; j < k; j++)
        *abandoned |= sampled == 0 && res[j].end == SAMPLE_ABANDONED;
    /* in a duet the other targets are not "other processes" of the host */
    for (size_t j = 0; j < k && sampled == 0; j++)
        for (size_t m = 0; m < k; m++)
            if (m != j)
                res[j].others_cpu_percent = fmax(0, res[j].others_cpu_percent - res[m].cpu_percent);
    for (size_t j = 0; j < k; j++) {
        struct slot *x = in[j];
        struct run_record *r = x->r;
        if (sampled == 0 && res[j].end == SAMPLE_ABANDONED) { /* the probes' figures too */
            struct rtt_result gone_rtt;
            struct endpoint_result gone_endpoint;
            if (probe[j]) {
                rtt_stop(probe[j], &gone_rtt);
                rtt_result_release(&gone_rtt);
            }
            if (endpoint[j]) {
                endpoint_window_close(endpoint[j], &gone_endpoint);
                endpoint_result_release(&gone_endpoint);
            }
            continue;
        }
        r->sample = res[j];
        capture_window_close(x->cap, r->sample.start_wall_ns, r->sample.end_wall_ns);
        if (so[j].rotate_ns)
            record_rotation(r, &so[j]);
        if (watched)
            record_host_cpus(rn, in, res, k, j, &before, &after);
        if (metered && k == 1) {
            run_energy_release(&r->energy);
            r->energy = energy;
            energy = (struct run_energy){0};
        }
        if (probe[j]) {
            rtt_stop(probe[j], &r->rtt);
            r->has_rtt = true;
            record_rtt(r);
        }
        if (endpoint[j]) {
            endpoint_window_close(endpoint[j], &r->endpoint);
            r->has_endpoint = true;
            record_endpoint(r, &x->prof->endpoint);
        }
        if (sampled < 0) {
            x->step = STEP_ERROR;
            continue;
        }
        /* The window's health lines are scraped once the target is gone (capture_finish). */
        r->sampled = true;
        check_steady(r, x->points);
        if (r->sample.end == SAMPLE_TARGET_EXITED) {
            r->exited = true;
            r->wstatus = r->sample.wstatus;
            x->step = target_gone(r, "the sample window");
        } else if (r->sample.end == SAMPLE_INTERRUPTED) {
            x->step = STEP_INTERRUPTED;
        }
    }
    hostcpus_release(&before);
    hostcpus_release(&after);
    run_energy_release(&energy);
    return sampled < 0 ? STEP_ERROR : STEP_OK;
}

/* --warmup auto: until the CPU of every target still going has been steady over the last
 * RUN_SETTLE_SPAN_NS (read every RUN_SETTLE_EVERY_NS), or until `until` (monotonic): then
 * *capped. */
static enum step settle(struct slot *s, size_t n, uint64_t until, bool *capped, struct progress *p,
                        struct lb_error *err)
{
    enum { KEEP = RUN_SETTLE_SPAN_NS / RUN_SETTLE_EVERY_NS + 1 };
    uint64_t when[KEEP], cpu[SAMPLER_MAX_TARGETS][KEEP];
    size_t have = 0;
    uint64_t start = mono_ns();
    for (uint64_t next = start;; next += RUN_SETTLE_EVERY_NS) {
        /* one more reading, the oldest dropped once there are KEEP */
        if (have == KEEP) {
            memmove(when, when + 1, (KEEP - 1) * sizeof(when[0]));
            for (size_t i = 0; i < n; i++)
                memmove(cpu[i], cpu[i] + 1, (KEEP - 1) * sizeof(cpu[i][0]));
            have--;
        }
        when[have] = mono_ns();
        for (size_t i = 0; i < n; i++) {
            struct lb_error e;
            if (s[i].step == STEP_OK && plat_target_cpu_ns(s[i].t, &cpu[i][have], &e) < 0)
                cpu[i][have] = have ? cpu[i][have - 1] : 0;
        }
        have++;
        bool settled = have == KEEP;
        for (size_t i = 0; i < n && settled; i++) {
            if (s[i].step != STEP_OK)
                continue;
            double t[KEEP], x[KEEP];
            for (size_t k = 1; k < KEEP; k++) {
                double dt = (double)(when[k] - when[k - 1]) / 1e9;
                t[k - 1] = (double)(when[k] - when[0]) / 1e9;
                x[k - 1] = dt > 0 ? (double)(cpu[i][k] - cpu[i][k - 1]) / 1e7 / dt : 0;
            }
            struct steady_verdict v;
            steady_check(t, x, KEEP - 1, &v);
            settled = v.steady;
        }
        *capped = !settled && mono_ns() >= until;
        if (settled || *capped || !any_going(s, n))
            return STEP_OK;
        enum plat_event ev = plat_wait_until(next + RUN_SETTLE_EVERY_NS);
        while (ev == PLAT_EVENT_CHILD) {
            note_exits(s, n, "warm-up");
            ev = plat_wait_until(next + RUN_SETTLE_EVERY_NS);
        }
        if (ev == PLAT_EVENT_INTERRUPT)
            return STEP_INTERRUPTED;
        note_targets(s, n, true, err);
        progress_tick(p, (double)(mono_ns() - start) / (double)(until - start));
    }
}

/* Warm up, then sample one window: a fixed warm-up, or (--warmup auto) until the
 * targets have settled, the window given up and the targets waited for again when it
 * shows a change while the warm-up's limit is not reached. */
static enum step warm_and_sample(struct runner *rn, struct slot *s, size_t n, struct progress *p,
                                 struct lb_error *err)
{
    const struct campaign *c = &rn->c;
    uint64_t start = mono_ns(), limit = start + (uint64_t)(c->warmup_s * 1e9);
    enum step step = STEP_OK;
    bool abandoned = true, capped = false;
    for (long restarts = 0; step == STEP_OK && abandoned && any_going(s, n); restarts++) {
        progress_phase(p, s[0].index, s[0].label, c->warmup_auto ? "warm-up (auto)" : "warm-up",
                       c->warmup_s);
        step = c->warmup_auto ? settle(s, n, limit, &capped, p, err)
                              : wait_phase(s, n, (uint64_t)(c->warmup_s * 1e9), p, "warm-up", err);
        for (size_t i = 0; i < n; i++) {
            s[i].r->warmup_s = (double)(mono_ns() - start) / 1e9;
            s[i].r->window_restarts = restarts;
            s[i].r->warmup_capped = capped;
        }
        if (step != STEP_OK)
            break;
        /* At the window's edges: its journal on disk before the window opens. */
        note_targets(s, n, false, err);
        step = sample_window(rn, s, n, p, c->warmup_auto ? limit : 0, &abandoned, err);
        note_targets(s, n, false, err);
    }
    return step;
}

/* Apply the run's setting and start its target: x->step says how it went. */
static void slot_start(struct runner *rn, struct slot *x, struct progress *p, struct lb_error *err)
{
    const struct campaign *c = &rn->c;
    struct run_record *r = x->r;
    const char *value = c->values.v[r->setting_index];
    x->prof = &rn->profiles[r->variant_index];
    x->ce = &rn->edits[r->variant_index];
    snprintf(x->label, sizeof(x->label), "%s%s%s = %s #%ld",
             c->n_variants ? c->variants[r->variant_index].name : "", c->n_variants ? ": " : "",
             x->prof->knob.label, value, r->repeat);
    run_paths_init(&x->rp, c, r);
    x->step = STEP_ERROR;
    if (mkdir_p(x->rp.dir, 0777, err) < 0 || confedit_apply(x->ce, x->prof, value, err) < 0 ||
        setter_argv(x->prof, value, &x->argv, err) < 0 ||
        ready_pattern(x->prof, &x->ready_re, err) < 0)
        return;
    setter_envp(x->prof, value, rn->target_env.v, &x->envp);
    struct capture_opts co = {
        .paths = {x->rp.stdout_log, x->rp.stderr_log},
        .limit = c->log_limit,
        .marker = x->prof->marker,
        .ready = x->ready_re,
    };
    if (capture_open(&co, &x->cap, err) < 0)
        return;
    struct plat_spawn_opts so = {
        .argv = x->argv.v,
        .cwd = x->prof->cwd,
        .envp = x->envp.v,
        .stdout_path = x->rp.stdout_log,
        .stderr_path = x->rp.stderr_log,
        .cpu = c->cpu_source,
        .cpus = x->cpus,
    };
    capture_spawn_opts(x->cap, &so);
    if (x->cpus) {
        char list[256];
        cpuset_format(x->cpus, list, sizeof(list));
        r->cpus = xstrdup(list);
    }
    r->started_wall_ns = wall_ns();
    progress_phase(p, x->index, x->label, "start", 0);
    struct lb_error spawn_err;
    if (plat_spawn(&so, &x->t, &spawn_err) < 0) {
        r->failure = xstrdup(spawn_err.msg);
        x->step = STEP_FAILED;
        return;
    }
    r->cpu_source = plat_target_cpu_source(x->t);
    r->containment = xstrdup(plat_target_containment(x->t));
    r->isolation = xstrdup(plat_target_isolation(x->t));
    x->step = capture_started(x->cap, err) < 0 ? STEP_ERROR : STEP_OK;
}

/* Processes of the run's target outlived its stop (stop_err says how many): an error,
 * which the run's record and err tell after whatever went wrong first. */
static void stop_failed(struct slot *x, const struct lb_error *stop_err, struct lb_error *err)
{
    struct run_record *r = x->r;
    if (x->step == STEP_OK) {
        *err = *stop_err;
        x->step = STEP_ERROR;
    } else if (x->step == STEP_ERROR) {
        struct lb_error first = *err;
        lb_fail(err, "%s; %s", first.msg, stop_err->msg);
    } else {
        char *first = r->failure;
        r->failure = first ? xasprintf("%s; %s", first, stop_err->msg) : xstrdup(stop_err->msg);
        free(first);
    }
}

/* Stop the run's target and reap it, finish its logs and record how it went. */
static void slot_finish(struct slot *x, struct progress *p, struct lb_error *err)
{
    struct run_record *r = x->r;
    if (x->t) {
        /* A second SIGINT skips the grace period: the operator wants out now. */
        uint64_t grace = plat_sigint_count() > 1 ? 0 : (uint64_t)(x->prof->stop_grace_s * 1e9);
        progress_phase(p, x->index, x->label, "stop", 0);
        struct lb_error stop_err;
        if (plat_target_stop(x->t, x->prof->stop_signal, grace, &r->killed, &stop_err) < 0)
            stop_failed(x, &stop_err, err);
    }
    if (x->cap) {
        /* The target's tree is gone, and with it the pipes' writers: the logs are whole. */
        struct lb_error log_err;
        if (capture_finish(x->cap, r->sampled ? &r->scrape : NULL, r->logs, &log_err) < 0 &&
            x->step == STEP_OK) {
            *err = log_err;
            x->step = STEP_ERROR;
        }
    }
    /* ...and one that saves it on the way out has done so now. */
    if (x->t)
        note_targets(x, 1, false, err);
    if (x->step == STEP_OK && r->sampled && write_series(x->rp.series, r, x->points, err) < 0)
        x->step = STEP_ERROR;
    if (x->step == STEP_FAILED)
        record_tail(r, x->rp.stdout_log, x->rp.stderr_log);
    if (x->t)
        plat_target_free(x->t);
    capture_free(x->cap);
    plat_regex_free(x->ready_re);
    free(x->points);
    strv_release(&x->argv);
    strv_release(&x->envp);
    run_paths_release(&x->rp);
    r->status = x->step == STEP_OK            ? RUN_OK
                : x->step == STEP_INTERRUPTED ? RUN_INTERRUPTED
                                              : RUN_FAILED;
    if (x->step == STEP_ERROR && !r->failure)
        r->failure = xstrdup(err->msg);
}

/* The worse of two ways a run went: an interrupt, then an error, then a failure. */
static enum step worse_step(enum step a, enum step b)
{
    static const int rank[] = {[STEP_OK] = 0, [STEP_FAILED] = 1, [STEP_ERROR] = 2,
                               [STEP_INTERRUPTED] = 3};
    return rank[b] > rank[a] ? b : a;
}

/* Runs from..to of the plan (not yet completed) at the same time: apply each setting,
 * start each target, wait until they are ready, warm them up, sample one window over
 * them all, stop them and reap them. No target outlives this function. Returns the
 * worst of how they went. */
static enum step run_group(struct runner *rn, size_t from, size_t to, struct progress *p,
                           struct lb_error *err)
{
    const struct campaign *c = &rn->c;
    struct slot s[SAMPLER_MAX_TARGETS];
    size_t n = 0;
    memset(s, 0, sizeof(s));
    for (size_t i = from; i < to && n < SAMPLER_MAX_TARGETS; i++) {
        if (c->runs[i].status == RUN_OK)
            continue;
        s[n].r = &rn->c.runs[i];
        s[n].index = i;
        s[n++].cpus = runner_cpus_of(rn, i);
    }
    for (size_t i = 0; i < n; i++) {
        s[i].r->log_limit = c->log_limit;
        slot_start(rn, &s[i], p, err);
    }
    enum step group = wait_ready(s, n);
    /* A target that rewrites its config at start-up may have done so once it is ready. */
    note_targets(s, n, false, err);
    /* --hold-idle: through the warm-up and the window, let go before the targets stop */
    int held = -1;
    if (group == STEP_OK && c->hold_idle && (held = plat_idle_hold(err)) < 0)
        group = STEP_ERROR;
    for (size_t i = 0; i < n && held >= 0; i++)
        s[i].r->idle_held = true;
    if (group == STEP_OK)
        group = warm_and_sample(rn, s, n, p, err);
    plat_idle_release(held);
    enum step worst = STEP_OK;
    for (size_t i = 0; i < n; i++) {
        if (s[i].step == STEP_OK && group != STEP_OK)
            s[i].step = group;
        slot_finish(&s[i], p, err);
        worst = worse_step(worst, s[i].step);
    }
    return worst;
}

/* results.json with loopbench's own cost so far. */
static int write_results(struct runner *rn, struct lb_error *err)
{
    struct plat_self_usage self;
    plat_self_usage(&self);
    rn->c.self.cpu_seconds = (double)self.cpu_ns / 1e9;
    rn->c.self.max_rss_kib = (long long)(self.max_rss_bytes / 1024);
    return results_write(&rn->c, err);
}

/* What results.json says of the profile: its serialisation and the file itself, read
 * back through the same reader as any results.json's. */
static int describe_profile(struct runner *rn, struct lb_error *err)
{
    const struct profile *p = &rn->profiles[0];
    json_t *section = profile_to_json(p);
    json_t *doc = p->text ? json_loads(p->text, 0, NULL) : NULL;
    json_object_set_new(section, "document", doc ? doc : json_null());
    int rc = campaign_profile_from_json(section, p->path, &rn->c.profile, err);
    json_decref(section);
    struct campaign_endpoint *ep = &rn->c.endpoint;
    if (p->endpoint.n_select) {
        ep->url = xstrdup(p->endpoint.url);
        ep->format = xstrdup(metrics_format_name(p->endpoint.format));
        for (size_t i = 0; i < p->endpoint.n_select; i++) {
            strv_push(&ep->keys, p->endpoint.select[i].key);
            strv_push_owned(&ep->sources, metrics_select_text(&p->endpoint, i));
        }
    }
    rn->c.has_rtt = p->has_rtt;
    return rc;
}

/* Two variants must not edit one config file: each run would overwrite the other's. */
static int check_variant_files(const struct runner *rn, struct lb_error *err)
{
    for (size_t a = 0; a < rn->n_profiles; a++)
        for (size_t b = a + 1; b < rn->n_profiles; b++) {
            const struct profile *pa = &rn->profiles[a], *pb = &rn->profiles[b];
            if (pa->knob.set.kind == SETTER_CONFIG && pb->knob.set.kind == SETTER_CONFIG &&
                strcmp(pa->knob.set.file, pb->knob.set.file) == 0)
                return lb_fail(err, "variants '%s' and '%s' both edit '%s': give each variant "
                                    "its own config file (in its directory)",
                               rn->c.variants[a].name, rn->c.variants[b].name, pa->knob.set.file);
        }
    return 0;
}

/* What the campaign ran: as told (--commit, then $LOOPBENCH_COMMIT), else the work tree
 * of the target's directory (with variants the last's, the head), else $GITHUB_SHA. Read
 * before any config file is edited, which would make every tree dirty. */
static int campaign_commit(const struct run_opts *o, struct runner *rn, struct lb_error *err)
{
    struct campaign *c = &rn->c;
    struct lb_error e;
    if (o->commit) {
        if (commit_parse(o->commit, "option", &c->commit, &e) < 0)
            return lb_fail(err, "--commit %s", e.msg);
        return 0;
    }
    const char *told = getenv("LOOPBENCH_COMMIT");
    if (told && *told)
        return commit_from_env(&c->commit, err);
    if (c->n_variants && c->variants[c->n_variants - 1].commit.sha) {
        const struct campaign_commit *head = &c->variants[c->n_variants - 1].commit;
        c->commit = (struct campaign_commit){xstrdup(head->sha), head->dirty, head->source};
        return 0;
    }
    if (!c->n_variants && commit_from_git(rn->profiles[0].cwd, &c->commit) == 0)
        return 0;
    return commit_from_env(&c->commit, err);
}

/* The target's profile once per variant (once without variants). */
static int load_profiles(const struct run_opts *o, const char *path, struct runner *rn,
                         struct lb_error *err)
{
    struct campaign *c = &rn->c;
    rn->n_profiles = o->n_variants ? o->n_variants : 1;
    rn->profiles = xcalloc(rn->n_profiles, sizeof(*rn->profiles));
    rn->edits = xcalloc(rn->n_profiles, sizeof(*rn->edits));
    c->variants = xcalloc(o->n_variants + 1, sizeof(*c->variants));
    for (size_t i = 0; i < o->n_variants; i++) {
        const struct variant_opt *v = &o->variants[i];
        for (size_t j = 0; j < i; j++)
            if (strcmp(v->name, o->variants[j].name) == 0)
                return lb_fail(err, "--variant '%s': the name is given twice", v->name);
        /* Absolute, so that a campaign resumed from another directory finds it. */
        char *dir = plat_realpath(v->dir);
        if (!dir)
            return lb_fail_errno(err, errno, "--variant '%s': directory '%s'", v->name, v->dir);
        c->variants[c->n_variants] =
            (struct campaign_variant){.name = xstrdup(v->name), .dir = dir};
        commit_from_git(dir, &c->variants[c->n_variants++].commit);
    }
    for (size_t i = 0; i < rn->n_profiles; i++) {
        int rc = o->n_variants ? profile_load_variant(path, o->variants[i].dir, &rn->profiles[i],
                                                      err)
                               : profile_load(path, &rn->profiles[i], err);
        /* a command that cannot start is said now, as validate says it, not after the
         * campaign's directory is made */
        if (rc < 0 || profile_check_command(&rn->profiles[i], err) < 0)
            return -1;
    }
    return check_variant_files(rn, err);
}

/* --cpus and --order duet: the CPUs the targets run on, and (duet) each cell's slice
 * of them; loopbench keeps to the other CPUs it may use. */
static int setup_cpus(const struct run_opts *o, struct runner *rn, struct lb_error *err)
{
    struct campaign *c = &rn->c;
    const char *what = o->cpus ? "--cpus" : "--order duet";
    struct cpuset avail;
    struct lb_error e;
    char list[256], have[256];
    if (plat_cpus_available(&avail, &e) < 0)
        return lb_fail(err, "%s: %s", what, e.msg);
    cpuset_format(&avail, have, sizeof(have));
    rn->target_cpus = avail;
    if (o->cpus && cpuset_parse(o->cpus, &rn->target_cpus, &e) < 0)
        return lb_fail(err, "--cpus %s", e.msg);
    if (!cpuset_within(&rn->target_cpus, &avail))
        return lb_fail(err, "--cpus '%s': loopbench may run on CPUs %s only", o->cpus, have);
    rn->pinned = true;
    cpuset_format(&rn->target_cpus, list, sizeof(list));
    c->cpus = xstrdup(list);
    cpuset_minus(&avail, &rn->target_cpus, &rn->self_cpus);
    rn->pin_self = cpuset_count(&rn->self_cpus) > 0;
    if (rn->pin_self) {
        cpuset_format(&rn->self_cpus, list, sizeof(list));
        c->loopbench_cpus = xstrdup(list);
    }
    if (c->order != ORDER_DUET)
        return 0;
    size_t width = duet_width(c), cpus = cpuset_count(&rn->target_cpus);
    if (width < 2 || width > SAMPLER_MAX_TARGETS || width > cpus)
        return lb_fail(err, "--order duet: runs %s at once, each on CPUs of its own: expected 2 "
                            "to %d of them, and no more than the %zu CPUs loopbench may use "
                            "(%s); %zu given",
                       c->n_variants ? "the variants of a setting" : "the settings of a round",
                       SAMPLER_MAX_TARGETS, cpus, c->cpus, width);
    if (!c->n_variants && rn->profiles[0].knob.set.kind == SETTER_CONFIG)
        return lb_fail(err, "--order duet: the settings would run at once from one config file "
                            "('%s'): compare builds as variants, or set the knob by argv or env",
                       rn->profiles[0].knob.set.file);
    rn->slices = xcalloc(width, sizeof(*rn->slices));
    for (size_t k = 0; k < width; k++)
        cpuset_slice(&rn->target_cpus, width, k, &rn->slices[k]);
    return 0;
}

/* What the targets get of loopbench's environment: the base, the profiles' pass_env
 * and --pass-env, recorded by name. */
static int target_env(const struct run_opts *o, struct runner *rn, struct lb_error *err)
{
    struct campaign *c = &rn->c;
    struct strv pass = {0};
    for (size_t i = 0; i < o->pass_env.n; i++) {
        if (targetenv_check(o->pass_env.v[i], "--pass-env", err) < 0) {
            strv_release(&pass);
            return -1;
        }
        strv_push(&c->pass_env, o->pass_env.v[i]);
        strv_push(&pass, o->pass_env.v[i]);
    }
    for (size_t k = 0; k < rn->n_profiles; k++)
        for (size_t i = 0; i < rn->profiles[k].pass_env.n; i++)
            strv_push(&pass, rn->profiles[k].pass_env.v[i]);
    targetenv_select(environ, &pass, &rn->target_env, &c->env_passed, &c->env_withheld);
    c->env_recorded = true;
    strv_release(&pass);
    return 0;
}

int runner_setup(const struct run_opts *o, struct runner *rn, struct lb_error *err)
{
    memset(rn, 0, sizeof(*rn));
    rn->dir_lock_fd = -1;
    struct campaign *c = &rn->c;
    c->started_wall_ns = wall_ns();
    char *default_path = NULL;
    const char *path = o->profile_path;
    if (!path) {
        default_path = profile_default_path(err);
        if (!default_path)
            return -1;
        path = default_path;
    }
    int rc = load_profiles(o, path, rn, err);
    free(default_path);
    if (rc < 0 || describe_profile(rn, err) < 0)
        return -1;
    const struct profile *prof = &rn->profiles[0];
    if (campaign_commit(o, rn, err) < 0)
        return -1;
    if (c->n_variants && o->order == ORDER_GROUPED)
        return lb_fail(err, "--order grouped: variants are compared round by round, and grouped "
                            "runs have no rounds (use random or interleave)");

    const struct strv *values = o->settings.n ? &o->settings : &prof->knob.values;
    /* Never a campaign loopbench could not read back. */
    if (campaign_size_check(values->n, c->n_variants, 0, "run", err) < 0)
        return -1;
    for (size_t i = 0; i < values->n; i++) {
        for (size_t j = 0; j < i; j++)
            if (strcmp(values->v[i], values->v[j]) == 0)
                return lb_fail(err, "--settings: '%s' is given twice", values->v[i]);
        strv_push(&c->values, values->v[i]);
    }
    if (c->values.n == 0)
        return lb_fail(err, "--settings: expected at least one value");
    /* The profile's baseline when it is among the settings, else the first. */
    c->baseline = 0;
    for (size_t i = 0; i < c->values.n; i++)
        if (prof->knob.baseline && strcmp(c->values.v[i], prof->knob.baseline) == 0)
            c->baseline = i;

    c->repeat = o->repeat > 0 ? o->repeat : prof->repeat;
    if (campaign_size_check(0, 0, campaign_cells(c) * (size_t)c->repeat, "run", err) < 0)
        return -1;
    c->sequential_max = o->sequential ? c->repeat : 0;
    if (c->sequential_max && o->order == ORDER_GROUPED)
        return lb_fail(err, "--repeat auto: looks after each round, which --order grouped "
                            "does not have: use interleave or random");
    c->warmup_s = o->warmup_s >= 0 ? o->warmup_s : prof->warmup_s;
    c->warmup_auto = o->warmup_auto;
    c->sample_s = o->sample_s > 0 ? o->sample_s : prof->sample_s;
    c->interval_ms = o->interval_ms;
    c->log_limit = o->log_limit ? o->log_limit : prof->log_limit;
    c->order = o->order;
    /* 53 bits, so that the seed survives a trip through any JSON reader. */
    c->seed = (o->seed_set ? o->seed : (wall_ns() ^ ((uint64_t)getpid() << 32))) &
              ((1ULL << 53) - 1);
    c->cpu_source = o->cpu_source;
    c->command_line = xstrdup(o->command_line ? o->command_line : "");
    c->self.version = xstrdup(LOOPBENCH_VERSION);
    char commit[64];
    if (lbversion_commit(commit, sizeof(commit)))
        c->self.commit = xstrdup(commit);
    c->self.platform = xstrdup(plat_name());
    if ((o->cpus || c->order == ORDER_DUET) && setup_cpus(o, rn, err) < 0)
        return -1;
    if (o->rotate_s > 0 && c->order != ORDER_DUET)
        return lb_fail(err, "--rotate %g: swaps the CPU sets of a duet's targets inside the "
                            "window: expected --order duet", o->rotate_s);
    c->rotate_s = c->order != ORDER_DUET ? 0 : o->rotate_s >= 0 ? o->rotate_s : RUN_ROTATE_DEFAULT_S;
    /* Refused before anything runs, rather than at the first warm-up. */
    c->hold_idle = o->hold_idle || prof->hold_idle;
    int held = c->hold_idle ? plat_idle_hold(err) : 0;
    if (held < 0)
        return -1;
    plat_idle_release(c->hold_idle ? held : -1);
    struct lb_error e;
    rn->watch_cpus = rn->target_cpus;
    rn->watch = rn->pinned || plat_cpus_available(&rn->watch_cpus, &e) == 0;
    c->cpuidle_driver = plat_cpuidle_driver();
    if (o->primary)
        c->primary = xstrdup(o->primary);
    else if (prof->primary.n)
        for (size_t i = 0; i < prof->primary.n; i++) {
            char *longer = xasprintf("%s%s%s", i ? c->primary : "", i ? "," : "",
                                     prof->primary.v[i]);
            free(c->primary);
            c->primary = longer;
        }
    if (compare_check_keys(c, c->primary, "--primary", err) < 0 || target_env(o, rn, err) < 0)
        return -1;
    /* budgets need no second cell: a single setting can run until they are decided */
    struct budget_set budgets = {0};
    if (budget_from_campaign(c, &budgets, err) < 0 || budget_check(&budgets, c, err) < 0) {
        budget_set_release(&budgets);
        return -1;
    }
    size_t n_budgets = budgets.n;
    budget_set_release(&budgets);
    if (c->sequential_max && campaign_cells(c) < 2 && n_budgets == 0)
        return lb_fail(err, "--repeat auto: nothing to compare: give two settings or more, "
                            "two variants, or budgets in the profile");
    plan_runs(c);
    return 0;
}

int runner_begin(const struct run_opts *o, struct runner *rn, struct strv *notes,
                 struct lb_error *err)
{
    struct campaign *c = &rn->c;
    struct lb_error host_err;
    if (plat_host_facts(&c->host, &host_err) < 0)
        memset(&c->host, 0, sizeof(c->host));
    if (plat_events_init(err) < 0 || (rn->pin_self && plat_pin_self(&rn->self_cpus, err) < 0))
        return -1;
    if (rn->watch && !c->cpuidle_driver && (c->hold_idle || rn->pinned))
        msg_info("the host has no cpuidle driver: no idle-state counters are recorded%s",
                 c->hold_idle ? ", and holding its CPUs out of idle states should change nothing"
                              : "");
    for (size_t i = 0; i < rn->n_profiles; i++)
        if (confedit_begin(&rn->edits[i], &rn->profiles[i], notes, err) < 0)
            return -1;
    if (prepare_out_dir(c, o, err) < 0)
        return -1;
    char *lock = path_join(c->out_dir, ".loopbench-lock");
    char *what = xasprintf("campaign directory '%s'", c->out_dir);
    rn->dir_lock_fd = lock_take(lock, what, err);
    free(what);
    if (rn->dir_lock_fd < 0) {
        free(lock);
        return -1;
    }
    rn->dir_lock = lock;
    if (energy_campaign_begin(c, err) < 0)
        return -1;
    /* The plan is on disk before the first run, so even a campaign that dies in its
     * first run can be resumed; and an unwritable directory is found now. */
    return write_results(rn, err);
}

/* Whether run i ends its round: the next run is of a later round, or there is none. */
static bool ends_round(const struct campaign *c, size_t i)
{
    return i + 1 == c->n_runs || c->runs[i + 1].repeat != c->runs[i].repeat;
}

/* "cpu at 2 head, tickLagPeak at 2 head" for the gated comparisons still holding the
 * campaign (new string). */
static char *undecided_names(const struct compare_result *res, const struct compare_looks *l)
{
    char *joined = xstrdup("");
    for (size_t i = 0; i < res->n_rows; i++) {
        const struct compare_row *row = &res->rows[i];
        if (!row->gated || l->decided_at[i] || l->futile[i] || !row->g.tested)
            continue;
        char *longer = xasprintf("%s%s%s at %s%s%s", joined, *joined ? ", " : "", row->metric,
                                 row->setting, row->variant ? " " : "",
                                 row->variant ? row->variant : "");
        free(joined);
        joined = longer;
    }
    return joined;
}

/* --repeat auto: the look after `round` over the rounds run so far (compare_looks);
 * stops the campaign (the plan cut after run i) when every gated comparison is decided
 * or futile, or at the cap. -1 with err when the comparisons cannot be made. */
static int look_after_round(struct campaign *c, struct compare_looks *l, long round, size_t i,
                            double run_s, struct lb_error *err)
{
    struct budget_set budgets = {0};
    struct compare_opts co = {.primary = c->primary, .gate = gate_opts_default(),
                              .budgets = &budgets};
    struct compare_result res = {0};
    if (budget_from_campaign(c, &budgets, err) < 0 || compare_within(c, &co, &res, err) < 0 ||
        (c->n_looks == 0 && compare_looks_init(l, &res, c->sequential_max, &co.gate, err) < 0)) {
        compare_result_release(&res);
        budget_set_release(&budgets);
        return -1;
    }
    size_t undecided = compare_looks_take(l, round, &res);
    c->look_undecided = xrealloc(c->look_undecided, (c->n_looks + 1) * sizeof(long));
    c->look_undecided[c->n_looks++] = (long)undecided;
    bool futile = false;
    for (size_t k = 0; k < res.n_rows; k++)
        futile |= res.rows[k].gated && l->futile[k] && !l->decided_at[k];
    if (undecided == 0 || round >= c->sequential_max) {
        c->sequential_stop = undecided ? "cap" : (futile ? "futile" : "decided");
        for (size_t j = i + 1; j < c->n_runs; j++)
            run_record_release(&c->runs[j]);
        c->n_runs = i + 1;
        c->repeat = round;
        msg_info("round %ld: %s, the campaign stops", round,
                 undecided ? "the cap is reached"
                           : (futile ? "what is undecided would rarely be decided by the cap"
                                     : "every gated comparison is decided"));
    } else {
        char *names = undecided_names(&res, l);
        long left = c->sequential_max - round;
        msg_info("round %ld: %zu undecided (%s); at most %ld more round%s, %.0f s", round,
                 undecided, names, left, left == 1 ? "" : "s",
                 (double)left * (double)campaign_cells(c) * run_s /
                     (c->order == ORDER_DUET ? (double)duet_width(c) : 1.0));
        free(names);
    }
    compare_result_release(&res);
    budget_set_release(&budgets);
    return 0;
}

int runner_run(const struct run_opts *o, struct runner *rn, struct lb_error *err)
{
    struct campaign *c = &rn->c;
    struct progress p;
    double run_s = c->warmup_s + c->sample_s + 1.0;
    progress_init(&p, c->n_runs, run_s, msg_quiet());

    int rc = 0;
    struct compare_looks looks = {0};
    /* a resumed campaign takes its looks again over the rounds it kept */
    c->n_looks = 0;
    c->sequential_stop = NULL;
    for (size_t i = 0; i < c->n_runs;) {
        /* duet: the runs of a round (of a setting, with variants) together */
        size_t end = i + 1;
        while (end < c->n_runs && run_together(c, i, end))
            end++;
        /* a run completed before a --resume counts in its round's look */
        bool done = true;
        for (size_t k = i; k < end; k++)
            done &= c->runs[k].status == RUN_OK;
        enum step step = done ? STEP_OK : run_group(rn, i, end, &p, err);
        if (step == STEP_INTERRUPTED) {
            c->interrupted_by = plat_last_signal();
            rc = lb_fail(err, "interrupted by %s during run %zu of %zu; the runs that "
                              "finished are in '%s' (continue with --resume %s)",
                         strsignal(c->interrupted_by), i + 1, c->n_runs, c->out_dir, c->out_dir);
            break;
        }
        /* Written after every run, so a crash loses at most the runs in flight. */
        if (step == STEP_ERROR || (!done && write_results(rn, err) < 0)) {
            snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
                     "; the campaign stopped at run %zu of %zu", i + 1, c->n_runs);
            rc = -1;
            break;
        }
        if (step == STEP_FAILED) {
            size_t k = i;
            while (c->runs[k].status != RUN_FAILED)
                k++;
            const struct run_record *r = &c->runs[k];
            rc = lb_fail(err, "run %zu of %zu (%s = %s #%ld) failed: %s", k + 1, c->n_runs,
                         c->profile.knob_label, c->values.v[r->setting_index], r->repeat,
                         r->failure);
            if (!o->keep_going)
                break;
        }
        i = end;
        long round = c->runs[end - 1].repeat;
        if (c->sequential_max && round >= SEQ_MIN_ROUNDS && ends_round(c, end - 1)) {
            progress_clear(&p);
            if (look_after_round(c, &looks, round, end - 1, run_s, err) < 0 ||
                write_results(rn, err) < 0) {
                rc = -1;
                break;
            }
        }
    }
    compare_looks_release(&looks);
    progress_clear(&p);

    for (size_t i = 0; i < rn->n_profiles; i++) {
        struct lb_error restore_err;
        if (confedit_restore(&rn->edits[i], &restore_err) == 0)
            continue;
        if (rc == 0)
            *err = restore_err;
        else
            snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg),
                     "; and restoring the config failed: %s", restore_err.msg);
        rc = -1;
    }
    c->finished_wall_ns = wall_ns();
    struct lb_error write_err;
    if (write_results(rn, &write_err) < 0 && rc == 0) {
        *err = write_err;
        rc = -1;
    }
    return rc;
}

void runner_release(struct runner *rn)
{
    for (size_t i = 0; i < rn->n_profiles; i++) {
        confedit_release(&rn->edits[i]);
        profile_release(&rn->profiles[i]);
    }
    free(rn->edits);
    free(rn->profiles);
    free(rn->slices);
    strv_release(&rn->target_env);
    if (rn->dir_lock)
        lock_drop(rn->dir_lock, rn->dir_lock_fd);
    free(rn->dir_lock);
    campaign_release(&rn->c);
    memset(rn, 0, sizeof(*rn));
}
