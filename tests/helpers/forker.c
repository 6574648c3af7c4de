/* A target that forks past any tree walk, for tests/e2e/hostile-stop.sh:
 *
 *   forker N [escape] [sessions] [MARK...]
 *
 * starts N child processes that sleep until killed (at most FORKER_MAX; it stops at the
 * first that cannot be made), then says "forker: N children ready" on stdout and sleeps
 * too. With "escape", one more child makes a session of its own and double-forks: its
 * grandchild, re-parented away from the tree, sleeps as well. With "sessions", each of
 * the N makes a session of its own first, out of the process group. Each is a copy of this
 * process, MARK arguments included, so the test counts them by their command line. No
 * child asks to die with its parent: only what loopbench kills dies.
 *
 * The children share the parent's memory (clone with CLONE_VM, each on a stack of its
 * own) but are processes all the same, each with its pid, in the parent's process group:
 * a fork copies the page tables, which made 10,000 of them take a minute on a loaded
 * 2-CPU host, against under 2 s this way. */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A bound whatever N says: a mistyped count must not exhaust the host's pids. */
#define FORKER_MAX 20000
#define STACK_SIZE 4096

/* The raw system call: nothing of the C library's runs on a child's small stack. */
static _Noreturn void sleep_forever(void)
{
    for (;;)
        syscall(SYS_pause);
}

static int child_run(void *own_session)
{
    if (own_session)
        syscall(SYS_setsid);
    sleep_forever();
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: forker N [escape] [MARK...]\n", stderr);
        return 2;
    }
    long n = strtol(argv[1], NULL, 10);
    if (n < 0 || n > FORKER_MAX) {
        fprintf(stderr, "forker: N must be 0..%d\n", FORKER_MAX);
        return 2;
    }
    char *stacks = malloc((size_t)(n + 1) * STACK_SIZE);
    if (!stacks)
        return 3;
    bool escape = false;
    void *sessions = NULL;
    for (int i = 2; i < argc; i++) {
        escape |= strcmp(argv[i], "escape") == 0;
        if (strcmp(argv[i], "sessions") == 0)
            sessions = stacks;
    }
    long made = 0;
    for (; made < n; made++) {
        if (clone(child_run, stacks + (made + 1) * STACK_SIZE, CLONE_VM | SIGCHLD, sessions) < 0) {
            perror("forker: clone");
            break;
        }
    }
    if (escape && fork() == 0) {
        setsid();
        if (fork() == 0)
            sleep_forever();
        _exit(0);
    }
    printf("forker: %ld children ready\n", made);
    fflush(stdout);
    sleep_forever();
}
