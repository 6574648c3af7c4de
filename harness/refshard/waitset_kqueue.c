/* The wait set on macOS: kqueue, with an EVFILT_USER event for wakes and EVFILT_SIGNAL for
 * signals. Written against Apple's kqueue(2); not built on Linux. */
#include "waitset.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/event.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_EVENTS 64
#define WAKE_IDENT 1

struct waitset {
    int kq;
};

static int change(struct waitset *ws, struct kevent *changes, int n)
{
    return kevent(ws->kq, changes, n, NULL, 0, NULL);
}

/* Both filters stay registered, the one not wanted disabled, so that modifying never deletes a
 * filter that was not there. Without EV_CLEAR, readiness is level-triggered, as the contract
 * asks. */
static int watch(struct waitset *ws, int fd, unsigned interest, void *tag, struct rs_error *err)
{
    struct kevent ch[2];
    EV_SET(&ch[0], fd, EVFILT_READ, EV_ADD | (interest & WAITSET_IN ? EV_ENABLE : EV_DISABLE), 0,
           0, tag);
    EV_SET(&ch[1], fd, EVFILT_WRITE, EV_ADD | (interest & WAITSET_OUT ? EV_ENABLE : EV_DISABLE),
           0, 0, tag);
    if (change(ws, ch, 2) < 0)
        return rs_fail_errno(err, errno, "cannot watch descriptor %d", fd);
    return 0;
}

int waitset_open(struct waitset **out, struct rs_error *err)
{
    struct waitset *ws = calloc(1, sizeof(*ws));
    if (!ws)
        return rs_fail(err, "out of memory opening the wait set");
    ws->kq = kqueue();
    if (ws->kq < 0) {
        rs_fail_errno(err, errno, "cannot create the kqueue wait set");
        free(ws);
        return -1;
    }
    struct kevent ch[3];
    EV_SET(&ch[0], WAKE_IDENT, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
    EV_SET(&ch[1], SIGTERM, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
    EV_SET(&ch[2], SIGINT, EVFILT_SIGNAL, EV_ADD, 0, 0, NULL);
    if (change(ws, ch, 3) < 0) {
        rs_fail_errno(err, errno, "cannot register the wake and signal events");
        waitset_close(ws);
        return -1;
    }
    /* EVFILT_SIGNAL records a signal even when it is ignored, and ignoring it (for the whole
     * process) is what keeps its default action from killing us first, whichever thread it
     * lands on. Ignored only once registered: one arriving in between would be lost. */
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    *out = ws;
    return 0;
}

void waitset_close(struct waitset *ws)
{
    if (!ws)
        return;
    close(ws->kq);
    free(ws);
}

int waitset_add(struct waitset *ws, int fd, unsigned interest, void *tag, struct rs_error *err)
{
    return watch(ws, fd, interest, tag, err);
}

int waitset_modify(struct waitset *ws, int fd, unsigned interest, void *tag, struct rs_error *err)
{
    return watch(ws, fd, interest, tag, err);
}

void waitset_remove(struct waitset *ws, int fd)
{
    struct kevent ch[2];
    EV_SET(&ch[0], fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);
    EV_SET(&ch[1], fd, EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
    change(ws, ch, 2);
}

void waitset_wake(struct waitset *ws)
{
    struct kevent ev;
    EV_SET(&ev, WAKE_IDENT, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
    change(ws, &ev, 1);
}

/* Add one kevent to ev[0..n), returning the new count. kqueue reports reading and writing of a
 * descriptor as two events: they become one, as from epoll, so that a socket closed while the
 * first is handled is not handed over again. */
static int add_event(struct waitset_event *ev, int n, const struct kevent *k)
{
    if (k->filter == EVFILT_USER) {
        ev[n] = (struct waitset_event){.kind = WAITSET_WAKE};
        return n + 1;
    }
    if (k->filter == EVFILT_SIGNAL) {
        ev[n] = (struct waitset_event){.kind = WAITSET_SIGNAL, .signo = (int)k->ident};
        return n + 1;
    }
    /* EV_EOF on the read side is a readable end of stream (recv returns 0); on the write side
     * the peer is gone, epoll's hang-up. */
    unsigned flags = (k->filter == EVFILT_READ ? WAITSET_IN : 0) |
                     (k->filter == EVFILT_WRITE ? WAITSET_OUT : 0) |
                     ((k->flags & EV_ERROR) || (k->filter == EVFILT_WRITE && (k->flags & EV_EOF))
                          ? WAITSET_ERR
                          : 0);
    for (int i = 0; i < n; i++) {
        if (ev[i].kind == WAITSET_FD && ev[i].tag == k->udata) {
            ev[i].flags |= flags;
            return n;
        }
    }
    ev[n] = (struct waitset_event){.kind = WAITSET_FD, .tag = k->udata, .flags = flags};
    return n + 1;
}

int waitset_wait(struct waitset *ws, int timeout_ms, struct waitset_event *ev, int max,
                 struct rs_error *err)
{
    struct kevent kevs[MAX_EVENTS];
    if (max > MAX_EVENTS)
        max = MAX_EVENTS;
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    /* A negative timeout waits for ever, as epoll_wait's does. */
    int n = kevent(ws->kq, NULL, 0, kevs, max, timeout_ms < 0 ? NULL : &ts);
    if (n < 0) {
        /* A stop or continue signal interrupts the wait; that is an empty wake-up. */
        if (errno == EINTR)
            return 0;
        return rs_fail_errno(err, errno, "cannot wait on the kqueue wait set");
    }
    int out = 0;
    for (int i = 0; i < n; i++)
        out = add_event(ev, out, &kevs[i]);
    return out;
}

const char *waitset_backend(void)
{
    return "kqueue";
}
