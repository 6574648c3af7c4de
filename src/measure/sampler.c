/* The sample window (sampler.h).
 *
 * Each edge reads the monotonic clock and then, at once, the CPU source: the two
 * figures of an edge belong to the same instant, so the window's CPU % is exact up to
 * the source's resolution whatever happened in between. Between the edges the loop
 * sleeps until each interval's absolute deadline (no drift), then takes a series
 * point; it allocates and logs nothing. */
#include "sampler.h"

#include <string.h>
#include <time.h>

#include "util.h"

/* One reading of everything a series point is made of. */
struct reading {
    uint64_t mono_ns;
    uint64_t cpu_ns;
    struct plat_tree_stats tree;
    struct plat_host_cpu host;
    uint64_t self_cpu_ns; /* loopbench's own process CPU clock */
};

size_t sampler_points_needed(uint64_t window_ns, uint64_t interval_ns)
{
    if (interval_ns == 0)
        return 0;
    return (size_t)((window_ns + interval_ns - 1) / interval_ns);
}

/* The clock, then at once the CPU source (and the tree's other figures, read after
 * the CPU), then the host's steal and busy time, then loopbench's own CPU: whatever
 * the host's busy time holds besides those two is someone else's. */
static int read_now(struct plat_target *t, struct reading *rd, struct lb_error *err)
{
    rd->mono_ns = mono_ns();
    if (plat_target_read(t, &rd->cpu_ns, &rd->tree, err) < 0 || plat_host_cpu(&rd->host, err) < 0)
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    rd->self_cpu_ns = (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
    return 0;
}

static uint64_t delta(uint64_t to, uint64_t from)
{
    /* Switch counts are summed over live threads: one that exits takes its count
     * along, and the sum may drop. */
    return to > from ? to - from : 0;
}

static double steal_percent(const struct plat_host_cpu *from, const struct plat_host_cpu *to)
{
    uint64_t total = delta(to->total_ns, from->total_ns);
    return total ? (double)delta(to->steal_ns, from->steal_ns) * 100.0 / (double)total : 0;
}

static double per_s(uint64_t count, double dt_s)
{
    return dt_s > 0 ? (double)count / dt_s : 0;
}

/* A series point over (prev, cur], if there is room and time has passed. */
static void point_add(const struct sampler_opts *o, struct sample_result *r,
                      const struct reading *prev, const struct reading *cur, uint64_t start_ns)
{
    if (cur->tree.rss_bytes > r->rss_peak_bytes)
        r->rss_peak_bytes = cur->tree.rss_bytes;
    if (r->n_points >= o->points_cap || cur->mono_ns <= prev->mono_ns)
        return;
    struct series_point *pt = &o->points[r->n_points++];
    double dt_s = (double)(cur->mono_ns - prev->mono_ns) / 1e9;
    pt->t_s = (double)(cur->mono_ns - start_ns) / 1e9;
    pt->cpu_percent = per_s(delta(cur->cpu_ns, prev->cpu_ns), dt_s) / 1e7;
    pt->rss_bytes = cur->tree.rss_bytes;
    pt->voluntary_per_s = per_s(delta(cur->tree.voluntary_ctxsw, prev->tree.voluntary_ctxsw), dt_s);
    pt->involuntary_per_s =
        per_s(delta(cur->tree.involuntary_ctxsw, prev->tree.involuntary_ctxsw), dt_s);
    pt->steal_percent = steal_percent(&prev->host, &cur->host);
}

static void result_fill(struct sample_result *r, const struct reading *start,
                        const struct reading *end)
{
    r->end_wall_ns = wall_ns();
    r->cpu_ns = delta(end->cpu_ns, start->cpu_ns);
    r->wall_ns = end->mono_ns - start->mono_ns;
    r->cpu_percent = r->wall_ns ? (double)r->cpu_ns * 100.0 / (double)r->wall_ns : 0;
    r->unreliable = r->cpu_ns < SAMPLER_RESOLUTION_GUARD * r->resolution_ns;
    r->voluntary_ctxsw = delta(end->tree.voluntary_ctxsw, start->tree.voluntary_ctxsw);
    r->involuntary_ctxsw = delta(end->tree.involuntary_ctxsw, start->tree.involuntary_ctxsw);
    r->steal_percent = steal_percent(&start->host, &end->host);
    r->self_cpu_ns = delta(end->self_cpu_ns, start->self_cpu_ns);
    uint64_t busy = delta(end->host.busy_ns, start->host.busy_ns);
    uint64_t ours = r->cpu_ns + r->self_cpu_ns;
    r->others_cpu_percent =
        r->wall_ns ? (double)delta(busy, ours) * 100.0 / (double)r->wall_ns : 0;
}

/* Where a rotating target is: on slices[at] since the monotonic instant `since`. */
struct turn {
    size_t at;
    uint64_t since;
};

/* The time on the current CPU set, up to now, into its slice's total. */
static void turn_account(struct sample_result *r, struct turn *tn, uint64_t now)
{
    r->slice_ns[tn->at] += now > tn->since ? now - tn->since : 0;
    tn->since = now;
}

/* Target i's window ends at reading cur, the way `how` says. */
static void window_end(struct sample_result *r, struct turn *tn, const struct reading *start,
                       const struct reading *cur, enum sample_end how)
{
    result_fill(r, start, cur);
    turn_account(r, tn, cur->mono_ns);
    r->end = how;
}

/* Every open target one CPU set on. */
static int rotate(struct plat_target *const *t, size_t n, const struct sampler_opts *o,
                  struct sample_result *r, struct turn *tn, const bool *open,
                  struct lb_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (!open[i] || o[i].n_slices < 2)
            continue;
        turn_account(&r[i], &tn[i], mono_ns());
        tn[i].at = (tn[i].at + 1) % o[i].n_slices;
        if (plat_target_set_cpus(t[i], &o[i].slices[tn[i].at], err) < 0)
            return -1;
        r[i].rotations++;
    }
    return 0;
}

int sampler_run_many(struct plat_target *const *t, size_t n, const struct sampler_opts *o,
                     struct sample_result *r, struct lb_error *err)
{
    if (n > SAMPLER_MAX_TARGETS)
        return lb_fail(err, "cannot sample %zu targets at once (at most %d)", n,
                       SAMPLER_MAX_TARGETS);
    struct reading start[SAMPLER_MAX_TARGETS], prev[SAMPLER_MAX_TARGETS], cur;
    bool open[SAMPLER_MAX_TARGETS];
    struct turn tn[SAMPLER_MAX_TARGETS];
    for (size_t i = 0; i < n; i++) {
        if (o[i].n_slices > SAMPLER_MAX_TARGETS)
            return lb_fail(err, "cannot rotate over %zu CPU sets (at most %d)", o[i].n_slices,
                           SAMPLER_MAX_TARGETS);
        memset(&r[i], 0, sizeof(r[i]));
        r[i].resolution_ns = plat_target_cpu_resolution_ns(t[i]);
        /* back where it starts: a window given up may have left it elsewhere */
        if (o[i].rotate_ns && o[i].n_slices > 1 &&
            plat_target_set_cpus(t[i], &o[i].slices[o[i].slice], err) < 0)
            return -1;
        r[i].start_wall_ns = wall_ns();
        if (read_now(t[i], &start[i], err) < 0)
            return -1;
        r[i].rss_peak_bytes = start[i].tree.rss_bytes;
        prev[i] = start[i];
        open[i] = true;
        tn[i] = (struct turn){o[i].slice, start[i].mono_ns};
    }
    size_t left = n;
    uint64_t end = start[0].mono_ns + o->window_ns;
    uint64_t step = o->interval_ns ? o->interval_ns : o->window_ns;
    uint64_t next = start[0].mono_ns + step < end ? start[0].mono_ns + step : end;
    /* the next swap; none at or past the window's end */
    uint64_t swap = o->rotate_ns && start[0].mono_ns + o->rotate_ns < end
                        ? start[0].mono_ns + o->rotate_ns
                        : UINT64_MAX;
    while (left > 0) {
        uint64_t wake = swap < next ? swap : next;
        enum plat_event ev = plat_wait_until(wake);
        if (ev == PLAT_EVENT_TIMEOUT && swap <= wake) {
            if (rotate(t, n, o, r, tn, open, err) < 0)
                return -1;
            swap = swap + o->rotate_ns < end ? swap + o->rotate_ns : UINT64_MAX;
            if (wake < next)
                continue;
        }
        bool point = ev == PLAT_EVENT_TIMEOUT;
        for (size_t i = 0; i < n; i++) {
            if (!open[i])
                continue;
            /* Cut short by an interrupt or the target's exit: a last, partial point. */
            enum sample_end how = ev == PLAT_EVENT_INTERRUPT ? SAMPLE_INTERRUPTED : SAMPLE_DONE;
            if (ev == PLAT_EVENT_CHILD && plat_target_exited(t[i], &r[i].wstatus) == 1)
                how = SAMPLE_TARGET_EXITED;
            if (!point && how == SAMPLE_DONE)
                continue;
            if (read_now(t[i], &cur, err) < 0)
                return -1;
            point_add(&o[i], &r[i], &prev[i], &cur, start[i].mono_ns);
            prev[i] = cur;
            /* An attached process sends no SIGCHLD: its exit is looked for at each point. */
            if (how == SAMPLE_DONE && plat_target_exited(t[i], &r[i].wstatus) == 1)
                how = SAMPLE_TARGET_EXITED;
            if (how != SAMPLE_DONE || next >= end) {
                window_end(&r[i], &tn[i], &start[i], &cur, how);
                open[i] = false;
                left--;
            }
        }
        if (point && left > 0 && o[0].abandon && o[0].abandon(o[0].abandon_ctx, r, n)) {
            for (size_t i = 0; i < n; i++)
                if (open[i]) {
                    window_end(&r[i], &tn[i], &start[i], &prev[i], SAMPLE_ABANDONED);
                    open[i] = false;
                }
            left = 0;
        }
        if (point && o[0].on_tick) {
            double done = (double)(mono_ns() - start[0].mono_ns) / (double)o->window_ns;
            o[0].on_tick(o[0].tick_ctx, done < 1 ? done : 1);
        }
        if (point)
            next = next + step < end ? next + step : end;
    }
    return 0;
}

int sampler_run(struct plat_target *t, const struct sampler_opts *o, struct sample_result *r,
                struct lb_error *err)
{
    return sampler_run_many(&t, 1, o, r, err);
}
