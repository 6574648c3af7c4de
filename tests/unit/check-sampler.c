/* Tests of the sampler and the Linux platform layer on real processes, the burner
 * (tests/helpers/burner.c, built beside this executable) as the target.
 *
 * Each CPU test runs once per way of reading the tree: the perf counter, the process
 * clocks found through the children files, and the process clocks found by scanning
 * /proc. A window's CPU % is compared with what the burner measured itself using inside
 * it, not with the share it was asked for: the burner sleeps before and after its burn,
 * the window starts in the first sleep and ends in the second, and its "slept" lines
 * give the CPU from just before one sleep to just before the other, so the truth does
 * not depend on when exactly the edges were read (its "burned" lines leave out the
 * wake-up before the burn and the line after it, in the window too and 0.1-2 ms each on
 * a VM). The
 * process clocks are checked against the burner's process clocks; the perf counter
 * against the burner's own task clock, the same kernel clock: on a VM it also counts
 * time stolen from the vCPU while a task is on it, which process clocks leave out, and
 * the two differ by up to a few percent of the reading (docs/platforms.md). */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "platform/platform.h"
#include "sampler.h"
#include "testlib.h"
#include "util.h"

#define MS 1000000ULL
/* A test's burner never outlives it by long, even if the test dies before stopping it. */
#define SAFETY_SECONDS "20"

/* The accuracy cases: the burner idles DELAY s, burns BURN s, then lingers; the window,
 * started once the burner has, lasts WINDOW_MS. Each idle margin is 0.3 s. */
#define DELAY "0.3"
#define BURN "1.0"
#define WINDOW_MS 1600
/* How far a window's CPU % may be from the burner's own figure, in points of one core:
 * every case here read within 0.001 points, and tests/e2e/accuracy.sh within 0.0025 over
 * 10 runs, under the sanitizers on a 2-vCPU VM (docs/platforms.md). */
#define TOLERANCE_POINTS 0.1

static char burner[PATH_MAX];
extern char **environ;

/* The variants of the loop tests. */
enum way { WAY_PERF, WAY_CHILDREN_FILES, WAY_PROC_SCAN, N_WAYS };

static const char *way_name(int way)
{
    static const char *const names[] = {"perf", "tree/children-files", "tree/proc-scan"};
    return names[way];
}

static enum cpu_source_kind way_setup(int way)
{
    plat_force_full_scan(way == WAY_PROC_SCAN);
    return way == WAY_PERF ? CPU_SOURCE_PERF : CPU_SOURCE_TREE;
}

static void suite_setup(void)
{
    testlib_root_make();
    struct lb_error err;
    char *dir = plat_exe_dir(&err);
    ck_assert_msg(dir, "%s", err.msg);
    snprintf(burner, sizeof(burner), "%s/burner", dir);
    free(dir);
    ck_assert_msg(access(burner, X_OK) == 0, "no burner at '%s'", burner);
}

/* The environment of the targets: loopbench's, without the sanitizer's leak check at
 * exit, which would spend CPU after the burner has reported its own. */
static char **target_env;
static char *asan_options;

static void case_setup(void)
{
    struct lb_error err;
    testlib_case_dir();
    ck_assert_msg(plat_events_init(&err) == 0, "%s", err.msg);
    size_t n = 0;
    while (environ[n])
        n++;
    target_env = xcalloc(n + 2, sizeof(*target_env));
    const char *old = getenv("ASAN_OPTIONS");
    asan_options = xasprintf("ASAN_OPTIONS=%s%sdetect_leaks=0", old ? old : "", old ? ":" : "");
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "ASAN_OPTIONS=", 13) != 0)
            target_env[k++] = environ[i];
    target_env[k] = asan_options;
}

static void case_teardown(void)
{
    free(target_env);
    free(asan_options);
}

/* Start argv (a NULL-terminated list; "BURNER" stands for the burner's path) with its
 * output in out.log. */
static struct plat_target *start(enum cpu_source_kind cpu, const char *const *args)
{
    char *argv[32];
    size_t n = 0;
    for (; args[n]; n++) {
        ck_assert_uint_lt(n, ARRAY_SIZE(argv) - 1);
        argv[n] = strcmp(args[n], "BURNER") == 0 ? burner : (char *)args[n];
    }
    argv[n] = NULL;
    struct plat_spawn_opts o = {
        .argv = argv,
        .envp = target_env,
        .stdout_path = "out.log",
        .stderr_path = "err.log",
        .cpu = cpu,
    };
    struct plat_target *t = NULL;
    struct lb_error err;
    ck_assert_msg(plat_spawn(&o, &t, &err) == 0, "%s", err.msg);
    if (cpu != CPU_SOURCE_AUTO)
        ck_assert_int_eq(plat_target_cpu_source(t), cpu);
    return t;
}

static void pause_ms(uint64_t ms)
{
    uint64_t deadline = mono_ns() + ms * MS;
    while (mono_ns() < deadline)
        plat_wait_until(deadline);
}

static uint64_t cpu_now(struct plat_target *t)
{
    uint64_t v;
    struct lb_error err;
    ck_assert_msg(plat_target_cpu_ns(t, &v, &err) == 0, "%s", err.msg);
    return v;
}

static int wait_exit(struct plat_target *t, uint64_t timeout_ms)
{
    uint64_t deadline = mono_ns() + timeout_ms * MS;
    int status = 0;
    while (plat_target_exited(t, &status) != 1) {
        ck_assert_msg(mono_ns() < deadline, "the target did not exit in %llu ms",
                      (unsigned long long)timeout_ms);
        plat_wait_until(mono_ns() + 100 * MS < deadline ? mono_ns() + 100 * MS : deadline);
    }
    return status;
}

static bool stop(struct plat_target *t, int sig, uint64_t grace_ms)
{
    bool killed;
    struct lb_error err;
    ck_assert_msg(plat_target_stop(t, sig, grace_ms * MS, &killed, &err) == 0, "%s", err.msg);
    return killed;
}

/* What the burner says it used, from its last line. */
static double burner_cpu_seconds(void)
{
    char *text = testlib_read("out.log");
    const char *line = strstr(text, "burner: cpu_seconds=");
    ck_assert_msg(line, "no burner line in out.log: [%s]", text);
    double v = strtod(line + strlen("burner: cpu_seconds="), NULL);
    free(text);
    return v;
}

static void assert_cpu_near(int way, double got_s, double want_s)
{
    /* The burner reports before it exits, and its exit costs CPU too: a few ms, up to
     * 20 under a sanitizer that unmaps its shadow memory. Any burner of these tests
     * that goes uncounted is 200 ms or more. */
    double tol = 0.025 + 0.03 * want_s;
    ck_assert_msg(fabs(got_s - want_s) <= tol, "%s: read %.4f s of CPU, the burner says %.4f s",
                  way_name(way), got_s, want_s);
}

/* What the burner's processes say they used in a window that held their burn, by their
 * process clocks and by its task clock (the sums of their "slept" lines), and the span
 * their burn covered on the monotonic clock (their "burned" lines). */
struct burned {
    uint64_t cpu_ns, task_clock_ns, from_ns, to_ns;
    size_t burned_lines, slept_lines;
};

static struct burned burner_burned(void)
{
    char *text = testlib_read("out.log");
    struct burned b = {.from_ns = UINT64_MAX};
    for (const char *p = text; (p = strstr(p, "burner: burned ")); p++) {
        unsigned long long from, to;
        ck_assert_int_eq(sscanf(p, "burner: burned cpu_ns=%*u task_clock_ns=%*d from_ns=%llu "
                                   "to_ns=%llu", &from, &to), 2);
        b.from_ns = from < b.from_ns ? from : b.from_ns;
        b.to_ns = to > b.to_ns ? to : b.to_ns;
        b.burned_lines++;
    }
    for (const char *p = text; (p = strstr(p, "burner: slept ")); p++) {
        unsigned long long cpu, task_clock;
        ck_assert_int_eq(sscanf(p, "burner: slept cpu_ns=%llu task_clock_ns=%llu", &cpu,
                                &task_clock), 2);
        b.cpu_ns += cpu;
        b.task_clock_ns += task_clock;
        b.slept_lines++;
    }
    free(text);
    return b;
}

/* Wait for the burner's "started" line: from then on it is past its start-up, whose CPU
 * is no part of what it says it burned. */
static void wait_started(void)
{
    uint64_t deadline = mono_ns() + 3000 * MS;
    for (;;) {
        char *text = testlib_read("out.log");
        bool started = strstr(text, "burner: started") != NULL;
        free(text);
        if (started)
            return;
        ck_assert_msg(mono_ns() < deadline, "the burner did not start in 3 s");
        pause_ms(10);
    }
}

/* A window sampled from just after the burner started; t0 and t1 bracket sampler_run, so
 * its start edge was read in [t0, t1 - wall] and its end edge in [t0 + wall, t1]. */
struct window {
    struct sample_result r;
    uint64_t t0, t1;
};

/* The window read what the burner's lines say it used (expect_lines of each kind), by
 * the clock of the way's kind, and held the whole burn; called once the burner has been
 * stopped or has exited, as it writes its "slept" lines then. reaps_children: its
 * members reap children inside the window, whose time the process clocks then find in
 * /proc's cutime and cstime, each truncated to a USER_HZ tick (10 ms), so the tree
 * sources may read up to two ticks less. */
static void assert_reads_burned(int way, const struct window *w, size_t expect_lines,
                                bool reaps_children)
{
    struct burned b = burner_burned();
    const struct sample_result *r = &w->r;
    ck_assert_uint_eq(b.burned_lines, expect_lines);
    ck_assert_uint_eq(b.slept_lines, expect_lines);
    ck_assert_msg(b.from_ns >= w->t1 - r->wall_ns && b.to_ns <= w->t0 + r->wall_ns,
                  "%s: the window did not hold the whole burn (started %.3f s before its "
                  "latest start, ended %.3f s after its earliest end)",
                  way_name(way), (double)((int64_t)(w->t1 - r->wall_ns) - (int64_t)b.from_ns) / 1e9,
                  (double)((int64_t)b.to_ns - (int64_t)(w->t0 + r->wall_ns)) / 1e9);
    uint64_t burned_ns = way == WAY_PERF ? b.task_clock_ns : b.cpu_ns;
    double truth = (double)burned_ns * 100.0 / (double)r->wall_ns, tol = TOLERANCE_POINTS;
    if (reaps_children && way != WAY_PERF)
        tol += 100.0 * 2 * (1e9 / (double)sysconf(_SC_CLK_TCK)) / (double)r->wall_ns;
    ck_assert_msg(fabs(r->cpu_percent - truth) <= tol,
                  "%s: read %.3f%% of a core, the burner burned %.3f%% in the window (error "
                  "%+.3f points, tolerance %.3f)",
                  way_name(way), r->cpu_percent, truth, r->cpu_percent - truth, tol);
}

static struct sample_result sample(struct plat_target *t, uint64_t window_ms, uint64_t interval_ms,
                                   struct series_point *points, size_t cap)
{
    struct sampler_opts o = {
        .window_ns = window_ms * MS,
        .interval_ns = interval_ms * MS,
        .points = points,
        .points_cap = cap,
    };
    struct sample_result r;
    struct lb_error err;
    ck_assert_msg(sampler_run(t, &o, &r, &err) == 0, "%s", err.msg);
    return r;
}

static struct window sample_window(struct plat_target *t, uint64_t window_ms,
                                   uint64_t interval_ms, struct series_point *points, size_t cap)
{
    struct window w = {.t0 = mono_ns()};
    w.r = sample(t, window_ms, interval_ms, points, cap);
    w.t1 = mono_ns();
    ck_assert_int_eq(w.r.end, SAMPLE_DONE);
    return w;
}

static pid_t pidfile_wait(const char *path)
{
    uint64_t deadline = mono_ns() + 3000 * MS;
    for (;;) {
        FILE *f = fopen(path, "r");
        int pid = 0;
        if (f) {
            ck_assert_int_eq(fscanf(f, "%d", &pid), 1);
            fclose(f);
            return pid;
        }
        ck_assert_msg(mono_ns() < deadline, "no pidfile '%s'", path);
        pause_ms(20);
    }
}

static bool proc_exists(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d", (int)pid);
    return access(path, F_OK) == 0;
}

/* Parent and process group of a live process, from /proc/PID/stat. */
static bool proc_ids(pid_t pid, pid_t *ppid, pid_t *pgid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    int a, b;
    if (!p || sscanf(p + 2, "%*c %d %d", &a, &b) != 2)
        return false;
    *ppid = a;
    *pgid = b;
    return true;
}

/* The last field of /proc/PID/status's NSpid (its pid in the innermost PID namespace it is
 * in) and how many fields it has (namespaces deep); 0 when unreadable. */
static pid_t ns_pid(pid_t pid, int *depth)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    pid_t last = 0;
    *depth = 0;
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "NSpid:", 6) == 0)
            for (char *p = line + 6, *end;; p = end) {
                long v = strtol(p, &end, 10);
                if (end == p)
                    break;
                last = (pid_t)v;
                ++*depth;
            }
    if (f)
        fclose(f);
    return *depth ? last : 0;
}

/* The host's pid of the process that the target's tree (process group pgid) knows as
 * pid, in the PID namespace of its own it may run in; pid itself without one. */
static pid_t host_pid(pid_t pgid, pid_t pid, bool isolated)
{
    if (!isolated)
        return pid;
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    pid_t found = 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        pid_t p = (pid_t)strtol(e->d_name, NULL, 10), ppid, group;
        int depth;
        if (p > 0 && proc_ids(p, &ppid, &group) && group == pgid && ns_pid(p, &depth) == pid &&
            depth > 1)
            found = p;
    }
    closedir(d);
    ck_assert_msg(found, "no process %d in the target's PID namespace", (int)pid);
    return found;
}

/* No process of group pgid (unless 0) and no child of this process is left, zombies
 * included. */
static void assert_nothing_left(pid_t pgid)
{
    DIR *d = opendir("/proc");
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        pid_t pid = (pid_t)strtol(e->d_name, NULL, 10), ppid, group;
        if (pid > 0 && proc_ids(pid, &ppid, &group))
            ck_assert_msg(ppid != getpid() && (pgid == 0 || group != pgid),
                          "pid %d (parent %d, group %d) is left", (int)pid, (int)ppid, (int)group);
    }
    closedir(d);
}

/* ---- CPU accounting --------------------------------------------------------------- */

/* The whole life of a burner, read once it has exited, is what it says it used. */
START_TEST(test_total_matches_burner)
{
    enum cpu_source_kind cpu = way_setup(_i);
    struct plat_target *t =
        start(cpu, (const char *[]){"BURNER", "--share", "0.5", "--seconds", "1", NULL});
    int status = wait_exit(t, 5000);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_cpu_near(_i, (double)cpu_now(t) / 1e9, burner_cpu_seconds());
    ck_assert(!stop(t, SIGTERM, 1000));
    plat_target_free(t);
}
END_TEST

/* A window around a burner's burn reads what it burned, with one point per interval at
 * the interval's deadlines, whose CPU adds up to the window's. */
START_TEST(test_window_reads_burned)
{
    enum cpu_source_kind cpu = way_setup(_i);
    struct plat_target *t =
        start(cpu, (const char *[]){"BURNER", "--share", "0.5", "--delay", DELAY, "--seconds",
                                    BURN, "--linger", NULL});
    wait_started();
    struct series_point pts[8];
    size_t need = sampler_points_needed(WINDOW_MS * MS, 400 * MS);
    ck_assert_uint_eq(need, 4);
    struct window w = sample_window(t, WINDOW_MS, 400, pts, need);
    const struct sample_result *r = &w.r;
    ck_assert_msg(r->wall_ns >= WINDOW_MS * MS && r->wall_ns < (WINDOW_MS + 100) * MS,
                  "wall %llu ns", (unsigned long long)r->wall_ns);
    ck_assert_uint_eq(r->resolution_ns, plat_target_cpu_resolution_ns(t));
    ck_assert(!r->unreliable);
    ck_assert_uint_gt(r->rss_peak_bytes, 0);
    ck_assert_uint_gt(r->voluntary_ctxsw, 0); /* it sleeps 100 times a second */
    ck_assert_uint_eq(r->n_points, 4);
    double points_cpu_s = 0, prev_t_s = 0;
    for (size_t i = 0; i < r->n_points; i++) {
        ck_assert_msg(fabs(pts[i].t_s - 0.4 * (double)(i + 1)) < 0.05, "point %zu at %.3f s", i,
                      pts[i].t_s);
        ck_assert_uint_gt(pts[i].rss_bytes, 0);
        points_cpu_s += pts[i].cpu_percent / 100 * (pts[i].t_s - prev_t_s);
        prev_t_s = pts[i].t_s;
    }
    ck_assert_msg(fabs(points_cpu_s - (double)r->cpu_ns / 1e9) < 1e-6,
                  "the points add up to %.6f s of CPU, the window to %.6f s", points_cpu_s,
                  (double)r->cpu_ns / 1e9);
    ck_assert(!stop(t, SIGTERM, 2000));
    assert_reads_burned(_i, &w, 1, false);
    plat_target_free(t);
}
END_TEST

/* Through `sh -c 'burner ...; sleep ...'` the shell forks the burner and reaps it: a
 * window reads what the burner burned, and the same total is read while it lives, once
 * the shell has reaped it, and after. */
START_TEST(test_shell_wrapper)
{
    enum cpu_source_kind cpu = way_setup(_i);
    struct plat_target *t = start(
        cpu, (const char *[]){"sh", "-c",
                              "\"$0\" --share 0.5 --delay " DELAY " --seconds " BURN
                              " --exit-after 2.1 0; sleep 0.5; exit 0",
                              "BURNER", NULL});
    wait_started();
    struct window w = sample_window(t, WINDOW_MS, 0, NULL, 0);
    pause_ms(700);
    ck_assert_int_eq(plat_target_exited(t, NULL), 0);
    double reaped_by_shell = (double)cpu_now(t) / 1e9;
    int status = wait_exit(t, 5000);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_reads_burned(_i, &w, 1, false);
    double said = burner_cpu_seconds();
    assert_cpu_near(_i, reaped_by_shell, said);
    assert_cpu_near(_i, (double)cpu_now(t) / 1e9, said);
    ck_assert(!stop(t, SIGTERM, 1000));
    plat_target_free(t);
}
END_TEST

/* Threads that exit, and children the target reaps, inside the window are counted. */
static void check_workers(int way, const char *workers, const char *count, const char *share)
{
    enum cpu_source_kind cpu = way_setup(way);
    struct plat_target *t =
        start(cpu, (const char *[]){"BURNER", workers, count, "--share", share, "--delay", DELAY,
                                    "--seconds", BURN, "--linger", NULL});
    wait_started();
    struct window w = sample_window(t, WINDOW_MS, 0, NULL, 0);
    ck_assert(!stop(t, SIGTERM, 2000));
    assert_reads_burned(way, &w, 1, strcmp(workers, "--children") == 0);
    plat_target_free(t);
}

START_TEST(test_exited_threads)
{
    check_workers(_i, "--threads", "3", "0.3");
}
END_TEST

START_TEST(test_reaped_children)
{
    check_workers(_i, "--children", "2", "0.4");
}
END_TEST

/* A grandchild whose parent exits at once re-parents to loopbench (the subreaper), or,
 * in a PID namespace of the target's own, to the namespace's init: it is measured, and
 * stopping the target ends it. */
START_TEST(test_double_fork)
{
    enum cpu_source_kind cpu = way_setup(_i);
    struct plat_target *t =
        start(cpu, (const char *[]){"BURNER", "--double-fork", "--share", "0.5", "--delay", DELAY,
                                    "--seconds", BURN, "--linger", "--pidfile", "grandchild.pid",
                                    NULL});
    wait_started();
    bool isolated = strcmp(plat_target_isolation(t), "pid-namespace") == 0;
    pid_t group = getpgid(plat_target_pid(t));
    struct window w = sample_window(t, WINDOW_MS, 0, NULL, 0);
    pid_t g = host_pid(group, pidfile_wait("grandchild.pid"), isolated), ppid, pgid;
    ck_assert(proc_ids(g, &ppid, &pgid));
    ck_assert_int_eq(ppid, isolated ? host_pid(group, 1, true) : getpid());
    ck_assert(!stop(t, SIGTERM, 2000));
    ck_assert(!proc_exists(g));
    assert_nothing_left(group);
    assert_reads_burned(_i, &w, 2, true); /* the burner reaps the grandchild's parent */
    plat_target_free(t);
}
END_TEST

/* ---- Rotation inside the window ---------------------------------------------------- */

/* Whether every thread of process pid may run on the CPUs `want` only ("1"). */
static bool threads_on(pid_t pid, const char *want)
{
    char path[PATH_MAX], line[256];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    bool all = true;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof(line), f))
            if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
                char *v = line + 18 + strspn(line + 18, " \t");
                v[strcspn(v, "\n")] = '\0';
                all &= strcmp(v, want) == 0;
                n++;
            }
        fclose(f);
    }
    closedir(d);
    return all && n > 0;
}

/* --rotate: over a 1 s window at 250 ms, the tree (3 threads, 2 child processes) swaps
 * CPUs 3 times, half the window on each, and ends on the second CPU, every thread and
 * child with it. */
START_TEST(test_rotation)
{
    struct cpuset avail, slices[2];
    struct lb_error err;
    ck_assert_msg(plat_cpus_available(&avail, &err) == 0, "%s", err.msg);
    if (cpuset_count(&avail) < 2)
        return; /* one CPU: nothing to rotate over */
    cpuset_slice(&avail, 2, 0, &slices[0]);
    cpuset_slice(&avail, 2, 1, &slices[1]);
    char *argv[] = {burner, "--children", "2", "--share", "0.05", "--forever", NULL};
    struct plat_spawn_opts so = {
        .argv = argv, .envp = target_env, .stdout_path = "out.log", .stderr_path = "err.log",
        .cpus = &slices[0],
    };
    struct plat_target *t = NULL;
    ck_assert_msg(plat_spawn(&so, &t, &err) == 0, "%s", err.msg);
    wait_started();
    pause_ms(200); /* the children started */
    struct sampler_opts o = {
        .window_ns = 1000 * MS, .interval_ns = 1000 * MS, .rotate_ns = 250 * MS,
        .slices = slices, .n_slices = 2, .slice = 0,
    };
    struct series_point pts[2];
    o.points = pts;
    o.points_cap = ARRAY_SIZE(pts);
    struct sample_result r;
    ck_assert_msg(sampler_run(t, &o, &r, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(r.rotations, 3);
    for (size_t k = 0; k < 2; k++)
        ck_assert_msg(r.slice_ns[k] > 300 * MS && r.slice_ns[k] < 700 * MS,
                      "%.3f s on CPU set %zu of a 1 s window", (double)r.slice_ns[k] / 1e9, k);
    char want[64];
    cpuset_format(&slices[1], want, sizeof(want));
    ck_assert_msg(threads_on(plat_target_pid(t), want), "the burner is not all on CPUs %s", want);
    pid_t kids[8];
    size_t n_kids = 0;
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)plat_target_pid(t),
             (int)plat_target_pid(t));
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    for (int pid; n_kids < ARRAY_SIZE(kids) && fscanf(f, "%d", &pid) == 1;)
        kids[n_kids++] = pid;
    fclose(f);
    ck_assert_uint_eq(n_kids, 2);
    for (size_t i = 0; i < n_kids; i++) {
        snprintf(buf, sizeof(buf), "child %d is not on CPUs %s", (int)kids[i], want);
        ck_assert_msg(threads_on(kids[i], want), "%s", buf);
    }
    ck_assert(!stop(t, SIGTERM, 2000));
    plat_target_free(t);
}
END_TEST

/* ---- Stopping --------------------------------------------------------------------- */

/* A tree that ignores SIGTERM is killed when the grace period ends, and nothing of it
 * is left, not even a zombie. */
START_TEST(test_stop_escalates)
{
    struct plat_target *t = start(
        CPU_SOURCE_AUTO, (const char *[]){"BURNER", "--ignore-term", "--children", "2", "--share",
                                          "0.05", "--seconds", SAFETY_SECONDS, NULL});
    pid_t group = getpgid(plat_target_pid(t));
    pause_ms(200);
    uint64_t t0 = mono_ns();
    ck_assert(stop(t, SIGTERM, 300));
    uint64_t took = mono_ns() - t0;
    ck_assert_msg(took >= 300 * MS && took < 3000 * MS, "stop took %llu ms",
                  (unsigned long long)(took / MS));
    int status;
    ck_assert_int_eq(plat_target_exited(t, &status), 1);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_nothing_left(group);
    plat_target_free(t);
}
END_TEST

/* A tree that leaves on SIGTERM is not killed, and stopping takes no longer than it. */
START_TEST(test_stop_graceful)
{
    struct plat_target *t =
        start(CPU_SOURCE_AUTO,
              (const char *[]){"BURNER", "--children", "2", "--seconds", SAFETY_SECONDS, NULL});
    pid_t group = getpgid(plat_target_pid(t));
    pause_ms(200);
    uint64_t t0 = mono_ns();
    ck_assert(!stop(t, SIGTERM, 10000));
    ck_assert_uint_lt(mono_ns() - t0, 2000 * MS);
    int status;
    ck_assert_int_eq(plat_target_exited(t, &status), 1);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_nothing_left(group);
    plat_target_free(t);
}
END_TEST

/* A second SIGINT during the grace period cuts it short. */
START_TEST(test_stop_second_sigint)
{
    struct plat_target *t =
        start(CPU_SOURCE_AUTO,
              (const char *[]){"BURNER", "--ignore-term", "--seconds", SAFETY_SECONDS, NULL});
    pid_t group = getpgid(plat_target_pid(t));
    pause_ms(100);
    kill(getpid(), SIGINT);
    uint64_t t0 = mono_ns();
    ck_assert(stop(t, SIGTERM, 20000));
    ck_assert_uint_lt(mono_ns() - t0, 3000 * MS);
    ck_assert_int_eq(plat_sigint_count(), 1);
    assert_nothing_left(group);
    plat_target_free(t);
}
END_TEST

/* ---- Spawning --------------------------------------------------------------------- */

static void assert_spawn_fails(const char *cwd, char *const *envp, const char *want,
                               const char *const *args)
{
    struct plat_spawn_opts o = {
        .argv = (char *const *)args,
        .cwd = cwd,
        .envp = envp,
        .stdout_path = "out.log",
        .stderr_path = "err.log",
    };
    struct plat_target *t = NULL;
    struct lb_error err;
    ck_assert_int_eq(plat_spawn(&o, &t, &err), -1);
    ck_assert_ptr_null(t);
    ck_assert_str_eq(err.msg, want);
}

START_TEST(test_exec_failure)
{
    assert_spawn_fails(NULL, environ,
                       "cannot run 'loopbench-no-such-program': No such file or directory",
                       (const char *[]){"loopbench-no-such-program", NULL});
    testlib_write("not-executable", "#!/bin/sh\n", 0644);
    assert_spawn_fails(NULL, environ, "cannot run './not-executable': Permission denied",
                       (const char *[]){"./not-executable", NULL});
    assert_spawn_fails("no-such-dir", environ,
                       "cannot change to directory 'no-such-dir': No such file or directory",
                       (const char *[]){"sh", "-c", "exit 0", NULL});
    /* The PATH that counts is the target's, not loopbench's. */
    char *const empty_path[] = {"PATH=/nonexistent", NULL};
    assert_spawn_fails(NULL, empty_path, "cannot run 'sh': No such file or directory",
                       (const char *[]){"sh", "-c", "exit 0", NULL});
    assert_nothing_left(0);
}
END_TEST

/* A program without a slash is found in the PATH of the environment given. */
START_TEST(test_exec_path_from_envp)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", burner);
    *strrchr(dir, '/') = '\0';
    char *path = xasprintf("PATH=%s", dir);
    char *const envp[] = {path, NULL};
    char *const argv[] = {"burner", "--seconds", "0.1", NULL};
    struct plat_spawn_opts o = {
        .argv = argv, .envp = envp, .stdout_path = "out.log", .stderr_path = "out.log"};
    struct plat_target *t;
    struct lb_error err;
    ck_assert_msg(plat_spawn(&o, &t, &err) == 0, "%s", err.msg);
    int status = wait_exit(t, 5000);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    burner_cpu_seconds();
    ck_assert(!stop(t, SIGTERM, 1000));
    plat_target_free(t);
    free(path);
}
END_TEST

/* ---- The window's end ------------------------------------------------------------- */

START_TEST(test_target_exits_in_window)
{
    struct plat_target *t =
        start(CPU_SOURCE_AUTO, (const char *[]){"BURNER", "--exit-after", "0.4", "3", NULL});
    struct series_point pts[10];
    struct sample_result r = sample(t, 5000, 500, pts, 10);
    ck_assert_int_eq(r.end, SAMPLE_TARGET_EXITED);
    ck_assert(WIFEXITED(r.wstatus) && WEXITSTATUS(r.wstatus) == 3);
    ck_assert_uint_lt(r.wall_ns, 1500 * MS);
    ck_assert_uint_eq(r.n_points, 1); /* the partial one at the exit */
    ck_assert(!stop(t, SIGTERM, 1000));
    plat_target_free(t);

    t = start(CPU_SOURCE_AUTO, (const char *[]){"BURNER", "--crash-after", "0.3", NULL});
    r = sample(t, 5000, 500, pts, 10);
    ck_assert_int_eq(r.end, SAMPLE_TARGET_EXITED);
    ck_assert(WIFSIGNALED(r.wstatus) && WTERMSIG(r.wstatus) == SIGABRT);
    ck_assert(!stop(t, SIGTERM, 1000));
    plat_target_free(t);
}
END_TEST

START_TEST(test_interrupt_ends_window)
{
    struct plat_target *t =
        start(CPU_SOURCE_AUTO, (const char *[]){"BURNER", "--seconds", SAFETY_SECONDS, NULL});
    kill(getpid(), SIGTERM);
    struct sample_result r = sample(t, 5000, 1000, NULL, 0);
    ck_assert_int_eq(r.end, SAMPLE_INTERRUPTED);
    ck_assert_int_eq(plat_last_signal(), SIGTERM);
    ck_assert_uint_lt(r.wall_ns, 500 * MS);
    ck_assert(!stop(t, SIGTERM, 2000));
    plat_target_free(t);
}
END_TEST

/* ---- Attaching -------------------------------------------------------------------- */

START_TEST(test_attach)
{
    int way = _i == 0 ? WAY_CHILDREN_FILES : WAY_PROC_SCAN;
    way_setup(way);
    struct plat_target *t =
        start(CPU_SOURCE_AUTO, (const char *[]){"BURNER", "--share", "0.5", "--delay", DELAY,
                                                "--seconds", "0.5", "--exit-after", "1.7", "0",
                                                NULL});
    wait_started();
    struct plat_target *a;
    struct lb_error err;
    ck_assert_msg(plat_attach(plat_target_pid(t), &a, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(plat_target_cpu_source(a), CPU_SOURCE_TREE);
    /* 1.1 s at 500 ms: two full intervals and a short last one, around the 0.5 s burn. */
    struct series_point pts[3];
    ck_assert_uint_eq(sampler_points_needed(1100 * MS, 500 * MS), 3);
    struct window w = sample_window(a, 1100, 500, pts, 3);
    ck_assert_uint_eq(w.r.n_points, 3);
    ck_assert_msg(fabs(pts[2].t_s - 1.1) < 0.05, "last point at %.3f s", pts[2].t_s);
    /* Attached, the exit is found by looking, at the next point. */
    struct sample_result r = sample(a, 5000, 200, NULL, 0);
    ck_assert_int_eq(r.end, SAMPLE_TARGET_EXITED);
    ck_assert_uint_lt(r.wall_ns, 2000 * MS);
    assert_reads_burned(way, &w, 1, false);
    bool killed;
    ck_assert_int_eq(plat_target_stop(a, SIGTERM, 0, &killed, &err), -1);
    plat_target_free(a);
    ck_assert(!stop(t, SIGTERM, 1000));
    pid_t gone = plat_target_pid(t);
    plat_target_free(t);
    ck_assert_int_eq(plat_attach(gone, &a, &err), -1);
    char want[64];
    snprintf(want, sizeof(want), "no process with pid %d", (int)gone);
    ck_assert_str_eq(err.msg, want);
}
END_TEST

/* ---- The host --------------------------------------------------------------------- */

START_TEST(test_host)
{
    struct plat_host_cpu a, b;
    struct lb_error err;
    ck_assert_msg(plat_host_cpu(&a, &err) == 0, "%s", err.msg);
    pause_ms(50);
    ck_assert_msg(plat_host_cpu(&b, &err) == 0, "%s", err.msg);
    ck_assert_uint_gt(b.total_ns, a.total_ns);
    ck_assert_uint_ge(b.steal_ns, a.steal_ns);
    /* 50 ms of every CPU, give or take the 10 ms steps of /proc/stat. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    ck_assert_uint_lt(b.total_ns - a.total_ns, (uint64_t)(cpus * 80) * MS);

    struct plat_host_facts f;
    ck_assert_msg(plat_host_facts(&f, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(f.os, "Linux");
    ck_assert_ptr_nonnull(f.kernel);
    ck_assert_ptr_nonnull(f.arch);
    ck_assert_int_eq(f.logical_cpus, cpus);
    ck_assert_uint_gt(f.mem_total_bytes, 0);
    plat_host_facts_release(&f);
    ck_assert_ptr_null(f.os);

    enum cpu_source_kind k;
    ck_assert_int_eq(cpu_source_parse("tree", &k), 0);
    ck_assert_int_eq(k, CPU_SOURCE_TREE);
    ck_assert_int_eq(cpu_source_parse("perf", &k), 0);
    ck_assert_str_eq(cpu_source_name(k), "perf-task-clock");
    ck_assert_int_eq(cpu_source_parse("fast", &k), -1);
}
END_TEST

static Suite *sampler_suite(void)
{
    Suite *s = suite_create("sampler");
    TCase *cpu = tcase_create("cpu");
    tcase_add_unchecked_fixture(cpu, suite_setup, testlib_root_remove);
    tcase_add_checked_fixture(cpu, case_setup, case_teardown);
    tcase_set_timeout(cpu, 30);
    tcase_add_loop_test(cpu, test_total_matches_burner, 0, N_WAYS);
    tcase_add_loop_test(cpu, test_window_reads_burned, 0, N_WAYS);
    tcase_add_loop_test(cpu, test_shell_wrapper, 0, N_WAYS);
    tcase_add_loop_test(cpu, test_exited_threads, 0, N_WAYS);
    tcase_add_loop_test(cpu, test_reaped_children, 0, N_WAYS);
    tcase_add_loop_test(cpu, test_double_fork, 0, N_WAYS);
    tcase_add_loop_test(cpu, test_attach, 0, 2);
    suite_add_tcase(s, cpu);

    TCase *life = tcase_create("lifecycle");
    tcase_add_unchecked_fixture(life, suite_setup, testlib_root_remove);
    tcase_add_checked_fixture(life, case_setup, case_teardown);
    tcase_set_timeout(life, 30);
    tcase_add_test(life, test_stop_escalates);
    tcase_add_test(life, test_stop_graceful);
    tcase_add_test(life, test_stop_second_sigint);
    tcase_add_test(life, test_exec_failure);
    tcase_add_test(life, test_exec_path_from_envp);
    tcase_add_test(life, test_target_exits_in_window);
    tcase_add_test(life, test_interrupt_ends_window);
    tcase_add_test(life, test_host);
    tcase_add_test(life, test_rotation);
    suite_add_tcase(s, life);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sampler_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
