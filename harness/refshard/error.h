/* Errors.
 *
 * Modules never print: they return -1 and fill a struct rs_error with one line that names
 * the problem first and quotes its subject. Only main() prints it, prefixed "refshard: ". */
#ifndef REFSHARD_ERROR_H
#define REFSHARD_ERROR_H

#define RS_ERROR_MAX 512

#if defined(__GNUC__)
#define RS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RS_PRINTF(a, b)
#endif

struct rs_error {
    char msg[RS_ERROR_MAX];
};

/* Fill err with a formatted message; always returns -1 (`return rs_fail(err, ...)`). */
int rs_fail(struct rs_error *err, const char *fmt, ...) RS_PRINTF(2, 3);
/* Like rs_fail, appending ": strerror(errnum)". */
int rs_fail_errno(struct rs_error *err, int errnum, const char *fmt, ...) RS_PRINTF(3, 4);

#endif
