/* What the POSIX back-ends (linux.c, darwin.c) share beyond platform.h: what posix.c
 * gives them, and the hooks through which each gives posix.c what differs. */
#ifndef LOOPBENCH_PLATFORM_POSIX_H
#define LOOPBENCH_PLATFORM_POSIX_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "msg.h"

struct plat_host_facts;
struct plat_target;

/* Clock ticks (sysconf(_SC_CLK_TCK) a second: /proc's, host_statistics') in ns. */
uint64_t posix_clock_ticks_ns(unsigned long long ticks);
/* user + system time of a rusage, in ns. */
uint64_t posix_rusage_ns(const struct rusage *ru);

/* Move a new descriptor above 0, 1 and 2 (closing the old one), so a child's dup2 onto
 * the standard descriptors cannot clobber it when loopbench started with one closed.
 * A negative fd is passed through. */
int posix_fd_high(int fd);
/* Create or truncate an output file for a target (NULL: /dev/null), close-on-exec and
 * above the standard descriptors; -1 with err naming it. */
int posix_open_output(const char *path, struct lb_error *err);
/* The target's stdout and stderr into fds[0] and fds[1], both loopbench's to close: new
 * copies of the pipes' write ends, or the files opened (one path for both: one file, one
 * offset, so the lines interleave instead of overwriting). -1 with err, none left open. */
int posix_open_streams(const struct plat_spawn_opts *o, int fds[2], struct lb_error *err);

/* Look file up as execvp does, but in envp's PATH (a target's, not loopbench's): call
 * attempt with file itself when it has a slash, else with each PATH entry joined to it
 * (an empty entry is the current directory), until one returns 0. attempt returns 0 or
 * an errno. Returns 0, or the errno that describes the failure best (EACCES over
 * ENOENT). Async-signal-safe, for a child between fork and exec. */
int posix_path_try(const char *file, char *const *envp,
                   int (*attempt)(const char *path, void *ctx), void *ctx);

/* The body of a busy process of plat_hogs_start (posix.c), in the forked child: spin
 * until killed, and not outlive loopbench (each back-end has its own way). */
_Noreturn void posix_hog_run(pid_t parent);

/* ---- Host: posix.c's plat_host_facts over each back-end's ------------------------- */

/* Each back-end defines it. The facts uname, getloadavg and clock_getres do not give
 * (CPU model and count, memory, clock source, governor, virtualization) into out, each
 * left unknown when unreadable. */
void posix_host_facts(struct plat_host_facts *out);

/* ---- Probing: posix.c's plat_waiter over each back-end's poller ------------------- */

/* Each back-end defines these. The wait primitive's name ("epoll_wait"). */
extern const char posix_poller_name[];
/* Make the wait set an event loop idles in (Linux: epoll, macOS: kqueue) holding a wake
 * signal that is never raised, its descriptors in fds (fds[1] -1 where there is one): 0,
 * or -1 with err, what was opened left in fds. */
int posix_poller_open(int fds[2], struct lb_error *err);
/* Wait in it for ms milliseconds, nothing ever ready: 0 (also when a signal cut it
 * short), or -1 with err. */
int posix_poller_wait(const int fds[2], unsigned ms, struct lb_error *err);

/* ---- Events: posix.c's plat_wait_until over each back-end's signal source --------- */

/* Each back-end defines these. Make the descriptor on which the signals sigs[0..n)
 * arrive from now on, readable while any is pending (Linux: a signalfd, the signals
 * blocked; macOS: a self-pipe's read end, written by handlers): the descriptor, or -1
 * with err. */
int posix_signals_open(const int *sigs, size_t n, struct lb_error *err);
/* The next pending signal's number read from that descriptor, 0 when none is. */
int posix_signal_next(int fd);
/* poll(2) with a timeout in ns (Linux: ppoll, to the ns; macOS has no ppoll: poll, in
 * whole ms rounded up so as never to wake early). Returns what poll returns. */
int posix_poll(struct pollfd *fds, nfds_t n, uint64_t timeout_ns);

/* ---- Targets: posix.c's reaping and stopping over each back-end's tree -------------- */

/* What posix.c reads and writes of a target: the member `base` of linux.c's and
 * darwin.c's struct plat_target. */
struct posix_target {
    pid_t pid;          /* the leader; a spawned one leads its own process group */
    bool spawned;
    bool reaped;        /* spawned leader: waited for; attached: seen gone */
    bool stopped;
    int wstatus;        /* the spawned leader's, once reaped */
    uint64_t reaped_ns; /* CPU of the members loopbench reaped (wait4 rusage, their own
                           reaped children included) */
    unsigned long reaps; /* how many loopbench reaped: a stop's sign of progress */
};

/* Reap pid if it is an exited child of loopbench: 1, its usage added to p->reaped_ns
 * and its wait status to *wstatus (when not NULL); 0 if it is not (yet). */
int posix_reap(struct posix_target *p, pid_t pid, int *wstatus);
/* Reap a spawned leader that has exited, once. */
void posix_leader_reap(struct posix_target *p);

/* Each back-end defines these. t's struct posix_target. */
struct posix_target *posix_target_base(struct plat_target *t);
/* Has the attached process t (not spawned) gone, or has its pid been reused? 1 yes,
 * 0 no, -1 when that cannot be told. */
int posix_attached_gone(struct plat_target *t);
/* Walk t's tree again, the leader reaped first if it has exited, so that the two below
 * list what is left: 0, or -1 with err. */
int posix_target_walk(struct plat_target *t, struct lb_error *err);
/* How many members the last walk found, and member i's pid (0: found gone). */
size_t posix_target_members(const struct plat_target *t);
pid_t posix_target_member(const struct plat_target *t, size_t i);
/* Kill at once every process of the container that the back-end holds t's tree in,
 * where it has one (Linux: the run's cgroup; none on macOS), members the walk cannot
 * see included. */
void posix_target_kill(struct plat_target *t);
/* Does that container still hold processes? Always false where there is none. */
bool posix_target_contained(struct plat_target *t);
/* What the back-end gives up once a spawned tree is stopped: empty and reaped. */
void posix_target_stopped(struct plat_target *t);
/* Free t and what the back-end holds for it (plat_target_free, once a spawned tree is
 * stopped or could not be). */
void posix_target_release(struct plat_target *t);
/* How often stopping looks at the tree during the grace period: 0 where each exit that
 * can empty it raises SIGCHLD in loopbench, which wakes the wait (Linux, a subreaper);
 * else a poll period (macOS, where orphans exit to launchd unseen). */
extern const uint64_t posix_stop_poll_ns;

#endif
