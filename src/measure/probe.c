/* loopbench probe (probe.h). */
#include "probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compat.h"
#include "stats.h"
#include "targetenv.h"
#include "util.h"

extern char **environ;

#define PROBE_BATCHES 5
#define PROBE_MIN_ROUNDS 3
/* Shares of the time budget: the op costs, then the quiet and the contended waits. */
#define SHARE_COSTS 0.15
#define SHARE_WAITS 0.40
#define SETTLE_NS (50 * 1000000ULL) /* for the busy processes to get going */

static const unsigned wait_ms[PROBE_N_WAIT_MS] = {1, 2, 4, 8};

/* ---- the verdict (pure) ----------------------------------------------------------- */

const char *probe_verdict_name(enum probe_verdict v)
{
    static const char *const names[] = {
        [PROBE_NORMAL] = "normal", [PROBE_SLOW] = "SLOW", [PROBE_TRAPPING] = "TRAPPING"};
    return name_of(names, ARRAY_SIZE(names), (size_t)v);
}

enum probe_verdict probe_verdict_of(double ns, double ref_ns, double *ratio)
{
    double x = ns / ref_ns;
    if (ratio)
        *ratio = x;
    return x < PROBE_SLOW_RATIO ? PROBE_NORMAL : x < PROBE_TRAPPING_RATIO ? PROBE_SLOW
                                                                          : PROBE_TRAPPING;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least q of the sample at or below it. */
static double rank_ms(const uint64_t *sorted, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n);
    return (double)sorted[k ? k - 1 : 0] / 1e6;
}

void probe_wake_summarize(uint64_t *overshoot_ns, size_t n, struct probe_wake *w)
{
    w->n = n;
    if (n == 0) {
        w->min_ms = w->p50_ms = w->p99_ms = w->max_ms = w->tick_late_share = NAN;
        return;
    }
    qsort(overshoot_ns, n, sizeof(*overshoot_ns), cmp_u64);
    w->min_ms = (double)overshoot_ns[0] / 1e6;
    w->p50_ms = rank_ms(overshoot_ns, n, 0.50);
    w->p99_ms = rank_ms(overshoot_ns, n, 0.99);
    w->max_ms = (double)overshoot_ns[n - 1] / 1e6;
    size_t late = 0;
    for (size_t i = 0; i < n; i++)
        late += overshoot_ns[i] >= PROBE_TICK_NS;
    w->tick_late_share = (double)late / (double)n;
}

void probe_judge(struct probe_report *r)
{
    struct probe_judgement *j = &r->judgement;
    memset(j, 0, sizeof(*j));
    /* The clocks a loop reads every iteration decide. The process CPU clock (a syscall)
     * and loopbench's own read say what measuring costs here, not what the loop pays. */
    for (int op = PROBE_OP_MONOTONIC; op <= PROBE_OP_REALTIME; op++) {
        const struct probe_cost *c = &r->costs[op];
        if (isnan(c->ns))
            continue;
        j->clock_traps |= c->verdict == PROBE_TRAPPING;
        j->clock_slow |= c->verdict == PROBE_SLOW;
    }
    /* The loop's own primitive on a quiet host; contention only shows what sharing does. */
    for (size_t i = 0; i < r->n_wakes; i++) {
        const struct probe_wake *w = &r->wakes[i];
        if (w->kind != PLAT_WAIT_POLLER || w->n == 0)
            continue;
        if (w->contended) {
            j->contended_late |= w->tick_late_share > PROBE_LATE_SHARE_MAX;
            continue;
        }
        if (w->tick_late_share > j->worst_late_share)
            j->worst_late_share = w->tick_late_share;
        /* A typical wait a tick late is a host with no high-resolution wait at all. */
        if (w->tick_late_share > PROBE_LATE_SHARE_MAX || w->p50_ms * 1e6 >= (double)PROBE_TICK_NS)
            j->waits_late = true;
    }
    j->steal_high = r->steal_percent > PROBE_STEAL_MAX_PERCENT;
    j->loaded = r->host.logical_cpus > 0 && r->host.loadavg[0] > r->host.logical_cpus;
    j->viable = !j->clock_traps && !j->waits_late && !j->steal_high;
}

size_t probe_advice(const struct probe_judgement *j, const char **lines, size_t cap)
{
    const char *all[8];
    size_t n = 0;
    if (j->viable)
        all[n++] = "idle sleeping is viable on this host: quiet idle waits come back within "
                   "a tick, clock reads do not trap and little time is stolen";
    else
        all[n++] = "idle sleeping is not viable on this host as it is";
    if (j->clock_traps)
        all[n++] = "clock reads trap to the hypervisor: every loop iteration pays for them and "
                   "no server setting tunes that away (a host or VM problem: TSC passthrough)";
    else if (j->clock_slow)
        all[n++] = "clock reads are slow, a few times the reference: every loop iteration pays "
                   "for them";
    if (j->waits_late)
        all[n++] = "idle waits come back a full 8 ms tick late too often: the host is not "
                   "scheduling the loop promptly";
    if (j->steal_high)
        all[n++] = "the hypervisor steals CPU time from this host: waits and work both run late";
    if (j->contended_late)
        all[n++] = "with every core busy, idle waits come back a tick late too often: shared "
                   "with CPU-heavy work, this host would make the server's backoff suspend sleeping";
    if (j->loaded)
        all[n++] = "the load average was above the CPU count: other work is in these figures, "
                   "probe again on a quiet host";
    if (!j->viable)
        all[n++] = "remedies: give the server dedicated CPU, or set its idle wait to 0 (never "
                   "sleep, for the price of a core)";
    size_t k = n < cap ? n : cap;
    memcpy(lines, all, k * sizeof(*lines));
    return k;
}

/* ---- measuring -------------------------------------------------------------------- */

typedef uint64_t (*op_fn)(void *ctx);

static uint64_t clock_read(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_nsec;
}

static uint64_t op_monotonic(void *ctx)
{
    (void)ctx;
    return clock_read(CLOCK_MONOTONIC);
}

static uint64_t op_realtime(void *ctx)
{
    (void)ctx;
    return clock_read(CLOCK_REALTIME);
}

static uint64_t op_process_cpu(void *ctx)
{
    (void)ctx;
    return clock_read(CLOCK_PROCESS_CPUTIME_ID);
}

struct sample_ctx {
    struct plat_target *t;
    bool failed;
};

/* What the sampler takes at every point: the tree's CPU and its other figures. */
static uint64_t op_sample_read(void *ctx)
{
    struct sample_ctx *s = ctx;
    uint64_t cpu = 0;
    struct plat_tree_stats st;
    struct lb_error e;
    if (plat_target_read(s->t, &cpu, &st, &e) < 0)
        s->failed = true;
    return cpu;
}

/* The results feed this, so the compiler cannot drop the reads. */
static volatile uint64_t sink;

/* ns/op of op: a warm-up batch, then the median of PROBE_BATCHES batches, each calling
 * op in chunks until its share of budget_ns has passed. */
static void cost_measure(op_fn op, void *ctx, unsigned chunk, uint64_t budget_ns,
                         struct probe_cost *c)
{
    uint64_t per_batch = budget_ns / (PROBE_BATCHES + 1);
    double ns[PROBE_BATCHES];
    uint64_t s = 0;
    c->iterations = 0;
    for (int b = -1; b < PROBE_BATCHES; b++) {
        uint64_t t0 = mono_ns(), t, n = 0;
        do {
            for (unsigned i = 0; i < chunk; i++)
                s += op(ctx);
            n += chunk;
            t = mono_ns();
        } while (t - t0 < per_batch);
        if (b >= 0) {
            ns[b] = (double)(t - t0) / (double)n;
            c->iterations += n;
        }
    }
    sink = s;
    c->ns = stats_median(ns, PROBE_BATCHES);
    c->verdict = probe_verdict_of(c->ns, c->ref_ns, &c->ratio);
}

/* The sampling read, on a child that sleeps: the floor of what a sample costs. */
static void cost_sample_read(uint64_t budget_ns, struct probe_cost *c)
{
    char *argv[] = {"sleep", "3600", NULL};
    struct strv env, names;
    size_t withheld;
    targetenv_select(environ, NULL, &env, &names, &withheld);
    strv_release(&names);
    struct plat_spawn_opts so = {
        .argv = argv,
        .envp = env.v,
        .stdout_path = "/dev/null",
        .stderr_path = "/dev/null",
        .cpu = CPU_SOURCE_AUTO,
    };
    struct sample_ctx s = {0};
    struct lb_error e;
    int spawned = plat_spawn(&so, &s.t, &e);
    strv_release(&env);
    if (spawned < 0)
        return; /* no sleep(1) here: the figure is left unmeasured */
    c->detail = cpu_source_name(plat_target_cpu_source(s.t));
    cost_measure(op_sample_read, &s, 1, budget_ns, c);
    if (s.failed)
        c->ns = NAN;
    bool killed;
    plat_target_stop(s.t, SIGKILL, 0, &killed, &e);
    plat_target_free(s.t);
}

/* Reference costs for a desktop on dedicated cores: the clocks' from HostLatencyProbe
 * (Stopwatch.GetTimestamp, DateTime.UtcNow); a process CPU clock is a syscall, priced
 * as the seed's syscall reference (WaitForSingleObject); the sampling read (a perf
 * counter read plus a /proc walk of a one-process tree, a dozen syscalls) is an
 * estimate, not a figure measured on such a desktop. */
static const struct {
    const char *name;
    double ref_ns;
    op_fn fn;
    unsigned chunk;
} ops[PROBE_N_OPS] = {
    [PROBE_OP_MONOTONIC] = {"monotonic clock read", 20, op_monotonic, 1000},
    [PROBE_OP_REALTIME] = {"realtime clock read", 25, op_realtime, 1000},
    [PROBE_OP_PROCESS_CPU] = {"process CPU clock read", 250, op_process_cpu, 100},
    [PROBE_OP_SAMPLE_READ] = {"loopbench sampling read", 20000, NULL, 1},
};

/* -1 once SIGINT, SIGTERM or SIGHUP has come, whoever drained it from the events. */
static int interrupted(struct lb_error *err)
{
    plat_wait_until(0);
    if (!plat_last_signal())
        return 0;
    return lb_fail(err, "interrupted by %s", strsignal(plat_last_signal()));
}

/* Rounds of every primitive at every wait, interleaved so that a phase cut short by its
 * budget still covers them all alike; then one probe_wake per pair. */
static int wake_phase(bool contended, uint64_t budget_ns, struct probe_report *r,
                      struct lb_error *err)
{
    uint64_t round_ns = 0;
    for (size_t m = 0; m < PROBE_N_WAIT_MS; m++)
        round_ns += 2 * wait_ms[m] * 1000000ULL;
    size_t cap = budget_ns / round_ns > PROBE_MIN_ROUNDS ? budget_ns / round_ns : PROBE_MIN_ROUNDS;
    uint64_t *over = xcalloc(2 * PROBE_N_WAIT_MS * cap, sizeof(*over));
    struct plat_waiter *w[2] = {NULL, NULL};
    int rc = -1;
    if (plat_waiter_open(PLAT_WAIT_POLLER, &w[0], err) < 0 ||
        plat_waiter_open(PLAT_WAIT_SLEEP, &w[1], err) < 0)
        goto out;
    uint64_t deadline = mono_ns() + budget_ns;
    size_t rounds = 0;
    while (rounds < cap && (rounds < PROBE_MIN_ROUNDS || mono_ns() < deadline)) {
        if (interrupted(err) < 0)
            goto out;
        for (size_t k = 0; k < 2; k++) {
            for (size_t m = 0; m < PROBE_N_WAIT_MS; m++) {
                /* A signal cuts a wait short: measured as it is, a wait returned early. */
                uint64_t req = wait_ms[m] * 1000000ULL, t0 = mono_ns();
                if (plat_waiter_wait(w[k], wait_ms[m], err) < 0)
                    goto out;
                uint64_t el = mono_ns() - t0;
                over[(k * PROBE_N_WAIT_MS + m) * cap + rounds] = el > req ? el - req : 0;
            }
        }
        rounds++;
    }
    for (size_t k = 0; k < 2; k++) {
        for (size_t m = 0; m < PROBE_N_WAIT_MS; m++) {
            struct probe_wake *pw = &r->wakes[r->n_wakes++];
            pw->kind = k == 0 ? PLAT_WAIT_POLLER : PLAT_WAIT_SLEEP;
            pw->ms = wait_ms[m];
            pw->contended = contended;
            probe_wake_summarize(&over[(k * PROBE_N_WAIT_MS + m) * cap], rounds, pw);
        }
    }
    rc = 0;
out:
    plat_waiter_free(w[0]);
    plat_waiter_free(w[1]);
    free(over);
    return rc;
}

/* The waits again with a busy process on every core, stopped whatever happens. */
static int contended_phase(uint64_t budget_ns, struct probe_report *r, struct lb_error *err)
{
    unsigned n = r->host.logical_cpus > 0 ? (unsigned)r->host.logical_cpus : 1;
    pid_t *pids = xcalloc(n, sizeof(*pids));
    int rc = plat_hogs_start(pids, n, err);
    if (rc == 0) {
        r->busy_processes = n;
        plat_wait_until(mono_ns() + SETTLE_NS);
        rc = wake_phase(true, budget_ns, r, err);
        plat_hogs_stop(pids, n);
    }
    free(pids);
    return rc;
}

static double steal_between(const struct plat_host_cpu *a, const struct plat_host_cpu *b)
{
    if (b->total_ns <= a->total_ns)
        return 0;
    return (double)(b->steal_ns - a->steal_ns) * 100.0 / (double)(b->total_ns - a->total_ns);
}

int probe_run(double seconds, struct probe_report *r, struct lb_error *err)
{
    memset(r, 0, sizeof(*r));
    uint64_t t0 = mono_ns();
    uint64_t budget = (uint64_t)(seconds * 1e9);
    if (plat_host_facts(&r->host, err) < 0)
        return -1;
    struct plat_host_cpu cpu0, cpu1;
    bool steal_known = plat_host_cpu(&cpu0, NULL) == 0;

    uint64_t op_budget = (uint64_t)((double)budget * SHARE_COSTS / PROBE_N_OPS);
    for (int op = 0; op < PROBE_N_OPS; op++) {
        struct probe_cost *c = &r->costs[op];
        c->name = ops[op].name;
        c->ref_ns = ops[op].ref_ns;
        c->ns = NAN;
        if (interrupted(err) < 0)
            return -1;
        if (ops[op].fn)
            cost_measure(ops[op].fn, NULL, ops[op].chunk, op_budget, c);
        else
            cost_sample_read(op_budget, c);
    }
    uint64_t wait_budget = (uint64_t)((double)budget * SHARE_WAITS);
    if (wake_phase(false, wait_budget, r, err) < 0 || contended_phase(wait_budget, r, err) < 0)
        return -1;
    steal_known = steal_known && plat_host_cpu(&cpu1, NULL) == 0;
    r->steal_percent = steal_known ? steal_between(&cpu0, &cpu1) : NAN;
    r->seconds = (double)(mono_ns() - t0) / 1e9;
    probe_judge(r);
    return 0;
}

void probe_report_release(struct probe_report *r)
{
    plat_host_facts_release(&r->host);
}
