/* loopbench exec -- COMMAND [ARG...]: a command run as loopbench runs a target, and
 * nothing it starts left running after it: what a CI job's builds run under
 * (harness/ci/regress.sh, docs/ci.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "commands.h"
#include "options.h"
#include "msg.h"
#include "platform/platform.h"
#include "util.h"

const char cmd_exec_usage[] =
    "usage: loopbench exec -- COMMAND [ARG...]\n"
    "\n"
    "Run COMMAND as loopbench runs a target: where the host allows, in a PID namespace of\n"
    "its own with a /proc of its own, so that it reads the environment of no other\n"
    "process (loopbench's ancestors: a CI job's shell and its runner); in a cgroup of its\n"
    "own where loopbench may make one, else in a process group of its own. Its stdin is\n"
    "the null device, its stdout and stderr are loopbench's, its environment loopbench's.\n"
    "When it exits, whatever it started that is still running (a daemon, a double-forked\n"
    "process) is killed, and loopbench says how many. A CI job's builds run so\n"
    "(harness/ci/regress.sh, docs/ci.md).\n"
    "\n"
    "  -h, --help                 show this help\n"
    "\n"
    "exit status: COMMAND's (128+N when signal N ended it); 1 when what it left could not\n"
    "be stopped; 2 bad usage or COMMAND could not be started; 129, 130 or 143 when\n"
    "loopbench was interrupted (COMMAND and all it started are stopped first).\n";

/* How long an interrupted command is given to stop on SIGTERM. */
#define EXEC_GRACE_NS (5 * NS_PER_SEC)

extern char **environ;

int cmd_exec(int argc, char **argv)
{
    static const enum cli_option accepts[] = {OPT_END};
    if (cli_getopt(argc, argv, accepts) != -1)
        return cli_bad_option("exec", argc, argv);
    if (optind >= argc)
        return msg_usage_error("exec", "exec: expected a command to run");
    /* A copy: loopbench's own environment block is blanked in the child before its
     * exec (plat_harden). */
    struct strv env = {0};
    for (char **e = environ; e && *e; e++)
        strv_push(&env, *e);
    struct plat_spawn_opts so = {
        .argv = argv + optind,
        .envp = env.v,
        .piped = true,
        .pipe_fds = {STDOUT_FILENO, STDERR_FILENO},
        .cpu = CPU_SOURCE_TREE,
        .same_user = true,
    };
    struct plat_target *t;
    struct lb_error err;
    if (plat_spawn(&so, &t, &err) < 0) {
        strv_release(&env);
        msg_error("exec: %s", err.msg);
        return LB_EXIT_USAGE;
    }
    if (strcmp(plat_target_isolation(t), "none") == 0)
        msg_warn("exec: '%s' runs without a PID namespace of its own (none can be made here): "
                 "it can read the environment of every process of this user (docs/ci.md)",
                 argv[optind]);
    int status = LB_EXIT_OK, wstatus = 0;
    bool interrupted = false;
    while (plat_target_exited(t, &wstatus) != 1)
        if (plat_wait_until(mono_ns() + 60 * NS_PER_SEC) == PLAT_EVENT_INTERRUPT) {
            interrupted = true;
            break;
        }
    /* What is left of its tree (the command itself too, when interrupted). */
    uint64_t cpu;
    struct plat_tree_stats left = {0};
    struct lb_error walk_err;
    bool counted = plat_target_read(t, &cpu, &left, &walk_err) == 0;
    bool killed;
    if (plat_target_stop(t, interrupted ? SIGTERM : SIGKILL, interrupted ? EXEC_GRACE_NS : 0,
                         &killed, &err) < 0) {
        msg_error("exec: %s", err.msg);
        status = LB_EXIT_FAILURE;
    } else if (!interrupted && !counted) {
        msg_warn("exec: '%s' left processes running (%s): killed", argv[optind], walk_err.msg);
    } else if (!interrupted && left.nprocs > 0) {
        msg_warn("exec: '%s' left %u process%s running: killed", argv[optind], left.nprocs,
                 left.nprocs == 1 ? "" : "es");
    }
    plat_target_exited(t, &wstatus);
    plat_target_free(t);
    strv_release(&env);
    if (interrupted)
        return lb_exit_for_signal(plat_last_signal());
    if (status != LB_EXIT_OK)
        return status;
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}
