/* burner: a calibrated CPU burner that measures itself, the target of the sampler's tests
 * and benchmarks.
 *
 *   burner [--share F] [--delay D] [--seconds S | --forever] [--threads N | --children N |
 *          --double-fork] [--linger] [--ignore-term] [--exit-after S CODE]
 *          [--crash-after S] [--pidfile FILE] [--ramp TO R]
 *
 * Idles D seconds (default 0), then burns F of one core (default 0.25) for S seconds
 * (default 5): in each 10 ms period it spins until its thread's CPU clock has caught up
 * with F of the time since the start, then sleeps to the period's end, so a preempted
 * period is made up in the next ones. With --threads or --children the burning is done by
 * N threads (that exit at its end) or N child processes (reaped by the burner as they
 * end), each at F. With --double-fork it is done by a grandchild whose parent exits at
 * once, and the burner itself only waits. After the burn it exits, or with --linger idles
 * (the grandchild too) until SIGTERM or SIGINT, or until --exit-after's time. Idle means
 * blocked: no CPU. With --ramp the share rises evenly from F to TO over the first R
 * seconds of the burn, then stays at TO: one process whose CPU climbs (a target still
 * warming up), without the steps of processes started one after another.
 *
 * What it prints on stdout, each line in one write:
 *   burner: started pid=P share=F              at the start (after the dynamic loader,
 *                                              and a sanitizer's set-up), F the share asked
 *   burner: burned cpu_ns=C task_clock_ns=T from_ns=A to_ns=B
 *       at the end of the burn: the CPU it used from A to B (CLOCK_MONOTONIC), by its
 *       process CPU clock plus the usage of the children it reaped (C), and by a perf
 *       task clock it opened on itself at the start, inherited by every thread and
 *       process it made (T; -1 if the kernel refused it). A double-forked grandchild,
 *       which the burner cannot reap, prints its own C over its whole life (and T 0:
 *       the burner's includes it).
 *   burner: slept cpu_ns=C task_clock_ns=T
 *       when the idling after the burn ends (by a signal or --exit-after's time): the
 *       CPU by the same clocks from just before its sleep until the burn to just before
 *       its sleep after it, so the burn plus the wake-up that starts it and the "burned"
 *       line (on a VM, where interrupts and exits to the hypervisor are charged to the
 *       running task, these cost 0.1-2 ms each; more under the sanitizers). A lingering
 *       grandchild prints its own, from its birth. The sum of these lines is the truth
 *       for a window that opens while the burner sleeps before its burn (after
 *       "started" and before min A) and closes while it sleeps after (after max B),
 *       whatever the edges' exact instants.
 *   burner: cpu_seconds=X wall_seconds=Y share=Z  at exit: its whole life, by its
 *       process CPU clock and its reaped children's usage.
 * SIGTERM and SIGINT end the burn or the lingering, unless --ignore-term. */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000ULL
#define MAX_WORKERS 64

static volatile sig_atomic_t stop;

struct opts {
    double share;
    double delay;
    double seconds; /* 0: forever */
    long threads, children;
    bool double_fork, linger, ignore_term;
    double exit_after; /* 0: none */
    long exit_code;
    double crash_after;
    const char *pidfile;
    double ramp_to, ramp_seconds; /* --ramp; ramp_seconds 0: none */
};

/* --ramp, for burn(): the share at the start rises to ramp_to over ramp_ns. */
static double ramp_to;
static uint64_t ramp_ns;

static uint64_t now_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t mono)
{
    struct timespec ts = {(time_t)(mono / 1000000000ULL), (long)(mono % 1000000000ULL)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static uint64_t timeval_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000ULL + (uint64_t)tv.tv_usec * 1000ULL;
}

/* The CPU this process has used, with what it reaped from its children. */
static uint64_t cpu_used_ns(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return now_ns(CLOCK_PROCESS_CPUTIME_ID) + timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime);
}

/* A task clock (the clock of loopbench's perf-task-clock source) counting this process
 * and every thread and process it starts from now on, or -1 where the kernel refuses. */
static int task_clock_open(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.inherit = 1;
    a.exclude_kernel = 1; /* all perf_event_paranoid 2 allows; a task clock counts anyway */
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The task clock's count: this process's, its live descendants' and its exited ones'. */
static uint64_t task_clock_ns(int fd)
{
    uint64_t v = 0;
    if (fd >= 0 && read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
        v = 0;
    return v;
}

/* The task clock opened at the start (-1: none). */
static int task_clock = -1;

/* The CPU used so far, by the two clocks of the "burned" and "slept" lines. */
struct clocks {
    uint64_t cpu_ns, task_clock_ns;
};

static struct clocks clocks_now(void)
{
    return (struct clocks){cpu_used_ns(), task_clock_ns(task_clock)};
}

/* The task clock's count from a to b, or -1 where there is no task clock. */
static int64_t task_clock_between(struct clocks a, struct clocks b)
{
    return task_clock >= 0 ? (int64_t)(b.task_clock_ns - a.task_clock_ns) : -1;
}

/* The clocks the last time this process went to sleep in idle_until (or found its
 * deadline past): what a window that opens or closes while it sleeps reads of it there. */
static struct clocks asleep;

/* Block until deadline (monotonic; 0: none) or until SIGTERM or SIGINT has set stop.
 * They are blocked but during the wait itself, so one that comes just before the wait
 * still ends it. */
static void idle_until(uint64_t deadline)
{
    sigset_t ending, old;
    sigemptyset(&ending);
    sigaddset(&ending, SIGTERM);
    sigaddset(&ending, SIGINT);
    pthread_sigmask(SIG_BLOCK, &ending, &old);
    asleep = clocks_now(); /* for a deadline already past */
    while (!stop) {
        struct timespec left, *timeout = NULL;
        if (deadline) {
            uint64_t now = now_ns(CLOCK_MONOTONIC);
            if (now >= deadline)
                break;
            left = (struct timespec){(time_t)((deadline - now) / 1000000000ULL),
                                     (long)((deadline - now) % 1000000000ULL)};
            timeout = &left;
        }
        asleep = clocks_now();
        pselect(0, NULL, NULL, NULL, timeout, &old);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The "burned" line, in one write: its processes share the output file. task_clock_ns
 * is -1 where there is no task clock. */
static void report_burned(uint64_t cpu_ns, int64_t task_clock_ns, uint64_t from_ns, uint64_t to_ns)
{
    dprintf(STDOUT_FILENO,
            "burner: burned cpu_ns=%llu task_clock_ns=%lld from_ns=%llu to_ns=%llu\n",
            (unsigned long long)cpu_ns, (long long)task_clock_ns, (unsigned long long)from_ns,
            (unsigned long long)to_ns);
}

/* The "slept" line, in one write, as "burned"'s. */
static void report_slept(uint64_t cpu_ns, int64_t task_clock_ns)
{
    dprintf(STDOUT_FILENO, "burner: slept cpu_ns=%llu task_clock_ns=%lld\n",
            (unsigned long long)cpu_ns, (long long)task_clock_ns);
}

/* The CPU time a burn owes t ns after its start: share of it, or with --ramp the
 * integral of a share rising from share to ramp_to over ramp_ns. */
static double owed(double share, uint64_t t)
{
    if (!ramp_ns)
        return share * (double)t;
    double r = (double)(t < ramp_ns ? t : ramp_ns);
    return share * r + (ramp_to - share) * r * r / (2.0 * (double)ramp_ns) +
           (t > ramp_ns ? ramp_to * (double)(t - ramp_ns) : 0);
}

/* Burn share of one core in the calling thread until end (monotonic; 0 never). */
static void burn(double share, uint64_t end)
{
    uint64_t t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint64_t k = 1; !stop; k++) {
        uint64_t period_end = t0 + k * PERIOD_NS;
        if (end && period_end > end)
            period_end = end;
        uint64_t target = c0 + (uint64_t)owed(share, period_end - t0);
        while (!stop && now_ns(CLOCK_THREAD_CPUTIME_ID) < target &&
               now_ns(CLOCK_MONOTONIC) < period_end)
            ;
        sleep_until(period_end);
        if (end && period_end >= end)
            break;
    }
}

struct worker {
    double share;
    uint64_t end;
};

static void *burn_thread(void *arg)
{
    const struct worker *w = arg;
    burn(w->share, w->end);
    return NULL;
}

/* The earlier of two deadlines, 0 meaning none. */
static uint64_t earliest(uint64_t a, uint64_t b)
{
    return !a || (b && b < a) ? b : a;
}

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static int write_pidfile(const char *path, pid_t pid)
{
    /* Written aside and renamed, so a reader never sees half of it. */
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "%d\n", (int)pid);
    if (fclose(f) != 0)
        return -1;
    return rename(tmp, path);
}

static double seconds_arg(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0 || v > 1e6) {
        fprintf(stderr, "burner: bad number of seconds '%s'\n", s);
        exit(2);
    }
    return v;
}

static long count_arg(const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > max) {
        fprintf(stderr, "burner: bad number '%s'\n", s);
        exit(2);
    }
    return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.share = 0.25, .seconds = 5};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has1 = i + 1 < argc, has2 = i + 2 < argc;
        if (strcmp(a, "--share") == 0 && has1) {
            o->share = seconds_arg(argv[++i]);
            if (o->share > 1) {
                fprintf(stderr, "burner: --share is a fraction of one core, at most 1\n");
                exit(2);
            }
        } else if (strcmp(a, "--ramp") == 0 && has2) {
            o->ramp_to = seconds_arg(argv[++i]);
            o->ramp_seconds = seconds_arg(argv[++i]);
            if (o->ramp_to > 1) {
                fprintf(stderr, "burner: --ramp rises to a fraction of one core, at most 1\n");
                exit(2);
            }
        } else if (strcmp(a, "--delay") == 0 && has1) {
            o->delay = seconds_arg(argv[++i]);
        } else if (strcmp(a, "--seconds") == 0 && has1) {
            o->seconds = seconds_arg(argv[++i]);
        } else if (strcmp(a, "--forever") == 0) {
            o->seconds = 0;
        } else if (strcmp(a, "--threads") == 0 && has1) {
            o->threads = count_arg(argv[++i], 1, MAX_WORKERS);
        } else if (strcmp(a, "--children") == 0 && has1) {
            o->children = count_arg(argv[++i], 1, MAX_WORKERS);
        } else if (strcmp(a, "--double-fork") == 0) {
            o->double_fork = true;
        } else if (strcmp(a, "--linger") == 0) {
            o->linger = true;
        } else if (strcmp(a, "--ignore-term") == 0) {
            o->ignore_term = true;
        } else if (strcmp(a, "--exit-after") == 0 && has2) {
            o->exit_after = seconds_arg(argv[++i]);
            o->exit_code = count_arg(argv[++i], 0, 255);
        } else if (strcmp(a, "--crash-after") == 0 && has1) {
            o->crash_after = seconds_arg(argv[++i]);
        } else if (strcmp(a, "--pidfile") == 0 && has1) {
            o->pidfile = argv[++i];
        } else {
            fprintf(stderr, "burner: unknown or incomplete option '%s'\n", a);
            exit(2);
        }
    }
}

/* A child that burns and leaves without a word: the burner reaps it and reports it. */
static pid_t burn_child(const struct opts *o, uint64_t end)
{
    pid_t pid = fork();
    if (pid == 0) {
        burn(o->share, end);
        _exit(0);
    }
    return pid;
}

/* A grandchild that burns while its parent exits at once, so it is no child of the
 * burner (loopbench's, as a subreaper). It reports its own process CPU clock, which the
 * burner cannot reap, and holds the write end of a pipe while it burns: the read end,
 * returned, gives EOF when it is done. Its task clock is the burner's, inherited. */
static int burn_grandchild(const struct opts *o, uint64_t end)
{
    int burning[2];
    if (pipe(burning) < 0) {
        perror("burner: pipe");
        exit(1);
    }
    pid_t mid = fork();
    if (mid == 0) {
        if (fork() == 0) {
            uint64_t born = now_ns(CLOCK_MONOTONIC);
            close(burning[0]);
            if (o->pidfile)
                write_pidfile(o->pidfile, getpid());
            burn(o->share, end);
            report_burned(now_ns(CLOCK_PROCESS_CPUTIME_ID), 0, born, now_ns(CLOCK_MONOTONIC));
            close(burning[1]);
            if (o->linger) {
                idle_until(0);
                report_slept(asleep.cpu_ns, 0);
            }
        }
        _exit(0);
    }
    close(burning[1]);
    waitpid(mid, NULL, 0);
    return burning[0];
}

/* Burn with the workers o asks for until burn_end (0: until stopped), then join and reap
 * them (and wait for a grandchild's burn to end). The main thread watches the clock meanwhile;
 * crash_at aborts, exit_at sets *code and ends the burn. */
static void burn_phase(const struct opts *o, uint64_t burn_end, uint64_t exit_at, uint64_t crash_at,
                       int *code)
{
    pthread_t threads[MAX_WORKERS];
    struct worker w = {o->share, burn_end};
    for (long i = 0; i < o->threads; i++)
        pthread_create(&threads[i], NULL, burn_thread, &w);
    pid_t kids[MAX_WORKERS];
    for (long i = 0; i < o->children; i++)
        kids[i] = burn_child(o, burn_end);
    int grandchild_burning = o->double_fork ? burn_grandchild(o, burn_end) : -1;
    if (!o->threads && !o->children && !o->double_fork)
        burn(o->share, earliest(earliest(burn_end, exit_at), crash_at));

    for (;;) {
        uint64_t now = now_ns(CLOCK_MONOTONIC);
        if (crash_at && now >= crash_at)
            abort();
        if (exit_at && now >= exit_at) {
            *code = (int)o->exit_code;
            stop = 1;
        }
        if (stop || (burn_end && now >= burn_end))
            break;
        /* Children are reaped as they finish, so their time moves to our cutime. */
        for (long i = 0; i < o->children; i++)
            if (kids[i] && waitpid(kids[i], NULL, WNOHANG) == kids[i])
                kids[i] = 0;
        sleep_until(earliest(now + PERIOD_NS, burn_end));
    }
    for (long i = 0; i < o->threads; i++)
        pthread_join(threads[i], NULL);
    for (long i = 0; i < o->children; i++) {
        if (!kids[i])
            continue;
        if (stop)
            kill(kids[i], SIGKILL); /* cut short: the children may ignore SIGTERM */
        waitpid(kids[i], NULL, 0);
    }
    if (grandchild_burning >= 0) {
        char c;
        while (read(grandchild_burning, &c, 1) < 0 && errno == EINTR)
            ;
        close(grandchild_burning);
    }
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    ramp_to = o.ramp_to;
    ramp_ns = (uint64_t)(o.ramp_seconds * 1e9);
    uint64_t start = now_ns(CLOCK_MONOTONIC);
    uint64_t exit_at = o.exit_after > 0 ? start + (uint64_t)(o.exit_after * 1e9) : 0;
    uint64_t crash_at = o.crash_after > 0 ? start + (uint64_t)(o.crash_after * 1e9) : 0;

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_term;
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = o.ignore_term ? SIG_IGN : on_term;
    sigaction(SIGTERM, &sa, NULL);
    if (o.pidfile && !o.double_fork && write_pidfile(o.pidfile, getpid()) < 0) {
        perror("burner: pidfile");
        return 1;
    }
    task_clock = task_clock_open(); /* before any worker, so that they inherit it */
    dprintf(STDOUT_FILENO, "burner: started pid=%d share=%g\n", (int)getpid(), o.share);

    idle_until(earliest(start + (uint64_t)(o.delay * 1e9), earliest(exit_at, crash_at)));
    struct clocks before_burn = asleep;
    uint64_t from = now_ns(CLOCK_MONOTONIC);
    struct clocks burn_from = clocks_now();
    uint64_t burn_end = o.seconds > 0 ? from + (uint64_t)(o.seconds * 1e9) : 0;
    int code = 0;
    burn_phase(&o, burn_end, exit_at, crash_at, &code);
    struct clocks burn_to = clocks_now();
    report_burned(burn_to.cpu_ns - burn_from.cpu_ns, task_clock_between(burn_from, burn_to), from,
                  now_ns(CLOCK_MONOTONIC));

    /* Then idle, until the time to exit or crash, or with --linger until stopped. */
    uint64_t leave_at = earliest(exit_at, crash_at);
    bool rests = !stop && (leave_at || o.linger);
    if (rests)
        idle_until(leave_at);
    if (crash_at && now_ns(CLOCK_MONOTONIC) >= crash_at)
        abort();
    if (exit_at && now_ns(CLOCK_MONOTONIC) >= exit_at)
        code = (int)o.exit_code;
    if (rests)
        report_slept(asleep.cpu_ns - before_burn.cpu_ns, task_clock_between(before_burn, asleep));

    double cpu = (double)cpu_used_ns() / 1e9;
    double wall = (double)(now_ns(CLOCK_MONOTONIC) - start) / 1e9;
    printf("burner: cpu_seconds=%.6f wall_seconds=%.6f share=%.6f\n", cpu, wall,
           wall > 0 ? cpu / wall : 0);
    return code;
}
