/* What every POSIX back-end shares (Linux, macOS): files, locks, looking a program up
 * and running it, a TCP check, regular expressions, busy processes; events, reaping and
 * stopping a tree, over each back-end's hooks (posix.h). Built beside linux.c or
 * darwin.c by meson. */
#include "platform/platform.h"
#include "platform/posix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <poll.h>
#include <regex.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

extern char **environ;

uint64_t posix_clock_ticks_ns(unsigned long long ticks)
{
    static long hz;
    if (!hz)
        hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
    return (uint64_t)ticks * (NS_PER_SEC / (uint64_t)hz);
}

uint64_t posix_rusage_ns(const struct rusage *ru)
{
    return ((uint64_t)ru->ru_utime.tv_sec + (uint64_t)ru->ru_stime.tv_sec) * NS_PER_SEC +
           ((uint64_t)ru->ru_utime.tv_usec + (uint64_t)ru->ru_stime.tv_usec) * 1000;
}

int posix_fd_high(int fd)
{
    if (fd < 0 || fd > 2)
        return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int e = errno;
    close(fd);
    errno = e;
    return high;
}

int posix_open_output(const char *path, struct lb_error *err)
{
    const char *p = path ? path : "/dev/null";
    int fd = posix_fd_high(open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (fd < 0)
        lb_fail_errno(err, errno, "cannot create '%s'", p);
    return fd;
}

int posix_open_streams(const struct plat_spawn_opts *o, int fds[2], struct lb_error *err)
{
    bool one_file = o->stderr_path && o->stdout_path && strcmp(o->stderr_path, o->stdout_path) == 0;
    fds[1] = -1;
    if (o->piped)
        fds[0] = fcntl(o->pipe_fds[0], F_DUPFD_CLOEXEC, 3);
    else if ((fds[0] = posix_open_output(o->stdout_path, err)) < 0)
        return -1;
    if (fds[0] >= 0)
        fds[1] = o->piped || one_file
                     ? fcntl(o->piped ? o->pipe_fds[1] : fds[0], F_DUPFD_CLOEXEC, 3)
                     : posix_open_output(o->stderr_path, err);
    if (fds[1] >= 0)
        return 0;
    if (fds[0] < 0 || o->piped || one_file)
        lb_fail_errno(err, errno, "cannot give the target its output");
    if (fds[0] >= 0)
        close(fds[0]);
    fds[0] = -1;
    return -1;
}

static const char *env_path(char *const *envp)
{
    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], "PATH=", 5) == 0)
            return envp[i] + 5;
    return "/usr/local/bin:/usr/bin:/bin";
}

/* posix_path_try's attempt: a regular file this process may execute. */
static int executable(const char *path, void *ctx)
{
    (void)ctx;
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EACCES;
    return access(path, X_OK) == 0 ? 0 : errno;
}

int plat_program_check(const char *program, const char *dir)
{
    if (!strchr(program, '/'))
        return posix_path_try(program, environ, executable, NULL);
    char *path = path_join(dir, program);
    int rc = executable(path, NULL);
    free(path);
    return rc;
}

int posix_path_try(const char *file, char *const *envp,
                   int (*attempt)(const char *path, void *ctx), void *ctx)
{
    if (strchr(file, '/'))
        return attempt(file, ctx);
    size_t flen = strlen(file);
    int found = ENOENT;
    for (const char *dir = env_path(envp); dir;) {
        const char *colon = strchr(dir, ':');
        size_t dlen = colon ? (size_t)(colon - dir) : strlen(dir);
        char path[PATH_MAX];
        if (dlen + 1 + flen + 1 <= sizeof(path)) {
            size_t n = 0;
            if (dlen) {
                memcpy(path, dir, dlen);
                n = dlen;
                path[n++] = '/';
            }
            memcpy(path + n, file, flen + 1);
            int e = attempt(path, ctx);
            if (e == 0)
                return 0;
            if (e == EACCES)
                found = EACCES;
            else if (e != ENOENT && e != ENOTDIR)
                return e;
        }
        dir = colon ? colon + 1 : NULL;
    }
    return found;
}

/* A new name (a rename's, a new file's) is durable only once its directory is on disk. */
void plat_sync_dir_of(const char *path)
{
    char *dir = path_dirname(path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0)
        return;
    fsync(fd);
    close(fd);
}

int plat_replace_file(const char *tmp, const char *path)
{
    if (rename(tmp, path) < 0)
        return -1;
    plat_sync_dir_of(path);
    return 0;
}

int plat_file_stamp(const char *path, struct plat_file_stamp *out)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return -1;
#ifdef __APPLE__
    struct timespec mtime = st.st_mtimespec;
#else
    struct timespec mtime = st.st_mtim;
#endif
    *out = (struct plat_file_stamp){
        .regular = S_ISREG(st.st_mode),
        .size = (uint64_t)st.st_size,
        .mtime_ns = (uint64_t)mtime.tv_sec * NS_PER_SEC + (uint64_t)mtime.tv_nsec,
        .ino = (uint64_t)st.st_ino,
    };
    return 0;
}

void plat_sleep(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / NS_PER_SEC), (long)(ns % NS_PER_SEC)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

int plat_create_exclusive(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

FILE *plat_fopen_output(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (fd >= 0 && !f)
        close(fd);
    return f;
}

int plat_set_mode(int fd, unsigned mode)
{
    return fchmod(fd, (mode_t)(mode & 07777));
}

int plat_random(void *buf, size_t len)
{
    /* getentropy gives at most 256 bytes a call (Linux and macOS alike). */
    for (size_t at = 0; at < len; at += 256)
        if (getentropy((char *)buf + at, len - at < 256 ? len - at : 256) < 0)
            return -1;
    return 0;
}

size_t plat_path_root_len(const char *path)
{
    return path[0] == '/';
}

bool plat_path_is_separator(char c)
{
    return c == '/';
}

char *plat_realpath(const char *path)
{
    return realpath(path, NULL);
}

char *plat_link_text(const char *path)
{
    char buf[PATH_MAX];
    ssize_t n = readlink(path, buf, sizeof(buf));
    if (n < 0)
        return NULL;
    if ((size_t)n == sizeof(buf)) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return xstrndup(buf, (size_t)n);
}

int plat_mkdir(const char *path, unsigned mode)
{
    return mkdir(path, (mode_t)mode);
}

int plat_lock_try(int fd, const char *path)
{
    if (flock(fd, LOCK_EX | LOCK_NB) < 0)
        return -1;
    /* The holder before us may have removed the file between our open and our lock:
     * then the lock is on a dead inode. */
    struct stat held, now;
    if (fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev)
        return 0;
    errno = ESTALE;
    return -1;
}

void plat_lock_release(const char *path, int fd)
{
    /* Unlinked while still locked, so nobody can lock the old file in between (lock_take
     * sees a lock on a file that is no longer at its path and tries again). */
    unlink(path);
    close(fd);
}

FILE *plat_scratch_file(struct lb_error *err)
{
    FILE *f = tmpfile();
    if (!f)
        lb_fail_errno(err, errno, "cannot create a temporary file");
    return f;
}

int plat_run_program(char *const *argv, const char *dir, const char *output_path,
                     int *wstatus, struct lb_error *err)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, output_path,
                                     O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    if (dir)
        posix_spawn_file_actions_addchdir_np(&fa, dir);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        lb_fail_errno(err, rc, "cannot run %s (output to '%s')", argv[0], output_path);
        errno = rc;
        return -1;
    }
    while (waitpid(pid, wstatus, 0) < 0)
        if (errno != EINTR)
            return lb_fail_errno(err, errno, "cannot wait for %s", argv[0]);
    return 0;
}

int plat_run_output(char *const *argv, char *const *envp, size_t limit, unsigned timeout_ms,
                    char **out, int *wstatus, struct lb_error *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return lb_fail_errno(err, errno, "cannot run %s: pipe", argv[0]);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        lb_fail_errno(err, rc, "cannot run %s", argv[0]);
        errno = rc;
        return -1;
    }
    char *buf = xmalloc(limit + 1);
    size_t len = 0;
    uint64_t deadline = mono_ns() + (uint64_t)timeout_ms * 1000000u;
    bool late = false;
    while (len < limit) {
        uint64_t now = mono_ns();
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN};
        late = now >= deadline;
        if (late || poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1) == 0) {
            late = true;
            break;
        }
        ssize_t n = read(fds[0], buf + len, limit - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fds[0]);
    buf[len] = '\0';
    /* a program that outlives its deadline (or its pipe) is not waited for longer */
    while (!late && waitpid(pid, wstatus, WNOHANG) == 0) {
        if (mono_ns() >= deadline)
            late = true;
        else
            usleep(1000);
    }
    if (late) {
        kill(pid, SIGKILL);
        while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
            ;
    }
    *out = buf;
    return 0;
}

int plat_tcp_accepting(const char *host, int port)
{
    char service[16];
    snprintf(service, sizeof(service), "%d", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, service, &hints, &res) != 0)
        return 0;
    int ok = 0;
    for (struct addrinfo *a = res; a && !ok; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0)
            continue;
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        fcntl(fd, F_SETFL, O_NONBLOCK);
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
            ok = 1;
        } else if (errno == EINPROGRESS) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            int soerr = 0;
            socklen_t len = sizeof(soerr);
            if (poll(&pfd, 1, 100) == 1 &&
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && soerr == 0)
                ok = 1;
        }
        close(fd);
    }
    freeaddrinfo(res);
    return ok;
}

struct plat_regex {
    regex_t re;
};

int plat_regex_compile(const char *pattern, struct plat_regex **out, struct lb_error *err)
{
    struct plat_regex *r = xmalloc(sizeof(*r));
    int rc = regcomp(&r->re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];
        regerror(rc, &r->re, why, sizeof(why));
        free(r);
        return lb_fail(err, "invalid regular expression '%s': %s", pattern, why);
    }
    *out = r;
    return 0;
}

bool plat_regex_match(const struct plat_regex *re, const char *text)
{
    return regexec(&re->re, text, 0, NULL, 0) == 0;
}

void plat_regex_free(struct plat_regex *re)
{
    if (!re)
        return;
    regfree(&re->re);
    free(re);
}

int plat_thread_start(pthread_t *thread, void *(*run)(void *), void *arg)
{
    /* The thread inherits a full mask. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int e = pthread_create(thread, NULL, run, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return e;
}

int plat_hogs_start(pid_t *pids, unsigned n, struct lb_error *err)
{
    pid_t parent = getpid();
    for (unsigned i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            int e = errno;
            plat_hogs_stop(pids, i);
            return lb_fail_errno(err, e, "cannot start a busy process");
        }
        if (pid == 0)
            posix_hog_run(parent);
        pids[i] = pid;
    }
    return 0;
}

void plat_hogs_stop(const pid_t *pids, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        kill(pids[i], SIGKILL);
    for (unsigned i = 0; i < n; i++)
        while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
            ;
}

/* ---- Host ------------------------------------------------------------------------- */

int plat_host_facts(struct plat_host_facts *out, struct lb_error *err)
{
    memset(out, 0, sizeof(*out));
    struct utsname u;
    if (uname(&u) < 0)
        return lb_fail_errno(err, errno, "cannot read the system's name (uname)");
    out->hostname = xstrdup(u.nodename);
    out->os = xstrdup(u.sysname);
    out->kernel = xstrdup(u.release);
    out->arch = xstrdup(u.machine);
    if (getloadavg(out->loadavg, 3) < 0)
        out->loadavg[0] = out->loadavg[1] = out->loadavg[2] = -1;
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) == 0)
        out->clock_resolution_ns = (uint64_t)res.tv_sec * NS_PER_SEC + (uint64_t)res.tv_nsec;
    posix_host_facts(out);
    plat_host_facts_common(out);
    return 0;
}

/* ---- Probing the host: a wait primitive, timed ------------------------------------ */

const char *const plat_wait_names[2] = {
    [PLAT_WAIT_POLLER] = posix_poller_name,
    [PLAT_WAIT_SLEEP] = "nanosleep",
};

struct plat_waiter {
    enum plat_wait_kind kind;
    int poller[2]; /* the back-end's wait set and what it holds (-1: none) */
};

int plat_waiter_open(enum plat_wait_kind kind, struct plat_waiter **out, struct lb_error *err)
{
    struct plat_waiter *w = xcalloc(1, sizeof(*w));
    w->kind = kind;
    w->poller[0] = w->poller[1] = -1;
    if (kind == PLAT_WAIT_POLLER && posix_poller_open(w->poller, err) < 0) {
        plat_waiter_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int plat_waiter_wait(struct plat_waiter *w, unsigned ms, struct lb_error *err)
{
    if (w->kind == PLAT_WAIT_POLLER)
        return posix_poller_wait(w->poller, ms, err);
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    if (nanosleep(&ts, NULL) < 0 && errno != EINTR)
        return lb_fail_errno(err, errno, "nanosleep failed");
    return 0;
}

void plat_waiter_free(struct plat_waiter *w)
{
    if (!w)
        return;
    for (int i = 0; i < 2; i++)
        if (w->poller[i] >= 0)
            close(w->poller[i]);
    free(w);
}

/* ---- Events ----------------------------------------------------------------------- */

/* Where the back-end's signals arrive (posix_signals_open), -1 before plat_events_init. */
static int signal_fd = -1;
static int last_signal;
static int sigint_count;

int plat_events_init(struct lb_error *err)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
    if (signal_fd >= 0)
        return 0;
    int fd = posix_signals_open(sigs, ARRAY_SIZE(sigs), err);
    if (fd < 0)
        return -1;
    signal_fd = fd;
    return 0;
}

/* Read the pending signals: -1 if none, else the event they make (an interrupt outranks
 * a child's exit). */
static int signals_drain(void)
{
    int ev = -1;
    int sig;
    while ((sig = posix_signal_next(signal_fd)) > 0) {
        if (sig == SIGCHLD) {
            if (ev < 0)
                ev = PLAT_EVENT_CHILD;
            continue;
        }
        last_signal = sig;
        sigint_count += sig == SIGINT;
        ev = PLAT_EVENT_INTERRUPT;
    }
    return ev;
}

enum plat_event plat_wait_until(uint64_t deadline_mono_ns)
{
    for (;;) {
        int ev = signal_fd >= 0 ? signals_drain() : -1;
        if (ev >= 0)
            return (enum plat_event)ev;
        uint64_t now = mono_ns();
        if (now >= deadline_mono_ns)
            return PLAT_EVENT_TIMEOUT;
        uint64_t left = deadline_mono_ns - now;
        if (signal_fd < 0) { /* no events before plat_events_init: a plain sleep */
            struct timespec ts = {(time_t)(left / NS_PER_SEC), (long)(left % NS_PER_SEC)};
            nanosleep(&ts, NULL);
            continue;
        }
        struct pollfd p = {.fd = signal_fd, .events = POLLIN};
        if (posix_poll(&p, 1, left) < 0 && errno != EINTR)
            return PLAT_EVENT_TIMEOUT;
    }
}

int plat_last_signal(void)
{
    return last_signal;
}

int plat_sigint_count(void)
{
    return sigint_count;
}

/* ---- Reaping ---------------------------------------------------------------------- */

int posix_reap(struct posix_target *p, pid_t pid, int *wstatus)
{
    struct rusage ru;
    int status;
    pid_t r;
    do
        r = wait4(pid, &status, WNOHANG, &ru);
    while (r < 0 && errno == EINTR);
    if (r != pid)
        return 0;
    p->reaped_ns += posix_rusage_ns(&ru);
    p->reaps++;
    if (wstatus)
        *wstatus = status;
    return 1;
}

void posix_leader_reap(struct posix_target *p)
{
    if (p->spawned && !p->reaped && posix_reap(p, p->pid, &p->wstatus))
        p->reaped = true;
}

int plat_target_exited(struct plat_target *t, int *wstatus)
{
    struct posix_target *p = posix_target_base(t);
    if (p->spawned) {
        posix_leader_reap(p);
    } else if (!p->reaped) {
        int gone = posix_attached_gone(t);
        if (gone < 0)
            return -1;
        p->reaped = gone;
    }
    if (!p->reaped)
        return 0;
    if (wstatus)
        *wstatus = p->spawned ? p->wstatus : 0;
    return 1;
}

/* ---- Stopping --------------------------------------------------------------------- */

#define KILL_WAIT_NS (5 * NS_PER_SEC) /* waited after SIGKILL with none of the tree dying */
#define KILL_MAX_NS (60 * NS_PER_SEC) /* after SIGKILL in all, however many die */
#define KILL_POLL_NS (50 * 1000000ULL)

/* Reap the dead of the group that are loopbench's children, the leader and orphans it
 * adopted: at once, where a walk would take them a few thousand at a time. */
static void group_reap(struct posix_target *p)
{
    for (;;) {
        struct rusage ru;
        int status;
        pid_t r = wait4(-p->pid, &status, WNOHANG, &ru);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return;
        p->reaped_ns += posix_rusage_ns(&ru);
        p->reaps++;
        if (r == p->pid) {
            p->reaped = true;
            p->wstatus = status;
        }
    }
}

/* Walk the tree again: how many live members the walk found. *all is false while that
 * may not be all that is left: the walk failed (a tree larger than it can hold, a
 * read of the system's tables that failed: walk_err says why) or the back-end's
 * container still holds processes. */
static unsigned tree_left(struct plat_target *t, bool *all, struct lb_error *walk_err)
{
    group_reap(posix_target_base(t));
    *all = posix_target_walk(t, walk_err) == 0;
    unsigned n = 0;
    for (size_t i = 0; i < posix_target_members(t); i++)
        n += posix_target_member(t, i) != 0;
    if (*all && n == 0 && posix_target_contained(t)) {
        *all = false;
        lb_fail(walk_err, "its container still holds processes");
    }
    return n;
}

/* The group first, then each member outside it (an adopted orphan, a daemon that made a
 * group of its own). One kill reaches the whole group at once, members the walk has not
 * seen yet (just forked) included, so the leader and its ordinary descendants are told
 * together and before anything else: a supervisor that saw its detached workers go
 * first could start new ones. This is the order Linux's tests exercise. */
static void tree_signal(struct plat_target *t, int sig)
{
    const struct posix_target *p = posix_target_base(t);
    size_t n = posix_target_members(t);
    /* Once the leader is reaped, the group id is only ours while a member holds it. */
    bool group = !p->reaped;
    for (size_t i = 0; i < n && !group; i++) {
        pid_t pid = posix_target_member(t, i);
        group = pid && getpgid(pid) == p->pid;
    }
    if (group)
        kill(-p->pid, sig);
    for (size_t i = 0; i < n; i++) {
        pid_t pid = posix_target_member(t, i);
        if (pid && getpgid(pid) != p->pid)
            kill(pid, sig);
    }
}

int plat_target_stop(struct plat_target *t, int sig, uint64_t grace_ns, bool *killed,
                     struct lb_error *err)
{
    struct posix_target *p = posix_target_base(t);
    *killed = false;
    if (!p->spawned)
        return lb_fail(err, "cannot stop pid %d: loopbench did not start it", (int)p->pid);
    if (p->stopped)
        return 0;
    int sigints = plat_sigint_count();
    /* Without grace, what needs no walk is killed before the first walk, which takes
     * seconds through thousands of live processes: the container, and the group while
     * its leader, not reaped, holds its id. */
    posix_leader_reap(p);
    if (grace_ns == 0 && !p->reaped) {
        *killed = true;
        posix_target_kill(t);
        kill(-p->pid, SIGKILL);
    }
    /* A walk that cannot list the whole tree never ends the stop: the group and every
     * member already known are signalled all the same, again at each round, until the
     * tree is seen gone or the deadline passes. */
    bool all;
    struct lb_error walk_err;
    unsigned left = tree_left(t, &all, &walk_err);
    if ((left > 0 || !all) && grace_ns > 0) {
        tree_signal(t, sig);
        uint64_t deadline = mono_ns() + grace_ns;
        while ((left = tree_left(t, &all, &walk_err)) > 0 || !all) {
            uint64_t now = mono_ns();
            if (now >= deadline)
                break;
            uint64_t until = deadline;
            if (posix_stop_poll_ns && now + posix_stop_poll_ns < deadline)
                until = now + posix_stop_poll_ns;
            /* A second SIGINT (Ctrl-C again) cuts the grace short. */
            if (plat_wait_until(until) == PLAT_EVENT_INTERRUPT && plat_sigint_count() > sigints)
                break;
        }
    }
    /* A tree killed a walk's worth at a time, where no group or container takes it
     * whole, is going all the same, and each walk through thousands of live processes
     * takes seconds of its own: what fails the stop is KILL_WAIT_NS of waiting in which
     * none of the tree died, or KILL_MAX_NS in all. */
    uint64_t start = mono_ns(), idle_ns = 0;
    unsigned long reaps = p->reaps;
    while (left > 0 || !all) {
        *killed = true;
        posix_target_kill(t);
        tree_signal(t, SIGKILL);
        if (p->reaps != reaps) {
            reaps = p->reaps;
            idle_ns = 0;
        }
        uint64_t now = mono_ns();
        unsigned waited = (unsigned)((now - start + NS_PER_SEC / 2) / NS_PER_SEC);
        bool over = idle_ns >= KILL_WAIT_NS || now - start >= KILL_MAX_NS;
        if (over && all)
            return lb_fail(err, "processes of pid %d survived SIGKILL for %u s: %u left",
                           (int)p->pid, waited, left);
        if (over)
            return lb_fail(err, "processes of pid %d survived SIGKILL for %u s: %u seen, and "
                           "more unseen (%s)", (int)p->pid, waited, left, walk_err.msg);
        /* Polled on every system: a member whose parent is still dying exits without
         * telling loopbench. */
        plat_wait_until(now + KILL_POLL_NS);
        idle_ns += mono_ns() - now;
        left = tree_left(t, &all, &walk_err);
    }
    p->stopped = true;
    posix_target_stopped(t);
    return 0;
}

void plat_target_free(struct plat_target *t)
{
    if (!t)
        return;
    struct posix_target *p = posix_target_base(t);
    if (p->spawned && !p->stopped) {
        bool killed;
        plat_target_stop(t, SIGKILL, 0, &killed, NULL);
    }
    posix_target_release(t);
}
