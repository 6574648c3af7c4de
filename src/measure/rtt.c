/* The open-loop round-trip probe (rtt.h).
 *
 * One thread, one loop: take the time; write off what ran out of time; put the requests
 * (and connection-setup probes) that came due on their connections; reopen connections
 * whose retry time came; write what can be written; then ppoll until the earliest of the
 * next due time, the next timeout and the next retry, and read the replies. Everything
 * the loop touches (rings of due times, poll array, histograms) is sized in rtt_start
 * from rate * timeout, so nothing is allocated per request. */
#include "rtt.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "platform/platform.h"
#include "util.h"

#define RETRY_NS (RTT_RETRY_MS * 1000000ULL)

enum conn_state {
    CONN_IDLE,       /* a connection-setup slot not in use */
    CONN_DOWN,       /* to be reopened at `when` */
    CONN_CONNECTING, /* non-blocking connect begun at `when` */
    CONN_UP,
};

/* A connection and its requests, oldest first, as a ring of due times: the first
 * `written` were written in full and wait for their reply, the next one may be partly
 * written (send_off bytes), the rest wait to be written. */
struct conn {
    int fd;
    enum conn_state state;
    bool oneshot; /* a connection-setup probe: one request, timed, then closed */
    uint64_t *due;
    size_t cap, head, n;
    size_t written;
    size_t send_off;
    size_t reply_off; /* bytes of the oldest written request's reply matched so far */
    uint64_t when;
};

struct rtt_probe {
    char *send, *expect;
    size_t send_len, expect_len;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    double period_ns;
    double setup_period_ns; /* 0: no connection-setup probes */
    uint64_t timeout_ns;
    uint64_t start_ns;
    int stop_pipe[2];
    pthread_t thread;
    struct conn *conns; /* n_persistent persistent ones, then the setup slots */
    size_t n_conns, n_persistent;
    uint64_t *due_store;
    struct pollfd *pfds; /* the stop pipe, then one per connection */
    uint64_t next_request, next_setup;
    struct rtt_result res;
};

static uint64_t request_due(const struct rtt_probe *p, uint64_t k)
{
    return p->start_ns + (uint64_t)((double)k * p->period_ns);
}

static uint64_t setup_due(const struct rtt_probe *p, uint64_t j)
{
    return p->start_ns + (uint64_t)(((double)j + 0.5) * p->setup_period_ns);
}

static struct rtt_counts *counts_of(struct rtt_probe *p, const struct conn *c)
{
    return c->oneshot ? &p->res.setups : &p->res.requests;
}

static uint64_t oldest_due(const struct conn *c)
{
    return c->due[c->head];
}

static void ring_pop(struct conn *c)
{
    c->head = (c->head + 1) % c->cap;
    c->n--;
}

static void conn_close(struct conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->written = c->send_off = c->reply_off = 0;
}

/* Close c and write off its requests: those on the wire (all of a setup probe's) as
 * timeouts or errors. A persistent connection is reopened at once after a timeout,
 * RETRY_NS later after a failure. */
static void conn_fail(struct rtt_probe *p, struct conn *c, uint64_t now, bool timeout)
{
    struct rtt_counts *counts = counts_of(p, c);
    size_t lost = c->oneshot ? c->n : c->written + (c->send_off > 0);
    for (size_t i = 0; i < lost; i++) {
        ring_pop(c);
        if (timeout)
            counts->timeouts++;
        else
            counts->errors++;
    }
    if (!timeout)
        p->res.connection_failures++;
    conn_close(c);
    c->state = c->oneshot ? CONN_IDLE : CONN_DOWN;
    c->when = timeout ? now : now + RETRY_NS;
}

/* Begin a non-blocking connect; on failure, conn_fail and return the errno. */
static int conn_open(struct rtt_probe *p, struct conn *c, uint64_t now)
{
    c->fd = socket(p->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int e = errno;
    if (c->fd >= 0) {
        int one = 1; /* pipelined small requests must not wait for the previous ACK */
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c->when = now;
        if (connect(c->fd, (const struct sockaddr *)&p->addr, p->addr_len) == 0) {
            c->state = CONN_UP;
            return 0;
        }
        e = errno;
        if (e == EINPROGRESS) {
            c->state = CONN_CONNECTING;
            return 0;
        }
    }
    conn_fail(p, c, now, false);
    return e;
}

/* The end of a non-blocking connect, once poll reported on it. */
static void conn_connected(struct rtt_probe *p, struct conn *c, uint64_t now)
{
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &so_error, &len) < 0 || so_error)
        conn_fail(p, c, now, false);
    else
        c->state = CONN_UP;
}

/* Time runs out for a request timeout_ns after its due time, written or not. */
static void conn_expire(struct rtt_probe *p, struct conn *c, uint64_t now)
{
    while (c->n && now - oldest_due(c) >= p->timeout_ns) {
        if (c->oneshot || c->written || c->send_off) {
            conn_fail(p, c, now, true);
            continue;
        }
        ring_pop(c);
        counts_of(p, c)->timeouts++;
    }
    if (c->state == CONN_CONNECTING && now - c->when >= p->timeout_ns)
        conn_fail(p, c, now, false);
}

static void conn_enqueue(struct rtt_probe *p, struct conn *c, uint64_t due, uint64_t now)
{
    struct rtt_counts *counts = counts_of(p, c);
    counts->scheduled++;
    conn_expire(p, c, now);
    /* After the expiry the ring holds only requests due within the last timeout: cap
     * is sized for them. Should it ever be full, the request is lost as a timeout
     * rather than overwrite another. */
    if (c->n == c->cap) {
        counts->timeouts++;
        return;
    }
    c->due[(c->head + c->n) % c->cap] = due;
    c->n++;
}

/* Put every request and setup probe due by now on its connection. */
static void schedule(struct rtt_probe *p, uint64_t now)
{
    uint64_t due;
    while ((due = request_due(p, p->next_request)) <= now) {
        conn_enqueue(p, &p->conns[p->next_request % p->n_persistent], due, now);
        p->next_request++;
    }
    while (p->setup_period_ns > 0 && (due = setup_due(p, p->next_setup)) <= now) {
        struct conn *slot = NULL;
        for (size_t i = p->n_persistent; i < p->n_conns && !slot; i++)
            if (p->conns[i].state == CONN_IDLE)
                slot = &p->conns[i];
        if (slot) {
            conn_enqueue(p, slot, due, now);
            conn_open(p, slot, now);
        } else { /* as for a full ring: sized not to happen */
            p->res.setups.scheduled++;
            p->res.setups.timeouts++;
        }
        p->next_setup++;
    }
}

/* Write the requests waiting on an open connection, until the socket is full. */
static void conn_flush(struct rtt_probe *p, struct conn *c)
{
    while (c->state == CONN_UP && c->written < c->n) {
        uint64_t due = c->due[(c->head + c->written) % c->cap];
        uint64_t now = mono_ns();
        ssize_t w = send(c->fd, p->send + c->send_off, p->send_len - c->send_off, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_fail(p, c, now, false);
            return;
        }
        if (c->send_off == 0) {
            counts_of(p, c)->sent++;
            if (!c->oneshot)
                histogram_record(&p->res.lag, now - due);
        }
        c->send_off += (size_t)w;
        if (c->send_off < p->send_len)
            return; /* the socket is full */
        c->written++;
        c->send_off = 0;
    }
}

/* Match reply bytes against the expected reply, request after request; -1 on bytes
 * that do not match or that no written request is waiting for. */
static int conn_match(struct rtt_probe *p, struct conn *c, const char *buf, size_t len,
                      uint64_t now)
{
    size_t i = 0;
    while (i < len) {
        if (c->written == 0)
            return -1;
        size_t m = p->expect_len - c->reply_off;
        if (m > len - i)
            m = len - i;
        if (memcmp(buf + i, p->expect + c->reply_off, m) != 0)
            return -1;
        i += m;
        c->reply_off += m;
        if (c->reply_off < p->expect_len)
            continue;
        histogram_record(c->oneshot ? &p->res.setup : &p->res.rtt, now - oldest_due(c));
        counts_of(p, c)->completed++;
        ring_pop(c);
        c->written--;
        c->reply_off = 0;
        if (c->oneshot) { /* timed: done with it */
            conn_close(c);
            c->state = CONN_IDLE;
            return 0;
        }
    }
    return 0;
}

static void conn_read(struct rtt_probe *p, struct conn *c)
{
    char buf[4096];
    ssize_t r = recv(c->fd, buf, sizeof(buf), 0);
    uint64_t now = mono_ns();
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (r <= 0 || conn_match(p, c, buf, (size_t)r, now) < 0)
        conn_fail(p, c, now, false); /* reset, end of file, or a wrong reply */
}

static uint64_t earlier(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Fill the poll array; returns the deadline of the wait. */
static uint64_t poll_prepare(struct rtt_probe *p)
{
    uint64_t deadline = request_due(p, p->next_request);
    if (p->setup_period_ns > 0)
        deadline = earlier(deadline, setup_due(p, p->next_setup));
    for (size_t i = 0; i < p->n_conns; i++) {
        struct conn *c = &p->conns[i];
        struct pollfd *pfd = &p->pfds[1 + i];
        pfd->fd = c->state == CONN_CONNECTING || c->state == CONN_UP ? c->fd : -1;
        pfd->events = c->state == CONN_CONNECTING ? POLLOUT
                      : c->written < c->n         ? POLLIN | POLLOUT
                                                  : POLLIN;
        pfd->revents = 0;
        if (c->n)
            deadline = earlier(deadline, oldest_due(c) + p->timeout_ns);
        if (c->state == CONN_CONNECTING)
            deadline = earlier(deadline, c->when + p->timeout_ns);
        else if (c->state == CONN_DOWN)
            deadline = earlier(deadline, c->when);
    }
    return deadline;
}

static void *probe_main(void *arg)
{
    struct rtt_probe *p = arg;
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
    p->pfds[0] = (struct pollfd){.fd = p->stop_pipe[0], .events = POLLIN};
    uint64_t now;
    for (;;) {
        now = mono_ns();
        for (size_t i = 0; i < p->n_conns; i++)
            conn_expire(p, &p->conns[i], now);
        schedule(p, now);
        for (size_t i = 0; i < p->n_persistent; i++)
            if (p->conns[i].state == CONN_DOWN && p->conns[i].when <= now)
                conn_open(p, &p->conns[i], now);
        for (size_t i = 0; i < p->n_conns; i++)
            conn_flush(p, &p->conns[i]);

        uint64_t deadline = poll_prepare(p);
        now = mono_ns();
        uint64_t wait = deadline > now ? deadline - now : 0;
        struct timespec ts = {(time_t)(wait / NS_PER_SEC), (long)(wait % NS_PER_SEC)};
        if (ppoll(p->pfds, 1 + p->n_conns, &ts, NULL) < 0)
            continue; /* EINTR; the signals are blocked, so in practice never */
        if (p->pfds[0].revents)
            break;
        for (size_t i = 0; i < p->n_conns; i++) {
            struct conn *c = &p->conns[i];
            short rev = p->pfds[1 + i].revents;
            if (!rev)
                continue;
            if (c->state == CONN_CONNECTING)
                conn_connected(p, c, mono_ns());
            else if (c->state == CONN_UP && rev & (POLLIN | POLLERR | POLLHUP))
                conn_read(p, c);
        }
    }
    now = mono_ns();
    struct timespec cpu;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    p->res.probe_cpu_ns = (uint64_t)cpu.tv_sec * NS_PER_SEC + (uint64_t)cpu.tv_nsec;
    p->res.duration_ns = now - p->start_ns;
    for (size_t i = 0; i < p->n_conns; i++) {
        const struct conn *c = &p->conns[i];
        struct rtt_counts *n = counts_of(p, c);
        n->unfinished += c->n;
        uint64_t due = c->n ? c->due[c->head] : now;
        if (due < now && now - due > n->unfinished_oldest_ns)
            n->unfinished_oldest_ns = now - due;
    }
    return NULL;
}

/* ---- Start and stop ------------------------------------------------------------------ */

static void probe_free(struct rtt_probe *p)
{
    for (size_t i = 0; i < p->n_conns; i++) {
        /* A socket closed with unread bytes sends a reset, which a target may log as
         * a client error: read off the replies that came after the last loop. */
        char buf[4096];
        while (p->conns[i].fd >= 0 && recv(p->conns[i].fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
            ;
        conn_close(&p->conns[i]);
    }
    for (int i = 0; i < 2; i++)
        if (p->stop_pipe[i] >= 0)
            close(p->stop_pipe[i]);
    rtt_result_release(&p->res);
    FREE_ALL(p->conns, p->due_store, p->pfds, p->send, p->expect);
    free(p);
}

/* Requests and replies are bytes, NULs included. */
static char *memdup(const char *data, size_t len)
{
    char *copy = xmalloc(len);
    memcpy(copy, data, len);
    return copy;
}

/* Connect one persistent connection before the start, waiting up to the timeout. */
static int connect_now(struct rtt_probe *p, struct conn *c, const char *where, struct lb_error *err)
{
    int e = conn_open(p, c, mono_ns());
    if (e)
        return lb_fail_errno(err, e, "rtt: cannot connect to %s", where);
    if (c->state == CONN_CONNECTING) {
        struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
        int ms = (int)ceil((double)p->timeout_ns / 1e6);
        int n;
        while ((n = poll(&pfd, 1, ms)) < 0 && errno == EINTR)
            ;
        if (n == 0) {
            conn_close(c);
            return lb_fail(err, "rtt: cannot connect to %s: no answer within %g s", where,
                           (double)p->timeout_ns / 1e9);
        }
        int so_error = 0;
        socklen_t len = sizeof(so_error);
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &so_error, &len) < 0)
            so_error = errno;
        if (so_error) {
            conn_close(c);
            return lb_fail_errno(err, so_error, "rtt: cannot connect to %s", where);
        }
        c->state = CONN_UP;
    }
    return 0;
}

static int resolve(struct rtt_probe *p, const struct rtt_opts *o, struct lb_error *err)
{
    char port[16];
    snprintf(port, sizeof(port), "%d", o->port);
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *ai;
    int e = getaddrinfo(o->host, port, &hints, &ai);
    if (e)
        return lb_fail(err, "rtt: cannot resolve '%s': %s", o->host, gai_strerror(e));
    memcpy(&p->addr, ai->ai_addr, ai->ai_addrlen);
    p->addr_len = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

/* The rings: a persistent connection gets every connections-th request, and holds only
 * those due within one timeout (conn_enqueue expires the older ones first), plus
 * slack for rounding; a setup slot holds one, and as many slots as can be due within
 * one timeout. */
static void probe_alloc(struct rtt_probe *p, const struct rtt_opts *o)
{
    p->n_persistent = (size_t)o->connections;
    size_t ring = (size_t)(o->timeout_s * o->rate_per_s / o->connections) + 3;
    size_t slots =
        o->connect_rate_per_s > 0 ? (size_t)(o->timeout_s * o->connect_rate_per_s) + 2 : 0;
    p->n_conns = p->n_persistent + slots;
    p->conns = xcalloc(p->n_conns, sizeof(*p->conns));
    p->due_store = xcalloc(p->n_persistent * ring + slots, sizeof(*p->due_store));
    p->pfds = xcalloc(1 + p->n_conns, sizeof(*p->pfds));
    uint64_t *next = p->due_store;
    for (size_t i = 0; i < p->n_conns; i++) {
        struct conn *c = &p->conns[i];
        c->fd = -1;
        c->oneshot = i >= p->n_persistent;
        c->state = c->oneshot ? CONN_IDLE : CONN_DOWN;
        c->cap = c->oneshot ? 1 : ring;
        c->due = next;
        next += c->cap;
    }
    histogram_init(&p->res.rtt);
    histogram_init(&p->res.lag);
    histogram_init(&p->res.setup);
}

int rtt_start(const struct rtt_opts *o, struct rtt_probe **out, struct lb_error *err)
{
    if (rtt_check(o, err) < 0)
        return -1;
    struct rtt_probe *p = xcalloc(1, sizeof(*p));
    p->stop_pipe[0] = p->stop_pipe[1] = -1;
    bool echo = !o->expect || o->expect_len == 0;
    p->send_len = o->send_len;
    p->send = memdup(o->send, o->send_len);
    p->expect_len = echo ? o->send_len : o->expect_len;
    p->expect = memdup(echo ? o->send : o->expect, p->expect_len);
    p->period_ns = 1e9 / o->rate_per_s;
    p->setup_period_ns = o->connect_rate_per_s > 0 ? 1e9 / o->connect_rate_per_s : 0;
    p->timeout_ns = (uint64_t)(o->timeout_s * 1e9);
    probe_alloc(p, o);
    if (resolve(p, o, err) < 0)
        goto fail;
    char *where = format_hostport(o->host, o->port);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->n_persistent; i++)
        rc = connect_now(p, &p->conns[i], where, err);
    free(where);
    if (rc < 0)
        goto fail;
    if (pipe2(p->stop_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
        lb_fail_errno(err, errno, "rtt: cannot create a pipe");
        goto fail;
    }
    p->start_ns = mono_ns();
    int e = plat_thread_start(&p->thread, probe_main, p);
    if (e) {
        lb_fail_errno(err, e, "rtt: cannot start the probe thread");
        goto fail;
    }
    *out = p;
    return 0;
fail:
    probe_free(p);
    return -1;
}

void rtt_stop(struct rtt_probe *p, struct rtt_result *out)
{
    /* One byte always fits in the empty pipe. */
    while (write(p->stop_pipe[1], "", 1) < 0 && errno == EINTR)
        ;
    pthread_join(p->thread, NULL);
    *out = p->res;
    memset(&p->res, 0, sizeof(p->res));
    probe_free(p);
}

