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
#include "http.h"
#include "instrument.h"
#include "lbversion.h"
#include "platform/files.h"
#include "progress.h"
#include "resolve.h"
#include "results.h"
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

/* The cells of a round, idx[0..n), shuffled with state. */
static void shuffle(size_t *idx, size_t n, uint64_t *state)
{
    for (size_t i = n - 1; n > 1 && i > 0; i--) {
        size_t j = (size_t)(next_random(state) % (i + 1));
        size_t tmp = idx[i];
        idx[i] = idx[j];
        idx[j] = tmp;
    }
}

/* Every cell once per round, in order or (random) shuffled within the round; grouped:
 * each cell's runs together. */
static void plan_runs(struct campaign *c)
{
    size_t cells = campaign_cells(c);
    c->n_runs = cells * (size_t)c->spec.repeat;
    c->runs = xcalloc(c->n_runs, sizeof(*c->runs));
    size_t *round = xmalloc(cells * sizeof(*round));
    uint64_t state = c->spec.seed;
    size_t k = 0;
    if (c->spec.order == ORDER_GROUPED) {
        for (size_t i = 0; i < cells; i++)
            for (long rep = 1; rep <= c->spec.repeat; rep++) {
                struct cell x = campaign_cell(c, i);
                c->runs[k].setting_index = x.setting;
                c->runs[k].variant_index = x.variant;
                c->runs[k++].repeat = rep;
            }
    } else {
        for (long rep = 1; rep <= c->spec.repeat; rep++) {
            for (size_t i = 0; i < cells; i++)
                round[i] = i;
            if (c->spec.order == ORDER_RANDOM)
                shuffle(round, cells, &state);
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
        c->runs[i].dir =
            run_dir_name(c->spec.n_variants ? c->spec.variants[r->variant_index].name : NULL,
                         c->spec.values.v[r->setting_index], r->repeat);
    }
}

void runner_plan_round(struct runner *rn, const bool *run, long round)
{
    struct campaign *c = &rn->c;
    size_t *idx = xmalloc((c->spec.values.n + 1) * sizeof(*idx)), n = 0;
    for (size_t s = 0; s < c->spec.values.n; s++)
        if (run[s])
            idx[n++] = s;
    uint64_t state = c->spec.seed ^ ((uint64_t)round * 0x9e3779b97f4a7c15ULL);
    if (c->spec.order == ORDER_RANDOM)
        shuffle(idx, n, &state);
    c->runs = xrealloc(c->runs, (c->n_runs + n + 1) * sizeof(*c->runs));
    for (size_t k = 0; k < n; k++) {
        struct run_record *r = &c->runs[c->n_runs++];
        memset(r, 0, sizeof(*r));
        r->setting_index = idx[k];
        r->repeat = round;
        r->dir = run_dir_name(NULL, c->spec.values.v[idx[k]], round);
    }
    if (round > c->spec.repeat)
        c->spec.repeat = round;
    free(idx);
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
    if (c->spec.out_dir) {
        c->out_dir = xstrdup(c->spec.out_dir);
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

/* Whether runs i and j of the plan run at once: in a duet, of one round and (with
 * variants) of one setting. */
static bool run_together(const struct campaign *c, size_t i, size_t j)
{
    const struct run_record *a = &c->runs[i], *b = &c->runs[j];
    return c->spec.order == ORDER_DUET && a->repeat == b->repeat &&
           (!c->spec.n_variants || a->setting_index == b->setting_index);
}

/* The CPUs run i's target is pinned to, NULL for any: --cpus; with --order duet the
 * slice of them its place in the round takes, turned by one every round so that each
 * cell runs on each slice in turn. */
static const struct cpuset *runner_cpus_of(const struct runner *rn, size_t i)
{
    const struct campaign *c = &rn->c;
    if (!rn->pinned)
        return NULL;
    if (c->spec.order != ORDER_DUET)
        return &rn->target_cpus;
    const struct run_record *r = &c->runs[i];
    size_t at = c->spec.n_variants ? r->variant_index : r->setting_index;
    return &rn->slices[(at + (size_t)r->repeat) % campaign_spec_duet_width(&c->spec)];
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

/* The instruments opened for target j of w (state[i] each, NULL: nothing to read)
 * closed, their figures kept or not. */
static void instruments_close(struct window *w, size_t j, void **state, bool keep)
{
    for (size_t i = 0; i < n_window_instruments; i++)
        if (state[i])
            window_instruments[i]->close(w, j, state[i], keep);
}

/* Every instrument's reading at the window's start (end false: in the table's order) or
 * end (in reverse, so the one read nearest the sampler before it is read first after). */
static void instruments_edge(struct window *w, void *(*state)[WINDOW_INSTRUMENTS_MAX], bool end)
{
    for (size_t n = 0; n < n_window_instruments; n++) {
        size_t i = end ? n_window_instruments - 1 - n : n;
        for (size_t j = 0; window_instruments[i]->edge && j < w->k; j++)
            if (state[j][i])
                window_instruments[i]->edge(w, j, state[j][i], end);
    }
}

/* One window over the targets still going, together, with every window instrument
 * (instrument.h) opened for each. STEP_ERROR (err set) when the CPU source cannot be
 * read; how each run's window ended is in its slot. Before abandon_until (monotonic), a
 * window that shows a change is given up (*abandoned): nothing of it is kept. */
static enum step sample_window(struct runner *rn, struct slot *s, size_t n, struct progress *p,
                               uint64_t abandon_until, bool *abandoned, struct lb_error *err)
{
    const struct campaign *c = &rn->c;
    struct slot *in[SAMPLER_MAX_TARGETS];
    struct plat_target *t[SAMPLER_MAX_TARGETS];
    struct sampler_opts so[SAMPLER_MAX_TARGETS];
    struct sample_result res[SAMPLER_MAX_TARGETS];
    void *state[SAMPLER_MAX_TARGETS][WINDOW_INSTRUMENTS_MAX] = {{0}};
    struct window w = {.c = c,
                       .watch = rn->watch ? &rn->watch_cpus : NULL,
                       .pin_self = rn->pin_self,
                       .slices = rn->slices};
    struct window_watch watch = {in, 0, abandon_until};
    size_t k = 0;
    *abandoned = false;
    for (size_t i = 0; i < n; i++) {
        struct slot *x = &s[i];
        if (x->step != STEP_OK)
            continue;
        so[k] = (struct sampler_opts){
            .window_ns = (uint64_t)(c->spec.sample_s * 1e9),
            .interval_ns = (uint64_t)c->spec.interval_ms * 1000000ULL,
            .on_tick = k == 0 ? progress_tick : NULL,
            .tick_ctx = p,
            .abandon = abandon_until > mono_ns() ? window_changed : NULL,
            .abandon_ctx = &watch,
        };
        w.t[k] = (struct window_target){x->r, x->prof, x->cpus, &so[k], &res[k]};
        struct lb_error open_err;
        size_t opened = 0;
        while (opened < n_window_instruments &&
               window_instruments[opened]->open(&w, k, &state[k][opened], &open_err) == 0)
            opened++;
        if (opened < n_window_instruments) {
            instruments_close(&w, k, state[k], false);
            memset(state[k], 0, sizeof(state[k]));
            x->r->failure = xstrdup(open_err.msg);
            x->step = STEP_FAILED;
            continue;
        }
        so[k].points_cap = sampler_points_needed(so[k].window_ns, so[k].interval_ns);
        free(x->points);
        x->points = xcalloc(so[k].points_cap, sizeof(*x->points));
        so[k].points = x->points;
        t[k] = x->t;
        in[k++] = x;
    }
    if (k == 0)
        return STEP_OK;
    w.k = watch.n = k;
    progress_phase(p, in[0]->index, in[0]->label, "sample", c->spec.sample_s);
    for (size_t j = 0; j < k; j++)
        capture_window_open(in[j]->cap);
    instruments_edge(&w, state, false);
    int sampled = sampler_run_many(t, k, so, res, err);
    if (sampled == 0)
        instruments_edge(&w, state, true);
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
        if (sampled == 0 && res[j].end == SAMPLE_ABANDONED) { /* the instruments' figures too */
            instruments_close(&w, j, state[j], false);
            continue;
        }
        r->sample = res[j];
        capture_window_close(x->cap, r->sample.start_wall_ns, r->sample.end_wall_ns);
        instruments_close(&w, j, state[j], true);
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
    uint64_t start = mono_ns(), limit = start + (uint64_t)(c->spec.warmup_s * 1e9);
    enum step step = STEP_OK;
    bool abandoned = true, capped = false;
    for (long restarts = 0; step == STEP_OK && abandoned && any_going(s, n); restarts++) {
        progress_phase(p, s[0].index, s[0].label,
                       c->spec.warmup_auto ? "warm-up (auto)" : "warm-up", c->spec.warmup_s);
        step = c->spec.warmup_auto
                   ? settle(s, n, limit, &capped, p, err)
                   : wait_phase(s, n, (uint64_t)(c->spec.warmup_s * 1e9), p, "warm-up", err);
        for (size_t i = 0; i < n; i++) {
            s[i].r->warmup_s = (double)(mono_ns() - start) / 1e9;
            s[i].r->window_restarts = restarts;
            s[i].r->warmup_capped = capped;
        }
        if (step != STEP_OK)
            break;
        /* At the window's edges: its journal on disk before the window opens. */
        note_targets(s, n, false, err);
        step = sample_window(rn, s, n, p, c->spec.warmup_auto ? limit : 0, &abandoned, err);
        note_targets(s, n, false, err);
    }
    return step;
}

/* Apply the run's setting and start its target: x->step says how it went. */
static void slot_start(struct runner *rn, struct slot *x, struct progress *p, struct lb_error *err)
{
    const struct campaign *c = &rn->c;
    struct run_record *r = x->r;
    const char *value = c->spec.values.v[r->setting_index];
    x->prof = &rn->profiles[r->variant_index];
    x->ce = &rn->edits[r->variant_index];
    snprintf(x->label, sizeof(x->label), "%s%s%s = %s #%ld",
             c->spec.n_variants ? c->spec.variants[r->variant_index].name : "",
             c->spec.n_variants ? ": " : "", x->prof->knob.label, value, r->repeat);
    run_paths_init(&x->rp, c, r);
    x->step = STEP_ERROR;
    if (mkdir_p(x->rp.dir, 0777, err) < 0 || confedit_apply(x->ce, x->prof, value, err) < 0 ||
        setter_argv(x->prof, value, &x->argv, err) < 0 ||
        ready_pattern(x->prof, &x->ready_re, err) < 0)
        return;
    setter_envp(x->prof, value, rn->target_env.v, &x->envp);
    struct capture_opts co = {
        .paths = {x->rp.stdout_log, x->rp.stderr_log},
        .limit = c->spec.log_limit,
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
        .cpu = c->spec.cpu_source,
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
        s[i].r->log_limit = c->spec.log_limit;
        slot_start(rn, &s[i], p, err);
    }
    enum step group = wait_ready(s, n);
    /* A target that rewrites its config at start-up may have done so once it is ready. */
    note_targets(s, n, false, err);
    /* --hold-idle: through the warm-up and the window, let go before the targets stop */
    int held = -1;
    if (group == STEP_OK && c->spec.hold_idle && (held = plat_idle_hold(err)) < 0)
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

/* The CPUs the targets run on (spec.cpus, resolved), and a duet's cells each on a slice of
 * them; loopbench keeps to the other CPUs it may use. */
static int pin_cpus(struct runner *rn, struct lb_error *err)
{
    struct campaign *c = &rn->c;
    struct cpuset avail;
    char list[256];
    if (plat_cpus_available(&avail, err) < 0 ||
        cpuset_parse(c->spec.cpus, &rn->target_cpus, err) < 0)
        return -1;
    rn->pinned = true;
    cpuset_minus(&avail, &rn->target_cpus, &rn->self_cpus);
    rn->pin_self = cpuset_count(&rn->self_cpus) > 0;
    if (rn->pin_self) {
        cpuset_format(&rn->self_cpus, list, sizeof(list));
        c->loopbench_cpus = xstrdup(list);
    }
    if (c->spec.order != ORDER_DUET)
        return 0;
    size_t width = campaign_spec_duet_width(&c->spec);
    rn->slices = xcalloc(width, sizeof(*rn->slices));
    for (size_t k = 0; k < width; k++)
        cpuset_slice(&rn->target_cpus, width, k, &rn->slices[k]);
    return 0;
}

/* What the targets get of loopbench's environment: the base, the profiles' pass_env
 * and --pass-env, recorded by name. */
static void target_env(struct runner *rn)
{
    struct campaign *c = &rn->c;
    struct strv pass = {0};
    for (size_t i = 0; i < c->spec.pass_env.n; i++)
        strv_push(&pass, c->spec.pass_env.v[i]);
    for (size_t k = 0; k < rn->n_profiles; k++)
        for (size_t i = 0; i < rn->profiles[k].pass_env.n; i++)
            strv_push(&pass, rn->profiles[k].pass_env.v[i]);
    targetenv_select(environ, &pass, &rn->target_env, &c->env_passed, &c->env_withheld);
    strv_release(&pass);
}

int runner_setup(const struct run_opts *o, struct campaign_spec *spec, struct runner *rn,
                 struct lb_error *err)
{
    memset(rn, 0, sizeof(*rn));
    rn->dir_lock_fd = -1;
    struct campaign *c = &rn->c;
    c->spec = *spec;
    campaign_spec_init(spec);
    c->started_wall_ns = wall_ns();
    if (!c->spec.profile_path && !(c->spec.profile_path = profile_default_path(err)))
        return -1;
    if (campaign_spec_resolve(c, &rn->profiles, &rn->n_profiles, err) < 0)
        return -1;
    rn->edits = xcalloc(rn->n_profiles, sizeof(*rn->edits));
    c->command_line = xstrdup(o->command_line ? o->command_line : "");
    c->self.version = xstrdup(LOOPBENCH_VERSION);
    char commit[64];
    if (lbversion_commit(commit, sizeof(commit)))
        c->self.commit = xstrdup(commit);
    c->self.platform = xstrdup(plat_name());
    if (c->spec.cpus && pin_cpus(rn, err) < 0)
        return -1;
    struct lb_error e;
    rn->watch_cpus = rn->target_cpus;
    rn->watch = rn->pinned || plat_cpus_available(&rn->watch_cpus, &e) == 0;
    c->cpuidle_driver = plat_cpuidle_driver();
    target_env(rn);
    if (o->rounds)
        c->spec.repeat = 0; /* the rounds come as it runs */
    else
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
    if (rn->watch && !c->cpuidle_driver && (c->spec.hold_idle || rn->pinned))
        msg_info("the host has no cpuidle driver: no idle-state counters are recorded%s",
                 c->spec.hold_idle
                     ? ", and holding its CPUs out of idle states should change nothing"
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
    for (size_t i = 0; i < n_window_instruments; i++)
        if (window_instruments[i]->begin && window_instruments[i]->begin(c, err) < 0)
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
    struct compare_opts co = {
        .primary = c->spec.primary, .gate = gate_opts_default(), .budgets = &budgets};
    struct compare_result res = {0};
    if (budget_from_campaign(c, &budgets, err) < 0 || compare_within(c, &co, &res, err) < 0 ||
        (c->n_looks == 0 &&
         compare_looks_init(l, &res, c->spec.sequential_max, &co.gate, err) < 0)) {
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
    if (undecided == 0 || round >= c->spec.sequential_max) {
        c->sequential_stop = undecided ? "cap" : (futile ? "futile" : "decided");
        for (size_t j = i + 1; j < c->n_runs; j++)
            run_record_release(&c->runs[j]);
        c->n_runs = i + 1;
        c->spec.repeat = round;
        msg_info("round %ld: %s, the campaign stops", round,
                 undecided ? "the cap is reached"
                           : (futile ? "what is undecided would rarely be decided by the cap"
                                     : "every gated comparison is decided"));
    } else {
        char *names = undecided_names(&res, l);
        long left = c->spec.sequential_max - round;
        msg_info(
            "round %ld: %zu undecided (%s); at most %ld more round%s, %.0f s", round, undecided,
            names, left, left == 1 ? "" : "s",
            (double)left * (double)campaign_cells(c) * run_s /
                (c->spec.order == ORDER_DUET ? (double)campaign_spec_duet_width(&c->spec) : 1.0));
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
    double run_s = c->spec.warmup_s + c->spec.sample_s + 1.0;
    progress_init(&p, c->n_runs, run_s, msg_quiet());

    int rc = 0;
    struct compare_looks looks = {0};
    /* a resumed campaign takes its looks again over the rounds it kept */
    c->n_looks = 0;
    c->sequential_stop = NULL;
    for (size_t i = 0;;) {
        if (i == c->n_runs) {
            int more = o->rounds ? o->rounds->next(o->rounds->ctx, rn, err) : 0;
            if (more < 0 || (more > 0 && write_results(rn, err) < 0))
                rc = -1;
            if (more <= 0)
                break;
            progress_clear(&p);
            p.n_runs = c->n_runs;
            continue;
        }
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
                         c->profile.knob_label, c->spec.values.v[r->setting_index], r->repeat,
                         r->failure);
            if (!o->keep_going)
                break;
        }
        i = end;
        long round = c->runs[end - 1].repeat;
        if (c->spec.sequential_max && round >= SEQ_MIN_ROUNDS && ends_round(c, end - 1)) {
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
        if (rn->edits)
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
