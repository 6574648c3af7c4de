/* burner: a calibrated CPU burner, the target of the sampler's tests and benchmarks.
 *
 *   burner [--share F] [--seconds S | --forever] [--threads N | --children N |
 *          --double-fork] [--ignore-term] [--exit-after S CODE] [--crash-after S]
 *          [--pidfile FILE]
 *
 * Burns F of one core (default 0.25) for S seconds (default 5): in each 10 ms period it
 * spins until its thread's CPU clock has caught up with F of the time since the start,
 * then sleeps to the period's end, so a preempted period is made up in the next ones.
 * With --threads or --children the burning is done by N threads (that exit before the
 * process) or N child processes (reaped by it), each at F. With --double-fork it is
 * done by a grandchild whose parent exits at once, and the burner itself only waits.
 *
 * At exit it prints what it used, by its own clocks (its process CPU clock plus the
 * usage of the children it reaped):
 *   burner: cpu_seconds=X wall_seconds=Y share=Z
 * SIGTERM and SIGINT end it that way too, unless --ignore-term. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000ULL
#define MAX_WORKERS 64

static volatile sig_atomic_t stop;

struct opts {
    double share;
    double seconds; /* 0: forever */
    long threads, children;
    bool double_fork, ignore_term;
    double exit_after; /* 0: none */
    long exit_code;
    double crash_after;
    const char *pidfile;
};

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

/* Burn share of one core in the calling thread until end (monotonic; 0 never). */
static void burn(double share, uint64_t end)
{
    uint64_t t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint64_t k = 1; !stop; k++) {
        uint64_t period_end = t0 + k * PERIOD_NS;
        if (end && period_end > end)
            period_end = end;
        uint64_t target = c0 + (uint64_t)(share * (double)(period_end - t0));
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

/* A child that burns and leaves without a word (only the burner reports). */
static pid_t burn_child(const struct opts *o, uint64_t end)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (o->pidfile && o->double_fork)
            write_pidfile(o->pidfile, getpid());
        burn(o->share, end);
        _exit(0);
    }
    return pid;
}

int main(int argc, char **argv)
{
    struct opts o;
    parse(argc, argv, &o);
    uint64_t start = now_ns(CLOCK_MONOTONIC);
    uint64_t burn_end = o.seconds > 0 ? start + (uint64_t)(o.seconds * 1e9) : 0;
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

    pthread_t threads[MAX_WORKERS];
    struct worker w = {o.share, burn_end};
    for (long i = 0; i < o.threads; i++)
        pthread_create(&threads[i], NULL, burn_thread, &w);
    pid_t kids[MAX_WORKERS];
    for (long i = 0; i < o.children; i++)
        kids[i] = burn_child(&o, burn_end);
    if (o.double_fork) {
        pid_t mid = fork();
        if (mid == 0) {
            burn_child(&o, burn_end);
            _exit(0);
        }
        waitpid(mid, NULL, 0);
    }
    if (!o.threads && !o.children && !o.double_fork)
        burn(o.share, earliest(earliest(burn_end, exit_at), crash_at));

    /* Then the main thread watches the clock. */
    int code = 0;
    for (;;) {
        uint64_t now = now_ns(CLOCK_MONOTONIC);
        if (crash_at && now >= crash_at)
            abort();
        if (exit_at && now >= exit_at) {
            code = (int)o.exit_code;
            stop = 1;
        }
        if (stop || (!exit_at && burn_end && now >= burn_end))
            break;
        /* Children are reaped as they finish, so their time moves to our cutime. */
        for (long i = 0; i < o.children; i++)
            if (kids[i] && waitpid(kids[i], NULL, WNOHANG) == kids[i])
                kids[i] = 0;
        sleep_until(now + PERIOD_NS);
    }
    for (long i = 0; i < o.threads; i++)
        pthread_join(threads[i], NULL);
    for (long i = 0; i < o.children; i++) {
        if (!kids[i])
            continue;
        if (stop)
            kill(kids[i], SIGKILL); /* cut short: the children may ignore SIGTERM */
        waitpid(kids[i], NULL, 0);
    }

    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    double cpu = (double)now_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9 + (double)ru.ru_utime.tv_sec +
                 (double)ru.ru_stime.tv_sec +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    double wall = (double)(now_ns(CLOCK_MONOTONIC) - start) / 1e9;
    printf("burner: cpu_seconds=%.6f wall_seconds=%.6f share=%.6f\n", cpu, wall,
           wall > 0 ? cpu / wall : 0);
    return code;
}
