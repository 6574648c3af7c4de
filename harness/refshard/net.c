#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LINE_MAX_BYTES 4096     /* a longer line is echoed in pieces of this size */
#define OUT_MAX_BYTES (1 << 20) /* a client that reads nothing is dropped past this */
#define ACCEPTS_PER_EVENT 16
#define READS_PER_EVENT 16

struct net_sock {
    int fd;
    bool listener;
    bool eof; /* the client shut its side: flush, then close */
    unsigned interest;
    char in[LINE_MAX_BYTES];
    size_t in_len;
    char *out;
    size_t out_len, out_cap;
    struct net_sock *prev, *next;
};

/* Non-blocking and close-on-exec, set after the fact: SOCK_NONBLOCK, SOCK_CLOEXEC and accept4()
 * are not portable (macOS lacks them), and refshard never forks, so nothing can inherit the
 * descriptor in between. */
static int set_nonblock_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    return 0;
}

void net_init(struct net *n, struct waitset *ws)
{
    *n = (struct net){.ws = ws};
}

int net_listen(struct net *n, const struct settings_listener *l, char *bound, size_t len,
               struct rs_error *err)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(l->port)};
    inet_pton(AF_INET, l->host, &addr.sin_addr);

    struct net_sock *s = calloc(1, sizeof(*s));
    if (!s)
        return rs_fail(err, "out of memory listening on '%s:%u'", l->host, l->port);
    s->listener = true;
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    socklen_t alen = sizeof(addr);
    if (s->fd < 0 || set_nonblock_cloexec(s->fd) < 0 ||
        setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(s->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(s->fd, 128) < 0 ||
        getsockname(s->fd, (struct sockaddr *)&addr, &alen) < 0) {
        rs_fail_errno(err, errno, "cannot listen on '%s:%u'", l->host, l->port);
        goto fail;
    }
    if (waitset_add(n->ws, s->fd, WAITSET_IN, s, err) < 0)
        goto fail;
    snprintf(bound, len, "%s:%u", l->host, ntohs(addr.sin_port));
    n->listeners[n->n_listeners++] = s;
    return 0;
fail:
    if (s->fd >= 0)
        close(s->fd);
    free(s);
    return -1;
}

static void client_close(struct net *n, struct net_sock *c)
{
    waitset_remove(n->ws, c->fd);
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        n->clients = c->next;
    if (c->next)
        c->next->prev = c->prev;
    n->n_clients--;
    free(c->out);
    free(c);
}

static bool accept_clients(struct net *n, struct net_sock *l)
{
    for (int i = 0; i < ACCEPTS_PER_EVENT; i++) {
        int fd = accept(l->fd, NULL, NULL);
        if (fd < 0)
            return false; /* EAGAIN: all taken; anything else (EMFILE...): next wake-up */
        struct net_sock *c = calloc(1, sizeof(*c));
        struct rs_error err;
        if (!c || set_nonblock_cloexec(fd) < 0 || waitset_add(n->ws, fd, WAITSET_IN, c, &err) < 0) {
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->interest = WAITSET_IN;
        c->next = n->clients;
        if (n->clients)
            n->clients->prev = c;
        n->clients = c;
        n->n_clients++;
    }
    return true;
}

static int queue_out(struct net_sock *c, const char *data, size_t len)
{
    if (c->out_len + len > OUT_MAX_BYTES)
        return -1;
    if (c->out_len + len > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : LINE_MAX_BYTES;
        while (cap < c->out_len + len)
            cap *= 2;
        char *p = realloc(c->out, cap);
        if (!p)
            return -1;
        c->out = p;
        c->out_cap = cap;
    }
    memcpy(c->out + c->out_len, data, len);
    c->out_len += len;
    return 0;
}

/* Move the complete lines of the input buffer (or a full buffer's worth) to the output. */
static int echo_lines(struct net_sock *c)
{
    size_t done = 0;
    for (size_t i = 0; i < c->in_len; i++) {
        if (c->in[i] != '\n')
            continue;
        if (queue_out(c, c->in + done, i + 1 - done) < 0)
            return -1;
        done = i + 1;
    }
    if (done == 0 && c->in_len == sizeof(c->in)) {
        if (queue_out(c, c->in, c->in_len) < 0)
            return -1;
        done = c->in_len;
    }
    memmove(c->in, c->in + done, c->in_len - done);
    c->in_len -= done;
    return 0;
}

/* 1: stopped at the bound with data maybe left, 0: drained, -1: the client is gone. */
static int read_client(struct net_sock *c)
{
    for (int i = 0; i < READS_PER_EVENT; i++) {
        ssize_t got = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);
        if (got == 0) {
            c->eof = true;
            return 0;
        }
        if (got < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        c->in_len += (size_t)got;
        if (echo_lines(c) < 0)
            return -1;
    }
    return 1;
}

static int write_client(struct net_sock *c)
{
    size_t done = 0;
    while (done < c->out_len) {
        /* No MSG_NOSIGNAL (macOS lacks it): main() ignores SIGPIPE, so a vanished client is
         * just EPIPE here. */
        ssize_t put = send(c->fd, c->out + done, c->out_len - done, 0);
        if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0)
            return -1;
        done += (size_t)put;
    }
    memmove(c->out, c->out + done, c->out_len - done);
    c->out_len -= done;
    return 0;
}

static bool service_client(struct net *n, struct net_sock *c, unsigned flags)
{
    int more = 0;
    if ((flags & WAITSET_IN) && !c->eof && (more = read_client(c)) < 0)
        goto close;
    if (c->out_len > 0 && write_client(c) < 0)
        goto close;
    if ((flags & WAITSET_ERR) && !(flags & WAITSET_IN))
        goto close;
    if (c->eof && c->out_len == 0)
        goto close;

    /* Ask for writability only while output waits, and stop reading once the client hung up. */
    unsigned want = (c->eof ? 0 : WAITSET_IN) | (c->out_len > 0 ? WAITSET_OUT : 0);
    struct rs_error err;
    if (want != c->interest) {
        if (waitset_modify(n->ws, c->fd, want, c, &err) < 0)
            goto close;
        c->interest = want;
    }
    return more > 0;
close:
    client_close(n, c);
    return false;
}

bool net_handle(struct net *n, void *tag, unsigned flags)
{
    struct net_sock *s = tag;
    return s->listener ? accept_clients(n, s) : service_client(n, s, flags);
}

void net_release(struct net *n)
{
    while (n->clients)
        client_close(n, n->clients);
    for (unsigned i = 0; i < n->n_listeners; i++) {
        waitset_remove(n->ws, n->listeners[i]->fd);
        close(n->listeners[i]->fd);
        free(n->listeners[i]);
    }
    n->n_listeners = 0;
}
