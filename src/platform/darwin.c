/* macOS back-end of the platform contract (platform.h), written against Apple's documented
 * interfaces (libproc, sysctl, Mach host statistics, posix_spawn) and never compiled here: the
 * project's machines have no macOS SDK.
 *
 * One CPU source, proc-pid-rusage: at each read, proc_pid_rusage of every live member (its own
 * time and what it reaped from its children), plus the wait4 rusage of the leader once
 * loopbench reaped it, plus the last time seen of members that left with no member to reap
 * them. macOS has no perf counter, no child subreaper and no parent-death signal: an orphan
 * (double fork) goes to launchd, so the tree is found again at each read from the leader's
 * descendants, its process group and the members the last read knew, each checked against pid
 * reuse by its start time. The walk fills fixed arrays and allocates nothing. */
#include "platform/platform.h"

#include <errno.h>
#include <fcntl.h>
#include <libproc.h>
#include <limits.h>
#include <mach-o/dyld.h>
#include <mach/mach.h>
#include <mach/mach_error.h>
#include <mach/mach_time.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/event.h>
#include <sys/proc.h>
#include <sys/proc_info.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysctl.h>
#include <time.h>
#include <unistd.h>

#include "platform/posix.h"
#include "util.h"

#define TREE_MAX 4096 /* processes in one target's tree */
/* How stale a running thread's time may be, read from outside: assumed to be one scheduler
 * quantum, not measured. */
#define TREE_RESOLUTION_NS (10 * 1000000ULL)
#define HOG_SPINS_PER_CHECK (1UL << 24)

const char *plat_name(void)
{
    return "darwin";
}

char *plat_exe_dir(struct lb_error *err)
{
    char path[PATH_MAX], real[PATH_MAX];
    uint32_t size = sizeof(path);
    /* dyld's path may be relative or go through symbolic links. */
    if (_NSGetExecutablePath(path, &size) != 0 || !realpath(path, real)) {
        lb_fail(err, "cannot find the loopbench executable (_NSGetExecutablePath)");
        return NULL;
    }
    return path_dirname(real);
}

const char plat_tree_source_name[] = "proc-pid-rusage";

/* ---- Units ------------------------------------------------------------------------ */

/* A numeric sysctl, whether the kernel gives it in 32 or 64 bits; 0 if unreadable. */
static uint64_t sysctl_number(const char *name)
{
    union {
        uint32_t u32;
        uint64_t u64;
    } v = {0};
    size_t len = sizeof(v);
    if (sysctlbyname(name, &v, &len, NULL, 0) < 0)
        return 0;
    return len == sizeof(v.u32) ? v.u32 : len == sizeof(v.u64) ? v.u64 : 0;
}

/* proc_pid_rusage counts in Mach absolute-time ticks (1 ns on Intel, 1/24 MHz on Apple
 * silicon). hw.tbfrequency is the kernel's own rate; mach_timebase_info, the fallback, is wrong
 * under Rosetta, which shows a translated process 1/1 while the kernel answers in native ticks. */
static uint64_t mach_ticks_to_ns(uint64_t ticks)
{
    static uint64_t hz;
    if (!hz) {
        mach_timebase_info_data_t tb;
        hz = sysctl_number("hw.tbfrequency");
        if (!hz && mach_timebase_info(&tb) == KERN_SUCCESS && tb.numer)
            hz = NS_PER_SEC * tb.denom / tb.numer;
        if (!hz)
            hz = NS_PER_SEC;
    }
    /* In two parts, so that ticks * 1e9 cannot overflow. */
    return ticks / hz * NS_PER_SEC + ticks % hz * NS_PER_SEC / hz;
}

/* ---- Targets and their trees ------------------------------------------------------ */

struct member {
    pid_t pid;          /* 0: found gone by this walk */
    bool has_parent;    /* a child of another member, which reaps it and its time with it */
    uint64_t start;     /* ri_proc_start_abstime; 0 until read */
    uint64_t cpu_ns;    /* own and reaped children's, at this walk */
    uint64_t rss_bytes;
};

struct plat_target {
    struct posix_target base; /* reaped_ns: the leader's, the only member loopbench reaps */
    uint64_t start;       /* attached leader: tells a reused pid from ours */
    uint64_t departed_ns; /* members gone with no member to reap them (launchd's orphans) */
    uint64_t last_cpu_ns;
    struct member *members, *previous; /* this walk and the last, in lists[] */
    size_t n_members, n_previous;
    struct member lists[2][TREE_MAX];
    pid_t pids[TREE_MAX];
};

void plat_force_full_scan(bool on)
{
    (void)on; /* libproc lists children directly: there is no scan to force */
}

static struct plat_target *target_new(pid_t pid, bool spawned, uint64_t start)
{
    struct plat_target *t = xcalloc(1, sizeof(*t));
    t->base.pid = pid;
    t->base.spawned = spawned;
    t->start = start;
    t->members = t->lists[0];
    t->previous = t->lists[1];
    return t;
}

struct posix_target *posix_target_base(struct plat_target *t)
{
    return &t->base;
}

static struct member *member_find(struct member *list, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (list[i].pid == pid)
            return &list[i];
    return NULL;
}

/* Add pid to this walk unless it is there already; one the last walk knew keeps its start
 * time, to be checked against reuse. */
static int member_add(struct plat_target *t, pid_t pid, uint64_t start, bool has_parent,
                      struct lb_error *err)
{
    struct member *m = member_find(t->members, t->n_members, pid);
    if (m) {
        m->has_parent |= has_parent;
        return 0;
    }
    if (t->n_members == TREE_MAX)
        return lb_fail(err, "the process tree of pid %d has more than %d processes",
                       (int)t->base.pid, TREE_MAX);
    const struct member *was = member_find(t->previous, t->n_previous, pid);
    t->members[t->n_members++] = (struct member){
        .pid = pid, .has_parent = has_parent, .start = was ? was->start : start};
    return 0;
}

/* Read members[i]'s usage and add its children to the walk; a member gone, or whose pid now
 * names another process, is dropped (pid 0). */
static int member_visit(struct plat_target *t, size_t i, struct lb_error *err)
{
    struct member *m = &t->members[i];
    struct rusage_info_v2 ri;
    if (proc_pid_rusage(m->pid, RUSAGE_INFO_V2, (rusage_info_t *)&ri) < 0) {
        if (errno != ESRCH)
            return lb_fail_errno(err, errno, "cannot read the usage of pid %d (proc_pid_rusage)",
                                 (int)m->pid);
        m->pid = 0;
        return 0;
    }
    if (m->start && ri.ri_proc_start_abstime != m->start) {
        m->pid = 0;
        return 0;
    }
    m->start = ri.ri_proc_start_abstime;
    m->cpu_ns = mach_ticks_to_ns(ri.ri_user_time + ri.ri_system_time + ri.ri_child_user_time +
                                 ri.ri_child_system_time);
    m->rss_bytes = ri.ri_resident_size;
    int n = proc_listchildpids(m->pid, t->pids, (int)sizeof(t->pids));
    for (int k = 0; k < n; k++)
        if (member_add(t, t->pids[k], 0, true, err) < 0)
            return -1;
    return 0;
}

/* Members of the last walk gone now that no member reaped (orphans, which launchd reaps, and
 * an attached leader): the time they had stays in the total. The spawned leader's is in its
 * wait4 rusage instead. */
static void departed_add(struct plat_target *t)
{
    for (size_t i = 0; i < t->n_previous; i++) {
        const struct member *p = &t->previous[i];
        if (!p->pid || p->has_parent || (t->base.spawned && p->pid == t->base.pid))
            continue;
        if (!member_find(t->members, t->n_members, p->pid))
            t->departed_ns += p->cpu_ns;
    }
}

/* Walk the live tree, breadth first from its roots: the leader until it is reaped, then (for a
 * spawned target) orphans that kept its process group, and whoever the last walk found. The
 * total CPU goes to *cpu_ns when not NULL. */
static int tree_walk(struct plat_target *t, uint64_t *cpu_ns, struct lb_error *err)
{
    posix_leader_reap(&t->base);
    struct member *last = t->members;
    t->members = t->previous;
    t->previous = last;
    t->n_previous = t->n_members;
    t->n_members = 0;
    if (!t->base.reaped && member_add(t, t->base.pid, t->start, false, err) < 0)
        return -1;
    int n = t->base.spawned ? proc_listpgrppids(t->base.pid, t->pids, (int)sizeof(t->pids)) : 0;
    for (int i = 0; i < n; i++)
        if (member_add(t, t->pids[i], 0, false, err) < 0)
            return -1;
    for (size_t i = 0; i < t->n_previous; i++)
        if (t->previous[i].pid && member_add(t, t->previous[i].pid, 0, false, err) < 0)
            return -1;
    uint64_t sum = 0;
    for (size_t i = 0; i < t->n_members; i++) {
        if (member_visit(t, i, err) < 0)
            return -1;
        if (t->members[i].pid)
            sum += t->members[i].cpu_ns;
    }
    departed_add(t);
    /* A member reaped by another between their two reads is missed for one walk: the total is
     * held where it was rather than let go backwards. */
    sum += t->base.reaped_ns + t->departed_ns;
    if (sum < t->last_cpu_ns)
        sum = t->last_cpu_ns;
    t->last_cpu_ns = sum;
    if (cpu_ns)
        *cpu_ns = sum;
    return 0;
}

/* Memory from the walk's rusage. The task info counts context switches without telling
 * voluntary from involuntary: the total is reported as voluntary, involuntary stays 0. */
static void tree_stats(const struct plat_target *t, struct plat_tree_stats *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < t->n_members; i++) {
        const struct member *m = &t->members[i];
        if (!m->pid)
            continue;
        out->nprocs++;
        out->rss_bytes += m->rss_bytes;
        struct proc_taskinfo ti;
        if (proc_pidinfo(m->pid, PROC_PIDTASKINFO, 0, &ti, (int)sizeof(ti)) == (int)sizeof(ti))
            out->voluntary_ctxsw += (uint64_t)ti.pti_csw;
    }
}

/* ---- Spawning --------------------------------------------------------------------- */

struct spawn_try {
    pid_t pid;
    const posix_spawn_file_actions_t *actions;
    const posix_spawnattr_t *attr;
    char *const *argv;
    char *const *envp;
};

/* macOS's posix_spawn is one system call: a failed exec comes back as its errno, with no
 * child left behind. */
static int spawn_at(const char *path, void *ctx)
{
    struct spawn_try *s = ctx;
    return posix_spawn(&s->pid, path, s->actions, s->attr, s->argv, s->envp);
}

/* Checked here: posix_spawn would report a bad directory as the command not found. */
static int dir_check(const char *dir, struct lb_error *err)
{
    struct stat st;
    if (stat(dir, &st) < 0)
        return lb_fail_errno(err, errno, "cannot change to directory '%s'", dir);
    if (!S_ISDIR(st.st_mode))
        return lb_fail_errno(err, ENOTDIR, "cannot change to directory '%s'", dir);
    return 0;
}

int plat_spawn(const struct plat_spawn_opts *opts, struct plat_target **out, struct lb_error *err)
{
    if (!opts->argv || !opts->argv[0])
        return lb_fail(err, "cannot start a target: no command given");
    if (opts->cpu == CPU_SOURCE_PERF)
        return lb_fail(err, "cannot start '%s': the perf task-clock is Linux only (use "
                            "--cpu-source tree)",
                       opts->argv[0]);
    if (plat_events_init(err) < 0 || (opts->cwd && dir_check(opts->cwd, err) < 0))
        return -1;
    int streams[2];
    if (posix_open_streams(opts, streams, err) < 0)
        return -1;
    int out_fd = streams[0], err_fd = streams[1];

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
    if (opts->cwd)
        posix_spawn_file_actions_addchdir_np(&fa, opts->cwd);
    /* A group of its own, to be signalled whole; default dispositions and an empty mask instead
     * of loopbench's handlers; and no descriptor but the three above. */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t all, none;
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    sigemptyset(&none);
    posix_spawnattr_setflags(&attr, (short)(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                            POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT));
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);

    /* argv[0] is looked up in the target's PATH, not loopbench's (which posix_spawnp uses). */
    struct spawn_try s = {.actions = &fa, .attr = &attr, .argv = opts->argv, .envp = opts->envp};
    int rc = posix_path_try(opts->argv[0], opts->envp, spawn_at, &s);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(out_fd);
    close(err_fd);
    if (rc != 0)
        return lb_fail_errno(err, rc, "cannot run '%s'", opts->argv[0]);
    *out = target_new(s.pid, true, 0);
    return 0;
}

/* Is pid alive, not a zombie, and (when start is not 0) the process that started then? */
static bool process_alive(pid_t pid, uint64_t start, uint64_t *start_out)
{
    struct rusage_info_v2 ri;
    struct proc_bsdinfo bi;
    if (proc_pid_rusage(pid, RUSAGE_INFO_V2, (rusage_info_t *)&ri) < 0 ||
        (start && ri.ri_proc_start_abstime != start))
        return false;
    if (start_out)
        *start_out = ri.ri_proc_start_abstime;
    return proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &bi, (int)sizeof(bi)) == (int)sizeof(bi) &&
           bi.pbi_status != SZOMB;
}

int plat_attach(pid_t pid, struct plat_target **out, struct lb_error *err)
{
    uint64_t start;
    if (pid <= 0 || !process_alive(pid, 0, &start))
        return lb_fail(err, "no process with pid %d that loopbench may read", (int)pid);
    *out = target_new(pid, false, start);
    return 0;
}

pid_t plat_target_pid(const struct plat_target *t)
{
    return t->base.pid;
}

enum cpu_source_kind plat_target_cpu_source(const struct plat_target *t)
{
    (void)t;
    return CPU_SOURCE_TREE;
}

const char *plat_target_containment(const struct plat_target *t)
{
    (void)t;
    return "process-group";
}

uint64_t plat_target_cpu_resolution_ns(const struct plat_target *t)
{
    (void)t;
    return TREE_RESOLUTION_NS;
}

int plat_target_cpu_ns(struct plat_target *t, uint64_t *cpu_ns, struct lb_error *err)
{
    return tree_walk(t, cpu_ns, err);
}

int plat_target_read(struct plat_target *t, uint64_t *cpu_ns, struct plat_tree_stats *stats,
                     struct lb_error *err)
{
    if (tree_walk(t, cpu_ns, err) < 0)
        return -1;
    tree_stats(t, stats);
    return 0;
}

int posix_attached_gone(struct plat_target *t)
{
    return !process_alive(t->base.pid, t->start, NULL);
}

/* ---- Stopping (posix.c's plat_target_stop) ---------------------------------------- */

/* Polled: only the leader's exit raises SIGCHLD here, orphans being launchd's. */
const uint64_t posix_stop_poll_ns = 50 * 1000000ULL;

int posix_target_walk(struct plat_target *t, struct lb_error *err)
{
    return tree_walk(t, NULL, err); /* which reaps the leader first */
}

size_t posix_target_members(const struct plat_target *t)
{
    return t->n_members;
}

pid_t posix_target_member(const struct plat_target *t, size_t i)
{
    return t->members[i].pid;
}

/* No container that holds a tree whatever it does: the process group and the walk are
 * all there is. */
void posix_target_kill(struct plat_target *t)
{
    (void)t;
}

bool posix_target_contained(struct plat_target *t)
{
    (void)t;
    return false;
}

void posix_target_stopped(struct plat_target *t)
{
    (void)t; /* no subreaper to give up: macOS has none */
}

void posix_target_release(struct plat_target *t)
{
    free(t);
}

/* ---- Events (posix.c's plat_wait_until) ------------------------------------------- */

/* A self-pipe: the handler writes each signal's number, plat_wait_until polls the read
 * end. */
static int signal_pipe_in = -1;

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    /* A full pipe already holds events enough to wake the waiter. */
    ssize_t written = write(signal_pipe_in, &b, 1);
    (void)written;
    errno = saved;
}

int posix_signals_open(const int *sigs, size_t n, struct lb_error *err)
{
    int p[2];
    if (pipe(p) < 0)
        return lb_fail_errno(err, errno, "cannot create the signal pipe");
    for (int i = 0; i < 2; i++) {
        fcntl(p[i], F_SETFD, FD_CLOEXEC);
        fcntl(p[i], F_SETFL, O_NONBLOCK);
    }
    signal_pipe_in = p[1];
    /* Not SIG_IGN for SIGCHLD, which would make children vanish unreaped with their status. */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < n; i++) {
        if (sigaction(sigs[i], &sa, NULL) < 0) {
            lb_fail_errno(err, errno, "cannot handle signal %d", sigs[i]);
            signal_pipe_in = -1;
            close(p[0]);
            close(p[1]);
            return -1;
        }
    }
    return p[0];
}

int posix_signal_next(int fd)
{
    unsigned char sig;
    return read(fd, &sig, 1) == 1 ? sig : 0;
}

int posix_poll(struct pollfd *fds, nfds_t n, uint64_t timeout_ns)
{
    /* Whole milliseconds, rounded up, so that it never wakes before the deadline only to
     * poll again with 0. */
    uint64_t ms = (timeout_ns + 999999) / 1000000;
    return poll(fds, n, ms > INT_MAX ? INT_MAX : (int)ms);
}

/* ---- Host ------------------------------------------------------------------------- */

int plat_host_cpu(struct plat_host_cpu *out, struct lb_error *err)
{
    /* One send right, kept: each mach_host_self() call adds a reference to it. */
    static mach_port_t host = MACH_PORT_NULL;
    /* The counters are 32 bits, summed over all CPUs, and wrap within weeks: kept here as
     * 64-bit totals of their differences. */
    static natural_t last[CPU_STATE_MAX];
    static uint64_t total[CPU_STATE_MAX];
    if (host == MACH_PORT_NULL)
        host = mach_host_self();
    host_cpu_load_info_data_t load;
    mach_msg_type_number_t count = HOST_CPU_LOAD_INFO_COUNT;
    kern_return_t kr = host_statistics(host, HOST_CPU_LOAD_INFO, (host_info_t)&load, &count);
    if (kr != KERN_SUCCESS)
        return lb_fail(err, "cannot read the host's CPU load (host_statistics: %s)",
                       mach_error_string(kr));
    for (int s = 0; s < CPU_STATE_MAX; s++) {
        total[s] += (natural_t)(load.cpu_ticks[s] - last[s]);
        last[s] = load.cpu_ticks[s];
    }
    /* Ticks of the statistics clock, CLK_TCK per second. macOS accounts no steal time. */
    uint64_t busy = total[CPU_STATE_USER] + total[CPU_STATE_SYSTEM] + total[CPU_STATE_NICE];
    out->steal_ns = 0;
    out->busy_ns = posix_clock_ticks_ns(busy);
    out->total_ns = posix_clock_ticks_ns(busy + total[CPU_STATE_IDLE]);
    return 0;
}

/* A string sysctl (new string), or NULL. */
static char *sysctl_string(const char *name)
{
    size_t len = 0;
    if (sysctlbyname(name, NULL, &len, NULL, 0) < 0 || len == 0)
        return NULL;
    char *s = xmalloc(len + 1);
    if (sysctlbyname(name, s, &len, NULL, 0) < 0) {
        free(s);
        return NULL;
    }
    s[len] = '\0';
    return s;
}

/* "vm", "rosetta" or both: a guest of a hypervisor, an x86_64 loopbench translated. */
static char *virtualization(void)
{
    bool vm = sysctl_number("kern.hv_vmm_present") == 1;
    bool rosetta = sysctl_number("sysctl.proc_translated") == 1;
    if (vm && rosetta)
        return xstrdup("vm, rosetta");
    return vm ? xstrdup("vm") : rosetta ? xstrdup("rosetta") : NULL;
}

void posix_host_facts(struct plat_host_facts *out)
{
    out->cpu_model = sysctl_string("machdep.cpu.brand_string");
    out->logical_cpus = (int)sysctl_number("hw.logicalcpu");
    out->mem_total_bytes = sysctl_number("hw.memsize");
    out->clocksource = xstrdup("mach_absolute_time");
    out->virtualization = virtualization();
}

/* ---- Probing the host ------------------------------------------------------------- */

const char posix_poller_name[] = "kevent";

int posix_poller_open(int fds[2], struct lb_error *err)
{
    /* A user event in the set, as a loop's wake signal is, never triggered. */
    struct kevent wake;
    EV_SET(&wake, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
    fds[0] = kqueue();
    if (fds[0] < 0 || kevent(fds[0], &wake, 1, NULL, 0, NULL) < 0)
        return lb_fail_errno(err, errno, "cannot make a kqueue wait set");
    return 0;
}

int posix_poller_wait(const int fds[2], unsigned ms, struct lb_error *err)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    struct kevent ev;
    if (kevent(fds[0], NULL, 0, &ev, 1, &ts) < 0 && errno != EINTR)
        return lb_fail_errno(err, errno, "kevent failed");
    return 0;
}

void posix_hog_run(pid_t parent)
{
    /* No parent-death signal on macOS: the hog looks at its parent now and then and
     * leaves once launchd has adopted it, loopbench being dead. */
    for (;;) {
        for (volatile unsigned long spin = 0; spin < HOG_SPINS_PER_CHECK; spin++)
            ;
        if (getppid() != parent)
            _exit(0);
    }
}

void plat_self_usage(struct plat_self_usage *out)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    out->cpu_ns = posix_rusage_ns(&ru);
    out->max_rss_bytes = (uint64_t)ru.ru_maxrss; /* macOS counts bytes */
}
