/* Errors and messages.
 *
 * Low-level code never prints: it returns -1 and fills a struct lb_error with one
 * line saying what is at fault (file, key, value) and what was expected, and the
 * command decides what the user sees. Messages are printed by main() and the command
 * entry points (src/cli/cmd_*.c), through the functions below, which prefix "loopbench: "
 * and write to stderr. Besides them only two things write to stderr:
 *   - a campaign's progress (src/measure/progress.c, driven by the runner): it must show while
 *     runs go on, long before the command gets control back, and on a terminal it is
 *     one line redrawn in place, which no message function does; its other lines are
 *     msg_info's;
 *   - the one line a fatal failure prints before it aborts (out of memory: util.c's x*
 *     functions): there is no caller left to return an error to. */
#ifndef LOOPBENCH_MSG_H
#define LOOPBENCH_MSG_H

#include <stdarg.h>
#include <stdio.h>

#define LB_ERROR_MAX 1024

struct lb_error {
    char msg[LB_ERROR_MAX];
};

/* Documented in docs/cli.md; main() returns one of these. */
enum lb_exit {
    LB_EXIT_OK = 0,
    LB_EXIT_FAILURE = 1,    /* the job could not be done: target failed, I/O error... */
    LB_EXIT_USAGE = 2,      /* bad command line or unreadable/invalid input */
    LB_EXIT_SIGHUP = 129,   /* interrupted by SIGHUP, files restored */
    LB_EXIT_SIGINT = 130,   /* interrupted by SIGINT, files restored */
    LB_EXIT_SIGTERM = 143,  /* interrupted by SIGTERM, files restored */
};

#if defined(__MINGW_PRINTF_FORMAT) /* mingw-w64's C99 printf (__USE_MINGW_ANSI_STDIO) */
#define LB_PRINTF(a, b) __attribute__((format(__MINGW_PRINTF_FORMAT, a, b)))
#elif defined(__GNUC__)
#define LB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define LB_PRINTF(a, b)
#endif

/* The documented exit status for an interrupting signal (SIGHUP, SIGINT, SIGTERM);
 * LB_EXIT_FAILURE for any other. */
int lb_exit_for_signal(int sig);

/* Fill err (which may be NULL) with a formatted message; always returns -1 so that
 * callers can write `return lb_fail(err, "...")`. */
int lb_fail(struct lb_error *err, const char *fmt, ...) LB_PRINTF(2, 3);
/* Like lb_fail, appending ": strerror(errno)" for the errno value given. */
int lb_fail_errno(struct lb_error *err, int errnum, const char *fmt, ...) LB_PRINTF(3, 4);

/* stderr output, one line each, "loopbench: " first. */
void msg_error(const char *fmt, ...) LB_PRINTF(1, 2);
void msg_warn(const char *fmt, ...) LB_PRINTF(1, 2);
void msg_info(const char *fmt, ...) LB_PRINTF(1, 2);
/* An error followed by "try 'loopbench CMD --help'" (cmd may be NULL); returns LB_EXIT_USAGE. */
int msg_usage_error(const char *cmd, const char *fmt, ...) LB_PRINTF(2, 3);

/* Set by a command from its --quiet (run's): msg_info prints nothing from then on, nor
 * does the campaign's progress (the runner hands msg_quiet() to progress_init). Errors
 * and warnings still print. */
void msg_set_quiet(int quiet);
int msg_quiet(void);
/* True when colour may be used on stderr: a terminal and NO_COLOR unset or empty. */
int msg_color(void);

#endif
