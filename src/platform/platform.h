/* The platform contract: everything that differs per operating system.
 *
 * One implementation per OS in src/platform/<os>.c, chosen by meson from
 * host_machine.system(). Units are converted inside a back-end and never outside it:
 * every time here is in nanoseconds, every size in bytes. */
#ifndef LOOPBENCH_PLATFORM_H
#define LOOPBENCH_PLATFORM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cpuset.h"
#include "msg.h"

/* Name of the back-end that was built ("linux", ...), as redis's aeGetApiName(). */
const char *plat_name(void);

/* What a target must not read of loopbench, its user's other processes may not either:
 * Linux makes loopbench not dumpable (its /proc/PID/environ, mem and fd are root's, and
 * no process of its user may ptrace it); nothing elsewhere. Called first in main. */
void plat_harden(void);

/* Directory of the running loopbench executable (new string, caller frees). */
char *plat_exe_dir(struct lb_error *err);

/* ---- CPU sources ------------------------------------------------------------------ */

enum cpu_source_kind {
    CPU_SOURCE_AUTO = 0, /* the best one the host allows */
    CPU_SOURCE_PERF,     /* Linux perf_event task-clock, inherited by the whole tree */
    CPU_SOURCE_TREE,     /* per-process CPU clocks of the live tree + reaped children
                            (Windows: the job's accounting) */
    CPU_SOURCE_PROCESS,  /* one attached process's own times, without descendants
                            (Windows' sample --pid: GetProcessTimes) */
};

/* "perf-task-clock", "process-tree-clocks", ...: recorded in results. */
const char *cpu_source_name(enum cpu_source_kind kind);
/* The back-end's name for CPU_SOURCE_TREE (each <os>.c defines it). */
extern const char plat_tree_source_name[];
/* Parse "auto", "perf", "tree"; -1 if unknown. */
int cpu_source_parse(const char *s, enum cpu_source_kind *out);
/* The kind whose recorded name (cpu_source_name) is s, AUTO for none. */
enum cpu_source_kind cpu_source_named(const char *s);

/* ---- Target processes ------------------------------------------------------------- */

struct plat_spawn_opts {
    char *const *argv;         /* argv[0] is looked up in PATH when it has no slash */
    const char *cwd;           /* NULL: inherit */
    char *const *envp;         /* the complete environment */
    const char *stdout_path;   /* created/truncated */
    const char *stderr_path;   /* created/truncated */
    /* Instead of the paths: the write ends of pipes that loopbench reads (capture.c),
     * stdout's and stderr's. The caller keeps and closes its own. */
    bool piped;
    int pipe_fds[2];
    enum cpu_source_kind cpu;  /* AUTO tries perf, then falls back to TREE */
    bool same_user;            /* never as another user (plat_target_isolation): a build
                                  must write its own checkout */
    const struct cpuset *cpus; /* the CPUs the whole tree runs on (inherited); NULL: any */
};

/* A process tree that loopbench started (spawned) or attached to (sample --pid). */
struct plat_target;

/* Start argv in a new process group with stdin from the null device. While any
 * spawned target exists, loopbench is a child subreaper so that descendants which
 * double-fork are still found, accounted and killed. Calls plat_events_init() first:
 * stopping the target waits on SIGCHLD events. */
int plat_spawn(const struct plat_spawn_opts *opts, struct plat_target **out,
               struct lb_error *err);
/* Attach to a running process (and its descendants) that loopbench did not start. */
int plat_attach(pid_t pid, struct plat_target **out, struct lb_error *err);

/* The pid of the program started (attached to): with a PID namespace, the host's pid of
 * it, not of the shim between loopbench and it. */
pid_t plat_target_pid(const struct plat_target *t);
enum cpu_source_kind plat_target_cpu_source(const struct plat_target *t);
/* What holds a spawned tree for stopping it, recorded in results: "cgroup2" (Linux,
 * where loopbench may make a cgroup: its own for each target, killed whole), "job-object"
 * (Windows), "process-group" (elsewhere: the group, and each member a walk finds). */
const char *plat_target_containment(const struct plat_target *t);
/* What keeps the target from reading the environments of loopbench's ancestors (a CI
 * job's shell and runner), recorded in results: "pid-namespace" (Linux, where one can
 * be made: the target sees its own tree alone, and a /proc of its own), "user-nobody"
 * (Linux as root where none can: it runs as uid 65534), "none" (elsewhere: it could
 * read them). */
const char *plat_target_isolation(const struct plat_target *t);
/* Effective resolution of the CPU source, in ns (a running thread's clock can lag by a
 * scheduler tick; perf reads are fresh). */
uint64_t plat_target_cpu_resolution_ns(const struct plat_target *t);

/* Total CPU time (user + system) of the whole tree since it started, in ns, including
 * threads and descendants that have exited. Allocation-free: this is the hot path. */
int plat_target_cpu_ns(struct plat_target *t, uint64_t *cpu_ns, struct lb_error *err);

/* A snapshot of the live tree. */
struct plat_tree_stats {
    uint64_t rss_bytes;      /* summed over live processes of the tree */
    uint64_t voluntary_ctxsw;   /* summed over live threads of the tree */
    uint64_t involuntary_ctxsw;
    unsigned nprocs;
};

/* The total CPU (as plat_target_cpu_ns) and a snapshot of the live tree at one instant,
 * in one walk of the tree: the CPU first, then the other figures of the processes that
 * walk found. Allocation-free: what the sampler takes at each point. */
int plat_target_read(struct plat_target *t, uint64_t *cpu_ns, struct plat_tree_stats *stats,
                     struct lb_error *err);

/* Has the leader exited? Returns 1 (and its wait status) once it has, 0 while it runs,
 * -1 on error. For an attached process, exit status is unknown and reported as 0. */
int plat_target_exited(struct plat_target *t, int *wstatus);

/* Stop a spawned tree: send sig to its process group (and any adopted orphans), wait up
 * to grace_ns for them to exit, then SIGKILL whatever is left (the whole cgroup or job
 * where there is one), and reap everything. *killed tells whether SIGKILL was needed.
 * grace_ns 0 kills at once. A tree too large or too quick to list whole is signalled
 * all the same, again and again, until it is gone; -1 with err naming how many were
 * seen left when it waited 5 s after SIGKILL with none of them dying (or 60 s passed). */
int plat_target_stop(struct plat_target *t, int sig, uint64_t grace_ns, bool *killed,
                     struct lb_error *err);

/* Free the handle (a spawned tree must have been stopped first). */
void plat_target_free(struct plat_target *t);

/* Tests only: find tree members by scanning every process, as on hosts without a
 * cheaper way (Linux without /proc/PID/task/TID/children). No-op where there is one. */
void plat_force_full_scan(bool on);

/* Start a thread that takes no signals (they stay events of the calling thread's
 * plat_wait_until): pthread_create's result. */
int plat_thread_start(pthread_t *thread, void *(*run)(void *), void *arg);

/* ---- Waiting ---------------------------------------------------------------------- */

/* Install loopbench's signal handling: SIGINT, SIGTERM, SIGHUP and SIGCHLD become events
 * that plat_wait_until() reports, instead of killing loopbench or being lost. */
int plat_events_init(struct lb_error *err);

enum plat_event {
    PLAT_EVENT_TIMEOUT = 0, /* the deadline passed */
    PLAT_EVENT_CHILD,       /* a child changed state: check plat_target_exited() */
    PLAT_EVENT_INTERRUPT,   /* SIGINT, SIGTERM or SIGHUP: see plat_last_signal() */
};
/* Sleep until the monotonic deadline or an event, whichever first. Never busy-waits. */
enum plat_event plat_wait_until(uint64_t deadline_mono_ns);
/* The last interrupting signal received (0 if none) and how many SIGINTs so far. */
int plat_last_signal(void);
int plat_sigint_count(void);

/* ---- Files ----------------------------------------------------------------------- */

/* Put tmp (a file in path's directory) in place of path in one step that survives a
 * crash: rename and sync the directory (POSIX), MoveFileExW with REPLACE_EXISTING and
 * WRITE_THROUGH (Windows, where rename() refuses an existing target). -1 with errno. */
int plat_replace_file(const char *tmp, const char *path);
/* A new file at path for writing, mode 0600 where the system has modes: never one that
 * exists, nor through a symbolic link (a link at path, even dangling, is EEXIST). Its
 * descriptor, or -1 with errno. */
int plat_create_exclusive(const char *path);
/* Make the entries of path's directory durable (fsync of the directory); nothing where
 * the system writes them through (Windows). */
void plat_sync_dir_of(const char *path);
/* What tells one version of a file from the next without reading it. */
struct plat_file_stamp {
    bool regular; /* a regular file at path itself, no link */
    uint64_t size;
    uint64_t mtime_ns; /* as precise as the file system keeps it */
    uint64_t ino;      /* 0 where the system has none (Windows) */
};
/* path's stamp, not following a link at path: 0, or -1 with errno. */
int plat_file_stamp(const char *path, struct plat_file_stamp *out);
/* Sleep ns, whatever signals arrive: their events stay for plat_wait_until. */
void plat_sleep(uint64_t ns);
/* A file loopbench writes for its user in a directory a hostile campaign may have filled
 * (plots, series.csv): created or truncated, but never through a symbolic link at path,
 * which fails with ELOOP. NULL with errno. */
FILE *plat_fopen_output(const char *path);
/* Set the permission bits of the open file fd (Windows: only whether it is read-only,
 * from the owner's write bit), never through a path a link could redirect. -1 with
 * errno. */
int plat_set_mode(int fd, unsigned mode);
/* len bytes from the system's cryptographic random source. -1 with errno. */
int plat_random(void *buf, size_t len);
/* Absolute, canonical path (new string), or NULL with errno (ENOENT when missing). */
char *plat_realpath(const char *path);
/* The text of the symbolic link at path (new string), or NULL with errno: EINVAL when
 * path is no link (Windows: always, loopbench never makes links there). */
char *plat_link_text(const char *path);
/* mkdir; mode is applied where the file system has modes. -1 with errno. */
int plat_mkdir(const char *path, unsigned mode);
/* Lock fd, the file just opened at path, exclusively and without waiting: 0, or -1 with
 * errno EWOULDBLOCK when another process holds it, or ESTALE when the lock was taken on
 * a file that is no longer at path (its holder removed it meanwhile: open it again).
 * The system drops the lock when the process dies. The lock must not stop other
 * processes from reading the file. */
int plat_lock_try(int fd, const char *path);
/* Delete the lock file and release the lock held through fd, in the order the system
 * allows (Windows cannot delete a file that is open). */
void plat_lock_release(const char *path, int fd);
/* A read-write temporary file, deleted when closed (NULL with err). */
FILE *plat_scratch_file(struct lb_error *err);

/* Path syntax. The length of path's root ("/" on POSIX; on Windows also "C:\", "C:/",
 * "C:" and "\\server\share\"), 0 for a relative path; and whether c separates
 * directories ('/'; Windows also '\'). */
size_t plat_path_root_len(const char *path);
bool plat_path_is_separator(char c);
/* Over these, the same on every system (common.c): the last component of path (a pointer
 * into it), its directory part (new string) and a path joined onto a directory (new
 * string; an absolute `rel` is returned as a copy). */
const char *path_basename(const char *path);
char *path_dirname(const char *path);
char *path_join(const char *dir, const char *rel);
/* Whether rel stays inside the directory it is joined to: relative, not empty, and no
 * component is "..". */
bool path_is_within(const char *rel);

/* ---- Programs and the network ------------------------------------------------------ */

/* Run argv (argv[0] looked up in PATH) in dir, stdin from the null device, stdout and
 * stderr to the file output_path, and wait for it: 0 with its wait status, or -1 with
 * err and errno (ENOENT: no such program) when it could not be started. gnuplot is run
 * this way. */
int plat_run_program(char *const *argv, const char *dir, const char *output_path,
                     int *wstatus, struct lb_error *err);
/* Run argv (argv[0] looked up in loopbench's PATH) in the environment envp alone,
 * stdin and stderr the null device, and read at most limit bytes of its stdout into
 * *out (new string; the rest is not read: the pipe is closed on it), waiting at most
 * timeout_ms for it to exit before it is killed: 0 with its wait status, -1 with err
 * when it could not be started (Windows: not yet, it says so). git is run this way. */
int plat_run_output(char *const *argv, char *const *envp, size_t limit, unsigned timeout_ms,
                    char **out, int *wstatus, struct lb_error *err);
/* Whether program would start as a target's argv[0] does: a path (relative to dir, the
 * target's working directory) to an executable file, or a bare name found in loopbench's
 * PATH (Windows: the working directory first, ".exe" optional). 0, or ENOENT (nothing
 * there), EACCES (there but not executable). */
int plat_program_check(const char *program, const char *dir);

/* 1 when something accepts TCP connections at host:port within 100 ms, else 0. */
int plat_tcp_accepting(const char *host, int port);

/* loopbench's own cost so far: CPU (user + system) and peak resident set. */
struct plat_self_usage {
    uint64_t cpu_ns;
    uint64_t max_rss_bytes;
};
void plat_self_usage(struct plat_self_usage *out);

/* ---- CPU pinning (loopbench run --cpus, --order duet) ------------------------------ */

/* The CPUs loopbench may run on (its affinity). -1 with err where the platform cannot
 * pin (macOS, Windows): there --cpus is refused. */
int plat_cpus_available(struct cpuset *out, struct lb_error *err);
/* Run loopbench's calling thread, and the threads it starts later, on s only. */
int plat_pin_self(const struct cpuset *s, struct lb_error *err);

/* Move every task of t's tree (its threads and descendants, found afresh) onto s; tasks
 * started later inherit it from their parent. Two passes, so that a task born of a
 * parent the first pass had not moved yet is moved by the second. Allocation-free: the
 * sampler swaps the targets' CPU sets inside the window (run --rotate). */
int plat_target_set_cpus(struct plat_target *t, const struct cpuset *s, struct lb_error *err);

/* ---- Idle states (loopbench run --hold-idle) and what the CPUs did ----------------- */

/* Keep every CPU out of its idle states: Linux holds a PM QoS request of 0 us through
 * /dev/cpu_dma_latency, which lasts while the returned handle is open, so the kernel
 * lets go of it however loopbench ends. A handle (>= 0), or -1 with err where the
 * request cannot be made (no such file, not root, a port without one). */
int plat_idle_hold(struct lb_error *err);
/* Let the CPUs idle again. */
void plat_idle_release(int handle);

#define PLAT_IDLE_STATES_MAX 16
/* One idle state of a CPU, cumulative since boot (Linux: cpuidle's stateN). */
struct plat_idle_state {
    char name[32];
    uint64_t usage;          /* times entered */
    uint64_t time_us;        /* time spent in it */
    uint64_t above, below;   /* entered when a deeper, resp. shallower, one fitted better */
};
/* One CPU's counters, cumulative: its /proc/stat line and its idle states. */
struct plat_cpu_counters {
    uint64_t busy_ns, steal_ns, total_ns; /* as plat_host_cpu's, of this CPU alone */
    size_t n_idle;                        /* 0: no cpuidle driver */
    struct plat_idle_state idle[PLAT_IDLE_STATES_MAX];
};
/* The cpuidle driver the host runs (new string; "haltpoll", "intel_idle"), NULL when it
 * has none or the port cannot tell. The sysfs root is $LOOPBENCH_TEST_SYSFS when set,
 * for the tests' fake trees only. */
char *plat_cpuidle_driver(void);
/* The counters of each CPU of s, in the set's order, into out (room for
 * cpuset_count(s)). -1 with err where they cannot be read. */
int plat_cpu_counters(const struct cpuset *s, struct plat_cpu_counters *out,
                      struct lb_error *err);

/* ---- Package energy (RAPL) --------------------------------------------------------- */

#define PLAT_ENERGY_ZONES_MAX 8
/* The energy counter of one CPU package (Linux: a powercap zone whose name starts with
 * "package", Intel's and AMD's RAPL alike), cumulative in microjoules, starting again at
 * 0 once it passes range_uj. */
struct plat_energy_zone {
    char zone[32];           /* "intel-rapl:0" */
    char name[32];           /* "package-0" */
    uint64_t energy_uj, range_uj;
};
/* The counters of every package now, in the order of their zones, into out (room for
 * PLAT_ENERGY_ZONES_MAX): how many, or -1 with err saying why there are none (no such
 * zone, as in most VMs; or unreadable: current kernels let root alone read them). The
 * sysfs root is $LOOPBENCH_TEST_SYSFS when set, as for plat_cpuidle_driver. */
int plat_energy_read(struct plat_energy_zone *out, struct lb_error *err);

/* POSIX extended regular expressions, for matching only (no submatches). Systems
 * without them (Windows) refuse every pattern, saying so. */
struct plat_regex;
int plat_regex_compile(const char *pattern, struct plat_regex **out, struct lb_error *err);
bool plat_regex_match(const struct plat_regex *re, const char *text);
void plat_regex_free(struct plat_regex *re);

/* ---- Host ------------------------------------------------------------------------- */

/* Facts about the machine, recorded in every result. Strings are new (released by
 * plat_host_facts_release); unknown ones are NULL. */
struct plat_host_facts {
    char *hostname;
    char *os;            /* "Linux" */
    char *kernel;        /* release, e.g. "6.1.0-18-amd64" */
    char *arch;          /* "x86_64" */
    char *cpu_model;     /* "AMD EPYC 7B13" */
    int logical_cpus;
    uint64_t mem_total_bytes;
    double loadavg[3];
    char *clocksource;   /* /sys/devices/system/clocksource/clocksource0/current_clocksource */
    uint64_t clock_resolution_ns; /* of the monotonic clock (clock_getres); 0 if unknown */
    char *governor;      /* cpufreq governor of cpu0, where readable */
    char *virtualization;/* hypervisor or container, if detectable */
    char *cpuidle_driver;/* plat_cpuidle_driver's */
    /* The CI runner, from the environment GitHub gives a job ($ImageOS, $ImageVersion,
     * $RUNNER_NAME): a runner image is a host of its own to the figures. */
    char *runner_image_os, *runner_image_version, *runner_name;
};
int plat_host_facts(struct plat_host_facts *out, struct lb_error *err);
/* The facts every system reads the same way (the cpuidle driver, the runner's names),
 * into f: each port's plat_host_facts ends with it. A runner's name longer than
 * PLAT_RUNNER_NAME_MAX bytes or holding a control character is not recorded. */
#define PLAT_RUNNER_NAME_MAX 128
void plat_host_facts_common(struct plat_host_facts *f);
void plat_host_facts_release(struct plat_host_facts *f);

struct plat_host_cpu {
    uint64_t steal_ns;  /* cumulative steal time of the host */
    uint64_t busy_ns;   /* cumulative time all CPUs ran anything (not idle, iowait, steal) */
    uint64_t total_ns;  /* cumulative time of all CPUs, all states */
};
/* Allocation-free: the sampler reads it at every point. */
int plat_host_cpu(struct plat_host_cpu *out, struct lb_error *err);

/* ---- Probing the host (loopbench probe) ------------------------------------------- */

/* The primitives an event loop idles in. */
enum plat_wait_kind {
    PLAT_WAIT_POLLER = 0, /* the loop's readiness wait with a timeout (epoll_wait) */
    PLAT_WAIT_SLEEP,      /* a plain relative sleep (nanosleep), for comparison */
};
/* Each primitive's name on this system, by kind: "epoll_wait", "nanosleep", ... */
extern const char *const plat_wait_names[2];

/* A wait set with nothing ever ready in it, so every wait runs to its timeout. */
struct plat_waiter;
int plat_waiter_open(enum plat_wait_kind kind, struct plat_waiter **out, struct lb_error *err);
/* Idle for ms milliseconds through the primitive (the caller times it); a signal may cut
 * it short, which is no error. */
int plat_waiter_wait(struct plat_waiter *w, unsigned ms, struct lb_error *err);
void plat_waiter_free(struct plat_waiter *w);

/* Competing load: n children of loopbench that spin on a CPU each until plat_hogs_stop
 * kills and reaps them; they also die with loopbench. pids has room for n. */
int plat_hogs_start(pid_t *pids, unsigned n, struct lb_error *err);
void plat_hogs_stop(const pid_t *pids, unsigned n);

#endif
