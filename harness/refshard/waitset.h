/* The wait set: everything the loop can be woken by, behind one small interface so that each
 * platform brings its own back-end (waitset_epoll.c on Linux, waitset_kqueue.c on macOS;
 * Windows can follow as a sibling), picked by meson from host_machine.system().
 *
 * It holds the caller's sockets, a wake signal any thread may raise (posted work), and the
 * termination signals (SIGTERM, SIGINT), so that a sleeping loop wakes at once for any of them.
 * Readiness is level-triggered: what is left unread is reported again. */
#ifndef REFSHARD_WAITSET_H
#define REFSHARD_WAITSET_H

#include "error.h"

#define WAITSET_IN 1u
#define WAITSET_OUT 2u
#define WAITSET_ERR 4u /* error or hang-up */

enum waitset_kind {
    WAITSET_FD,     /* a socket added with waitset_add() */
    WAITSET_WAKE,   /* waitset_wake() was called; already reset */
    WAITSET_SIGNAL, /* a termination signal arrived */
};

struct waitset_event {
    enum waitset_kind kind;
    void *tag;      /* WAITSET_FD: the tag it was added with */
    unsigned flags; /* WAITSET_FD: WAITSET_IN | WAITSET_OUT | WAITSET_ERR */
    int signo;      /* WAITSET_SIGNAL */
};

struct waitset;

/* A new wait set (the caller frees it with waitset_close()). It takes over SIGTERM and SIGINT
 * for the whole process, so call it before starting any thread. */
int waitset_open(struct waitset **out, struct rs_error *err);
void waitset_close(struct waitset *ws);
/* Watch fd for the readiness in `interest` (WAITSET_IN, WAITSET_OUT); events carry tag. */
int waitset_add(struct waitset *ws, int fd, unsigned interest, void *tag, struct rs_error *err);
int waitset_modify(struct waitset *ws, int fd, unsigned interest, void *tag, struct rs_error *err);
/* Stop watching fd (before closing it). */
void waitset_remove(struct waitset *ws, int fd);
/* Wait up to timeout_ms (0: just look) and fill up to max events; returns how many, or -1. */
int waitset_wait(struct waitset *ws, int timeout_ms, struct waitset_event *ev, int max,
                 struct rs_error *err);
/* Raise the wake signal. Safe from any thread. */
void waitset_wake(struct waitset *ws);
/* The back-end's name, for the log: "epoll". */
const char *waitset_backend(void);

#endif
