/* peakrss: run a command and write its peak resident set size, for the memory benchmark.
 *
 *   peakrss FILE COMMAND [ARG...]
 *
 * Writes the peak in KiB to FILE once COMMAND has exited, and exits with its status. The
 * figure is wait4's ru_maxrss: COMMAND's own peak, or a reaped descendant's if larger.
 * Why a program of its own: the kernel counts in a process's peak the memory of the copy
 * it was forked as, until its exec, so a command started by a shell or python starts at
 * that launcher's size; this launcher is smaller than anything it measures. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: peakrss FILE COMMAND [ARG...]\n", stderr);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("peakrss: fork");
        return 1;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror("peakrss: exec");
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("peakrss: wait4");
        return 1;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f || fprintf(f, "%ld\n", ru.ru_maxrss) < 0 || fclose(f) != 0) {
        perror("peakrss: cannot write the figure");
        return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
