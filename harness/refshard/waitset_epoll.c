/* The wait set on Linux: epoll, with an eventfd for wakes and a signalfd for signals. */
#include "waitset.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#define MAX_EVENTS 64

struct waitset {
    int epfd;
    int wakefd;
    int sigfd;
    /* Addresses of these two are the epoll tags of the internal descriptors. */
    char wake_tag;
    char sig_tag;
};

static uint32_t to_epoll(unsigned interest)
{
    return (interest & WAITSET_IN ? EPOLLIN : 0) | (interest & WAITSET_OUT ? EPOLLOUT : 0);
}

static int ctl(struct waitset *ws, int op, int fd, unsigned interest, void *tag,
               struct rs_error *err)
{
    struct epoll_event e = {.events = to_epoll(interest), .data.ptr = tag};
    if (epoll_ctl(ws->epfd, op, fd, &e) < 0)
        return rs_fail_errno(err, errno, "cannot watch descriptor %d", fd);
    return 0;
}

int waitset_open(struct waitset **out, struct rs_error *err)
{
    struct waitset *ws = calloc(1, sizeof(*ws));
    if (!ws)
        return rs_fail(err, "out of memory opening the wait set");
    ws->wakefd = ws->sigfd = -1;

    /* Blocked signals are delivered through the signalfd only; threads started later inherit
     * the mask, so none of them can take the signal instead. An ignored signal would be
     * discarded before it could be read (a shell starts background jobs with SIGINT
     * ignored), so once blocked both get their default back: they always mean stop. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);

    ws->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (ws->epfd < 0) {
        rs_fail_errno(err, errno, "cannot create the epoll wait set");
        goto fail;
    }
    ws->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (ws->wakefd < 0) {
        rs_fail_errno(err, errno, "cannot create the wake eventfd");
        goto fail;
    }
    if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
        rs_fail_errno(err, errno, "cannot block SIGTERM and SIGINT");
        goto fail;
    }
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    ws->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (ws->sigfd < 0) {
        rs_fail_errno(err, errno, "cannot create the signalfd");
        goto fail;
    }
    if (ctl(ws, EPOLL_CTL_ADD, ws->wakefd, WAITSET_IN, &ws->wake_tag, err) < 0 ||
        ctl(ws, EPOLL_CTL_ADD, ws->sigfd, WAITSET_IN, &ws->sig_tag, err) < 0)
        goto fail;
    *out = ws;
    return 0;
fail:
    waitset_close(ws);
    return -1;
}

void waitset_close(struct waitset *ws)
{
    if (!ws)
        return;
    if (ws->sigfd >= 0)
        close(ws->sigfd);
    if (ws->wakefd >= 0)
        close(ws->wakefd);
    if (ws->epfd >= 0)
        close(ws->epfd);
    free(ws);
}

int waitset_add(struct waitset *ws, int fd, unsigned interest, void *tag, struct rs_error *err)
{
    return ctl(ws, EPOLL_CTL_ADD, fd, interest, tag, err);
}

int waitset_modify(struct waitset *ws, int fd, unsigned interest, void *tag, struct rs_error *err)
{
    return ctl(ws, EPOLL_CTL_MOD, fd, interest, tag, err);
}

void waitset_remove(struct waitset *ws, int fd)
{
    epoll_ctl(ws->epfd, EPOLL_CTL_DEL, fd, NULL);
}

void waitset_wake(struct waitset *ws)
{
    /* Cannot fail short of a full counter, which is a pending wake all the same. */
    eventfd_write(ws->wakefd, 1);
}

/* Translate one epoll event, resetting the internal descriptors so they report once. */
static struct waitset_event translate(struct waitset *ws, const struct epoll_event *e)
{
    struct waitset_event ev = {.kind = WAITSET_FD, .tag = e->data.ptr};
    if (e->data.ptr == &ws->wake_tag) {
        eventfd_t count;
        ev.kind = WAITSET_WAKE;
        eventfd_read(ws->wakefd, &count);
    } else if (e->data.ptr == &ws->sig_tag) {
        struct signalfd_siginfo si;
        ev.kind = WAITSET_SIGNAL;
        ev.signo = read(ws->sigfd, &si, sizeof(si)) == sizeof(si) ? (int)si.ssi_signo : SIGTERM;
    } else {
        ev.flags = (e->events & EPOLLIN ? WAITSET_IN : 0) |
                   (e->events & EPOLLOUT ? WAITSET_OUT : 0) |
                   (e->events & (EPOLLERR | EPOLLHUP) ? WAITSET_ERR : 0);
    }
    return ev;
}

int waitset_wait(struct waitset *ws, int timeout_ms, struct waitset_event *ev, int max,
                 struct rs_error *err)
{
    struct epoll_event events[MAX_EVENTS];
    if (max > MAX_EVENTS)
        max = MAX_EVENTS;
    int n = epoll_wait(ws->epfd, events, max, timeout_ms);
    if (n < 0) {
        /* A stop or continue signal interrupts the wait; that is an empty wake-up. */
        if (errno == EINTR)
            return 0;
        return rs_fail_errno(err, errno, "cannot wait on the epoll wait set");
    }
    for (int i = 0; i < n; i++)
        ev[i] = translate(ws, &events[i]);
    return n;
}

const char *waitset_backend(void)
{
    return "epoll";
}
