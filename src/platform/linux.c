/* Linux back-end of the platform contract (platform.h).
 *
 * CPU sources. perf-task-clock is one software counter opened by loopbench on the
 * child before it execs, with inherit=1: the kernel gives every thread and descendant
 * its own copy and folds it back into ours when it exits, so one read() is the whole
 * tree, fresh to the nanosecond, exited members included. process-tree-clocks is the
 * fallback (no perf_event_open, or an attached process): the process CPU clock of each
 * live member, plus what members reaped from their children (cutime, cstime), plus
 * what loopbench reaped itself (wait4 rusage). A clock read from outside lags a
 * running thread by up to one scheduler tick, which is that source's resolution.
 *
 * The tree is walked again at each read through /proc/PID/task/TID/children (or, on
 * kernels without it, one scan of /proc), into fixed arrays: the read is the hot path
 * of a measurement and allocates nothing. */
#include "platform/platform.h"

#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "platform/posix.h"
#include "util.h"

#define TREE_MAX 4096  /* processes in one target's tree */
#define TIDS_MAX 16384 /* threads in one target's tree */
#define SCAN_MAX 32768 /* processes on the host, for the /proc scan */
#define LEADERS_MAX 64 /* spawned targets alive at once */
#define TEXT_MAX 4096  /* one /proc text file (stat, statm, status) */
#define DENTS_MAX 8192 /* one getdents64 batch */
#define ASSUMED_HZ 250

const char *plat_name(void)
{
    return "linux";
}

char *plat_exe_dir(struct lb_error *err)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n < 0) {
        lb_fail_errno(err, errno, "cannot find the loopbench executable (/proc/self/exe)");
        return NULL;
    }
    buf[n] = '\0';
    return path_dirname(buf);
}

/* ---- CPU source name -------------------------------------------------------------- */

const char plat_tree_source_name[] = "process-tree-clocks";

/* ---- /proc readers ---------------------------------------------------------------- */

/* The fields of /proc/PID/stat that loopbench uses, by their proc(5) numbers. */
struct proc_stat {
    char state;                   /* (3) */
    pid_t ppid;                   /* (4) */
    pid_t pgid;                   /* (5) */
    unsigned long long cutime;    /* (16) clock ticks of reaped children, user */
    unsigned long long cstime;    /* (17) ... and system */
    unsigned long long starttime; /* (22) clock ticks after boot */
};

/* Parse /proc/PID/stat text. comm (2) may hold spaces and parentheses, so the fields
 * are counted from the last ')'. */
static int stat_parse(const char *text, struct proc_stat *st)
{
    const char *p = strrchr(text, ')');
    if (!p || p[1] != ' ' || !p[2])
        return -1;
    st->state = p[2];
    p += 3;
    unsigned long long v[20]; /* fields 4..23 */
    for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
        char *end;
        errno = 0;
        v[i] = strtoull(p, &end, 10);
        if (end == p || errno)
            return -1;
        p = end;
    }
    st->ppid = (pid_t)v[0];
    st->pgid = (pid_t)v[1];
    st->cutime = v[12];
    st->cstime = v[13];
    st->starttime = v[18];
    return 0;
}

/* Read a small /proc file into buf (NUL-terminated; what does not fit is left out).
 * Returns the length, -1 with errno set on failure; ENOENT or ESRCH mean the process is
 * gone. */
static ssize_t proc_read(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* These files are rendered whole at the first read, which hands over all of it
     * when it fits: a short read is the end, without another call to say so. */
    ssize_t r;
    do
        r = read(fd, buf, cap - 1);
    while (r < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    if (r < 0) {
        errno = e;
        return -1;
    }
    buf[r] = '\0';
    return r;
}

/* The first line of a small file, without its newline (new string), or NULL. */
static char *first_line(const char *path)
{
    char buf[256];
    if (proc_read(path, buf, sizeof(buf)) <= 0)
        return NULL;
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] ? xstrdup(buf) : NULL;
}

static bool gone(int e)
{
    return e == ENOENT || e == ESRCH;
}

/* 0: read; 1: the process is gone; -1: another failure (err filled). */
static int stat_read(pid_t pid, char *buf, size_t cap, struct proc_stat *st, struct lb_error *err)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if (proc_read(path, buf, cap) < 0)
        return gone(errno) ? 1 : lb_fail_errno(err, errno, "cannot read '%s'", path);
    if (stat_parse(buf, st) < 0)
        return lb_fail(err, "cannot parse '%s'", path);
    return 0;
}

/* A numeric name of a /proc directory entry, else 0. */
static pid_t dent_pid(const char *name)
{
    long v = 0;
    if (*name < '1' || *name > '9')
        return 0;
    for (; *name; name++) {
        if (*name < '0' || *name > '9' || v > INT_MAX / 10)
            return 0;
        v = v * 10 + (*name - '0');
    }
    return v <= INT_MAX ? (pid_t)v : 0;
}

/* ---- Targets and their trees ------------------------------------------------------ */

struct member {
    pid_t pid;
    size_t tid_first, n_tids; /* its threads in tids[], as the walk listed them */
};

struct scan_entry {
    pid_t pid;
    pid_t ppid;
};

struct plat_target {
    struct posix_target base;
    unsigned long long starttime; /* attached: tells a reused pid from ours */
    enum cpu_source_kind source;
    int perf_fd;
    uint64_t resolution_ns;
    uint64_t last_cpu_ns;
    struct member members[TREE_MAX];
    size_t n_members;
    pid_t kids[TREE_MAX];
    pid_t tids[TIDS_MAX];
    size_t n_tids;
    int isolation;           /* an enum isolation */
    pid_t init, program;     /* in a PID namespace: its init and the program (host pids);
                                base.pid is then the shim (see Isolation) */
    char *cgroup;            /* the target's own cgroup, NULL when it has none */
    int cgroup_fd;           /* ... open */
    bool scanning;           /* this walk uses the /proc scan */
    bool overflow;           /* it found more processes than it holds */
    struct scan_entry *scan; /* its table, made when needed */
    size_t n_scan;
    char text[TEXT_MAX];
    _Alignas(8) char dents[DENTS_MAX];
};

/* Which way trees are walked: -1 not probed yet, 1 children files, 0 /proc scan. */
static int children_files = -1;
static bool force_full_scan;

void plat_force_full_scan(bool on)
{
    force_full_scan = on;
}

static bool use_children_files(void)
{
    if (children_files < 0) {
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
        children_files = access(path, R_OK) == 0;
    }
    return children_files && !force_full_scan;
}

/* Leaders of the spawned targets now alive, so that an orphan that loopbench adopted
 * is given to the target it came from. */
static pid_t leaders[LEADERS_MAX];
static size_t n_leaders;

static bool is_leader(pid_t pid)
{
    for (size_t i = 0; i < n_leaders; i++)
        if (leaders[i] == pid)
            return true;
    return false;
}

/* An orphan keeps the process group of the tree it left unless it made its own (a
 * daemon's setsid); one in no known group goes to every target. */
static bool orphan_belongs(const struct plat_target *t, pid_t pgid)
{
    return pgid == t->base.pid || !is_leader(pgid);
}

struct posix_target *posix_target_base(struct plat_target *t)
{
    return &t->base;
}

static bool member_known(const struct plat_target *t, pid_t pid)
{
    for (size_t i = 0; i < t->n_members; i++)
        if (t->members[i].pid == pid)
            return true;
    return false;
}

static void member_add(struct plat_target *t, pid_t pid)
{
    if (member_known(t, pid))
        return;
    if (t->n_members == TREE_MAX)
        t->overflow = true;
    else
        t->members[t->n_members++] = (struct member){.pid = pid};
}

/* The children of one thread, from its children file, into t->kids. */
static void thread_children(struct plat_target *t, pid_t pid, pid_t tid, size_t *n)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; /* the thread or process has gone: its children re-parent */
    /* Parsed in chunks: a pid cut at a chunk's end is carried over. */
    char buf[512];
    long cur = 0;
    bool in_num = false;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof(buf));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        for (ssize_t i = 0; i < r; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                cur = cur * 10 + (buf[i] - '0');
                in_num = true;
            } else if (in_num) {
                if (*n < TREE_MAX)
                    t->kids[(*n)++] = (pid_t)cur;
                else
                    t->overflow = true;
                cur = 0;
                in_num = false;
            }
        }
    }
    if (in_num && *n < TREE_MAX)
        t->kids[(*n)++] = (pid_t)cur;
    else if (in_num)
        t->overflow = true;
    close(fd);
}

static void status_switches(const char *text, uint64_t *vol, uint64_t *invol)
{
    const char *p = strstr(text, "\nvoluntary_ctxt_switches:");
    if (p)
        *vol += strtoull(p + strlen("\nvoluntary_ctxt_switches:"), NULL, 10);
    p = strstr(text, "\nnonvoluntary_ctxt_switches:");
    if (p)
        *invol += strtoull(p + strlen("\nnonvoluntary_ctxt_switches:"), NULL, 10);
}

/* List the threads of process pid: record them as m's (when not NULL) and collect
 * their children into t->kids (when n_kids is not NULL). */
static void process_threads(struct plat_target *t, pid_t pid, struct member *m, size_t *n_kids)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    /* getdents64 into a fixed buffer: opendir would allocate. */
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    if (m) {
        m->tid_first = t->n_tids;
        m->n_tids = 0;
    }
    for (;;) {
        ssize_t n = getdents64(dfd, t->dents, sizeof(t->dents));
        if (n <= 0)
            break;
        for (ssize_t off = 0; off < n;) {
            const struct dirent64 *d = (const struct dirent64 *)(t->dents + off);
            off += d->d_reclen;
            pid_t tid = dent_pid(d->d_name);
            if (!tid)
                continue;
            if (m && t->n_tids < TIDS_MAX) {
                t->tids[t->n_tids++] = tid;
                m->n_tids++;
            }
            if (n_kids)
                thread_children(t, pid, tid, n_kids);
        }
    }
    close(dfd);
}

/* Every process on the host with its parent, for kernels without children files. */
static int scan_all(struct plat_target *t, struct lb_error *err)
{
    int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return lb_fail_errno(err, errno, "cannot open '/proc'");
    t->n_scan = 0;
    for (;;) {
        ssize_t n = getdents64(dfd, t->dents, sizeof(t->dents));
        if (n <= 0)
            break;
        for (ssize_t off = 0; off < n && t->n_scan < SCAN_MAX;) {
            const struct dirent64 *d = (const struct dirent64 *)(t->dents + off);
            off += d->d_reclen;
            pid_t pid = dent_pid(d->d_name);
            struct proc_stat st;
            if (pid && stat_read(pid, t->text, sizeof(t->text), &st, NULL) == 0)
                t->scan[t->n_scan++] = (struct scan_entry){pid, st.ppid};
        }
    }
    close(dfd);
    return 0;
}

/* The children of pid into t->kids, by either way of walking; the threads the walk
 * lists on the way are recorded as m's (when not NULL). */
static size_t children_of(struct plat_target *t, pid_t pid, struct member *m)
{
    size_t n = 0;
    if (!t->scanning) {
        process_threads(t, pid, m, &n);
        return n;
    }
    if (m)
        process_threads(t, pid, m, NULL);
    for (size_t i = 0; i < t->n_scan; i++) {
        if (t->scan[i].ppid != pid)
            continue;
        if (n < TREE_MAX)
            t->kids[n++] = t->scan[i].pid;
        else
            t->overflow = true;
    }
    return n;
}

/* The roots of the tree: the leader until it is reaped, and, for a spawned target, the
 * orphans of the tree that loopbench adopted as a subreaper. */
static void roots_add(struct plat_target *t)
{
    t->n_members = 0;
    if (!t->base.reaped)
        member_add(t, t->base.pid);
    if (!t->base.spawned)
        return;
    size_t n = children_of(t, getpid(), NULL);
    for (size_t i = 0; i < n; i++) {
        pid_t kid = t->kids[i];
        struct proc_stat st;
        if (kid == t->base.pid || is_leader(kid) ||
            stat_read(kid, t->text, sizeof(t->text), &st, NULL) != 0 || !orphan_belongs(t, st.pgid))
            continue;
        member_add(t, kid);
    }
}

/* Visit members[i]: add its CPU to *cpu_ns (when not NULL) and its children to the
 * members. A member found gone is dropped (pid 0); an adopted orphan found dead is
 * reaped on the way. */
static int member_visit(struct plat_target *t, size_t i, uint64_t *cpu_ns, struct lb_error *err)
{
    struct member *m = &t->members[i];
    struct proc_stat st;
    int r = stat_read(m->pid, t->text, sizeof(t->text), &st, err);
    if (r < 0)
        return -1;
    /* Reaped, its whole usage (its own reaped children included) moves from the live
     * tree into reaped_ns. */
    if (r == 0 && st.ppid == getpid() && st.state == 'Z' && m->pid != t->base.pid &&
        posix_reap(&t->base, m->pid, NULL))
        r = 1;
    /* An attached pid that now names another process is gone. */
    if (r == 0 && !t->base.spawned && m->pid == t->base.pid && st.starttime != t->starttime)
        r = 1;
    if (r == 1) {
        m->pid = 0;
        return 0;
    }
    if (cpu_ns) {
        clockid_t cid;
        struct timespec ts;
        /* A member reaped since its stat was read has no clock any more: its time is in
         * its parent's cutime now, read or not yet read, a race the clamp in
         * plat_target_cpu_ns absorbs. */
        if (clock_getcpuclockid(m->pid, &cid) == 0 && clock_gettime(cid, &ts) == 0)
            *cpu_ns += (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
        *cpu_ns += posix_clock_ticks_ns(st.cutime + st.cstime);
    }
    size_t n = children_of(t, m->pid, m);
    for (size_t k = 0; k < n; k++)
        member_add(t, t->kids[k]);
    return 0;
}

/* Walk the live tree from its roots, breadth first, summing its members' CPU into
 * *cpu_ns when not NULL; members[] holds the tree afterwards (with holes where a member
 * was found gone). A tree larger than members[] is walked as far as it holds, adopted
 * orphans found dead reaped on the way, then it is an error: what was found is not the
 * tree. */
static int tree_walk(struct plat_target *t, uint64_t *cpu_ns, struct lb_error *err)
{
    if (cpu_ns)
        *cpu_ns = 0;
    t->scanning = !use_children_files();
    if (t->scanning) {
        if (!t->scan) /* made by target_new, unless the way changed since */
            t->scan = xcalloc(SCAN_MAX, sizeof(*t->scan));
        if (scan_all(t, err) < 0)
            return -1;
    }
    t->n_tids = 0;
    t->overflow = false;
    roots_add(t);
    for (size_t i = 0; i < t->n_members; i++)
        if (member_visit(t, i, cpu_ns, err) < 0)
            return -1;
    if (t->overflow)
        return lb_fail(err, "the process tree of pid %d has more than %d processes",
                       (int)t->base.pid, TREE_MAX);
    return 0;
}

/* Memory and context switches of the members and threads the last walk found: a pass
 * of its own, so that the walk's CPU reads stay close together. */
static void tree_stats(struct plat_target *t, struct plat_tree_stats *out)
{
    memset(out, 0, sizeof(*out));
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < t->n_members; i++) {
        pid_t pid = t->members[i].pid;
        /* the shim and the init of a PID namespace are loopbench's, not the target's */
        if (!pid || (t->init && (pid == t->base.pid || pid == t->init)))
            continue;
        out->nprocs++;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/statm", (int)pid);
        unsigned long long size, resident;
        if (proc_read(path, t->text, sizeof(t->text)) >= 0 &&
            sscanf(t->text, "%llu %llu", &size, &resident) == 2)
            out->rss_bytes += resident * (uint64_t)page;
        const struct member *m = &t->members[i];
        for (size_t k = m->tid_first; k < m->tid_first + m->n_tids; k++) {
            snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)t->tids[k]);
            if (proc_read(path, t->text, sizeof(t->text)) >= 0)
                status_switches(t->text, &out->voluntary_ctxsw, &out->involuntary_ctxsw);
        }
    }
}

/* ---- Spawning --------------------------------------------------------------------- */

static uint64_t tick_ns(void)
{
    /* The coarse clocks advance once per jiffy, so their resolution is the kernel's
     * tick (1/CONFIG_HZ), which is how late a clock read from outside can be. */
    struct timespec ts;
    if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts) == 0 && ts.tv_sec == 0 && ts.tv_nsec >= 1000000 &&
        ts.tv_nsec <= 10000000)
        return (uint64_t)ts.tv_nsec;
    return NS_PER_SEC / ASSUMED_HZ;
}

static int perf_open(pid_t pid)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    /* Counting starts at the exec, not before, and follows every thread and child. */
    a.disabled = 1;
    a.enable_on_exec = 1;
    a.inherit = 1;
    /* The task clock counts time on CPU whatever the mode; excluding the kernel only
     * affects sampling, and it is what perf_event_paranoid 2 lets a user open. */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static bool perf_unavailable(int e)
{
    return e == EACCES || e == EPERM || e == ENOSYS || e == ENOENT;
}

/* Write text to the file name in directory dfd: 0, or -1. */
static int write_at(int dfd, const char *name, const char *text)
{
    int fd = openat(dfd, name, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t len = (ssize_t)strlen(text);
    ssize_t w = write(fd, text, (size_t)len);
    close(fd);
    return w == len ? 0 : -1;
}

static void close_all(int *fds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* ---- Isolation -------------------------------------------------------------------- */

/* A target must not read what loopbench's ancestors hold (a CI job's shell and runner,
 * whose environments hold its secrets and the paths of the files that steer it), and
 * loopbench itself is not dumpable (plat_harden). Where the host allows, each target runs
 * in a PID namespace of its own with a /proc of its own, in a user namespace of its own
 * too where loopbench is not root: it sees its own tree and nothing else. The process
 * loopbench forks then is a shim: it makes the namespaces, starts their init (which
 * mounts the /proc and reaps what the target orphans), then the program, and only waits
 * for the program, exiting as it did (its exit code, or the same signal) so that
 * loopbench sees the target end as ever. All three lead one process group. The shim
 * and the init, copies of loopbench that do next to nothing, are left out of the tree's
 * memory and process count; the perf counter starts at the program's exec. Where no
 * namespace can be made and loopbench is root, the target runs as the unprivileged user
 * nobody, who may read no other user's /proc/PID/environ; else nothing hides them, and
 * the run says so. */

enum isolation { ISOLATION_NONE = 0, ISOLATION_PID_NS, ISOLATION_NOBODY };
static const char *const isolation_names[] = {"none", "pid-namespace", "user-nobody"};
#define NOBODY_ID 65534
/* This host's way, probed at the first spawn; -1 until then. */
static int isolation = -1;
/* loopbench's environment block as the kernel laid it out (/proc/PID/environ): a child,
 * a copy of loopbench until its exec, blanks it before anything could read it. */
static char *environ_start, *environ_end;

void plat_harden(void)
{
    /* Not dumpable: /proc/PID/environ, mem, fd and the rest are root's, and no process
     * of this user may ptrace it. */
    prctl(PR_SET_DUMPABLE, 0);
    extern char **environ;
    for (char **e = environ; e && *e; e++) {
        char *end = *e + strlen(*e) + 1;
        if (!environ_start || *e < environ_start)
            environ_start = *e;
        if (end > environ_end)
            environ_end = end;
    }
}

const char *plat_target_isolation(const struct plat_target *t)
{
    return name_of(isolation_names, ARRAY_SIZE(isolation_names), (size_t)t->isolation);
}

/* What the child reports through the error pipe before it dies. */
enum child_stage { STAGE_STREAMS, STAGE_CWD, STAGE_EXEC, STAGE_ISOLATE };

struct child_failure {
    int stage;
    int errnum;
};

/* What the child says on the control socket: first its perf counter, passed along
 * (SCM_RIGHTS), or why it has none; in a PID namespace then the host pids of the
 * namespace's init and of the program. */
struct child_hello {
    int perf_errno;
};
struct child_pids {
    pid_t init, program;
};

/* "ID ID 1" into out (room for 32): a user namespace's map of one id to itself. */
static void id_map(char *out, unsigned id)
{
    char digits[12];
    size_t n = 0, k = 0;
    do
        digits[n++] = (char)('0' + id % 10);
    while ((id /= 10) != 0);
    for (int twice = 0; twice < 2; twice++) {
        for (size_t i = n; i > 0; i--)
            out[k++] = digits[i - 1];
        out[k++] = ' ';
    }
    out[k++] = '1';
    out[k] = '\0';
}

/* In a child (only async-signal-safe calls): a user namespace where loopbench is not
 * root, its ids mapped to themselves; PID and mount namespaces of its own, every mount
 * private so that the /proc to come stays in them. 0, or -1 with errno. */
static int ns_enter(void)
{
    if (geteuid() != 0) {
        char uid[32], gid[32];
        id_map(uid, (unsigned)geteuid());
        id_map(gid, (unsigned)getegid());
        if (unshare(CLONE_NEWUSER) < 0)
            return -1;
        /* The /proc files of a process that is not dumpable are root's: its own maps are
         * its to open only while it is (its environment is blank by then). */
        prctl(PR_SET_DUMPABLE, 1);
        int groups = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC);
        int uids = open("/proc/self/uid_map", O_WRONLY | O_CLOEXEC);
        int gids = open("/proc/self/gid_map", O_WRONLY | O_CLOEXEC);
        prctl(PR_SET_DUMPABLE, 0);
        bool ok = groups >= 0 && uids >= 0 && gids >= 0 && write(groups, "deny", 4) == 4 &&
                  write(uids, uid, strlen(uid)) == (ssize_t)strlen(uid) &&
                  write(gids, gid, strlen(gid)) == (ssize_t)strlen(gid);
        int e = errno;
        close_all((int[]){groups, uids, gids}, 3);
        if (!ok) {
            errno = e ? e : EPERM;
            return -1;
        }
    }
    if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0)
        return -1;
    return mount("none", "/", "", MS_REC | MS_PRIVATE, NULL);
}

/* Close every descriptor from lo to hi. */
static void close_fds(unsigned lo, unsigned hi)
{
    if (syscall(SYS_close_range, lo, hi, 0) == 0)
        return;
    for (long fd = lo, max = sysconf(_SC_OPEN_MAX); fd <= (long)hi && fd < max; fd++)
        close((int)fd);
}

/* The init's signals: a child's exit, and the shim's death (from outside the namespace:
 * si_pid 0; a target's kill would name its sender). */
static volatile sig_atomic_t shim_gone;

static void on_child(int sig)
{
    (void)sig;
}

static void on_shim_death(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    if (si->si_pid == 0)
        shim_gone = 1;
}

/* The namespace's init, pid 1 there: mounts the /proc of the namespace (over the one it
 * inherited, unmounted first where it may be), says how that went through result_fd,
 * and then reaps whatever the program orphans. Once the shim has gone (its death is
 * SIGUSR1 here), the program has too. A shim that ended as the program did said so first
 * through drain_fd: the init ends with the last of the rest, which loopbench stops as it
 * stops any tree. A shim that said nothing was killed (loopbench died, or a stop's
 * SIGKILL): the init ends at once, and the kernel kills all that is left in the namespace,
 * double-forked escapees included. A probe's init ends at once. */
static _Noreturn void init_run(int result_fd, int drain_fd, bool probe)
{
    /* Every other signal ignored, as the kernel does for a namespace's init (and valgrind,
     * which handles them all itself, would not); these two caught, and waited for with
     * the others' only way in closed. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, child = {.sa_handler = on_child},
                     death = {.sa_sigaction = on_shim_death, .sa_flags = SA_SIGINFO};
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &ign, NULL);
    sigaction(SIGCHLD, &child, NULL);
    sigaction(SIGUSR1, &death, NULL);
    sigset_t set, none;
    sigemptyset(&set);
    sigemptyset(&none);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    umount2("/proc", MNT_DETACH);
    int e = mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 ? errno : 0;
    if (write(result_fd, &e, sizeof(e)) != (ssize_t)sizeof(e) || e || probe)
        _exit(e ? 1 : 0);
    /* Nothing of loopbench's held but the shim's word. */
    close_fds(0, (unsigned)drain_fd - 1);
    close_fds((unsigned)drain_fd + 1, ~0U);
    for (bool draining = false;;) {
        pid_t r;
        while ((r = waitpid(-1, NULL, WNOHANG)) > 0)
            ;
        if (shim_gone && !draining) {
            char word;
            if (read(drain_fd, &word, 1) != 1)
                _exit(0);
            draining = true;
        }
        if (r < 0 && errno == ECHILD && draining)
            _exit(0);
        sigsuspend(&none);
    }
}

/* Start the namespace's init (its pid into *init), which reads the shim's word from
 * drain_fd: 0 once its /proc is mounted, else -1 with errno. */
static int init_start(bool probe, int drain_fd, pid_t *init)
{
    int result[2];
    if (pipe2(result, O_CLOEXEC) < 0)
        return -1;
    *init = fork();
    if (*init == 0)
        init_run(result[1], drain_fd, probe);
    close(result[1]);
    int e = EAGAIN;
    if (*init > 0 && read(result[0], &e, sizeof(e)) != (ssize_t)sizeof(e))
        e = ECHILD;
    close(result[0]);
    if (*init > 0 && (e || probe))
        waitpid(*init, NULL, 0);
    errno = e;
    return e ? -1 : 0;
}

/* Whether a PID namespace with its own /proc can be made here: tried once, in a child,
 * the whole way but for the program. LOOPBENCH_TEST_NO_NAMESPACES, for the tests, says
 * it cannot. */
static enum isolation isolation_probe(void)
{
    const char *off = getenv("LOOPBENCH_TEST_NO_NAMESPACES");
    pid_t pid = off && *off ? -1 : fork();
    if (pid == 0) {
        pid_t init;
        _exit(ns_enter() < 0 || init_start(true, -1, &init) < 0 ? 1 : 0);
    }
    int status = 1;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return ISOLATION_PID_NS;
    return geteuid() == 0 ? ISOLATION_NOBODY : ISOLATION_NONE;
}

/* One try of posix_path_try in the child: returns only on failure. */
static int exec_at(const char *path, void *argv_envp)
{
    char *const *const *ae = argv_envp;
    execve(path, ae[0], ae[1]);
    return errno;
}

static void signals_default(void)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Say f through the report pipe and die: should even the report fail, the exit status
 * is all the parent gets. */
static _Noreturn void child_fail(int report_fd, struct child_failure f)
{
    if (write(report_fd, &f, sizeof(f)) != (ssize_t)sizeof(f))
        _exit(126);
    _exit(127);
}

/* The program, in the child that becomes it: its streams, its directory, its exec. */
static _Noreturn void program_exec(const struct plat_spawn_opts *o, int null_fd, int out_fd,
                                   int err_fd, int report_fd)
{
    if (dup2(null_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        child_fail(report_fd, (struct child_failure){STAGE_STREAMS, errno});
    if (o->cwd && chdir(o->cwd) < 0)
        child_fail(report_fd, (struct child_failure){STAGE_CWD, errno});
    /* argv[0] is looked up in the target's PATH: the libc's execvpe would look in
     * loopbench's own. */
    char *const *argv_envp[] = {o->argv, o->envp};
    child_fail(report_fd, (struct child_failure){
                              STAGE_EXEC, posix_path_try(o->argv[0], o->envp, exec_at, argv_envp)});
}

/* The shim: the namespaces, their init, the program; then it waits for the program and
 * ends as it did. Signals to the group are the program's: the shim ignores them. */
static _Noreturn void shim_run(const struct plat_spawn_opts *o, int null_fd, int out_fd, int err_fd,
                               int ctl_fd, int report_fd)
{
    struct child_pids pids;
    int drain[2];
    if (pipe2(drain, O_CLOEXEC) < 0 || ns_enter() < 0 ||
        init_start(false, drain[0], &pids.init) < 0)
        child_fail(report_fd, (struct child_failure){STAGE_ISOLATE, errno});
    struct sigaction ign;
    memset(&ign, 0, sizeof(ign));
    ign.sa_handler = SIG_IGN;
    for (int s = 1; s < NSIG; s++)
        if (s != SIGCHLD)
            sigaction(s, &ign, NULL);
    pids.program = fork();
    if (pids.program == 0) {
        signals_default();
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        program_exec(o, null_fd, out_fd, err_fd, report_fd);
    }
    if (pids.program < 0)
        child_fail(report_fd, (struct child_failure){STAGE_EXEC, errno});
    if (send(ctl_fd, &pids, sizeof(pids), MSG_NOSIGNAL) != (ssize_t)sizeof(pids))
        _exit(127);
    /* Nothing of loopbench's is held: not its terminal, nor the target's pipes; only the
     * word to the init, as descriptor 3. */
    dup2(null_fd, 0);
    dup2(null_fd, 1);
    dup2(null_fd, 2);
    dup2(drain[1], 3);
    close_fds(4, ~0U);
    int status;
    while (waitpid(pids.program, &status, 0) < 0)
        if (errno != EINTR)
            _exit(127);
    if (write(3, "d", 1) != 1)
        _exit(127);
    if (WIFSIGNALED(status)) {
        /* the same signal, without a core of a copy of loopbench */
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(WTERMSIG(status), SIG_DFL);
        kill(getpid(), WTERMSIG(status));
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* Send the hello, with the perf counter's descriptor when there is one. */
static int hello_send(int ctl_fd, const struct child_hello *h, int perf_fd)
{
    struct iovec iov = {(void *)h, sizeof(*h)};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (perf_fd >= 0) {
        memset(&u, 0, sizeof(u));
        m.msg_control = u.buf;
        m.msg_controllen = sizeof(u.buf);
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &perf_fd, sizeof(int));
    }
    return sendmsg(ctl_fd, &m, MSG_NOSIGNAL) == (ssize_t)sizeof(*h) ? 0 : -1;
}

/* The child's hello: 0 with *perf_fd (-1: none), or -1 when the child said nothing (it
 * died: the report pipe says why). */
static int hello_recv(int ctl_fd, struct child_hello *h, int *perf_fd)
{
    struct iovec iov = {h, sizeof(*h)};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
    ssize_t r;
    do
        r = recvmsg(ctl_fd, &m, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    *perf_fd = -1;
    struct cmsghdr *c = r == (ssize_t)sizeof(*h) ? CMSG_FIRSTHDR(&m) : NULL;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        memcpy(perf_fd, CMSG_DATA(c), sizeof(int));
    return r == (ssize_t)sizeof(*h) ? 0 : -1;
}

/* The child between fork and exec: only async-signal-safe calls. */
static _Noreturn void child_run(const struct plat_spawn_opts *o, int null_fd, int out_fd,
                                int err_fd, int ctl_fd, int report_fd)
{
    setpgid(0, 0);
    /* A loopbench that dies (SIGKILL, OOM) takes its target with it, so no stray server
     * keeps the port or rewrites the config that the next loopbench will restore. The
     * parent is alive here: it waits for the hello below. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signals_default();
    if (environ_start)
        memset(environ_start, 0, (size_t)(environ_end - environ_start));
    /* The perf counter is opened here, on this process, and handed to the parent: this
     * copy of loopbench is not dumpable, so the parent may not open one on it. Counting
     * starts at the exec, and follows every thread and child. */
    struct child_hello h = {0};
    int perf = -1;
    if (o->cpu != CPU_SOURCE_TREE && (perf = perf_open(0)) < 0)
        h.perf_errno = errno;
    if (hello_send(ctl_fd, &h, perf) < 0)
        _exit(127);
    if (perf >= 0)
        close(perf);
    /* The parent's go: it has pinned this process and put it in its cgroup. */
    char go;
    ssize_t r;
    do
        r = read(ctl_fd, &go, 1);
    while (r < 0 && errno == EINTR);
    if (r != 1)
        _exit(127);
    if (isolation == ISOLATION_PID_NS)
        shim_run(o, null_fd, out_fd, err_fd, ctl_fd, report_fd);
    if (isolation == ISOLATION_NOBODY && !o->same_user) {
        if (setgroups(0, NULL) < 0 || setgid(NOBODY_ID) < 0 || setuid(NOBODY_ID) < 0)
            child_fail(report_fd, (struct child_failure){STAGE_ISOLATE, errno});
        /* a change of user clears it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
    }
    program_exec(o, null_fd, out_fd, err_fd, report_fd);
}

static void leader_register(pid_t pid)
{
    /* Only while a target of its own exists is loopbench a subreaper: orphans of the
     * tree (a double fork) re-parent to it instead of to init, so they are still found,
     * accounted and killed. */
    if (n_leaders == 0)
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    leaders[n_leaders++] = pid;
}

static void leader_unregister(pid_t pid)
{
    for (size_t i = 0; i < n_leaders; i++) {
        if (leaders[i] == pid) {
            leaders[i] = leaders[--n_leaders];
            break;
        }
    }
    if (n_leaders == 0)
        prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

static struct plat_target *target_new(pid_t pid, bool spawned)
{
    struct plat_target *t = xcalloc(1, sizeof(*t));
    t->base.pid = pid;
    t->base.spawned = spawned;
    t->perf_fd = -1;
    t->cgroup_fd = -1;
    t->source = CPU_SOURCE_TREE;
    t->resolution_ns = tick_ns();
    if (!use_children_files())
        t->scan = xcalloc(SCAN_MAX, sizeof(*t->scan));
    return t;
}

static void to_cpu_set(const struct cpuset *s, cpu_set_t *out)
{
    CPU_ZERO(out);
    for (int cpu = 0; cpu < CPUSET_MAX && cpu < CPU_SETSIZE; cpu++)
        if (cpuset_has(s, cpu))
            CPU_SET(cpu, out);
}

/* ---- The target's cgroup ---------------------------------------------------------- */

/* Where loopbench may make a cgroup, each spawned target gets one of its own, a child
 * of loopbench's cgroup in the cgroup2 hierarchy named loopbench.PID.TARGET, and enters
 * it before its exec: all it ever starts is in it, whatever it does (a double fork, a
 * session of its own, more processes than a walk holds), and one write to its
 * cgroup.kill kills them all. Where none can be made there (no cgroup2, no right to
 * write in loopbench's cgroup, a kernel without cgroup.kill) or it would get controllers,
 * the process group and the walk are what stops the tree. */

#define CGROUP_PREFIX "loopbench."

/* The cgroup2 directory loopbench runs in, "" when there is none it can see. */
static char cgroup_home[PATH_MAX];
static bool cgroup_looked;

/* The mount point of the cgroup2 hierarchy into out, from the mountinfo line
 * "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - cgroup2 SOURCE ...": false if none is
 * mounted whole (ROOT "/") at a path without escapes. */
static bool cgroup2_mount(char *out, size_t cap)
{
    char *text;
    size_t len;
    if (read_file("/proc/self/mountinfo", &text, &len, NULL) < 0)
        return false;
    bool found = false;
    for (char *line = text; line && *line && !found;) {
        char *eol = strchr(line, '\n');
        if (eol)
            *eol = '\0';
        char root[8], point[PATH_MAX];
        found = strstr(line, " - cgroup2 ") &&
                sscanf(line, "%*s %*s %*s %7s %4095s", root, point) == 2 &&
                strcmp(root, "/") == 0 && !strchr(point, '\\') && strlen(point) < cap;
        if (found)
            strcpy(out, point);
        line = eol ? eol + 1 : NULL;
    }
    free(text);
    return found;
}

/* Remove the cgroups that loopbench processes now gone left behind (one killed by
 * SIGKILL had no time to): the empty ones only, rmdir refusing the others. */
static void cgroup_sweep(void)
{
    DIR *d = opendir(cgroup_home);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        int owner, target;
        if (sscanf(e->d_name, CGROUP_PREFIX "%d.%d", &owner, &target) != 2 || owner <= 0 ||
            kill(owner, 0) == 0 || errno != ESRCH)
            continue;
        char *dir = path_join(cgroup_home, e->d_name);
        rmdir(dir);
        free(dir);
    }
    closedir(d);
}

/* Find loopbench's own cgroup ("0::PATH" in /proc/self/cgroup) under the mount, once. */
static void cgroup_find(void)
{
    if (cgroup_looked)
        return;
    cgroup_looked = true;
    char mount[PATH_MAX];
    char *text;
    size_t len;
    if (!cgroup2_mount(mount, sizeof(mount)) ||
        read_file("/proc/self/cgroup", &text, &len, NULL) < 0)
        return;
    const char *own = strncmp(text, "0::", 3) == 0 ? text : strstr(text, "\n0::");
    if (own) {
        own += own == text ? 3 : 4;
        size_t n = strcspn(own, "\n");
        if (snprintf(cgroup_home, sizeof(cgroup_home), "%s%.*s", mount,
                     n == 1 ? 0 : (int)n, own) >= (int)sizeof(cgroup_home))
            cgroup_home[0] = '\0';
    }
    free(text);
    if (!cgroup_home[0])
        return;
    /* A cgroup made there would get the controllers enabled for its children (only the
     * root may enable any and hold processes too): the target's CPU would then be
     * shared out by group, which no run before had. */
    char *controls = path_join(cgroup_home, "cgroup.subtree_control");
    char *enabled = first_line(controls);
    free(controls);
    if (enabled) {
        free(enabled);
        cgroup_home[0] = '\0';
        return;
    }
    cgroup_sweep();
}

/* Put t's waiting child, which has not exec'd nor forked yet, in a new cgroup of its
 * own where one can be made; else leave it where it is. */
static void cgroup_enter(struct plat_target *t)
{
    cgroup_find();
    if (!cgroup_home[0])
        return;
    char *dir = xasprintf("%s/" CGROUP_PREFIX "%d.%d", cgroup_home, (int)getpid(), (int)t->base.pid);
    if (mkdir(dir, 0755) < 0) {
        free(dir);
        return;
    }
    char pid[24];
    snprintf(pid, sizeof(pid), "%d", (int)t->base.pid);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0 && faccessat(fd, "cgroup.kill", W_OK, 0) == 0 && write_at(fd, "cgroup.procs", pid) == 0) {
        t->cgroup = dir;
        t->cgroup_fd = fd;
        return;
    }
    if (fd >= 0)
        close(fd);
    rmdir(dir);
    free(dir);
}

/* Remove t's cgroup: done once it is empty (a populated one cannot be removed). */
static void cgroup_remove(struct plat_target *t)
{
    if (!t->cgroup)
        return;
    close(t->cgroup_fd);
    t->cgroup_fd = -1;
    rmdir(t->cgroup);
    free(t->cgroup);
    t->cgroup = NULL;
}

/* Take the child's perf counter (perf_fd, -1 when it could not open one: perf_errno),
 * or decide on the fallback. */
static int choose_source(struct plat_target *t, enum cpu_source_kind want, int perf_fd,
                         int perf_errno, struct lb_error *err)
{
    if (want == CPU_SOURCE_TREE)
        return 0;
    t->perf_fd = perf_fd;
    if (t->perf_fd >= 0) {
        t->source = CPU_SOURCE_PERF;
        /* The counter is in ns and a read is fresh: the kernel brings a thread running
         * elsewhere up to date before answering. 1 us stands for the read itself. */
        t->resolution_ns = 1000;
        return 0;
    }
    if (want == CPU_SOURCE_AUTO && perf_unavailable(perf_errno))
        return 0;
    return lb_fail_errno(err, perf_errno, "cannot open a perf task-clock counter on pid %d",
                         (int)t->base.pid);
}

/* Read the child's report: 0 when the program ran (the pipe closed by its exec), else
 * -1 with err saying what failed. */
static int exec_result(const struct plat_spawn_opts *opts, int report_fd, struct lb_error *err)
{
    struct child_failure f;
    ssize_t r;
    do
        r = read(report_fd, &f, sizeof(f));
    while (r < 0 && errno == EINTR);
    if (r != (ssize_t)sizeof(f))
        return r == 0 ? 0
                      : lb_fail(err, "cannot start '%s': it died before its exec", opts->argv[0]);
    if (f.stage == STAGE_EXEC)
        return lb_fail_errno(err, f.errnum, "cannot run '%s'", opts->argv[0]);
    if (f.stage == STAGE_CWD)
        return lb_fail_errno(err, f.errnum, "cannot change to directory '%s'", opts->cwd);
    if (f.stage == STAGE_ISOLATE)
        return lb_fail_errno(err, f.errnum, "cannot start '%s' where it sees no other process",
                             opts->argv[0]);
    return lb_fail_errno(err, f.errnum, "cannot redirect the output of '%s'", opts->argv[0]);
}

int plat_spawn(const struct plat_spawn_opts *opts, struct plat_target **out, struct lb_error *err)
{
    if (!opts->argv || !opts->argv[0])
        return lb_fail(err, "cannot start a target: no command given");
    if (n_leaders == LEADERS_MAX)
        return lb_fail(err, "cannot start '%s': %d targets are running already", opts->argv[0],
                       LEADERS_MAX);
    /* Stopping waits on SIGCHLD, which needs the signalfd. */
    if (plat_events_init(err) < 0)
        return -1;
    if (isolation < 0)
        isolation = isolation_probe();
    /* fds: null, out, err, ctl[2] (a socket both ways), report[2] */
    int fds[7] = {-1, -1, -1, -1, -1, -1, -1};
    fds[0] = posix_fd_high(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (fds[0] < 0) {
        lb_fail_errno(err, errno, "cannot open '/dev/null'");
        goto fail;
    }
    if (posix_open_streams(opts, fds + 1, err) < 0)
        goto fail;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds + 3) < 0 ||
        pipe2(fds + 5, O_CLOEXEC) < 0) {
        lb_fail_errno(err, errno, "cannot start '%s'", opts->argv[0]);
        goto fail;
    }
    for (size_t i = 3; i < ARRAY_SIZE(fds); i++)
        fds[i] = posix_fd_high(fds[i]);
    int way = isolation == ISOLATION_NOBODY && opts->same_user ? ISOLATION_NONE : isolation;
    pid_t pid = fork();
    if (pid < 0) {
        lb_fail_errno(err, errno, "cannot start '%s'", opts->argv[0]);
        goto fail;
    }
    if (pid == 0)
        child_run(opts, fds[0], fds[1], fds[2], fds[4], fds[6]);
    /* The child cannot fork before the go, so registering now is in time. */
    leader_register(pid);
    /* Both sides set the group, so it exists whichever runs first. */
    setpgid(pid, pid);
    close(fds[4]);
    close(fds[6]);
    fds[4] = fds[6] = -1;

    struct plat_target *t = target_new(pid, true);
    t->isolation = way;
    struct child_hello h;
    int perf_fd;
    if (hello_recv(fds[3], &h, &perf_fd) < 0) {
        if (exec_result(opts, fds[5], err) == 0)
            lb_fail(err, "cannot start '%s': it died before its exec", opts->argv[0]);
        goto child_failed;
    }
    if (choose_source(t, opts->cpu, perf_fd, h.perf_errno, err) < 0)
        goto child_failed;
    /* Pinned while it waits for the go: the program and all it starts inherit the set. */
    if (opts->cpus) {
        cpu_set_t set;
        to_cpu_set(opts->cpus, &set);
        if (sched_setaffinity(pid, sizeof(set), &set) < 0) {
            char list[256];
            cpuset_format(opts->cpus, list, sizeof(list));
            lb_fail_errno(err, errno, "cannot run '%s' on CPUs %s", opts->argv[0], list);
            goto child_failed;
        }
    }
    /* In its cgroup before it can start anything. */
    cgroup_enter(t);
    if (send(fds[3], "g", 1, MSG_NOSIGNAL) != 1) {
        lb_fail_errno(err, errno, "cannot start '%s'", opts->argv[0]);
        goto child_failed;
    }
    if (t->isolation == ISOLATION_PID_NS) {
        struct child_pids pids;
        ssize_t r;
        do
            r = recv(fds[3], &pids, sizeof(pids), 0);
        while (r < 0 && errno == EINTR);
        if (r == (ssize_t)sizeof(pids)) {
            t->init = pids.init;
            t->program = pids.program;
        }
    }
    /* The report pipe is closed by a successful exec (CLOEXEC): EOF means it ran. */
    if (exec_result(opts, fds[5], err) < 0 || (t->isolation == ISOLATION_PID_NS && !t->init)) {
        if (t->isolation == ISOLATION_PID_NS && !t->init)
            lb_fail(err, "cannot start '%s': it died before its exec", opts->argv[0]);
        goto child_failed;
    }
    close_all(fds, ARRAY_SIZE(fds));
    *out = t;
    return 0;
child_failed:
    /* Closing the control socket unanswered makes a child still waiting on it exit; the
     * init of its namespace, if it got that far, follows it. */
    close_all(fds, ARRAY_SIZE(fds));
    while (waitpid(-pid, NULL, 0) > 0 || errno == EINTR)
        ;
    leader_unregister(pid);
    t->base.reaped = t->base.stopped = true;
    plat_target_free(t);
    return -1;
fail:
    close_all(fds, ARRAY_SIZE(fds));
    return -1;
}

int plat_attach(pid_t pid, struct plat_target **out, struct lb_error *err)
{
    char text[TEXT_MAX];
    struct proc_stat st;
    if (pid <= 0)
        return lb_fail(err, "no process with pid %d", (int)pid);
    int r = stat_read(pid, text, sizeof(text), &st, err);
    if (r < 0)
        return -1;
    if (r == 1 || st.state == 'Z' || st.state == 'X')
        return lb_fail(err, "no process with pid %d", (int)pid);
    struct plat_target *t = target_new(pid, false);
    t->starttime = st.starttime;
    *out = t;
    return 0;
}

pid_t plat_target_pid(const struct plat_target *t)
{
    return t->program ? t->program : t->base.pid;
}

enum cpu_source_kind plat_target_cpu_source(const struct plat_target *t)
{
    return t->source;
}

const char *plat_target_containment(const struct plat_target *t)
{
    return t->cgroup ? "cgroup2" : "process-group";
}

uint64_t plat_target_cpu_resolution_ns(const struct plat_target *t)
{
    return t->resolution_ns;
}

/* For the tree clocks, the walk leaves the members in t->members. */
int plat_target_cpu_ns(struct plat_target *t, uint64_t *cpu_ns, struct lb_error *err)
{
    if (t->source == CPU_SOURCE_PERF) {
        uint64_t v;
        if (read(t->perf_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
            return lb_fail_errno(err, errno, "cannot read the perf counter of pid %d",
                                 (int)t->base.pid);
        *cpu_ns = v;
        return 0;
    }
    uint64_t v;
    if (tree_walk(t, &v, err) < 0)
        return -1;
    /* A member reaped between two reads moves from its clock to its parent's cutime,
     * which /proc gives in 10 ms steps, and may be missed for one read: the total is
     * held where it was rather than let go backwards. */
    v += t->base.reaped_ns;
    if (v < t->last_cpu_ns)
        v = t->last_cpu_ns;
    t->last_cpu_ns = v;
    *cpu_ns = v;
    return 0;
}

int plat_target_read(struct plat_target *t, uint64_t *cpu_ns, struct plat_tree_stats *stats,
                     struct lb_error *err)
{
    if (plat_target_cpu_ns(t, cpu_ns, err) < 0)
        return -1;
    /* The tree clocks have just walked the tree; the perf counter needed no walk. */
    if (t->source == CPU_SOURCE_PERF && tree_walk(t, NULL, err) < 0)
        return -1;
    tree_stats(t, stats);
    return 0;
}

int posix_attached_gone(struct plat_target *t)
{
    struct proc_stat st;
    int r = stat_read(t->base.pid, t->text, sizeof(t->text), &st, NULL);
    if (r < 0)
        return -1;
    return r == 1 || st.state == 'Z' || st.state == 'X' || st.starttime != t->starttime;
}

/* ---- Stopping (posix.c's plat_target_stop) ---------------------------------------- */

/* Every exit that can empty the tree is one of loopbench's children (the leader, or a
 * member re-parented to it, the subreaper), so waiting on SIGCHLD misses none. */
const uint64_t posix_stop_poll_ns = 0;

int posix_target_walk(struct plat_target *t, struct lb_error *err)
{
    posix_leader_reap(&t->base);
    return tree_walk(t, NULL, err);
}

size_t posix_target_members(const struct plat_target *t)
{
    return t->n_members;
}

pid_t posix_target_member(const struct plat_target *t, size_t i)
{
    return t->members[i].pid;
}

void posix_target_kill(struct plat_target *t)
{
    if (t->cgroup_fd >= 0)
        write_at(t->cgroup_fd, "cgroup.kill", "1");
}

bool posix_target_contained(struct plat_target *t)
{
    if (t->cgroup_fd < 0)
        return false;
    int fd = openat(t->cgroup_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t r = read(fd, t->text, sizeof(t->text) - 1);
    close(fd);
    t->text[r > 0 ? r : 0] = '\0';
    return strstr(t->text, "populated 1") != NULL;
}

void posix_target_stopped(struct plat_target *t)
{
    leader_unregister(t->base.pid);
    cgroup_remove(t);
}

void posix_target_release(struct plat_target *t)
{
    /* A tree that could not be stopped gives its place up all the same. */
    if (t->base.spawned && !t->base.stopped)
        leader_unregister(t->base.pid);
    if (t->perf_fd >= 0)
        close(t->perf_fd);
    cgroup_remove(t);
    free(t->scan);
    free(t);
}

/* ---- Events (posix.c's plat_wait_until) ------------------------------------------- */

int posix_signals_open(const int *sigs, size_t n, struct lb_error *err)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < n; i++)
        sigaddset(&set, sigs[i]);
    /* Blocked, the signals wait in the signalfd until plat_wait_until reads them: none
     * is lost between two waits and none interrupts a read. */
    int e = pthread_sigmask(SIG_BLOCK, &set, NULL);
    if (e)
        return lb_fail_errno(err, e, "cannot block signals");
    int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd < 0)
        return lb_fail_errno(err, errno, "cannot create a signalfd");
    return fd;
}

int posix_signal_next(int fd)
{
    struct signalfd_siginfo si;
    return read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si) ? (int)si.ssi_signo : 0;
}

int posix_poll(struct pollfd *fds, nfds_t n, uint64_t timeout_ns)
{
    struct timespec ts = {(time_t)(timeout_ns / NS_PER_SEC), (long)(timeout_ns % NS_PER_SEC)};
    return ppoll(fds, n, &ts, NULL);
}

/* ---- Host ------------------------------------------------------------------------- */

/* The fields of a cpu line of /proc/stat, after its name (user nice system idle iowait
 * irq softirq steal guest guest_nice): guest time is already inside user and nice, so
 * the total stops at steal. Busy is neither idle, iowait nor steal. */
static bool stat_times(const char *fields, uint64_t *steal_ns, uint64_t *busy_ns,
                       uint64_t *total_ns)
{
    unsigned long long v[8];
    if (sscanf(fields, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]) != 8)
        return false;
    unsigned long long total = 0;
    for (size_t i = 0; i < ARRAY_SIZE(v); i++)
        total += v[i];
    *steal_ns = posix_clock_ticks_ns(v[7]);
    *busy_ns = posix_clock_ticks_ns(total - v[3] - v[4] - v[7]);
    *total_ns = posix_clock_ticks_ns(total);
    return true;
}

int plat_host_cpu(struct plat_host_cpu *out, struct lb_error *err)
{
    char buf[1024];
    /* The first line is all we need, though the kernel renders the whole file. */
    int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lb_fail_errno(err, errno, "cannot open '/proc/stat'");
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n < 0)
        return lb_fail_errno(err, errno, "cannot read '/proc/stat'");
    buf[n] = '\0';
    if (strncmp(buf, "cpu ", 4) != 0 ||
        !stat_times(buf + 4, &out->steal_ns, &out->busy_ns, &out->total_ns))
        return lb_fail(err, "cannot parse the cpu line of '/proc/stat'");
    return 0;
}

/* The value of "key : value" in /proc/cpuinfo-shaped text (new string), or NULL. */
static char *keyed_value(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, key, klen) != 0 || (p[klen] != ' ' && p[klen] != '\t' && p[klen] != ':'))
            continue;
        const char *colon = strchr(p, ':');
        const char *eol = strchr(p, '\n');
        if (!colon || (eol && colon > eol))
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        return xstrndup(colon, eol ? (size_t)(eol - colon) : strlen(colon));
    }
    return NULL;
}

/* "kvm", "xen, docker", ...: the hypervisor and the container, where cheap to tell. */
static char *virtualization(void)
{
    char *hv = first_line("/sys/hypervisor/type");
    if (!hv) {
        char *cpuinfo;
        size_t len;
        if (read_file("/proc/cpuinfo", &cpuinfo, &len, NULL) == 0) {
            char *flags = keyed_value(cpuinfo, "flags");
            if (flags && strstr(flags, " hypervisor"))
                hv = first_line("/sys/class/dmi/id/sys_vendor");
            if (flags && strstr(flags, " hypervisor") && !hv)
                hv = xstrdup("hypervisor");
            free(flags);
            free(cpuinfo);
        }
    }
    const char *ct = NULL;
    char *cgroup;
    size_t len;
    if (access("/.dockerenv", F_OK) == 0) {
        ct = "docker";
    } else if (read_file("/proc/1/cgroup", &cgroup, &len, NULL) == 0) {
        if (strstr(cgroup, "kubepods"))
            ct = "kubernetes";
        else if (strstr(cgroup, "docker"))
            ct = "docker";
        else if (strstr(cgroup, "lxc"))
            ct = "lxc";
        free(cgroup);
    }
    if (!ct)
        return hv;
    char *v = hv ? xasprintf("%s, %s", hv, ct) : xstrdup(ct);
    free(hv);
    return v;
}

void posix_host_facts(struct plat_host_facts *out)
{
    char *text;
    size_t len;
    if (read_file("/proc/cpuinfo", &text, &len, NULL) == 0) {
        out->cpu_model = keyed_value(text, "model name");
        if (!out->cpu_model) /* arm64 names no model; its vendor line is the best */
            out->cpu_model = keyed_value(text, "Hardware");
        free(text);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    out->logical_cpus = cpus > 0 ? (int)cpus : 0;
    if (read_file("/proc/meminfo", &text, &len, NULL) == 0) {
        char *kib = keyed_value(text, "MemTotal");
        if (kib)
            out->mem_total_bytes = strtoull(kib, NULL, 10) * 1024;
        free(kib);
        free(text);
    }
    out->clocksource =
        first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    out->governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    out->virtualization = virtualization();
}

/* ---- Probing the host ------------------------------------------------------------- */

const char posix_poller_name[] = "epoll_wait";

int posix_poller_open(int fds[2], struct lb_error *err)
{
    fds[0] = epoll_create1(EPOLL_CLOEXEC);
    fds[1] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); /* a loop's wake signal, never signalled */
    struct epoll_event ev = {.events = EPOLLIN};
    if (fds[0] < 0 || fds[1] < 0 || epoll_ctl(fds[0], EPOLL_CTL_ADD, fds[1], &ev) < 0)
        return lb_fail_errno(err, errno, "cannot make an epoll wait set");
    return 0;
}

int posix_poller_wait(const int fds[2], unsigned ms, struct lb_error *err)
{
    struct epoll_event ev;
    if (epoll_wait(fds[0], &ev, 1, (int)ms) < 0 && errno != EINTR)
        return lb_fail_errno(err, errno, "epoll_wait failed");
    return 0;
}

void posix_hog_run(pid_t parent)
{
    /* Dies with loopbench, whatever kills it; and if that already happened, does not
     * start spinning as an orphan. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0);
    for (volatile unsigned long spin = 0;; spin++)
        ;
}

int plat_cpus_available(struct cpuset *out, struct lb_error *err)
{
    cpu_set_t set;
    memset(out, 0, sizeof(*out));
    if (sched_getaffinity(0, sizeof(set), &set) < 0)
        return lb_fail_errno(err, errno, "cannot read the CPUs loopbench may run on");
    for (int cpu = 0; cpu < CPUSET_MAX && cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            cpuset_add(out, cpu);
    return 0;
}

int plat_pin_self(const struct cpuset *s, struct lb_error *err)
{
    cpu_set_t set;
    to_cpu_set(s, &set);
    if (sched_setaffinity(0, sizeof(set), &set) < 0)
        return lb_fail_errno(err, errno, "cannot run loopbench on its CPUs");
    return 0;
}

void plat_self_usage(struct plat_self_usage *out)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    out->cpu_ns = posix_rusage_ns(&ru);
    out->max_rss_bytes = (uint64_t)ru.ru_maxrss * 1024; /* Linux counts KiB */
}

/* ---- Rotation, idle states and per-CPU counters ------------------------------------ */

/* Each task the walk found onto set; a task gone meanwhile is no failure. */
static int tasks_move(struct plat_target *t, const cpu_set_t *set, struct lb_error *err)
{
    if (tree_walk(t, NULL, err) < 0)
        return -1;
    for (size_t i = 0; i < t->n_tids; i++)
        if (sched_setaffinity(t->tids[i], sizeof(*set), set) < 0 && errno != ESRCH)
            return lb_fail_errno(err, errno, "cannot move thread %d of the target (pid %d) to "
                                 "its CPUs", (int)t->tids[i], (int)t->base.pid);
    return 0;
}

int plat_target_set_cpus(struct plat_target *t, const struct cpuset *s, struct lb_error *err)
{
    cpu_set_t set;
    to_cpu_set(s, &set);
    return tasks_move(t, &set, err) < 0 || tasks_move(t, &set, err) < 0 ? -1 : 0;
}

#define CPU_DMA_LATENCY "/dev/cpu_dma_latency"

int plat_idle_hold(struct lb_error *err)
{
    /* Close-on-exec: a target that inherited the request would hold it past its run. */
    int fd = open(CPU_DMA_LATENCY, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return lb_fail_errno(err, errno, "--hold-idle: cannot open '%s'%s", CPU_DMA_LATENCY,
                             errno == EACCES || errno == EPERM ? " (it takes root)" : "");
    int32_t zero = 0;
    if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
        int e = errno;
        close(fd);
        return lb_fail_errno(err, e, "--hold-idle: cannot write 0 to '%s'", CPU_DMA_LATENCY);
    }
    return fd;
}

void plat_idle_release(int handle)
{
    if (handle >= 0)
        close(handle);
}

static const char *sysfs_root(void)
{
    const char *root = getenv("LOOPBENCH_TEST_SYSFS");
    return root && *root ? root : "/sys";
}

char *plat_cpuidle_driver(void)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/devices/system/cpu/cpuidle/current_driver", sysfs_root());
    char *driver = first_line(path);
    if (driver && strcmp(driver, "none") == 0) {
        free(driver);
        return NULL;
    }
    return driver;
}

/* A counter file of a cpuidle state: its number, or false when it is missing. */
static bool idle_counter(const char *dir, const char *name, uint64_t *out)
{
    char path[PATH_MAX], buf[64];
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return false;
    *out = 0;
    if (proc_read(path, buf, sizeof(buf)) <= 0)
        return false;
    *out = strtoull(buf, NULL, 10);
    return true;
}

static void cpu_idle_states(int cpu, struct plat_cpu_counters *c)
{
    c->n_idle = 0;
    for (size_t k = 0; k < PLAT_IDLE_STATES_MAX; k++) {
        char dir[PATH_MAX - 16], path[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d/cpuidle/state%zu", sysfs_root(),
                 cpu, k);
        snprintf(path, sizeof(path), "%s/name", dir);
        struct plat_idle_state *st = &c->idle[c->n_idle];
        if (proc_read(path, st->name, sizeof(st->name)) <= 0)
            return;
        st->name[strcspn(st->name, "\n")] = '\0';
        if (!idle_counter(dir, "usage", &st->usage))
            return;
        idle_counter(dir, "time", &st->time_us);
        idle_counter(dir, "above", &st->above); /* kernels before 5.5 have neither */
        idle_counter(dir, "below", &st->below);
        c->n_idle++;
    }
}

/* /proc/stat's line of one CPU into c: busy, steal and total as plat_host_cpu's. */
static bool cpu_stat_line(const char *text, int cpu, struct plat_cpu_counters *c)
{
    char key[32];
    int len = snprintf(key, sizeof(key), "\ncpu%d ", cpu);
    const char *p = strstr(text, key);
    return p && stat_times(p + len, &c->steal_ns, &c->busy_ns, &c->total_ns);
}

int plat_cpu_counters(const struct cpuset *s, struct plat_cpu_counters *out,
                      struct lb_error *err)
{
    /* The CPU lines come first, before the long interrupt lines. */
    enum { STAT_MAX = 256 * 1024 };
    char *text = xmalloc(STAT_MAX);
    ssize_t n = proc_read("/proc/stat", text, STAT_MAX);
    int rc = n > 0 ? 0 : lb_fail_errno(err, errno, "cannot read '/proc/stat'");
    size_t k = 0;
    for (int cpu = 0; rc == 0 && cpu < CPUSET_MAX; cpu++) {
        if (!cpuset_has(s, cpu))
            continue;
        memset(&out[k], 0, sizeof(out[k]));
        if (!cpu_stat_line(text, cpu, &out[k]))
            rc = lb_fail(err, "no line for CPU %d in '/proc/stat'", cpu);
        cpu_idle_states(cpu, &out[k++]);
    }
    free(text);
    return rc;
}

/* Intel's MMIO interface names its package zone as the MSR one does ("package-0"): one
 * package, one counter. Zones sort by name, the MMIO ones after the others, so that the
 * first of a name is kept. */
static int energy_zone_order(const void *a, const void *b)
{
    const struct plat_energy_zone *x = a, *y = b;
    bool mx = strstr(x->zone, "mmio") != NULL, my = strstr(y->zone, "mmio") != NULL;
    return mx != my ? (int)mx - (int)my : strcmp(x->zone, y->zone);
}

/* A powercap zone's counter file into *out: 0, or the errno of the read. */
static int energy_counter(const char *dir, const char *file, uint64_t *out)
{
    char path[PATH_MAX], buf[64];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    ssize_t got = proc_read(path, buf, sizeof(buf));
    if (got <= 0)
        return got < 0 ? errno : ENODATA;
    char *end;
    *out = strtoull(buf, &end, 10);
    return end == buf ? EINVAL : 0;
}

int plat_energy_read(struct plat_energy_zone *out, struct lb_error *err)
{
    char root[PATH_MAX];
    snprintf(root, sizeof(root), "%s/class/powercap", sysfs_root());
    DIR *d = opendir(root);
    if (!d)
        return lb_fail_errno(err, errno, "no RAPL: cannot open '%s'", root);
    size_t n = 0;
    int unreadable = 0;
    char denied[PATH_MAX] = "";
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < PLAT_ENERGY_ZONES_MAX) {
        char dir[PATH_MAX - 32], path[PATH_MAX];
        struct plat_energy_zone *z = &out[n];
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(z->zone) ||
            snprintf(dir, sizeof(dir), "%s/%s", root, e->d_name) >= (int)sizeof(dir))
            continue;
        snprintf(path, sizeof(path), "%s/name", dir);
        if (proc_read(path, z->name, sizeof(z->name)) <= 0)
            continue; /* a control type ("intel-rapl"), not a zone */
        z->name[strcspn(z->name, "\n")] = '\0';
        if (strncmp(z->name, "package", 7) != 0)
            continue; /* core, uncore, dram: parts of a package, or beside it */
        snprintf(z->zone, sizeof(z->zone), "%s", e->d_name);
        int rc = energy_counter(dir, "energy_uj", &z->energy_uj);
        if (rc == 0)
            rc = energy_counter(dir, "max_energy_range_uj", &z->range_uj);
        if (rc == 0 && z->range_uj == 0)
            rc = EINVAL;
        if (rc != 0) {
            unreadable = rc;
            snprintf(denied, sizeof(denied), "%s", dir);
            continue;
        }
        n++;
    }
    closedir(d);
    if (unreadable)
        return lb_fail_errno(err, unreadable, "no RAPL: cannot read the counters of '%s'%s", denied,
                             unreadable == EACCES || unreadable == EPERM ? " (they take root)"
                                                                         : "");
    if (n == 0)
        return lb_fail(err, "no RAPL: no package zone under '%s'", root);
    qsort(out, n, sizeof(*out), energy_zone_order);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        bool seen = false;
        for (size_t j = 0; j < kept; j++)
            seen |= strcmp(out[j].name, out[i].name) == 0;
        if (!seen)
            out[kept++] = out[i];
    }
    return (int)kept;
}
